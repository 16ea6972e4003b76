"""A self-contained HTML report of an :class:`~forestviz.explain.Explanation`.

The report works offline: plotly's JavaScript is embedded inline from the installed package
(``plotly.offline.get_plotlyjs``), tree drawings are embedded as ``data:`` URIs and nothing
refers to a network address. Every user-provided text (feature and class names, row ids,
values) is HTML-escaped; plotly's figure JSON escapes ``<``, ``>`` and ``/`` itself.

The page fits the width of A4 (190 mm of text) whatever the names and values: names are cut to
``NAME_LIMIT`` characters (:mod:`forestviz.names`) with the whole name in a ``title``
(shown on hover) and in a closing table of full names; tables have a fixed layout and cells
wrap long words; images and charts shrink to the page.
"""

from __future__ import annotations

import base64
import html
import numbers
from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from forestviz.explain.narrative import (
    interval_note,
    interval_text,
    spread_text,
    target_column,
    why,
)
from forestviz.explain.plots.contributions import contribution_waterfall, contributions_by_tree
from forestviz.explain.plots.density import attention_kde
from forestviz.explain.plots.row_vs_training import row_vs_median
from forestviz.explain.plots.ternary import simplex_figure
from forestviz.explain.plots.tree_weights import tree_weight_bars
from forestviz.names import NAME_LIMIT, DisplayNames

_STYLE = """
@page{size:A4;margin:10mm}
body{font-family:system-ui,sans-serif;margin:2em auto;padding:0 .5em;max-width:190mm;
color:#222;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:.5em 0 1.5em;table-layout:fixed;width:100%}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;overflow-wrap:anywhere}
th{background:#f2f4f7}.card{font-size:1.3em;background:#f2f6fb;padding:.8em 1em}
.fragile{background:#fff3cd}img,.plotly-graph-div{max-width:100%}
.warning{background:#fff3cd;padding:.4em .8em}
img.tree{border:1px solid #ddd}
table.names th:first-child{width:30%}table.names td{word-break:break-all}
"""
# Columns whose cells are names (cut like column names); other cells are values that wrap.
_NAME_COLUMNS = frozenset({"feature", "column", "class", "id", "outcome"})


def figures(explanation) -> dict[str, go.Figure]:
    """The row's standard figures: ``weights`` (stacked (1−ε)·D and ε·w when known),
    ``scores`` (ERF score S), ``kde`` (ABRF Fig. 3, with the Softmax weights D when known),
    ``simplex`` (ABRF Fig. 1: D, w and α = (1−ε)·D + ε·w) and ``features`` (the row's
    percentiles against the training medians, for the numeric columns the row has a value in;
    absent when it has none), and with contributions ``contributions`` (a waterfall from the
    weighted base value to the prediction, per column) and ``contributions_by_tree`` (what the
    top trees add per column)."""
    e = explanation
    parts = e.weight_parts
    out = {"weights": tree_weight_bars(e.tree_weights, parts=parts, top_k=len(e.top_trees))}
    if e.tree_scores is not None:
        out["scores"] = tree_weight_bars(e.tree_scores["S"], top_k=len(e.top_trees),
                                               label="tree score S",
                                               share_of_prediction=False)
    softmax = None
    if parts is not None and parts[0].sum() > 0:
        softmax = parts[0] / parts[0].sum()  # D = (1−ε)·D / (1−ε)
    out["kde"] = attention_kde(e.tree_weights, softmax)
    # ABRF Fig. 1; without a contamination part the sub-simplex is the point α itself
    D, eps = (e.tree_weights, 0.0) if softmax is None else (softmax, e.eps)
    w = np.full(e.n_trees, 1.0 / e.n_trees) if e.w is None else e.w
    out["simplex"] = simplex_figure(D, w, eps, alpha=e.tree_weights)
    if e.contributions is not None:
        column = target_column(e)
        c = e.contributions
        pick = (lambda a: a) if column is None else (lambda a: a[..., column])
        target = "the prediction" if column is None else f"P({e.classes[column]})"
        values = e.features.set_index("feature")["value"]
        out["contributions"] = contribution_waterfall(
            pick(c.base_value), pick(c.total), c.feature_names, target=target,
            value_texts=[values[name] for name in c.feature_names])
        out["contributions_by_tree"] = contributions_by_tree(
            pick(c.weighted_per_tree), c.feature_names, e.top_trees, target=target)
    numbers = e.features[(e.features["kind"] == "numeric") & ~e.features["missing"]]
    if len(numbers):  # percentiles mean something for numbers given, not levels or fill-ins
        out["features"] = row_vs_median(numbers)
    return out


