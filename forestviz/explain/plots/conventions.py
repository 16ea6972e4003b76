"""What every figure shares (algorithms.md §5): plain text for plotly, tree and row labels,
colours, and the title with its caption. What figures accept is :mod:`.inputs`.

* Trees are numbered from 1 for people: "Tree 1" is ``estimators_[0]`` (pass ``tree_ids`` to
  show other numbers). Tree indices given to functions (``groups``) count from 0, as numpy does.
* Plotly renders a few HTML tags (``<b>``, ``<br>``, ``<a>`` …) inside titles, labels and hover
  texts, so every user-provided name (features, rows, trees, groups) goes through
  :func:`plain`, which escapes ``&``, ``<`` and ``>``; plotly shows the entities as the literal
  characters. Names are cut to 40 characters (:mod:`forestviz.names`) except in hover
  texts.
* Every figure has a title, a caption (the title's subtitle) stating what is drawn, axis titles
  and hover texts in plain words (:func:`finish`).
* Every figure function takes ``width``, the pixels it will get (``WIDTH``, a wide page, by
  default; ``HALF`` for half of one): the title and caption wrap to it and the legend lies in
  rows across the top, between the caption and the plot, with room made for it, so it never
  covers or squeezes the plot (:func:`finish`).
* Figures are white: plotly's "plotly_white" template, less what no figure here draws with
  (:func:`white_template`, built once). Plotly validates and copies a template on every
  assignment: the whole "plotly_white" (defaults for 24 kinds of trace and for maps, 3-D scenes
  and polar plots) cost about 10 ms a figure and 4 KB of its JSON.
"""

from __future__ import annotations

import functools
import html
import math
import textwrap

import plotly.graph_objects as go
import plotly.io as pio

from forestviz.names import elide_unique

_UNBROKEN = ("ABRF Fig. ", "Fig. ")  # kept on one line with the word after them
WIDTH = 930  # pixels of a figure across a wide page (a 1400 px window less its side bar, margins)
COLUMN_GAP = 20  # pixels between two columns of a page


def half(width: int) -> int:
    """Pixels of a figure in one of two columns of a page ``width`` pixels wide."""
    return (width - COLUMN_GAP) // 2


HALF = half(WIDTH)  # 455: one of two columns of that page
# Pixels a character takes in a title (17 px), a caption and a legend entry (12-13 px), and
# the room plotly keeps left and right of the plot (axis titles, ticks)
TITLE_CHAR, CAPTION_CHAR, LEGEND_CHAR = 7.5, 5.2, 7.0
SIDES = 80 + 80
LEGEND_ROW = 22
STRONG = ("#1f5fa8", "#d9650b", "#2b8a3e")  # top-k bars, one colour per stacked part
PALE = ("#b7cde6", "#f6c8a0", "#b9e0c0")  # the other bars


TRACE_TYPES = frozenset({"bar", "heatmap", "histogram", "scatter", "scatterternary",
                         "waterfall"})
"""The kinds of trace forestviz's figures draw: :func:`white_template` keeps their defaults."""
UNDRAWN_LAYOUT = frozenset({"geo", "map", "mapbox", "polar", "scene"})
"""Layout parts of "plotly_white" for kinds of plot no figure here has."""


@functools.cache
def white_template() -> go.layout.Template:
    """Plotly's "plotly_white" with the trace defaults of ``TRACE_TYPES`` only and without
    ``UNDRAWN_LAYOUT``: what those figures look like is unchanged. Built once; plotly copies
    it into each figure (:func:`finish`), so it is never changed in place."""
    white = pio.templates["plotly_white"]
    layout = {k: v for k, v in white.layout.to_plotly_json().items()
              if k not in UNDRAWN_LAYOUT}
    data = {k: v for k, v in white.data.to_plotly_json().items() if k in TRACE_TYPES}
    return go.layout.Template(layout=layout, data=data)


def plain(text) -> str:
    """``text`` as a string with ``&``, ``<`` and ``>`` escaped, so plotly shows it literally."""
    return html.escape(str(text), quote=False)


