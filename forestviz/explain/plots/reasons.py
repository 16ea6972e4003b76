"""The reasons on both sides as a compact waterfall
(:class:`~forestviz.explain.row.reasons.Reasons`): from the base value, the strongest columns
raising the target number, then those lowering it, the other columns as one bar, and the prediction;
every bar labelled with its push."""

from __future__ import annotations

from dataclasses import replace

import plotly.graph_objects as go

from forestviz.explain.plots.conventions import (
    HALF,
    STRONG,
    TOTAL,
    finish,
    plain,
    unique_labels,
)
from forestviz.names import elide, elide_unique
from forestviz.numbers import counted, signed_number

WRAP = 22  # characters of a bar's label beyond which its value goes on a second line
ONE_LINE = 26  # characters of a one-line label (the glance's): the value cut to VALUE
VALUE = 10


def waterfall_steps(reasons) -> tuple[list[str], list[float], list[str]]:
    """(labels, numbers, measures) of the waterfall, top to bottom: "base value" (absolute),
    each raising then each lowering column (relative), "k other columns" (relative, the sum
    of the folded contributions; absent when none is folded) and the target (total). The
    absolute bar plus the relative ones sum to the prediction."""
    shown = [*reasons.raising, *reasons.lowering]
    labels = unique_labels([f"{r.column} = {r.value}" for r in shown], "", len(shown))
    numbers = [r.contribution for r in shown]
    if reasons.folded:
        labels.append(counted(len(reasons.folded), "other column"))
        numbers.append(reasons.rest)
    return (["base value", *labels, plain(reasons.target)],
            [reasons.base, *numbers, reasons.prediction],
            ["absolute", *(["relative"] * len(numbers)), "total"])


def _one_line(labels: list[str]) -> list[str]:
    """"Mean blood p… = 93.0": each label on one line of at most :data:`ONE_LINE`
    characters, a "column = value" with its value cut to :data:`VALUE` characters and its
    column to what the longest value leaves; all distinct (" #2")."""
    parts = [label.partition(" = ") for label in labels]
    values = [elide(value, VALUE) for _, _, value in parts]
    room = max(ONE_LINE - 3 - max(map(len, values)), 6)
    heads = iter(elide_unique([head for head, sep, _ in parts if sep], room))
    return elide_unique([f"{next(heads)} = {value}" if sep else label
                         for (_, sep, _), value, label in zip(parts, values, labels,
                                                              strict=True)], ONE_LINE)


def reasons_waterfall(reasons, *, width: int = HALF, height: int | None = None,
                      one_line: bool = False) -> go.Figure:
    """The compact two-sided waterfall of ``reasons``; each bar's push printed on it, the
    prediction's and the base's as the tiles print them. Tall enough for every line of its
    labels (a two-line label takes two rows), so no label overlaps its neighbour: ``height``
    when that is enough. ``one_line``: each label on one line (:func:`_one_line`, whole on
    hover)."""
    labels, numbers, measures = waterfall_steps(reasons)
    texts = [signed_number(n) for n in numbers]
    texts[0], texts[-1] = reasons.ends  # the base and the prediction as the tiles print them
    if one_line:
        shown = _one_line(labels)
    else:  # a long "column = value" on two lines, the column cut to WRAP characters (whole
        # on hover): the waterfall sits in half a narrow window
        heads = elide_unique([label.partition(" = ")[0] for label in labels], WRAP)
        shown = [f"{head}<br>= {label.partition(' = ')[2]}"
                 if len(label) > WRAP and " = " in label else label
                 for head, label in zip(heads, labels, strict=True)]
    fig = go.Figure(go.Waterfall(
        orientation="h", y=shown, x=numbers, measure=measures, text=texts,
        textposition="outside", cliponaxis=False, hovertext=[f"{label}: {text}" for label, text
                                           in zip(labels, texts, strict=True)],
        hoverinfo="text", increasing={"marker": {"color": STRONG[1]}},
        decreasing={"marker": {"color": STRONG[0]}}, totals={"marker": {"color": TOTAL}}))
    target = plain(reasons.target)
    return finish(
        fig, f"Reasons both ways: {target}",
        f"Orange raises {target}, blue lowers it; the other columns as one bar. Base value: "
        "the trees' expected output, weighted by this row's tree weights.", width=width,
        xaxis={"title": {"text": target}},
        margin={"r": 70},  # the pushes printed outside the bars, right of the last
        yaxis={"type": "category", "autorange": "reversed", "automargin": True},
        showlegend=False, height=height, bars=sum(label.count("<br>") + 1 for label in shown))


def fitted_waterfall(reasons, *, width: int, height: int) -> go.Figure:
    """The waterfall of ``reasons`` in ``height`` pixels (the glance's, whose height keeps the
    summary on the first screen) with no label over its neighbour: every label on one line
    and, when the bars still need more rows than the height holds, fewer columns each way,
    the others in the "k other columns" bar (:func:`fold`). The
    bars add up as before; every column's push stays in the sentence and the record."""
    for shown in range(max(len(reasons.raising), len(reasons.lowering)), -1, -1):
        fig = reasons_waterfall(fold(reasons, shown), width=width, height=height,
                                one_line=True)
        if fig.layout.height <= height:
            break
    return fig


def fold(reasons, shown: int):
    """``reasons`` (:class:`~forestviz.explain.row.reasons.Reasons`) with at most ``shown`` columns
    each way, the weaker ones folded into ``rest``: the same base, prediction and sides."""
    gone = (*reasons.raising[shown:], *reasons.lowering[shown:])
    return replace(reasons, raising=reasons.raising[:shown], lowering=reasons.lowering[:shown],
                   rest=reasons.rest + sum(r.contribution for r in gone),
                   folded=(*(r.column for r in gone), *reasons.folded))
