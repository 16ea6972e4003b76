"""Static SVG pictures of the report's plotly figures, drawn by matplotlib from each figure's own
data (its traces, titles and axes), so the report needs no JavaScript, no browser and no network.

Plotly's JavaScript is 4.6 MB: inline, it alone would put the report over its 2 MB budget, and a
PDF cannot run it. A picture keeps what a figure draws — the bars, curves, points and the shaded
ε-sub-simplex, their colours, the title, its caption, the axis titles and the legend — and
drops what needs a pointer (hover texts: the report's tables hold those numbers).

:func:`figure_svg` draws the trace types the explanation's figures use (``bar``, ``scatter``,
``waterfall``, ``scatterternary``) and the layout's vertical lines and their notes; any other
trace type raises :class:`UndrawableFigure`. Texts stay text in the SVG (``svg.fonttype``
"none": smaller, and searchable in the PDF), are never read as mathematical notation (each text
is made with ``parse_math=False``: a ``$`` in a column name is a dollar) and lose plotly's
markup: ``<br>`` breaks a line, entities become their characters (matplotlib escapes the SVG
itself).

Matplotlib's settings (``rcParams``) are one per process and other threads draw too (the tree
drawings): every style is set on the artists themselves, and the one setting the SVG writer
only reads from ``rcParams``, ``svg.fonttype``, is set around ``savefig`` alone, while no other
picture changes a setting (:mod:`forestviz.explain.matplotlib_settings`).

matplotlib is imported by the first picture, not with this module: the workbench imports it, and
a process that draws none (the command line's ``models list``, a training worker, a publisher)
started 0.35 s sooner (``docs/performance.md``, "The suite's 15 minutes").
"""

from __future__ import annotations

import io

import numpy as np

from forestviz.explain.matplotlib_settings import drawing_with
from forestviz.explain.plots.conventions import plain_text

WIDTH_INCHES = 7.0  # 178 mm: the A4 text width of the report (190 mm) with room to spare
PLOT_INCHES = 2.6  # height of the plotting area of a chart without categories
CATEGORY_INCHES = 0.24  # per category of a horizontal bar chart
TICKS_SHOWN = 25  # at most this many category labels on a horizontal axis
SYMBOLS = {"circle": "o", "square": "s", "triangle-up": "^", "triangle-down": "v",
           "diamond": "D", "cross": "P", "x": "X", "star": "*"}
DASHES = {"solid": "-", "dash": "--", "dot": ":", "dashdot": "-.", "longdash": "--"}
TEXT = {"parse_math": False, "fontsize": 8}  # every text the pictures write


class UndrawableFigure(ValueError):
    """A figure with a trace type :func:`figure_svg` does not draw."""


def _title(part) -> str:
    return "" if part is None else plain_text(part.text)


def _colours(fig, n: int) -> list[str]:
    """Plotly's colour per trace when the trace names none: the template's colorway."""
    way = list(fig.layout.template.layout.colorway or ()) or ["#1f77b4"]
    return [way[i % len(way)] for i in range(n)]


def _categories(values, axis) -> list[str]:
    """The category order of an axis: its ``categoryarray`` when given, else first seen."""
    order = list(axis.categoryarray) if axis.categoryarray is not None else []
    for value in values:
        if value not in order:
            order.append(value)
    return order


