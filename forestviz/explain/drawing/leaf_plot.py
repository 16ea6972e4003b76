"""A regression leaf's training rows as a strip of dots a person can read at the page's width.

dtreeviz draws a regression leaf as a 0.75 × 0.8 inch strip (its size is fixed inside
dtreeviz: no parameter of ``view`` sets it), which an Explain page shows a few tens of pixels
wide. :func:`leaf_strip` draws the same picture, the leaf's rows as jittered dots on the
drawing's value axis with a dashed line at the leaf's value, at a size people can read: the
row's leaf of a drawing at ``ROW_LEAF`` (about the width of a path drawing's box of the row's
values), the other leaves of a full drawing at ``LEAF`` (half the width of dtreeviz's plot of a
split node, so a full tree stays about as wide as its row of split plots). Under the strip, as
dtreeviz writes it: ``<target>=<value>`` and ``n=<rows>``. :func:`write_leaf_images` saves one
SVG per leaf beside dtreeviz's files; :func:`~.leaf_text.add_leaf_labels`
puts them in the drawing.
"""

from __future__ import annotations

import os
import tempfile
from typing import NamedTuple

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from forestviz.explain.drawing.drawn_numbers import short
from forestviz.explain.drawing.dtreeviz_conventions import colours

ROW_LEAF = (3.0, 1.9)
"""Inches of the strip of the row's leaf."""
LEAF = (1.3, 1.1)
"""Inches of the strip of another leaf of a full drawing."""
TICK_POINTS = (9, 8)  # the row's leaf, another leaf
LABEL_POINTS = 9
# Inches around the plot: the value axis's tick labels on the left, the two lines under it
LEFT, RIGHT, TOP, BOTTOM = 0.5, 0.06, 0.06, 0.36
JITTER = 0.12  # standard deviation of the dots' horizontal jitter, in axis widths
FILE = "leafstrip{leaf}_{pid}.svg"


class LeafImage(NamedTuple):
    """A leaf's picture: its SVG file and its size in points (graphviz's unit)."""

    path: str
    width: float
    height: float


def value_range(*values) -> tuple[float, float]:
    """The value axis shared by a drawing's leaves: every value, with 3 % of the span (1 when
    all are equal) added at both ends."""
    flat = np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in values])
    low, high = float(flat.min()), float(flat.max())
    pad = 0.03 * ((high - low) or 1.0)
    return low - pad, high + pad


def leaf_strip(values, leaf_value, y_range, *, size=ROW_LEAF, target="target",
               fontname="DejaVu Sans") -> Figure:
    """A figure of ``size`` inches: ``values`` (the leaf's training rows) as dots at their
    height on an axis spanning ``y_range``, spread sideways by a fixed jitter (the same
    drawing every time), a dashed line at ``leaf_value``, and under them
    ``<target>=<leaf_value>`` (four significant digits) and ``n=<number of values>``."""
    values = np.asarray(values, dtype=np.float64)
    colors = colours()
    width, height = size
    fig = Figure(figsize=size)
    fig.subplots_adjust(left=LEFT / width, right=1 - RIGHT / width, top=1 - TOP / height,
                        bottom=BOTTOM / height)
    ax = fig.add_subplot()
    jitter = np.random.default_rng(0).normal(0.5, JITTER, values.size).clip(0.03, 0.97)
    big = size == ROW_LEAF
    ax.scatter(jitter, values, s=10 if big else 5, c=colors["scatter_marker"],
               alpha=colors["scatter_marker_alpha"], lw=0.3)
    ax.plot([0, 1], [leaf_value, leaf_value], "--", color=colors["split_line"], linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(y_range)
    ax.set_xticks([])
    ax.yaxis.set_major_locator(MaxNLocator(5 if big else 3))
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.spines["left"].set(linewidth=0.3, color=colors["axis"])
    ax.tick_params(axis="y", width=0.3, labelsize=TICK_POINTS[not big],
                   labelcolor=colors["tick_label"], labelfontfamily=fontname)
    ax.annotate(f"{target}={short(leaf_value)}\nn={values.size}", xy=(0.5, 0),
                xytext=(0, -3), xycoords="axes fraction", textcoords="offset points",
                ha="center", va="top", fontsize=LABEL_POINTS, fontname=fontname,
                color=colors["axis_label"], parse_math=False)
    return fig


def write_leaf_images(y, rows_by_node, leaf_values, leaves, *, row_leaf, target,
                      fontname) -> dict[int, LeafImage]:
    """{leaf: :class:`LeafImage`} of :func:`leaf_strip` for each of ``leaves`` that training
    rows reach (``rows_by_node[leaf]``, values ``y[rows]``), on one value axis for all; the
    row's leaf ``row_leaf`` at ``ROW_LEAF``. The files (the figure's whole size: its margins
    are fixed, not trimmed) go to ``tempfile.gettempdir()`` (a render's private directory,
    :func:`~.files.private_tempdir`), named ``FILE``."""
    y = np.asarray(y, dtype=np.float64)
    reached = [leaf for leaf in leaves if len(rows_by_node[leaf])]
    if not reached:
        return {}
    y_range = value_range(y, [leaf_values[leaf] for leaf in reached])
    files = {}
    for leaf in reached:
        size = ROW_LEAF if leaf == row_leaf else LEAF
        fig = leaf_strip(y[rows_by_node[leaf]], leaf_values[leaf], y_range, size=size,
                         target=target, fontname=fontname)
        path = os.path.join(tempfile.gettempdir(), FILE.format(leaf=leaf, pid=os.getpid()))
        fig.savefig(path, format="svg")
        files[leaf] = LeafImage(path, 72.0 * size[0], 72.0 * size[1])
    return files
