"""The numbers a chart shows, as a small table read from the plotly figure's own data: what the
page puts beside every chart (collapsed, "Numbers in this chart") and what the chart's text
alternative says (:func:`forestviz.explain.plots.alt.chart_text` is this table in words), so the
two cannot disagree with the picture or with each other (WCAG 2.1, 1.1.1 "Non-text content").

* Bars and waterfalls: one line per bar, named by its category, its ``ids`` entry (a figure
  whose bars stand on a number axis names them there: the tree weights) or the tick text at its
  place; one column per trace (its name; with one trace, the value axis's title), each number
  as printed on the bar, else through :mod:`forestviz.numbers`. With more than :data:`LISTED`
  bars, the largest in size are kept, in the figure's order.
* Lines and points: one line per point with the axes' titles as headers (and the series'
  name when there are several); a place on an axis that names its ticks reads as the nearest
  tick's name (the beeswarm's columns). Traces drawn without numbers on hover (the pale ICE
  lines, a band's edge) are counted, not listed. Beyond :data:`LISTED` points, points evenly
  spaced through them are kept.
* A heat map: its :data:`LISTED` largest cells (row, column, value); a simplex: its points'
  three coordinates; a histogram with explicit bins: each bin's range and count, each value
  in the bin plotly.js draws it in (a histogram of one value: the value and its count).

Every cell is text: numbers never in scientific notation, thousands grouped, a true minus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from forestviz.explain.plots.conventions import plain_text
from forestviz.explain.plots.forest_views import SAME
from forestviz.numbers import counted, plain_number, range_text

LISTED = 12  # lines of a table; the others are counted
DIGITS = 3  # significant digits of a number no trace prints itself
FIND_BIN_FUZZ = 1e-9  # of a bin's width: plotly.js's findBin counts a value this near its end in
# the next bin


@dataclass(frozen=True)
class ChartTable:
    """A chart's title, the numbers it shows as text (``frame``, a column per header), whether
    the first column names each line (``named``: a bar, a cell) and what is left out
    ("12 smaller bars not listed"; "" when nothing is)."""

    title: str
    frame: pd.DataFrame
    named: bool
    left_out: str = ""


def _one_line(text) -> str:
    return plain_text(text).replace("\n", " ").strip()


def _number(value) -> float | None:
    """``value`` as a finite float, None for text, None, NaN or an infinity."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        return None
    value = float(value)
    return value if np.isfinite(value) else None


def _printed(value, sign: bool = False) -> str:
    number = _number(value)
    return plain_number(number, DIGITS, sign=sign) if number is not None else _one_line(value)


def _axis(fig, name: str):
    """The layout's axis of a trace's reference ("x", "y2" → ``xaxis``, ``yaxis2``)."""
    letter, number = name[0], name[1:]
    return fig.layout[f"{letter}axis{number}"]


def _title(axis, default: str) -> str:
    text = _one_line(axis.title.text) if axis is not None and axis.title is not None else ""
    return text or default


def _ticks(axis) -> dict:
    """{tick value: its text} of an axis that names its ticks, else {}."""
    if axis is None or axis.tickvals is None or axis.ticktext is None:
        return {}
    return {float(v): _one_line(t) for v, t in zip(axis.tickvals, axis.ticktext, strict=False)
            if _number(v) is not None}


def _shown(trace) -> bool:
    return trace.visible in (None, True)


def _unique(headers: list[str]) -> list[str]:
    """Headers made distinct (" (2)"), as a table needs."""
    seen: dict[str, int] = {}
    out = []
    for header in headers:
        seen[header] = seen.get(header, 0) + 1
        out.append(header if seen[header] == 1 else f"{header} ({seen[header]})")
    return out


def _bar_labels(fig, trace) -> list[str]:
    horizontal = trace.orientation == "h"
    places = trace.y if horizontal else trace.x
    places = [] if places is None else list(places)
    if trace.ids is not None:
        return [_one_line(i) for i in trace.ids]
    axis = fig.layout["yaxis" if horizontal else "xaxis"]
    ticks = _ticks(axis)
    return [ticks.get(_number(p), _printed(p)) if _number(p) is not None else _one_line(p)
            for p in places]