def tree_drawings(model, explanation, context, *, mode="path") -> dict[int, str]:
    """SVG drawings of the explanation's top trees with the row's path highlighted
    (:func:`forestviz.explain.treeviz.render_tree`, cached there), keyed by tree index, for
    :func:`to_html`. ``context``: the model's :class:`~forestviz.explain.treeviz.TreeContext`."""
    from forestviz.explain.treeviz import render_tree  # dtreeviz and matplotlib: only when drawing

    return {int(k): render_tree(model, int(k), explanation.row, context=context, mode=mode)
            for k in explanation.top_trees}


def _text(value) -> str:
    if isinstance(value, float | np.floating):
        return f"{value:.4g}"
    return html.escape(str(value))


def _name(names: DisplayNames, value) -> str:
    """A user-given name (column, feature, class, id) as the report shows it: escaped, cut to
    ``NAME_LIMIT`` characters and, when cut, whole in a ``title`` attribute. Numbers are
    values (:func:`_text`)."""
    if isinstance(value, numbers.Number):
        return _text(value)
    shown = html.escape(names(value))
    if not names.is_shortened(value):
        return shown
    return f'<span title="{html.escape(str(value))}">{shown}</span>'


def _table(frame: pd.DataFrame, names: DisplayNames, row_classes=None) -> str:
    """An HTML table: column names and the cells of ``_NAME_COLUMNS`` through :func:`_name`."""
    head = "".join(f"<th>{_name(names, c)}</th>" for c in frame.columns)
    shows = [partial(_name, names) if c in _NAME_COLUMNS else _text for c in frame.columns]
    rows = []
    for i, values in enumerate(frame.itertuples(index=False)):
        cls = f' class="{row_classes[i]}"' if row_classes is not None and row_classes[i] else ""
        cells = "".join(f"<td>{show(v)}</td>" for show, v in zip(shows, values, strict=True))
        rows.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _tree_value(e, value, names) -> str:
    """What a tree says (a leaf value or class probabilities) with the class names cut."""
    if e.task == "regression":
        return f"{value:.4g}"
    return ", ".join(f"P({_name(names, c)}) = {p:.2f}"
                     for c, p in zip(e.classes, value, strict=True))


def _rule(e, names) -> str:
    """The decision rule in words, with the class names in it cut as everywhere else (longest
    first, so a name inside another is not cut twice)."""
    rule = e.decision_rule
    for c in sorted(map(str, e.classes), key=len, reverse=True):
        if names.is_shortened(c):
            rule = rule.replace(c, names(c))
    return _text(rule)


def _prediction(e, names) -> str:
    if e.task == "regression":
        card = f"Predicted value: <b>{e.prediction:.4g}</b>"
        if e.offset:
            card += (f" = initial value {e.offset:.4g} + Σ<sub>k</sub> α<sub>k</sub>·"
                     "V<sub>k</sub> (weighted tree values)")
        return f'<p class="card">{card}</p>'
    probabilities = pd.DataFrame({"class": e.classes, "probability": e.prediction})
    return (f'<p class="card">Predicted class: <b>{_name(names, e.predicted_class)}</b></p>'
            f"<p>Decision rule: {_rule(e, names)}.</p>{_table(probabilities, names)}")


def _trust(e, names) -> str:
    """The calibrated interval, the sentence of why and the warnings."""
    parts = []
    spread = spread_text(e, names)
    if spread is not None:
        parts.append(f"<p>{_text(spread[0].upper() + spread[1:])}.</p>")
    if e.interval is not None:
        text = interval_text(e)
        parts.append(f"<p>{_text(text[0].upper() + text[1:])}: {_text(interval_note(e))}.</p>")
    parts.append(f'<p class="why"><b>Why:</b> {_text(why(e, names))}</p>')
    if e.missing:
        parts.append("<p>Missing in this row (the model used the training median, or no "
                     f"level): {', '.join(_name(names, c) for c in sorted(e.missing))}.</p>")
    parts.extend(f'<p class="warning">{_text(w)}</p>' for w in e.warnings)
    return "".join(parts)


def _full_names(names: DisplayNames) -> str:
    """The closing table of every name shown cut (or with a " #k" suffix), in full."""
    shortened = names.shortened()
    if not shortened:
        return ""
    rows = "".join(f"<tr><td>{html.escape(shown)}</td><td>{html.escape(full)}</td></tr>"
                   for full, shown in shortened.items())
    return (f"<h2>Full names</h2><p>Names longer than {NAME_LIMIT} characters are cut in this "
            "report, ending in “…” (names that would then look alike get “#2”, “#3”, …); "
            "here they are in full.</p><table class=\"names\"><thead><tr><th>shown as</th>"
            f"<th>full name</th></tr></thead><tbody>{rows}</tbody></table>")


