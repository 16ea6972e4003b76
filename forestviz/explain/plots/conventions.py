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
* Every figure function takes ``width``, the pixels it will get on a wide page (``WIDTH`` by
  default; ``HALF`` for half of one). Streamlit shrinks a figure to a narrower column (a 700 px
  window leaves a full-width figure about ``NARROW`` pixels), so what plotly cannot rewrap is
  laid out for the narrowest it is shown at, :func:`narrowest`: the title and caption are
  wrapped to it at generous character widths. The legend lies in rows just under the caption,
  placed on the figure (not the plot), with room made for its rows at ``width``; shown
  narrower, it takes more rows and plotly lowers the plot under it (a legend placed on the
  figure reserves its margin), so it never covers the caption or the plot. A legend at the
  figure's foot (under a ternary or subplot panels) has room for its rows at the narrowest
  width (:func:`finish`).
* Figures are white: plotly's "plotly_white" template, less what no figure here draws with
  (:func:`white_template`, built once). Plotly validates and copies a template on every
  assignment: the whole "plotly_white" (defaults for 24 kinds of trace and for maps, 3-D scenes
  and polar plots) cost about 10 ms a figure and 4 KB of its JSON.
"""

from __future__ import annotations

import functools
import html
import math
import re
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
NARROW = 620  # pixels of a full-width figure in a 700 px window (measured 650-670)
# Pixels a character takes in a title, a caption and a legend entry, about 13 % above the
# widest lines measured in Streamlit's theme (16 px bold: 7.5, 11 px: 4.6, 12 px: 5.7), and
# the room plotly keeps left and right of the plot (axis titles, ticks)
TITLE_CHAR, CAPTION_CHAR, LEGEND_CHAR = 8.5, 5.2, 7.0
SIDES = 80 + 80
LEGEND_ROW = 22
ITEM_GAP = 5  # plotly's pixels between two legend entries
HALF_LINE = 11  # pixels of half a line of a title
HEIGHT = 450  # plotly's and Streamlit's height of a figure that sets none
BAR_ROW = 22  # pixels of a horizontal bar with its name beside it (12 px text and a gap)
BOTTOM = 80  # plotly's bottom margin: the x axis's ticks and title


def narrowest(width: int) -> int:
    """Pixels of the narrowest column a figure laid out for ``width`` is shown in."""
    return min(width, NARROW)
# Told apart under protanopia, deuteranopia and tritanopia as well (tests/test_palette.py: the
# green this replaced was 7 CAM02-UCS units from the orange to a protanope)
STRONG = ("#1f5fa8", "#d9650b", "#333333")  # top-k bars, one colour per stacked part
PALE = ("#b7cde6", "#f6c8a0", "#a8a8a8")  # the other bars
TOTAL = "#888888"  # a waterfall's base and end


TRACE_TYPES = frozenset({"bar", "heatmap", "histogram", "scatter", "scatterternary",
                         "waterfall"})
"""The kinds of trace forestviz's figures draw: :func:`white_template` keeps their defaults."""
UNDRAWN_LAYOUT = frozenset({"geo", "map", "mapbox", "polar", "scene"})
"""Layout parts of "plotly_white" for kinds of plot no figure here has."""


FONT = '"Source Sans", "Source Sans Pro", sans-serif'
"""The page's typeface (Streamlit's), for the figures' text; its colour is plotly_white's
dark blue-grey, 10.7 : 1 on white (Streamlit's own chart theme printed ticks at 3.7 : 1)."""


@functools.cache
def white_template() -> go.layout.Template:
    """Plotly's "plotly_white" with the trace defaults of ``TRACE_TYPES`` only and without
    ``UNDRAWN_LAYOUT``: what those figures look like is unchanged. Built once; plotly copies
    it into each figure (:func:`finish`), so it is never changed in place."""
    white = pio.templates["plotly_white"]
    layout = {k: v for k, v in white.layout.to_plotly_json().items()
              if k not in UNDRAWN_LAYOUT}
    layout["font"] = {**layout.get("font", {}), "family": FONT}
    # Streamlit's chart sizes, which the figures' layout (finish) was measured with: a 16 px
    # title over 12 px text
    layout["title"] = {**layout.get("title", {}), "font": {"size": 16}}
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


