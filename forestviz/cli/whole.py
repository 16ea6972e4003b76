"""``forestviz global``: the whole model through its explanations, as the Forest page shows it
(:class:`forestviz.app.whole_model.WholeModel`), written to a folder: the tables as CSV or
Parquet and the figures as one HTML file.

Files (each through :func:`forestviz.io.safe_write.write_file`: never through a link, never
half-written): ``importance`` (mean |contribution| per column with its spread), ``contributions``
(every held-out row's base value, prediction and contribution per column), ``trust`` (per row:
same top reasons among similar rows, same heaviest trees, compacity), ``partial_dependence``
(per column and grid value, the average prediction) and ``figures.html`` (the importance bars,
the beeswarm, and for the :data:`FIGURE_COLUMNS` most important columns their dependence and
partial dependence; plotly's script embedded once, nothing fetched).
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from forestviz.cli import progress as bars
from forestviz.explain.plots import population as population_plots
from forestviz.io.export import csv_bytes
from forestviz.io.safe_write import write_file

FIGURE_COLUMNS = 10


def table_bytes(frame: pd.DataFrame, kind: str) -> bytes:
    """``frame`` as spreadsheet-safe CSV (:func:`forestviz.io.export.csv_bytes`) or Parquet."""
    if kind == "csv":
        return csv_bytes(frame)
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def tables(whole) -> dict[str, pd.DataFrame]:
    """The global tables of a :class:`~forestviz.app.whole_model.WholeModel`, by file stem."""
    population = whole.population()
    contributions = pd.DataFrame(population.contributions,
                                 columns=[f"contribution[{c}]" for c in population.columns])
    contributions.insert(0, "prediction", population.prediction)
    contributions.insert(0, "base_value", population.base)
    contributions.insert(0, "id", population.ids.astype(str))
    curves = []
    for column in population.columns:
        found = whole.partial_dependence(column)
        curves.append(pd.DataFrame({"column": column, "value": found.grid.astype(str),
                                    "average": found.average}))
    return {"importance": population.importance(), "contributions": contributions,
            "trust": whole.trust(), "partial_dependence": pd.concat(curves, ignore_index=True)}


def figures_html(whole) -> str:
    """The page's figures in one self-contained HTML document (plotly's script once)."""
    population = whole.population()
    table = population.importance()
    figures = [population_plots.contribution_importance(table, population.target),
               population_plots.beeswarm(population)]
    for column in table["column"].iloc[:FIGURE_COLUMNS]:
        figures.append(population_plots.dependence_figure(population.dependence(column), column,
                                                          population.target))
        figures.append(population_plots.partial_dependence_figure(
            whole.partial_dependence(column), population.target))
    parts = [figure.to_html(full_html=False, include_plotlyjs=i == 0)
             for i, figure in enumerate(figures)]
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>forestviz: "
            "the whole model</title></head><body>" + "".join(parts) + "</body></html>")


def write_global_views(args, bench, out: Path) -> int:
    """Write the global tables and figures of ``bench``'s model into the folder ``out``."""
    whole = bench.whole()
    with bars.stages("explaining the held-out rows", args.quiet) as progress:
        progress("contributions", 0.0)
        found = tables(whole)
        progress("figures", 0.8)
        page = figures_html(whole)
    written = []
    for stem, frame in found.items():
        target = out / f"{stem}.{args.format}"
        write_file(target, table_bytes(frame, args.format), force=args.force)
        written.append(target)
    target = out / "figures.html"
    write_file(target, page.encode("utf-8"), force=args.force)
    written.append(target)
    for target in written:
        bars.OUTPUT.print(bars.Text(str(target)))
    return 0
