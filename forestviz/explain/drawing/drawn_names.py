"""Names in a tree drawing: data, never markup, and of bounded width.

graphviz reads ``& < > " '`` in a label as markup and fails on control characters, and
dtreeviz passes names through to it unescaped. :func:`display_name` maps them to look-alikes
that DejaVu Sans can draw (``a&b`` → ``a and b``, ``<b>`` → ``‹b›``, ``O'Brien`` → ``O’Brien``)
and cuts the result to ``NAME_LIMIT`` characters (:mod:`forestviz.names`), so that a drawing's
width does not grow with a name's length; :func:`display_names` keeps a model's names distinct
once cut.
"""

from __future__ import annotations

import unicodedata
from itertools import cycle

from forestviz.names import NAME_LIMIT, elide, elide_unique

_LOOKALIKES = {"<": "‹", ">": "›", "'": "’", "&": " and "}


def display_name(name, limit: int = NAME_LIMIT) -> str:
    """``name`` as graphviz can draw it (:func:`_drawable`), cut to ``limit`` characters
    (:func:`forestviz.names.elide`)."""
    return elide(_drawable(name), limit)


def display_names(names) -> list[str]:
    """:func:`display_name` of each name, kept distinct
    (:func:`forestviz.names.elide_unique`): two features that look alike once cut would
    make the drawing ambiguous."""
    return elide_unique(_drawable(name) for name in names)


def _drawable(name) -> str:
    """``name`` with look-alikes for ``& < > " '``, control characters as spaces, runs of white
    space collapsed (straight double quotes become “ ”, alternating)."""
    quotes = cycle("“”")
    out = []
    for char in str(name):
        if char == '"':
            out.append(next(quotes))
        elif char in _LOOKALIKES:
            out.append(_LOOKALIKES[char])
        elif unicodedata.category(char).startswith("C"):
            out.append(" ")
        else:
            out.append(char)
    return " ".join("".join(out).split())
