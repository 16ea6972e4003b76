"""A self-contained HTML report of an :class:`~forestviz.explain.Explanation`, fit for a
record. Its first page is the Explain page's summary, read off the same
:class:`~forestviz.explain.glance.Glance` (:mod:`.report_summary`): who, what and when
(:mod:`.report_record`), the prediction with its interval, the reasons both ways, the alarm of
a missing value that could change it, the most similar training rows. The technical appendix
follows only when asked for: the model's settings and held-out metrics next to the baselines,
the prediction in detail, the contributions, the charts, the trees with their paths, the row
(values marked missing or edited) and the most similar training rows in full.
:mod:`.report_pdf` prints the same document to PDF.

The report works offline and holds no script: the charts are SVG pictures of the plotly
figures (:mod:`.report_charts`) and the tree drawings are SVG too, each embedded as a ``data:``
URI; nothing refers to a network address. Every user-provided text is escaped
(:mod:`.report_markup`).

The page fits the width of A4 (190 mm of text) whatever the names and values: names are cut to
``NAME_LIMIT`` characters (:mod:`forestviz.names`) with the whole name in a ``title``
(shown on hover) and in a closing table of full names; tables have a fixed layout and cells
wrap long words; the similar rows are laid side by side (one column per row, however many
columns the data has); images shrink to the page.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from forestviz.explain.glance import glance as glance_of
from forestviz.explain.narrative import target_column
from forestviz.explain.plots import conventions
from forestviz.explain.plots.alt import chart_text
from forestviz.explain.plots.contributions import contribution_waterfall, contributions_by_tree
from forestviz.explain.plots.conventions import WIDTH
from forestviz.explain.plots.density import attention_kde
from forestviz.explain.plots.row_vs_training import row_vs_median
from forestviz.explain.plots.ternary import simplex_figure
from forestviz.explain.plots.tree_weights import tree_weight_bars, weight_order
from forestviz.explain.report_charts import UndrawableFigure, figure_svg, plain_text
from forestviz.explain.report_glossary import glossary_section
from forestviz.explain.report_markup import (
    full_names,
    sentence,
    side_by_side,
    svg_image,
)
from forestviz.explain.report_markup import name as _name
from forestviz.explain.report_markup import table as _table
from forestviz.explain.report_names import typed_identifier
from forestviz.explain.report_record import (
    ReportContext,
    marks,
    model_section,
    record_section,
    rule_text,
)
from forestviz.explain.report_summary import summary_section
from forestviz.explain.tree_section import tree_sections
from forestviz.names import NAME_LIMIT, DisplayNames, elide
from forestviz.numbers import plain_number, signed_number

_STYLE = """
@page{size:A4;margin:12mm 10mm;@bottom-right{content:"page " counter(page) " of "
counter(pages);font:8pt "DejaVu Sans",sans-serif;color:#666}}
body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:2em auto;padding:0 .5em;
max-width:190mm;color:#222;overflow-wrap:anywhere;font-size:10pt}
@media print{body{margin:0;padding:0;max-width:none}}
h2,h3,dt{break-after:avoid}dt{font-weight:bold}tr,img{break-inside:avoid}
table{border-collapse:collapse;margin:.5em 0 1.5em;table-layout:fixed;width:100%}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;overflow-wrap:anywhere}
th{background:#f2f4f7;overflow-wrap:break-word;font-size:.85em;padding:.25em .3em}
.card{font-size:1.3em;background:#f2f6fb;padding:.8em 1em}
.fragile,.edited{background:#fff3cd}img{max-width:100%}
.warning{background:#fff3cd;padding:.4em .8em}p.cut{font-size:.9em;color:#555}
img.tree,img.chart{border:1px solid #ddd;display:block;margin:.5em 0}
table.names th:first-child{width:30%}table.names td{word-break:break-all}
table.record th{width:28%}table.metrics th:first-child,table.side th:first-child,
table.features th:first-child{width:24%}
.summary .card{font-size:1.15em;margin:.4em 0}.summary h2{font-size:1.1em;margin:.6em 0 .2em}
.summary p{margin:.3em 0}.summary table{margin:.3em 0 .6em;font-size:.9em}
.summary td,.summary th{padding:.1em .4em}p.note{font-size:.9em;color:#333}
img.reasons{width:100mm;display:block;margin:.2em 0}.summary{font-size:.95em}
h2.appendix{break-before:page}
"""


FIGURES = frozenset({"weights", "scores", "kde", "simplex", "contributions",
                     "contributions_by_tree", "features"})  # what figures() can build
WEIGHT_FIGURES = frozenset({"weights", "kde", "simplex"})  # the tree weights' own


def figures(explanation, *, width: int = WIDTH, trees=None,
            names=None) -> dict[str, go.Figure]:
    """The row's standard figures: ``weights`` (stacked (1−ε)·D and ε·w when known),
    ``scores`` (ERF score S), ``kde`` (ABRF Fig. 3, with the Softmax weights D when known),
    ``simplex`` (ABRF Fig. 1: D, w and α = (1−ε)·D + ε·w) and ``features`` (the row's
    percentiles against the training medians, for the numeric columns the row has a value in;
    absent when it has none), and with contributions ``contributions`` (a waterfall from the
    weighted base value to the prediction, per column) and ``contributions_by_tree`` (what the
    top trees add per column).

    ``width``: the pixels of the page; ``simplex`` and ``features`` are laid out across it,
    the others for half of it (two side by side). ``trees``: the trees the page draws (a
    :class:`~forestviz.explain.tree_choice.TreeChoice`'s), whose contributions
    ``contributions_by_tree`` shows; by default the explanation's top trees. ``names``: the
    figures wanted, the others not built (by default all)."""
    e = explanation
    wanted = FIGURES if names is None else frozenset(names)
    parts = e.weight_parts
    half = conventions.half(width)
    top = [int(k) for k in e.top_trees]  # equal weights: these are the trees named
    out = {}
    if "weights" in wanted:
        out["weights"] = tree_weight_bars(e.tree_weights, parts=parts, top_k=len(e.top_trees),
                                          first=top, width=half)
    if e.tree_scores is not None and "scores" in wanted:
        out["scores"] = tree_weight_bars(e.tree_scores.S, top_k=len(e.top_trees), first=top,
                                         label="tree score S", share_of_prediction=False,
                                         width=half)
    softmax = None
    if parts is not None and parts[0].sum() > 0:
        softmax = parts[0] / parts[0].sum()  # D = (1−ε)·D / (1−ε)
    if "kde" in wanted:
        out["kde"] = attention_kde(e.tree_weights, softmax, width=half)
    if "simplex" in wanted:
        # ABRF Fig. 1; without a contamination part (ε = 0) only the point α itself
        eps = 0.0 if e.w is None or (softmax is None and e.eps < 1.0) else e.eps
        heavy = weight_order(e.tree_weights, top)  # the two heaviest trees, then the others
        groups = [[int(heavy[0])], [int(heavy[1])], sorted(int(k) for k in heavy[2:])]
        out["simplex"] = simplex_figure(softmax, e.w, eps, alpha=e.tree_weights, width=width,
                                        groups=groups if e.n_trees > 3 else None)
    if e.contributions is not None:
        column = target_column(e)
        c = e.contributions
        pick = (lambda a: a) if column is None else (lambda a: a[..., column])
        target = "the prediction" if column is None else f"P({elide(e.classes[column])})"
        if "contributions" in wanted:
            values = e.features.set_index("feature")["value"]
            out["contributions"] = contribution_waterfall(
                pick(c.base_value), pick(c.total), c.feature_names, target=target,
                value_texts=[values[name] for name in c.feature_names], width=half)
        if "contributions_by_tree" in wanted:
            out["contributions_by_tree"] = contributions_by_tree(
                pick(c.weighted_per_tree), c.feature_names,
                e.top_trees if trees is None else trees, target=target, width=half)
    numbers = e.features[(e.features["kind"] == "numeric") & ~e.features["missing"]]
    if len(numbers) and "features" in wanted:  # percentiles mean something for numbers
        # given, not for levels or fill-ins
        out["features"] = row_vs_median(numbers, width=width)
    return out


def _prediction(e, names) -> str:
    if e.task == "regression":
        card = f"Predicted value: <b>{e.value_texts(e.prediction)[0]}</b>"
        if e.boosting:
            card += (f" = initial value {plain_number(e.offset, 4)} + Σ<sub>k</sub> α<sub>k</sub>·"
                     "V<sub>k</sub> (weighted tree values)")
        return f'<p class="card">{card}</p>'
    probabilities = pd.DataFrame({"class": e.classes, "probability": e.prediction})
    return (f'<p class="card">Predicted class: <b>{_name(names, e.predicted_class)}</b></p>'
            f"<p>Decision rule: {rule_text(e, names)}.</p>{_table(probabilities, names)}")


def _tree_section(section, svg, names) -> str:
    """One tree's :class:`~forestviz.explain.tree_section.TreeSection` as HTML."""
    title = sentence(section.title)
    drawing = "" if svg is None else svg_image(svg, section.drawing_text, "tree")
    rows = ["fragile" if f else "" for f in section.fragile]
    body = (_table(section.path, names, rows) if len(section.path)
            else "<p>This tree is a single leaf.</p>")
    nearest = "".join(f"<li>{sentence(said)}</li>" for said in section.alternatives)
    others = f"<p>Nearest other leaves (one test flipped):</p><ul>{nearest}</ul>" if nearest else ""
    return (f"<h3>{title}</h3><p>This tree says: {sentence(section.says)}.</p>{drawing}"
            f"<p>The row's path (the highlighted test is the closest call):</p>{body}{others}")


def _trees_heading(choice) -> str:
    """The trees' heading and note as the Explain page says them (the
    :class:`~forestviz.explain.tree_choice.TreeChoice`'s), or the top trees' heading."""
    if choice is None:
        return "<h2>The trees that carry this prediction</h2>"
    note = "" if choice.note is None else f"<p>{sentence(choice.note)}</p>"
    return f"<h2>{sentence(choice.heading)}</h2>{note}"


def _contributions(e, names) -> str:
    """Each column's contribution, largest first, from the weighted base value to the
    prediction (the numbers of the waterfall chart)."""
    c = e.contributions
    if c is None:
        return ""
    column = target_column(e)
    pick = (lambda a: a) if column is None else (lambda a: a[..., column])
    target = "the predicted value" if column is None else f"P({names(e.classes[column])})"
    total = np.asarray(pick(c.total), dtype=float)
    values = e.features.set_index("feature")["value"]
    order = np.argsort(-np.abs(total), kind="stable")
    frame = pd.DataFrame({"column": [c.feature_names[j] for j in order],
                          "value": [values[c.feature_names[j]] for j in order],
                          "contribution": [f"{signed_number(total[j], 4)}" for j in order]})
    base = float(pick(c.base_value))
    ends = ([f"{plain_number(v, 4)}" for v in (base, base + total.sum())] if column is not None
            else e.value_texts(base, base + total.sum()))  # as the predicted value prints
    return (f"<h2>Contributions</h2><p>What each column adds to {html.escape(target)} through "
            "the trees that carry this row, from the base value (the trees' expected output "
            f"weighted by this row's tree weights), {ends[0]}, to {ends[1]} "
            f"(method: {sentence(c.method)}).</p>" + _table(frame, names, css="contributions"))


def _charts(e, trees) -> str:
    """Every figure of :func:`figures` as an SVG picture (or a note when one cannot be
    drawn); ``trees``: the trees the report draws."""
    parts = []
    for fig in figures(e, trees=trees).values():
        title = plain_text(fig.layout.title.text).replace("\n", " ")
        try:
            parts.append(svg_image(figure_svg(fig), chart_text(fig), "chart"))
        except UndrawableFigure:
            parts.append(f"<p>The chart “{sentence(title)}” is on the Explain page only.</p>")
    return ("<h2>Charts</h2><p>Pictures of the Explain page's interactive charts (there, "
            "pointing at a bar or point shows its numbers; here, the tables do).</p>"
            + "".join(parts))


def _row_tables(e, names, edited) -> str:
    """The row beside the training data, and the row as entered, each value marked missing or
    edited (with its value before the edit)."""
    features = e.feature_texts()  # as the Explain page shows it
    said = marks(e.features["feature"], e.missing, edited)
    features.insert(2, "marks", said)
    rows = _table(features, names, ["edited" if "edited" in m else "" for m in said],
                  css="features")
    if e.original_row is not None:
        columns = [str(c) for c in e.original_row.index]
        said = marks(columns, e.missing, edited)
        rows += "<h2>The row as entered</h2>" + _table(pd.DataFrame(
            {"column": columns, "value": e.original_row.to_numpy(), "marks": said}), names,
            ["edited" if "edited" in m else "" for m in said], css="entered")
    return rows


def _neighbors(e, names) -> str:
    """The most similar training rows side by side, the explained row first."""
    frame = e.neighbors
    heads = (frame["id"] if "id" in frame else frame["row"].map("row {}".format)).tolist()
    if "id" in frame:
        frame = frame.drop(columns="row")
    mine = {"id": "this row" if e.row_id is None else e.row_id, "distance": 0.0}
    values = e.features.set_index("feature")["value"]
    mine |= {c: values[c] for c in frame.columns if c in values.index}
    if e.original_row is not None:
        mine |= {c: v for c, v in e.original_row.items() if c in frame.columns}
    return side_by_side(frame, names, heads=heads, first=pd.Series(mine, dtype=object))


def _origin(context: ReportContext) -> str:
    """The model's origin warning, under the title, or nothing."""
    if context.origin_warning is None:
        return ""
    return f'<p class="warning" role="alert">{sentence(context.origin_warning)}</p>\n'


def _appendix(e, glance, context, names, edited, trees, shown) -> str:
    """The technical appendix, from a new page: the model and its held-out metrics, the
    prediction in detail (class probabilities, rule, how the trees disagree), the contributions,
    the weights, the charts, the trees, the row and the similar rows in full; last the
    glossary of the terms it uses (:mod:`.report_glossary`)."""
    spread = glance.spread  # the sentence the page shows under "How the forest reached it"
    return f"""<h2 class="appendix">Technical appendix</h2>
{model_section(e, context, names)}
<h2>The prediction in detail</h2>{_prediction(e, names)}
{"" if spread is None else f"<p>{sentence(spread)}</p>"}
{_contributions(e, names)}
<h2>How concentrated the forest's attention is</h2>
<p>Effective number of trees 1/Σα² = {e.effective_trees:.1f} of {e.n_trees}
(equal weights would give {e.n_trees}); the 5 heaviest trees carry
{e.top5_share:.0%} of the weight.</p>
{_charts(e, shown)}
{trees}
<h2>This row beside the training data</h2>
<p>Percentile (numeric columns): the share of training rows with a lower value (ties count
half). Share (categorical columns): the share of training rows with the row's level. A missing
value is marked: the model used the training median (numbers) or no level (categories). An
edited value (what-if) is marked with its value before the edit.</p>
{_row_tables(e, names, edited)}
<h2>The most similar training rows</h2>
<p>Distance in standard deviations of each feature (Euclidean); this row first.</p>
{_neighbors(e, names)}
{glossary_section()}"""


def _names_cut(names) -> str:
    """The one-page record's line on the names it cut (their table, which could push it onto a
    second page, is in the technical appendix)."""
    if not names.shortened():
        return ""
    return (f'<p class="cut">Names longer than {NAME_LIMIT} characters are cut here, ending in '
            "“…”; the technical appendix gives them in full.</p>")


def to_html(explanation, *, glance=None, appendix: bool = False,
            tree_svgs: Mapping[int, str] | None = None, context: ReportContext | None = None,
            edited: Mapping[str, object] | None = None, choice=None) -> str:
    """The report: on its first page the summary (:mod:`.report_summary`) of ``glance`` (the
    :class:`~forestviz.explain.glance.Glance` the Explain page shows; by default one built
    here, without the checks of missing values, which need the model) with the record (row,
    data set, model, date, version, missing and edited values, from ``context``; without one,
    the date and version); then, when ``appendix``, the technical appendix: the model's
    settings and held-out metrics next to the baselines, the prediction in detail, the
    contributions, the concentration of the weights, the charts, the trees shown (drawing when
    ``tree_svgs`` has it, keyed by tree index from 0, e.g. from
    :func:`~forestviz.explain.tree_drawings.tree_drawings`, and path table), the row against
    the training medians, the row as entered, the nearest training rows side by side; last the
    full names of the names it shows cut (without the appendix, a line saying that names are
    cut: their table could push the record onto a second page). ``edited``: the columns a
    what-if changed, each with its value before the edit
    (:func:`~forestviz.explain.report_record.edited_values`).
    ``choice``: the trees shown (a :class:`~forestviz.explain.tree_choice.TreeChoice`, as
    the Explain page shows them), by default the explanation's top trees."""
    e = explanation
    tree_svgs = dict(tree_svgs or {})
    shown = e.top_trees if choice is None else choice.trees
    unknown = set(tree_svgs) - {int(k) for k in shown}
    if unknown:
        raise ValueError(f"tree_svgs has trees that are not shown: {sorted(unknown)}")
    context = ReportContext() if context is None else context
    edited = dict(edited or {})
    names = DisplayNames()
    glance = glance_of(None, e, None, name=names) if glance is None else glance
    subject = heading = "this row"
    typed = typed_identifier(e.row_id)
    if typed == "":
        subject = heading = "a new patient"
    elif typed:
        subject, heading = (f"new patient {html.escape(names(typed))}",
                            f"new patient {_name(names, typed)}")
    elif e.row_id is not None:  # <title> holds text only: no title attribute there
        subject, heading = f"row {html.escape(names(e.row_id))}", f"row {_name(names, e.row_id)}"
    summary = summary_section(glance, record_section(e, context, names, edited),
                              appendix=appendix, names=names)
    rest = ""
    if appendix:
        trees = _trees_heading(choice) + "".join(
            _tree_section(section, tree_svgs.get(section.tree), names)
            for section in tree_sections(e, choice, name=names))
        rest = _appendix(e, glance, context, names, edited, trees, shown)
    created = html.escape(context.created.isoformat(timespec="seconds"))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="forestviz {html.escape(context.version)}">
<meta name="dcterms.created" content="{created}">
<title>forestviz explanation of {subject}</title><style>{_STYLE}</style></head><body>
<h1>Explanation of {heading}</h1>
{_origin(context)}{summary}
{rest}
{full_names(names) if appendix else _names_cut(names)}
</body></html>
"""