def _bar_texts(trace) -> tuple[list[str], list[float]]:
    """Each bar's number as printed on it (its ``text``, else :mod:`forestviz.numbers`; a
    waterfall's steps with their sign) and its size, bars standing on ``base`` included."""
    values = trace.x if trace.orientation == "h" else trace.y
    values = [] if values is None else list(values)
    base = trace.base if trace.type == "bar" and trace.base is not None else 0.0
    bases = list(base) if isinstance(base, tuple | list | np.ndarray) else [base] * len(values)
    numbers = [(_number(v) or 0.0) + (_number(b) or 0.0) for v, b in zip(values, bases,
                                                                            strict=False)]
    measures = list(trace.measure) if trace.type == "waterfall" and trace.measure else []
    printed = [_printed(n, sign=i < len(measures) and measures[i] == "relative")
               if _number(v) is not None else _printed(None)
               for i, (n, v) in enumerate(zip(numbers, values, strict=False))]
    text = trace.text
    if text is not None and not isinstance(text, str) and len(text) == len(values):
        printed = [_one_line(t) for t in text]
    return printed, numbers


def _largest(sizes: list[float]) -> list[int]:
    """Positions of the :data:`LISTED` largest ``sizes``, in their order."""
    return sorted(sorted(range(len(sizes)), key=lambda i: -sizes[i])[:LISTED])


def _bars(fig, traces) -> tuple[pd.DataFrame, str]:
    first = traces[0]
    horizontal = first.orientation == "h"
    label_axis, value_axis = ("yaxis", "xaxis") if horizontal else ("xaxis", "yaxis")
    rows: dict[str, dict[int, str]] = {}
    sizes: dict[str, float] = {}
    for t, trace in enumerate(traces):
        printed, numbers = _bar_texts(trace)
        for label, text, number in zip(_bar_labels(fig, trace), printed, numbers, strict=False):
            rows.setdefault(label, {})[t] = text
            sizes[label] = max(sizes.get(label, 0.0), abs(number))
    if len(traces) == 1:
        values = [_title(fig.layout[value_axis], _one_line(first.name) or "value")]
    else:
        values = [_one_line(t.name) or f"series {i + 1}" for i, t in enumerate(traces)]
    labels = list(rows)
    kept = _largest([sizes[label] for label in labels])
    headers = _unique([_title(fig.layout[label_axis], "step" if first.type == "waterfall"
                                                      else "bar"), *values])
    frame = pd.DataFrame([[labels[i], *(rows[labels[i]].get(t, "") for t in range(len(traces)))]
                          for i in kept], columns=headers)
    left = len(labels) - len(kept)
    return frame, counted(left, "smaller bar") + " not listed" if left else ""


def _place(value, ticks: dict) -> str:
    """A point's place on an axis: the nearest named tick's name, else the number or text."""
    number = _number(value)
    if number is None:
        return _one_line(value)
    if ticks:
        return ticks[min(ticks, key=lambda v: abs(v - number))]
    return _printed(number)


def _spread(n: int) -> list[int]:
    """:data:`LISTED` positions evenly spaced through ``n`` (all of them when fewer)."""
    if n <= LISTED:
        return list(range(n))
    return sorted(set(np.linspace(0, n - 1, LISTED).round().astype(int).tolist()))


def _points(fig, traces) -> tuple[pd.DataFrame, str]:
    numbered = [t for t in traces if t.hoverinfo != "skip"]
    unnumbered = len(traces) - len(numbered)
    axes = {(t.xaxis or "x", t.yaxis or "y") for t in numbered}
    x_titles = {_title(_axis(fig, x), "") for x, _ in axes} - {""}
    y_titles = {_title(_axis(fig, y), "") for _, y in axes} - {""}
    headers = ["series", x_titles.pop() if len(x_titles) == 1 else "x",
               y_titles.pop() if len(y_titles) == 1 else "value"]
    lines = []
    for trace in numbered:
        xs = [] if trace.x is None else list(trace.x)
        ys = [] if trace.y is None else list(trace.y)
        x_ticks = _ticks(_axis(fig, trace.xaxis or "x"))
        y_ticks = _ticks(_axis(fig, trace.yaxis or "y"))
        lines += [[_one_line(trace.name), _place(x, x_ticks), _place(y, y_ticks)]
                  for x, y in zip(xs, ys, strict=False)]
    kept = _spread(len(lines))
    frame = pd.DataFrame([lines[i] for i in kept], columns=_unique(headers))
    if len(numbered) < 2 or not frame["series"].astype(bool).any():
        frame = frame.drop(columns="series")
    left = [counted(len(lines) - len(kept), "other point")] if len(lines) > len(kept) else []
    left += [counted(unnumbered, "line") + " drawn without numbers"] if unnumbered else []
    return frame, " and ".join(left) + " not listed" if left else ""