EVERY_CATEGORY = {"type": "category", "tickmode": "linear", "tick0": 0, "dtick": 1}
"""A category axis that names every bar (one tick per category): by itself plotly names every
other bar (or fewer) once there are more bars than ticks it would draw, and the top bar may go
unnamed."""


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
    legend is shown (``showlegend``, else the figure's, else by plotly's default, more than
    one trace)."""
    if showlegend is None:
        showlegend = fig.layout.showlegend
    if showlegend is False or (showlegend is None and len(fig.data) < 2):
        return []
    return [t.name for t in fig.data if t.name and t.showlegend is not False]


def legend_rows(names, width: int, sides: int = SIDES) -> int:
    """Rows a horizontal legend of ``names`` takes across the plot of a figure ``width``
    pixels wide with ``sides`` pixels left and right of its plot, as plotly lays it out: one
    row when every entry (its text plus the symbol and gaps, about 40 px) fits, else a grid of
    columns as wide as the widest entry."""
    room = max(width - sides, 200)
    sizes = [len(name) * LEGEND_CHAR + 40 for name in names]
    if not sizes:
        return 0
    if sum(sizes) + ITEM_GAP * (len(sizes) - 1) < room:
        return 1
    return math.ceil(len(sizes) / max(1, int(room // (max(sizes) + ITEM_GAP))))


def finish(fig: go.Figure, title: str, caption: str, *, width: int = WIDTH,
           panel_titles=False, bars: int = 0, **layout) -> go.Figure:
    """Title with the caption as subtitle, both wrapped to the narrowest width the figure is
    shown at (:func:`narrowest`) and anchored at the top left; below them the legend (if any)
    in horizontal rows; then the plot, whose top margin holds all three at ``width`` (and the
    corner title of a ternary or the title of a first subplot panel: their legend goes to the
    figure's foot instead, with room for its rows at the narrowest width). A plot of ``bars``
    horizontal bars is made tall enough for each to have its name (:data:`BAR_ROW`). White
    (:func:`white_template`); ``layout`` is passed on."""
    shown = narrowest(width)
    # the title and caption span the figure, less their padding
    title_lines = _wrap(title, int((shown - 30) / TITLE_CHAR)) or [title]
    lines = _wrap(caption, int((shown - 30) / CAPTION_CHAR))
    names = legend_entries(fig, layout.get("showlegend"))
    below = "ternary" in layout or panel_titles  # a corner or panel title sits on the plot
    margin = {"l": 70, "r": 40, **layout.pop("margin", {})}
    sides = max(SIDES, margin["l"] + margin["r"] + 50)  # with room for longer tick labels
    rows = legend_rows(names, shown if below else width, sides)
    legend = (LEGEND_ROW * rows + 8) if rows else 0
    text = 24 + 24 * len(title_lines) + 17 * len(lines)
    height = layout.pop("height", None) or HEIGHT
    top = text + legend * (not below) + 50 * ("ternary" in layout) + 30 * panel_titles
    margin = {"t": top, **({"b": 70 + legend} if below else {}), **margin}
    height = max(height, top + margin.get("b", BOTTOM) + BAR_ROW * bars)
    # on the container: plotly keeps the plot below a legend there (its "reserved margin")
    place = {"y": 0, "yanchor": "bottom"} if below else {"y": 1 - text / height,
                                                          "yanchor": "top"}
    legend_layout = {"orientation": "h", "x": 0, "xanchor": "left", "yref": "container",
                     **place, **layout.pop("legend", {})}
    fig.update_layout(title={"text": "<br>".join(title_lines), "x": 0, "xanchor": "left",
                             "xref": "container", "y": 1, "yanchor": "top", "yref": "container",
                             # plotly centres the lines of a title on its first: each
                             # further line would lift it by half a line, above the figure
                             "pad": {"t": 12 + HALF_LINE * (len(title_lines) - 1), "l": 12},
                             "subtitle": {"text": "<br>".join(lines)}},
                      template=white_template(), width=width, height=height, margin=margin,
                      legend=legend_layout,
                      **layout)
    return fig


_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_OTHER_BREAKS = re.compile(r"</?(b|i|sub|sup|span|em)\b[^>]*>", re.IGNORECASE)


def plain_text(text) -> str:
    """Plotly's label markup as plain text: ``<br>`` a new line, other tags of plotly's small
    set dropped, entities (``&lt;`` …) their characters."""
    if text is None:
        return ""
    return html.unescape(_OTHER_BREAKS.sub("", _BREAK.sub("\n", str(text))))