def _bars(ax, fig, traces, colours, legend):
    """Bars, vertical or horizontal, stacked ("stack"/"relative": positives up, negatives
    down) or side by side ("group"); at categories, or at numbers with their own widths when
    the axis names its ticks (``tickvals``, e.g. the top trees of a weight chart)."""
    horizontal = traces[0].orientation == "h"
    axis = fig.layout.yaxis if horizontal else fig.layout.xaxis
    keys = [c for t in traces for c in (t.y if horizontal else t.x)]
    cats = None if axis.tickvals is not None else _categories(keys, axis)
    where = {c: i for i, c in enumerate(cats or dict.fromkeys(keys))}
    stacked = fig.layout.barmode in ("stack", "relative")
    up, down = np.zeros(len(where)), np.zeros(len(where))
    width = 0.8 if stacked else 0.8 / len(traces)
    for i, (trace, colour) in enumerate(zip(traces, colours, strict=True)):
        keys = trace.y if horizontal else trace.x
        values = np.asarray(trace.x if horizontal else trace.y, dtype=float)
        index = np.array([where[c] for c in keys])
        pos = index.astype(float) if cats is not None else np.asarray(keys, dtype=float)
        if stacked:
            base = np.where(values >= 0, up[index], down[index])
            up[index] += np.maximum(values, 0)
            down[index] += np.minimum(values, 0)
        else:
            pos += (i - (len(traces) - 1) / 2) * width
            base = np.zeros(values.size)
        if trace.base is not None:
            base = base + np.broadcast_to(np.asarray(trace.base, dtype=float), values.shape)
        colour = trace.marker.color if trace.marker.color is not None else colour
        colour = list(colour) if isinstance(colour, tuple | list | np.ndarray) else colour
        draw = ax.barh if horizontal else ax.bar
        size = width if trace.width is None else np.asarray(trace.width, dtype=float)
        drawn = draw(pos, values, size, base, color=colour)
        legend.append((drawn, plain_text(trace.name)))
    return cats, horizontal


def _waterfall(ax, trace):
    """A waterfall: "absolute" sets the running total, "relative" steps from it (coloured
    by sign), "total" draws it from 0."""
    colours = {"inc": trace.increasing.marker.color or "#3d9970",
               "dec": trace.decreasing.marker.color or "#ff4136",
               "tot": trace.totals.marker.color or "#4499ff"}
    horizontal = trace.orientation == "h"
    cats = list(trace.y if horizontal else trace.x)
    values = np.asarray(trace.x if horizontal else trace.y, dtype=float)
    measures = list(trace.measure or ["relative"] * len(cats))
    running = 0.0
    starts, sizes, fills = [], [], []
    for value, measure in zip(values, measures, strict=True):
        if measure == "absolute":
            start, size, running = 0.0, value, value
        elif measure == "total":
            start, size = 0.0, running
        else:
            start, size, running = running, value, running + value
        starts.append(start)
        sizes.append(size)
        fills.append(colours["tot"] if measure != "relative" else
                     colours["inc"] if value >= 0 else colours["dec"])
    pos = np.arange(len(cats))
    (ax.barh if horizontal else ax.bar)(pos, sizes, 0.7, starts, color=fills)
    for at, start, size, said in zip(pos, starts, sizes, trace.text or (), strict=False):
        end = max(start, start + size)  # each bar's text past its far end, as plotly's
        ax.annotate(plain_text(said), (end, at) if horizontal else (at, end),
                    xytext=(3, 0) if horizontal else (0, 3), textcoords="offset points",
                    ha="left" if horizontal else "center",
                    va="center" if horizontal else "bottom", **(TEXT | {"fontsize": 7}))
    return cats, horizontal


def _scatter(ax, trace, colour, legend):
    mode = trace.mode or "lines"
    line = trace.line
    colour = line.color or (trace.marker.color if isinstance(trace.marker.color, str)
                            else None) or colour
    (drawn,) = ax.plot(np.asarray(trace.x, dtype=float), np.asarray(trace.y, dtype=float),
                       linestyle=DASHES.get(line.dash or "solid", "-") if "lines" in mode
                       else "none", marker=SYMBOLS.get(trace.marker.symbol or "circle", "o")
                       if "markers" in mode else None, color=colour)
    legend.append((drawn, plain_text(trace.name)))


_CORNERS = np.array([[0.5, np.sqrt(3) / 2], [0.0, 0.0], [1.0, 0.0]])  # a top, b left, c right


