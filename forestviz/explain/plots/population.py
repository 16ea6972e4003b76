"""The Forest page's views of the whole model through its explanations
(:mod:`forestviz.explain.whole.population`, :mod:`forestviz.explain.whole.partial_dependence`): the
importance of each column as the mean |contribution| over the held-out rows, a beeswarm of every
row's contribution per column coloured by the column's value, the dependence of one column's
contribution on its value, and partial dependence with the rows' ICE curves. Pure functions of
frames and arrays, like every module of :mod:`forestviz.explain.plots`.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from forestviz.explain.plots.conventions import PALE, STRONG, WIDTH, finish, plain
from forestviz.names import elide
from forestviz.numbers import number_text, plain_number, signed_number

BLUE, GREY, LIGHT = STRONG[0], "#bbbbbb", PALE[0]
SCALE = "RdBu_r"  # low values blue, high values red, as shap's summary plot
ICE_SHOWN = 60  # ICE curves drawn (the average is over all of them)


def _categories(labels: list[str]) -> dict:
    """Every bar or row named: plotly labels only some categories of a long axis."""
    return {"tickmode": "array", "tickvals": labels, "ticktext": labels, "automargin": True}


def contribution_importance(table: pd.DataFrame, target: str, *, width=WIDTH) -> go.Figure:
    """Bars of :meth:`Population.importance` (mean |contribution|, its standard deviation as
    the error bar, cut at 0 below: no |contribution| is negative), largest on top."""
    shown = table.iloc[::-1]
    labels = [plain(elide(c)) for c in shown["column"]]
    mean = shown["mean |contribution|"].to_numpy(dtype=float)
    spread = shown["spread (SD of |contribution|)"].to_numpy(dtype=float)
    fig = go.Figure(go.Bar(
        x=mean, y=labels, orientation="h",
        error_x={"type": "data", "symmetric": False, "array": spread,
                 "arrayminus": np.minimum(spread, mean), "color": "#888"},
        marker_color=BLUE,
        hovertext=[f"{plain(c)}: mean |contribution| {plain_number(m, 4)} (SD "
                   f"{plain_number(s, 3)}), mean {signed_number(v, 4)}, "
                   f"{share:.0%} of all movement" for c, m, s, v, share in shown[
                       ["column", "mean |contribution|", "spread (SD of |contribution|)",
                        "mean contribution", "share of all movement"]].itertuples(index=False)],
        hoverinfo="text"))
    return finish(fig, "Which columns move the predictions (held-out rows)",
                  f"Mean |contribution| to {plain(target)} over the held-out rows, each row "
                  "through its own tree weights; the whisker is the standard deviation (cut at 0: "
                  "no |contribution| is negative). The "
                  "sum of a row's contributions is its prediction less its base value.",
                  width=width, xaxis={"title": {"text": f"mean |contribution| to {target}"}},
                  yaxis=_categories(labels), height=max(300, 150 + 26 * len(labels)))


def _colour_values(values: pd.Series) -> np.ndarray:
    """A column's values as colours in [0, 1]: a number's rank among the rows' numbers, a
    level's rank among the levels; NaN where missing (drawn grey)."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        numbers = values.to_numpy(dtype=float, na_value=np.nan)
        ranks = pd.Series(numbers).rank(pct=True).to_numpy()
        return ranks
    codes = pd.Series(pd.Categorical(values.astype("string")).codes, dtype=float)
    codes[codes < 0] = np.nan
    top = np.nanmax(codes) if np.isfinite(codes).any() else 0.0
    return (codes / top).to_numpy() if top > 0 else codes.mul(0).to_numpy()


def beeswarm(population, *, columns=None, random_state=0, width=WIDTH) -> go.Figure:
    """One dot per held-out row and column: its contribution (x) on the column's line,
    spread vertically at random (``random_state``) so dots do not hide each other, coloured by
    the column's value (low blue, high red; a text column by its level; grey when missing).
    ``columns``: those drawn, top first (default: all, by importance)."""
    if columns is None:
        columns = list(population.importance()["column"])
    rng = np.random.default_rng(random_state)
    labels = [plain(elide(c)) for c in columns]
    fig = go.Figure()
    for line, column in enumerate(reversed(columns)):
        j = population.columns.index(column)
        values = population.values[column]
        colour = _colour_values(values)
        known = np.isfinite(colour)
        y = line  # the least important at the bottom
        for mask, marker in ((known, {"color": colour[known], "colorscale": SCALE,
                                      "cmin": 0, "cmax": 1}), (~known, {"color": GREY})):
            if not mask.any():
                continue
            fig.add_trace(go.Scatter(
                x=population.contributions[mask, j],
                y=y + rng.uniform(-0.3, 0.3, int(mask.sum())), mode="markers",
                marker={"size": 5, **marker}, showlegend=False,
                hovertext=[f"{plain(i)}: {plain(column)} = {_value(v)}, contribution "
                           f"{signed_number(c, 4)}"
                           for i, v, c in zip(population.ids[mask], values[mask],
                                              population.contributions[mask, j], strict=True)],
                hoverinfo="text"))
    return finish(fig, "Every held-out row's contributions, by column",
                  f"One dot per row: its contribution to {plain(population.target)} (right: "
                  "up). Colour: the row's value in that column, low blue to high red (a text "
                  "column by its level; grey: missing).",
                  width=width,
                  xaxis={"title": {"text": f"contribution to {population.target}"},
                         "zeroline": True},
                  yaxis={"title": {"text": "Column"}, "tickmode": "array",
                         "tickvals": list(range(len(labels))),
                         "ticktext": labels[::-1], "automargin": True},
                  height=max(320, 150 + 34 * len(labels)))