def _tree_section(e, position, k, svg, names) -> str:
    title = f"Tree {k + 1}: weight {e.tree_weights[k]:.3f}"
    if e.tree_scores is not None:
        title += f", score S {e.tree_scores['S'][k]:.3f}"
    steps = e.paths[position]
    sentences = [e.step_sentence(s, names) for s in steps]
    path = pd.DataFrame({
        "depth": [s.depth for s in steps], "test": sentences,
        "margin (value − threshold)": [s.margin for s in steps],
        "most fragile": ["yes" if s.fragile else "" for s in steps]})
    drawing = "" if svg is None else (
        f'<img class="tree" alt="{_text(title)}" src="data:image/svg+xml;base64,'
        f'{base64.b64encode(svg.encode()).decode()}">')
    body = _table(path, names, ["fragile" if s.fragile else "" for s in steps]) if steps else (
        "<p>This tree is a single leaf.</p>")
    nearest = "".join(
        f"<li>if {_text(e.flips_sentence(other, names))}, this tree would say "
        f"{_tree_value(e, np.asarray(other.prediction), names)}</li>"
        for other in (e.alternatives[position] if e.alternatives else ()))
    others = f"<p>Nearest other leaves (one test flipped):</p><ul>{nearest}</ul>" if nearest else ""
    said = _tree_value(e, e.tree_predictions[k], names)
    return (f"<h3>{title}</h3><p>This tree says: {said}.</p>{drawing}"
            f"<p>The row's path (the highlighted test is the closest call):</p>{body}{others}")


def to_html(explanation, *, tree_svgs: Mapping[int, str] | None = None) -> str:
    """The report: prediction, concentration of the weights, charts, the top trees (drawing
    when ``tree_svgs`` has it, keyed by tree index from 0, e.g. from
    :func:`forestviz.explain.treeviz.render_tree`, and path table), the row against the training
    medians and the nearest training rows, then the full names of the names it shows cut."""
    e = explanation
    tree_svgs = dict(tree_svgs or {})
    unknown = set(tree_svgs) - {int(k) for k in e.top_trees}
    if unknown:
        raise ValueError(f"tree_svgs has trees that are not top trees: {sorted(unknown)}")
    names = DisplayNames()
    subject = heading = "this row"
    if e.row_id is not None:  # <title> holds text only: no title attribute there
        subject, heading = f"row {html.escape(names(e.row_id))}", f"row {_name(names, e.row_id)}"
    charts = "".join(
        fig.to_html(full_html=False, include_plotlyjs=False, config={"displaylogo": False})
        for fig in figures(e).values())
    prediction = _prediction(e, names)
    trees = "".join(_tree_section(e, i, int(k), tree_svgs.get(int(k)), names)
                    for i, k in enumerate(e.top_trees))
    original = "" if e.original_row is None else (
        "<h2>The row as entered</h2>" + _table(pd.DataFrame(
            {"column": e.original_row.index, "value": e.original_row.to_numpy()}), names))
    features = e.features.assign(missing=e.features["missing"].map({True: "missing",
                                                                    False: ""}))
    tables = _table(features.drop(columns="kind"), names) + original
    neighbors = _table(e.neighbors, names)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>forestviz explanation of {subject}</title><style>{_STYLE}</style>
<script>{get_plotlyjs()}</script></head><body>
<h1>Explanation of {heading}</h1>
<p>Model: {_text(e.model_name)} with {e.n_trees} trees.</p>
<h2>Prediction</h2>{prediction}{_trust(e, names)}
<h2>How concentrated the forest's attention is</h2>
<p>Effective number of trees 1/Σα² = {e.effective_trees:.1f} of {e.n_trees}
(equal weights would give {e.n_trees}); the 5 heaviest trees carry
{e.top5_share:.0%} of the weight.</p>
<h2>Charts</h2>{charts}
<h2>The trees that carry this prediction</h2>{trees}
<h2>This row beside the training data</h2>
<p>Percentile (numeric columns): the share of training rows with a lower value (ties count
half). Share (categorical columns): the share of training rows with the row's level. A missing
value is marked: the model used the training median (numbers) or no level (categories).</p>
{tables}
<h2>The most similar training rows</h2>
<p>Distance in standard deviations of each feature (Euclidean).</p>{neighbors}
{_full_names(names)}
</body></html>
"""