def _ternary(ax, fig, traces, colours, legend):
    """Ternary axes as plotly draws them (a at the top, b bottom left, c bottom right), a grid
    every 0.2, the corner titles and the traces: lines (filled "toself") and markers."""
    ax.set_aspect("equal")
    ax.axis("off")
    ax.fill(*_CORNERS.T, facecolor="#f7f9fc", edgecolor="#444444", linewidth=0.8)
    for level in (0.2, 0.4, 0.6, 0.8):
        for j in range(3):
            k, m = (j + 1) % 3, (j + 2) % 3
            ends = [level * _CORNERS[j] + (1 - level) * _CORNERS[i] for i in (k, m)]
            ax.plot(*np.array(ends).T, color="#dddddd", linewidth=0.5, zorder=0)
    ternary = fig.layout.ternary
    for corner, axis, place in zip(_CORNERS, (ternary.aaxis, ternary.baxis, ternary.caxis),
                                   (("center", "bottom", 0, 0.04), ("right", "top", -0.02, -0.03),
                                    ("left", "top", 0.02, -0.03)), strict=True):
        ax.text(corner[0] + place[2], corner[1] + place[3], _title(axis.title), ha=place[0],
                va=place[1], **TEXT)
    for trace, colour in zip(traces, colours, strict=True):
        abc = np.column_stack([np.asarray(getattr(trace, k), dtype=float) for k in "abc"])
        xy = (abc / abc.sum(axis=1, keepdims=True)) @ _CORNERS
        colour = trace.line.color or trace.marker.color or colour
        if "lines" in (trace.mode or "") and trace.fill == "toself":
            (drawn,) = ax.fill(*xy.T, facecolor=colour, alpha=0.35, edgecolor=colour)
        elif "lines" in (trace.mode or ""):
            (drawn,) = ax.plot(*xy.T, color=colour)
        else:
            (drawn,) = ax.plot(*xy.T, linestyle="none", color=colour, clip_on=False, zorder=3,
                               marker=SYMBOLS.get(trace.marker.symbol or "circle", "o"),
                               markersize=(trace.marker.size or 8) * 0.6)
        legend.append((drawn, plain_text(trace.name)))
    ax.set_xlim(-0.15, 1.15)
    ax.set_ylim(-0.1, _CORNERS[0, 1] + 0.1)


def _category_axis(ax, cats, horizontal, reversed_):
    ticks = np.arange(len(cats))
    labels = [plain_text(c) for c in cats]
    if horizontal:
        ax.set_yticks(ticks, labels, **TEXT)
        if reversed_:
            ax.invert_yaxis()
        return
    step = max(1, int(np.ceil(len(cats) / TICKS_SHOWN)))
    ax.set_xticks(ticks[::step], labels[::step], rotation=90 if len(cats) > 8 else 0, **TEXT)


def _lines_and_notes(ax, fig):
    """The layout's vertical (or horizontal) lines and text notes, in data or domain units."""
    from matplotlib.transforms import blended_transform_factory

    for shape in fig.layout.shapes:
        if shape.type == "line" and shape.x0 == shape.x1:
            ax.axvline(shape.x0, color=shape.line.color or "grey", linewidth=0.8)
        elif shape.type == "line" and shape.y0 == shape.y1:
            ax.axhline(shape.y0, color=shape.line.color or "grey", linewidth=0.8)
    for note in fig.layout.annotations:
        x_domain = (note.xref or "x").endswith(("domain", "paper"))
        y_domain = (note.yref or "y").endswith(("domain", "paper"))
        where = blended_transform_factory(ax.transAxes if x_domain else ax.transData,
                                          ax.transAxes if y_domain else ax.transData)
        ax.text(note.x, note.y, plain_text(note.text), transform=where,
                ha={"left": "left", "right": "right"}.get(note.xanchor, "center"),
                va={"top": "top", "bottom": "bottom"}.get(note.yanchor, "center"),
                color="#555555", **(TEXT | {"fontsize": 7}))


def _height(fig, n_categories: int, horizontal: bool, title_lines: int) -> float:
    plot = max(PLOT_INCHES, CATEGORY_INCHES * n_categories + 0.6) if horizontal else PLOT_INCHES
    if fig.layout.ternary.aaxis.title.text is not None:
        plot = 3.4
    return plot + 0.18 * title_lines + 0.9


def _legend(picture, fig, legend) -> None:
    """Plotly's legend (shown for more than one trace unless ``showlegend`` says otherwise)
    below the plot, its entries named as the traces (any name, "_" first too)."""
    shown = fig.layout.showlegend
    entries = [(artist, name) for artist, name in legend if name]
    if not entries or not (shown or (shown is None and len(fig.data) > 1)):
        return
    artists, names = zip(*entries, strict=True)
    box = picture.legend(artists, names, loc="outside lower center", frameon=False,
                         ncols=min(len(names), 3 if max(map(len, names)) < 30 else 2),
                         title=_title(fig.layout.legend.title) or None, fontsize=8)
    for text in [*box.get_texts(), box.get_title()]:
        text.set_parse_math(False)