def unique_labels(labels, default: str, n: int) -> list[str]:
    """Escaped labels (``default.format(i + 1)`` when ``labels`` is None), cut to 40 characters
    and kept distinct by a " #k" suffix (:func:`forestviz.names.elide_unique`), since plotly
    merges equal category labels."""
    raw = [default.format(i + 1) for i in range(n)] if labels is None else list(labels)
    if len(raw) != n:
        raise ValueError(f"expected {n} labels, got {len(raw)}")
    return [plain(label) for label in elide_unique(raw)]


def tree_names(n_trees: int, tree_ids) -> list[str]:
    """"Tree 1" … "Tree T", or "Tree <id>" for the given ids."""
    if tree_ids is None:
        return unique_labels(None, "Tree {}", n_trees)
    return unique_labels([f"Tree {t}" for t in tree_ids], "", n_trees)


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` characters; a figure reference ("ABRF Fig. 2") stays on one
    line."""
    for words in _UNBROKEN:
        text = text.replace(words, words.replace(" ", "\u00a0"))
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return [line.replace("\u00a0", " ") for line in lines]


def legend_entries(fig: go.Figure, showlegend=None) -> list[str]:
    """The names the legend of ``fig`` lists: every named trace not hidden from it, when the
    legend is shown (``showlegend``, or by plotly's default, more than one trace)."""
    if showlegend is False or (showlegend is None and len(fig.data) < 2):
        return []
    return [t.name for t in fig.data if t.name and t.showlegend is not False]


def legend_rows(names, width: int) -> int:
    """Rows a horizontal legend of ``names`` takes across ``width`` pixels (plotly wraps its
    entries: each is its text plus the symbol and gaps, about 40 px)."""
    room, rows, used = max(width - SIDES, 200), 0, math.inf
    for name in names:
        size = len(name) * LEGEND_CHAR + 40
        if used + size > room:
            rows, used = rows + 1, 0
        used += size
    return rows


def finish(fig: go.Figure, title: str, caption: str, *, width: int = WIDTH,
           panel_titles=False, **layout) -> go.Figure:
    """Title with the caption as subtitle, both wrapped to ``width`` pixels and anchored at
    the top left; below them the legend (if any) in horizontal rows; then the plot, whose top
    margin holds all three (and the corner title of a ternary or the title of a first subplot
    panel: their legend goes to the figure's foot instead). White (:func:`white_template`);
    ``layout`` is passed on."""
    # the title and caption span the figure, less their padding
    title_lines = _wrap(title, int((width - 30) / TITLE_CHAR)) or [title]
    lines = _wrap(caption, int((width - 30) / CAPTION_CHAR))
    names = legend_entries(fig, layout.get("showlegend"))
    legend = (LEGEND_ROW * rows + 8) if (rows := legend_rows(names, width)) else 0
    below = "ternary" in layout or panel_titles  # a corner or panel title sits on the plot
    top = (24 + 24 * len(title_lines) + 17 * len(lines) + legend * (not below)
           + 50 * ("ternary" in layout) + 30 * panel_titles)
    margin = {"t": top, "l": 70, "r": 40, **({"b": 70 + legend} if below else {}),
              **layout.pop("margin", {})}
    place = ({"y": 0, "yanchor": "bottom", "yref": "container"} if below
             else {"y": 1, "yanchor": "bottom", "yref": "paper"})
    legend_layout = {"orientation": "h", "x": 0, "xanchor": "left", **place,
                     **layout.pop("legend", {})}
    fig.update_layout(title={"text": "<br>".join(title_lines), "x": 0, "xanchor": "left",
                             "xref": "container", "y": 1, "yanchor": "top", "yref": "container",
                             "pad": {"t": 12, "l": 12},
                             "subtitle": {"text": "<br>".join(lines)}},
                      template=white_template(), width=width, margin=margin,
                      legend=legend_layout,
                      **layout)
    return fig