def _heatmap(fig, trace) -> tuple[pd.DataFrame, str]:
    z = np.asarray(trace.z if trace.z is not None else np.zeros((0, 0)), dtype=float)
    z = z.reshape(z.shape[0], -1) if z.ndim else z.reshape(0, 0)
    xs = list(trace.x) if trace.x is not None else list(range(z.shape[1]))
    ys = list(trace.y) if trace.y is not None else list(range(z.shape[0]))
    cells = [(abs(z[i, j]), i, j) for i in range(z.shape[0]) for j in range(z.shape[1])
             if np.isfinite(z[i, j])]
    kept = sorted(cells, key=lambda c: -c[0])[:LISTED]
    bar = trace.colorbar
    value = _one_line(bar.title.text) if bar is not None and bar.title is not None else ""
    headers = _unique([_title(fig.layout.yaxis, "row"), _title(fig.layout.xaxis, "column"),
                       value or "value"])
    frame = pd.DataFrame([[_one_line(ys[i]), _one_line(xs[j]), _printed(z[i, j])]
                          for _, i, j in kept], columns=headers)
    left = len(cells) - len(kept)
    return frame, counted(left, "smaller cell") + " not listed" if left else ""


def _simplex(fig, traces) -> tuple[pd.DataFrame, str]:
    ternary = fig.layout.ternary
    corners = [_title(ternary[f"{c}axis"], c) for c in "abc"]
    lines = [[_one_line(t.name), *(_printed(v) for v in point)]
             for t in traces for point in zip(*(() if p is None else p for p in (t.a, t.b, t.c)),
                                              strict=False)]
    kept = _spread(len(lines))
    frame = pd.DataFrame([lines[i] for i in kept], columns=_unique(["point", *corners]))
    left = len(lines) - len(kept)
    return frame, counted(left, "other point") + " not listed" if left else ""


def _histogram(fig, trace) -> tuple[pd.DataFrame, str]:
    values = [v for v in (_number(v) for v in (trace.x if trace.x is not None else ()))
              if v is not None]
    bins = trace.xbins
    title = _title(fig.layout.xaxis, "value")
    rows = _title(fig.layout.yaxis, "count")
    if bins is None or bins.size is None or bins.start is None or bins.end is None:
        low, high = (min(values), max(values)) if values else (None, None)
        frame = pd.DataFrame([[counted(len(values), "value"), _printed(low), _printed(high)]],
                             columns=[rows, f"smallest {title}", f"largest {title}"])
        return frame, ""
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    if values and high - low <= SAME * max(abs(low), abs(high), 1.0):
        # one value (float rounding aside) in one bin: its bin's ends are no value any row has
        # (a plain forest's 100 trees read "100.0–103.3"); the value is what the bar stands for
        frame = pd.DataFrame([[_printed(low), f"{len(values):,}"]], columns=_unique([title, rows]))
        return frame, ""
    start, size, end = float(bins.start), float(bins.size), float(bins.end)
    n = round((end - start) / size)
    edges = np.append(start + size * np.arange(n), end)
    # each value's bin as plotly.js finds it (Lib.findBin on even bins), not by comparing with
    # the edges: a value on an edge (1.5 + 30 × 1.00208…) falls in the bin plotly draws it in
    index = np.floor((np.asarray(values, dtype=float) - start) / size + FIND_BIN_FUZZ)
    counts = np.bincount(index[(index >= 0) & (index < n)].astype(int), minlength=n)
    drawn = np.flatnonzero(counts)  # an empty bin draws no bar
    kept = drawn[_largest(counts[drawn].astype(float).tolist())]
    frame = pd.DataFrame([[range_text(edges[i], edges[i + 1]), f"{counts[i]:,}"]
                          for i in kept], columns=_unique([title, rows]))
    left = len(drawn) - len(kept)
    return frame, counted(left, "smaller bin") + " not listed" if left else ""


def chart_table(fig) -> ChartTable:
    """The numbers ``fig`` shows (the kind of its first shown trace decides the table; other
    traces of other kinds are counted in ``left_out``)."""
    title = _one_line(fig.layout.title.text) if fig.layout.title else ""
    traces = [t for t in fig.data if _shown(t)]
    if not traces:
        return ChartTable(title.strip(" ."), pd.DataFrame(), False)
    kind = traces[0].type
    same = [t for t in traces if t.type == kind]
    if kind in ("bar", "waterfall"):
        frame, left = _bars(fig, same)
    elif kind == "heatmap":
        frame, left = _heatmap(fig, same[0])
    elif kind == "scatterternary":
        frame, left = _simplex(fig, same)
    elif kind == "histogram":
        frame, left = _histogram(fig, same[0])
    else:
        frame, left = _points(fig, same)
    others = len(traces) - (1 if kind in ("heatmap", "histogram") else len(same))
    if others:
        left = " and ".join(p for p in (left, f"{counted(others, 'other trace')} not listed")
                            if p)
    named = kind in ("bar", "waterfall", "heatmap", "scatterternary") or (
        "series" in frame.columns)  # a line's points named by their line
    return ChartTable(title.strip(" ."), frame, named, left)