def _plot(ax, fig, colours, legend):
    """The traces of a cartesian figure, its axes and its lines and notes; (categories,
    horizontal) of its bars."""
    cats, horizontal = None, False
    bars = [t for t in fig.data if t.type == "bar"]
    index = {id(t): i for i, t in enumerate(fig.data)}
    if bars:
        cats, horizontal = _bars(ax, fig, bars, [colours[index[id(t)]] for t in bars], legend)
    for trace in fig.data:
        if trace.type == "waterfall":
            cats, horizontal = _waterfall(ax, trace)
        elif trace.type == "scatter":
            _scatter(ax, trace, colours[index[id(trace)]], legend)
    axis = fig.layout.yaxis if horizontal else fig.layout.xaxis
    if cats is not None:
        _category_axis(ax, cats, horizontal, axis.autorange == "reversed")
    elif axis.tickvals is not None:
        (ax.set_yticks if horizontal else ax.set_xticks)(
            list(axis.tickvals), [plain_text(t) for t in axis.ticktext],
            **({} if horizontal else {"rotation": -(axis.tickangle or 0), "ha": "center"}),
            **TEXT)
    ax.set_xlabel(_title(fig.layout.xaxis.title), **TEXT)
    ax.set_ylabel(_title(fig.layout.yaxis.title), **TEXT)
    if fig.layout.xaxis.range is not None:
        ax.set_xlim(*fig.layout.xaxis.range)
    ax.grid(axis="x" if horizontal else "y", color="#e5e5e5", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=8)
    _lines_and_notes(ax, fig)
    return cats, horizontal


def figure_svg(fig, *, width: float = WIDTH_INCHES) -> str:
    """``fig`` (a plotly figure of the trace types above) drawn by matplotlib, as SVG text.

    A layout engine makes ``savefig`` lay the figure out twice (a measuring draw, then the real
    one): here it is laid out once, measured as the SVG writer measures texts, and then fixed.
    The SVG is the one ``savefig`` writes of :func:`matplotlib_figure` (``tests/
    test_report_charts.py``) for 18 % less CPU (``docs/performance.md``)."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    picture = matplotlib_figure(fig, width=width)
    out = io.StringIO()
    with drawing_with({"svg.fonttype": "none"}):
        FigureCanvasSVG(picture)
        picture.get_layout_engine().execute(picture)
        picture.set_layout_engine(None)
        picture.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()


def matplotlib_figure(fig, *, width: float = WIDTH_INCHES):
    """The matplotlib figure of ``fig`` with constrained layout, not yet drawn."""
    from matplotlib.figure import Figure

    kinds = {trace.type for trace in fig.data}
    if not kinds or not kinds <= {"bar", "scatter", "waterfall", "scatterternary"} or (
            len(kinds) > 1 and "scatterternary" in kinds):
        raise UndrawableFigure(f"cannot draw a figure of {sorted(kinds)} as a picture")
    title = _title(fig.layout.title)
    caption = _title(fig.layout.title.subtitle)
    lines = title.count("\n") + caption.count("\n") + 2
    picture = Figure(figsize=(width, 4.0), layout="constrained")
    ax = picture.add_subplot()
    colours, legend = _colours(fig, len(fig.data)), []
    cats, horizontal = None, False
    if kinds == {"scatterternary"}:
        _ternary(ax, fig, list(fig.data), colours, legend)
    else:
        cats, horizontal = _plot(ax, fig, colours, legend)
    picture.set_size_inches(width, _height(fig, len(cats or ()), horizontal, lines))
    picture.suptitle(title, x=0.01, ha="left", fontweight="bold", **(TEXT | {"fontsize": 10}))
    ax.set_title(caption, loc="left", color="#444444", **(TEXT | {"fontsize": 7.5}))
    _legend(picture, fig, legend)
    return picture
