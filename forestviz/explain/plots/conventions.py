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
"""

from __future__ import annotations

import html
import textwrap

import plotly.graph_objects as go

from forestviz.names import elide_unique

_UNBROKEN = ("ABRF Fig. ", "Fig. ")  # kept on one line with the word after them
# Characters per line of a figure's title and caption (plotly does not wrap text): narrow
# enough for a figure in half of a wide page.
TITLE_WIDTH = 60
CAPTION_WIDTH = 85
STRONG = ("#1f5fa8", "#d9650b", "#2b8a3e")  # top-k bars, one colour per stacked part
PALE = ("#b7cde6", "#f6c8a0", "#b9e0c0")  # the other bars


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
    lines = textwrap.wrap(text, width, break_long_words=False)
    return [line.replace("\u00a0", " ") for line in lines]


def finish(fig: go.Figure, title: str, caption: str, *, panel_titles=False,
            **layout) -> go.Figure:
    """Title with the caption as subtitle (both wrapped), a white template and room for both
    above the plot (more for the corner title of a ternary and for the title of a first
    subplot panel)."""
    title_lines = _wrap(title, TITLE_WIDTH) or [title]
    lines = _wrap(caption, CAPTION_WIDTH)
    top = (58 + 22 * len(title_lines) + 16 * len(lines) + 44 * ("ternary" in layout)
           + 30 * panel_titles)
    fig.update_layout(title={"text": "<br>".join(title_lines),
                             "subtitle": {"text": "<br>".join(lines)}},
                      template="plotly_white", margin={"t": top}, **layout)
    return fig