def _value(value) -> str:
    """A row's value in a hover: a number to four significant digits
    (:func:`~forestviz.numbers.number_text`, never "4.6e-05"), a level as written."""
    if isinstance(value, Real) and not isinstance(value, bool):
        return number_text(value)
    return plain(value)


def dependence_figure(frame: pd.DataFrame, column: str, target: str, *,
                      width=WIDTH) -> go.Figure:
    """One column's contribution against its value per row (:meth:`Population.dependence`),
    coloured by the interaction column's value."""
    other = frame["colour_column"].iloc[0] if len(frame) else None
    colour = (_colour_values(pd.Series(frame["colour"].tolist())) if other is not None
              else np.full(len(frame), np.nan))
    known = np.isfinite(colour)
    fig = go.Figure()
    for mask, marker in ((known, {"color": colour[known], "colorscale": SCALE, "cmin": 0,
                                  "cmax": 1}), (~known, {"color": GREY})):
        if not mask.any():
            continue
        part = frame[mask]
        fig.add_trace(go.Scatter(
            x=[plain(v) if isinstance(v, str) else v for v in part["value"]],
            y=part["contribution"], mode="markers", marker={"size": 6, **marker},
            showlegend=False, hoverinfo="text",
            hovertext=[f"{plain(i)}: {plain(column)} = {_value(v)}, contribution "
                       f"{signed_number(c, 4)}"
                       + ("" if other is None else f"; {plain(other)} = {_value(o)}")
                       for i, v, c, o in part[["id", "value", "contribution", "colour"]]
                       .itertuples(index=False)]))
    said = ("" if other is None else f" Colour: {plain(elide(other))}, the column that most "
            "explains the spread at one value (low blue, high red; grey: missing).")
    return finish(fig, f"How {plain(elide(column))} moves the predictions",
                  f"Each held-out row's contribution of {plain(elide(column))} to "
                  f"{plain(target)} against its value.{said}", width=width,
                  xaxis={"title": {"text": plain(elide(column))}},
                  yaxis={"title": {"text": f"contribution to {target}"}, "zeroline": True},
                  height=420)


def partial_dependence_figure(found, target: str, *, width=WIDTH) -> go.Figure:
    """ICE curves (pale, at most :data:`ICE_SHOWN`) and their average, the partial dependence
    (:class:`~forestviz.explain.whole.partial_dependence.Dependence`)."""
    grid = [plain(v) if isinstance(v, str) else v for v in found.grid]
    fig = go.Figure()
    for i in range(min(ICE_SHOWN, found.ice.shape[0])):
        fig.add_trace(go.Scatter(x=grid, y=found.ice[i], mode="lines",
                                 line={"color": LIGHT, "width": 1}, showlegend=i == 0,
                                 name="one row (ICE)", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=grid, y=found.average, mode="lines+markers",
                             line={"color": BLUE, "width": 3}, name="average (partial "
                             "dependence)", hovertemplate="%{x}: %{y:,.4~r}<extra></extra>"))
    n = found.ice.shape[0]
    name = plain(elide(found.column))
    said = (f"The model's {plain(target)} when {name} is set to each value and the rest of the "
            f"row kept, for {n} held-out rows (pale: {min(ICE_SHOWN, n)} of them, one line "
            "each) and on average." if len(grid) else
            f"No held-out row has a value of {name}: there is no value to set it to.")
    return finish(fig, f"Partial dependence on {name}", said, width=width,
                  xaxis={"title": {"text": plain(elide(found.column))}},
                  yaxis={"title": {"text": target}}, height=420)


def count_bars(counts, *, title: str, caption: str, x_title: str, low: int, high: int,
               width=WIDTH) -> go.Figure:
    """Bars of how many rows have each whole number from ``low`` to ``high`` (every number a
    bar, zero counts included)."""
    values = np.asarray(counts, dtype=int)
    numbers = np.arange(low, high + 1)
    rows = np.array([(values == k).sum() for k in numbers])
    fig = go.Figure(go.Bar(x=numbers, y=rows, marker_color=BLUE,
                           hovertemplate=f"{x_title} %{{x}}: %{{y}} rows<extra></extra>"))
    return finish(fig, title, caption, width=width,
                  xaxis={"title": {"text": x_title}, "tickmode": "array",
                         "tickvals": list(numbers)},
                  yaxis={"title": {"text": "held-out rows"}}, height=340)


def cohort_figure(comparison, target: str, *, width=WIDTH) -> go.Figure:
    """The columns' mean contributions in the two groups of a
    :class:`~forestviz.explain.whole.cohorts.CohortComparison` side by side, the largest difference
    on top, each with its group's size in the legend."""
    table = comparison.columns.iloc[::-1]
    labels = [plain(elide(c)) for c in table["column"]]
    fig = go.Figure()
    for name, size, colour in zip(comparison.names, comparison.sizes, (BLUE, STRONG[1]),
                                  strict=True):
        fig.add_trace(go.Bar(x=table[f"mean in {name}"], y=labels, orientation="h",
                             name=f"{plain(elide(name))} ({size} rows)", marker_color=colour,
                             hovertemplate="%{y}: %{x:+,.4~r}<extra></extra>"))
    return finish(fig, "What moves the two groups' predictions",
                  f"Mean contribution to {plain(target)} of each column in each group, the "
                  "largest difference on top.", width=width, barmode="group",
                  xaxis={"title": {"text": f"mean contribution to {target}"},
                         "zeroline": True},
                  yaxis=_categories(labels), height=max(340, 170 + 40 * len(labels)))
