"""A chart's text alternative: its title and the numbers it shows, in words a screen reader
reads (WCAG 2.1, success criterion 1.1.1, "Non-text content").

:func:`chart_text` reads a plotly figure's own data, so the sentence cannot disagree with the
picture: a bar chart or waterfall lists its bars ("Glucose = 173: +0.28; …", the strongest
first when there are more than :data:`LISTED`), a scatter, line or histogram says how many
points and the range of each axis, a heat map its size and the range of its values, a simplex
plot its points. The Explain page passes it to ``st.plotly_chart(alt=…)`` and the record puts
it in the ``alt`` of the chart's picture, so both say the same.
"""

from __future__ import annotations

import numpy as np

from forestviz.explain.report_charts import plain_text
from forestviz.numbers import counted, plain_number

LISTED = 12  # bars named one by one; the others are counted
CHARS = 1_000  # a text alternative longer than this is cut (the record's SENTENCE_LIMIT)


def _numbers(values) -> np.ndarray:
    """The finite numbers among ``values`` (None, text and NaN dropped)."""
    if values is None:
        return np.array([])
    found = np.asarray(values, dtype=object).ravel()
    numeric = [float(v) for v in found if isinstance(v, int | float | np.number)]
    return np.array([v for v in numeric if np.isfinite(v)])


def _span(name: str, values) -> str | None:
    """"x from 0.1 to 0.9" (None when ``values`` holds no number)."""
    numbers = _numbers(values)
    if numbers.size == 0:
        return None
    low, high = numbers.min(), numbers.max()
    if low == high:
        return f"{name} {plain_number(low)}"
    return f"{name} from {plain_number(low)} to {plain_number(high)}"


def _axis(fig, letter: str) -> str:
    axis = fig.layout[f"{letter}axis"]
    title = plain_text(axis.title.text) if axis.title is not None else ""
    return title.replace("\n", " ") or letter


def _bars(trace) -> str:
    """Each bar's label and number, the largest in size first beyond :data:`LISTED`."""
    horizontal = trace.orientation == "h"
    labels = list(trace.y if horizontal else trace.x) if (
        trace.y if horizontal else trace.x) is not None else []
    values = list(trace.x if horizontal else trace.y) if (
        trace.x if horizontal else trace.y) is not None else []
    if trace.text is not None and not isinstance(trace.text, str) and len(trace.text) == len(
            values):
        shown = [str(t) for t in trace.text]  # the numbers as printed on the bars
    else:
        shown = [plain_number(v) if _numbers([v]).size else "—" for v in values]
    pairs = [(plain_text(label).replace("\n", " "), text, abs(float(v)) if _numbers([v]).size
              else 0.0) for label, text, v in zip(labels, shown, values, strict=False)]
    if len(pairs) > LISTED:
        kept = sorted(range(len(pairs)), key=lambda i: -pairs[i][2])[:LISTED]
        listed = "; ".join(f"{pairs[i][0]}: {pairs[i][1]}" for i in sorted(kept))
        return f"{listed}; and {counted(len(pairs) - LISTED, 'smaller bar')}"
    return "; ".join(f"{label}: {text}" for label, text, _ in pairs)


def _categorical(trace) -> bool:
    """Whether a bar trace's bars are named (categories), not placed on a number axis."""
    labels = trace.y if trace.orientation == "h" else trace.x
    return labels is not None and _numbers(labels).size < len(labels)


def _trace(fig, trace) -> str:
    """One trace in words."""
    name = plain_text(trace.name).replace("\n", " ") if trace.name else ""
    head = f"{name}: " if name else ""
    if trace.type in ("bar", "waterfall") and _categorical(trace):
        return head + _bars(trace)
    if trace.type == "heatmap":
        z = np.asarray(trace.z, dtype=float) if trace.z is not None else np.zeros((0, 0))
        rows, columns = z.shape if z.ndim == 2 else (z.size, 1)
        return head + f"{rows} by {columns} cells, " + (_span("values", z) or "no values")
    if trace.type == "scatterternary":
        return head + counted(len(trace.a if trace.a is not None else ()), "point") + \
            " in the simplex"
    if trace.type == "histogram":
        values = trace.x if trace.x is not None else trace.y
        return head + counted(_numbers(values).size, "value") + ", " + (
            _span(_axis(fig, "x" if trace.x is not None else "y"), values) or "none")
    points = len(trace.x) if trace.x is not None else len(trace.y or ())
    spans = [s for s in (_span(_axis(fig, "x"), trace.x), _span(_axis(fig, "y"), trace.y)) if s]
    if trace.type in ("bar", "waterfall"):
        what = counted(points, "bar")
    elif trace.mode is not None and "lines" in trace.mode:
        what = f"a line through {counted(points, 'point')}"
    else:
        what = counted(points, "point")
    return head + ", ".join([what, *spans])


def chart_text(fig) -> str:
    """``fig``'s title and the numbers it shows, in one text of at most :data:`CHARS`
    characters."""
    title = plain_text(fig.layout.title.text).replace("\n", " ") if fig.layout.title else ""
    parts = [_trace(fig, trace) for trace in fig.data if trace.visible in (None, True)]
    text = ". ".join(p for p in [title.strip(" ."), *parts] if p) + "."
    return text if len(text) <= CHARS else text[:CHARS - 1] + "…"
