"""Feature contributions of one row (:mod:`forestviz.explain.row.contributions`): the total per
column as a waterfall from the base value to the prediction, and the share each heavy tree adds
per column (the attention forest's own view: contributions through the trees that carry the
row)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from forestviz.explain.plots.conventions import (
    STRONG,
    TOTAL,
    WIDTH,
    finish,
    plain,
    tree_names,
    unique_labels,
)
from forestviz.numbers import counted, plain_number, signed_number

SHOWN = 10  # columns drawn one by one; the rest share one bar


def _largest(values, names, shown):
    """(names, labels, values) of the ``shown`` largest |values|, the rest summed into one
    entry named "k other columns"."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(-np.abs(values), kind="stable")
    head, rest = order[:shown], order[shown:]
    kept = [names[i] for i in head]
    labels = unique_labels(kept, "", head.size)
    numbers = values[head].tolist()
    if rest.size:
        kept.append(None)
        labels.append(counted(int(rest.size), "other column"))
        numbers.append(float(values[rest].sum()))
    return kept, labels, numbers


def contribution_waterfall(base_value: float, contributions, names, *, value_texts=None,
                           target: str = "prediction", shown: int = SHOWN,
                           width=WIDTH) -> go.Figure:
    """From the weighted base value (Σ_k α_k·E[f_k] + offset) to the prediction, column by
    column, largest |contribution| first; the columns past ``shown`` share one step.

    ``contributions`` (m,) per column, ``names`` their names, ``value_texts`` the row's values
    as shown in the hover (e.g. "13.3", "F", "missing"), ``target`` what is predicted (e.g.
    "P(malignant)")."""
    contributions = np.asarray(contributions, dtype=float).ravel()
    if contributions.size != len(names) or contributions.size == 0:
        raise ValueError("one contribution per column name is needed")
    texts = dict(zip(names, value_texts, strict=True)) if value_texts is not None else {}
    kept, labels, numbers = _largest(contributions, list(names), shown)
    prediction = float(base_value) + float(contributions.sum())
    hover = [f"{label}: {signed_number(number, 4)}" if name not in texts
             else f"{plain(name)} = {plain(texts[name])}: {signed_number(number, 4)}"
             for name, label, number in zip(kept, labels, numbers, strict=True)]
    fig = go.Figure(go.Waterfall(
        orientation="h", y=["base value", *labels, plain(target)],
        x=[float(base_value), *numbers, prediction],
        measure=["absolute"] + ["relative"] * len(numbers) + ["total"],
        hovertext=[f"weighted base value: {plain_number(float(base_value), 4)}", *hover,
                   f"{plain(target)}: {plain_number(prediction, 4)}"], hoverinfo="text",
        increasing={"marker": {"color": STRONG[1]}},
        decreasing={"marker": {"color": STRONG[0]}},
        totals={"marker": {"color": TOTAL}}))
    return finish(
        fig, f"What moves {plain(target)}: each column's contribution",
        "From the base value (the trees' expected output, weighted by this row's tree weights) "
        "to the prediction: each bar is what a column adds through the trees that carry this "
        "row. Orange raises, blue lowers.", width=width,
        xaxis={"title": {"text": plain(target)}},
        yaxis={"title": {"text": "Column"}, "type": "category", "autorange": "reversed"},
        showlegend=False)


def contributions_by_tree(weighted_per_tree, names, trees, *, target: str = "prediction",
                          shown: int = SHOWN, width=WIDTH) -> go.Figure:
    """α_k·φ_kj of the given ``trees`` (indices from 0: the trees the page and the report draw,
    chosen by weight, by ERF's tree score S or by what they give this row) for the columns with
    the largest total over them: which of those trees carries which column's contribution.

    ``weighted_per_tree`` (T, m): each tree's contributions times its weight."""
    table = np.asarray(weighted_per_tree, dtype=float)
    trees = np.asarray(trees, dtype=int)
    if table.ndim != 2 or table.shape[1] != len(names) or trees.size == 0:
        raise ValueError("weighted_per_tree must be (T, m) with one name per column")
    chosen = table[trees]
    order = np.argsort(-np.abs(chosen.sum(axis=0)), kind="stable")[:shown]
    columns = unique_labels([names[j] for j in order], "", order.size)
    labels = tree_names(trees.size, trees + 1)
    fig = go.Figure()
    for i, label in enumerate(labels):
        fig.add_trace(go.Bar(
            y=columns, x=chosen[i, order], orientation="h", name=label,
            hovertext=[f"{label}, {c}: {signed_number(v, 4)}" for c, v in
                       zip(columns, chosen[i, order], strict=True)], hoverinfo="text"))
    return finish(
        fig, "Contributions through the trees drawn below",
        f"Each tree's contribution to {plain(target)} times its weight for this row, for the "
        "columns these trees use most. Bars of one column add up to what these trees give it.",
        width=width,
        barmode="relative", xaxis={"title": {"text": f"weighted contribution to {plain(target)}"}},
        yaxis={"title": {"text": "Column"}, "type": "category", "autorange": "reversed"})
