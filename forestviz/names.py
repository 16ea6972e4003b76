"""Display names: long names shortened wherever they are laid out, the full name kept. Every
layer uses it (CSV messages, decision paths, figures, drawings, the report), so it sits at the
bottom of the package and imports nothing of forestviz.

A column can be named by a 5,000-character string (a pasted sentence, a generated id). Every
view that lays names out (tree drawings, figure ticks, legends and axis titles, the HTML
report) shows :func:`elide` of it: at most ``NAME_LIMIT`` characters, ending in "…" when
cut, so no layout grows with a name's length. The full name stays where it costs no width:
hover texts (:func:`wrap_name`, lines of ``HOVER_WIDTH`` characters), ``title`` attributes and
the report's table of full names; downloads keep full names.

Cutting can make different names look alike ("…" hides where they differ), and plotly merges
equal category labels: :func:`elide_unique` and :class:`DisplayNames` keep display names
distinct with a " #2", " #3" … suffix.

A name that identifies something (a published model) is compared and stored in one normal
form, :func:`normal_form`: NFKC (full-width "＠" is "@", "ﬁ" is "fi"), default-ignorable and
format characters removed (zero-width space, word joiner, BOM, soft hyphen, tag characters:
invisible, so "Pima\u200b risk" is "Pima risk"), then :func:`clean`. Two normal forms that
still look alike ("Pima risk" with a Cyrillic "Р") share a :func:`look_alike_key`, the
confusable skeleton of Unicode TS #39 as ICU computes it.
"""

from __future__ import annotations

import functools
import textwrap
import unicodedata
from collections.abc import Iterable

NAME_LIMIT = 40
HOVER_WIDTH = 80
ELLIPSIS = "…"
# Bidirectional embeddings, overrides, isolates and marks: they reorder the text around a name
# (the "…", a suffix, the numbers after it in a hover text), so a name must not carry them.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069")


def clean(name) -> str:
    """``str(name)`` on one line: control characters and line or paragraph separators become
    spaces, bidirectional controls are dropped, runs of white space become one space and the
    ends are trimmed (a name is a label: its white space carries no meaning on screen)."""
    chars = []
    for char in str(name):
        if char in _BIDI_CONTROLS:
            continue
        chars.append(" " if unicodedata.category(char) in ("Cc", "Zl", "Zp") else char)
    return " ".join("".join(chars).split())


@functools.cache
def _icu():
    """ICU's default-ignorable and format characters (as a ``str.translate`` table that drops
    them) and its spoof checker, loaded on first use (ICU's import takes about 0.1 s, which
    the first page does not pay)."""
    import icu

    invisible = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:][:Cf:]]")
    return dict.fromkeys(map(ord, invisible), None), icu.SpoofChecker()


def _visible(text: str) -> str:
    return text.translate(_icu()[0])


def normal_form(name) -> str:
    """The one form a name is compared and stored in: NFKC, default-ignorable and format
    characters removed (before and after NFKC, which can make one: U+3164 → U+1160), then
    :func:`clean`; ``normal_form(normal_form(x)) == normal_form(x)``."""
    text = _visible(unicodedata.normalize("NFKC", _visible(str(name))))
    return clean(unicodedata.normalize("NFKC", text))


def look_alike_key(name) -> str:
    """The TS #39 confusable skeleton (ICU's ``SpoofChecker.getSkeleton``) of
    :func:`normal_form` of ``name``: two names that look alike ("Pima risk", "Рima risk",
    "Pima rіsk") share it, names that differ visibly ("Pima risk", "pima risk") do not."""
    return _icu()[1].getSkeleton(0, normal_form(name))


def elide(name, limit: int = NAME_LIMIT) -> str:
    """:func:`clean` of ``name``, cut to ``limit`` characters ending in "…" when longer.

    The cut keeps the head, where names differ most often (``"Glucose, 2-hour oral…"``), and
    never separates a letter from its combining accents (then the text is shorter than
    ``limit``).
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    text = clean(name)
    if len(text) <= limit:
        return text
    cut = limit - len(ELLIPSIS)
    while cut > 0 and unicodedata.category(text[cut]).startswith("M"):
        cut -= 1
    return text[:cut] + ELLIPSIS


def _distinct(name, taken: set[str], limit: int) -> str:
    """``elide(name, limit)``, or when ``taken`` holds it, the name elided to make room for the
    first suffix " #k" (k = 2, 3, …) giving a text not in ``taken``; the text joins ``taken``."""
    text, k = elide(name, limit), 1
    while text in taken:
        k += 1
        suffix = f" #{k}"
        text = elide(name, max(limit - len(suffix), 1)) + suffix
    taken.add(text)
    return text


def elide_unique(names: Iterable, limit: int = NAME_LIMIT) -> list[str]:
    """One display text per position, all different: :func:`elide` of each name, with a " #k"
    suffix on a text already given (to a different name that elides alike, or to an equal name
    earlier in the list, since plotly would merge equal category labels). Texts are at most
    ``limit`` characters, unless ``limit`` leaves no room for a suffix and one character."""
    taken: set[str] = set()
    return [_distinct(name, taken, limit) for name in names]


class DisplayNames:
    """Display texts for names met one at a time, e.g. in the many tables of a report: equal
    names always get the same text, different names never do (:func:`elide_unique`'s rule,
    first come first served). :meth:`shortened` lists the names not shown whole."""

    def __init__(self, limit: int = NAME_LIMIT):
        self.limit = limit
        self._shown: dict[str, str] = {}
        self._taken: set[str] = set()

    def __call__(self, name) -> str:
        name = str(name)
        if name not in self._shown:
            self._shown[name] = _distinct(name, self._taken, self.limit)
        return self._shown[name]

    def is_shortened(self, name) -> bool:
        """Whether ``name`` is shown cut or with a suffix (not merely :func:`clean`)."""
        return self(name) != clean(name)

    def shortened(self) -> dict[str, str]:
        """{full name: display text} of the shortened names met so far, in order of first use."""
        return {name: text for name, text in self._shown.items() if text != clean(name)}


def wrap_name(name, width: int = HOVER_WIDTH) -> list[str]:
    """:func:`clean` of ``name`` whole, in lines of at most ``width`` characters (broken at
    spaces where it can, inside words where it must; ``"".join(lines) == clean(name)``), for
    hover texts, which plotly never wraps."""
    return textwrap.wrap(clean(name), width, expand_tabs=False, replace_whitespace=False,
                         drop_whitespace=False, break_on_hyphens=False)


CELL_PREVIEW_LIMIT = 200  # characters of one text cell sent to a table in the browser


def with_length(text: str, limit: int) -> str:
    """``text`` whole when it has at most ``limit`` characters, else its head cut to ``limit``
    characters (never separating a letter from its combining accents) followed by "… (N
    characters)", N its full length: a cut that says how much was left out. Used wherever a
    value, rather than a name, is bounded (tables in the browser, the report)."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if len(text) <= limit:
        return text
    cut = limit
    while cut > 0 and unicodedata.category(text[cut]).startswith("M"):
        cut -= 1
    return f"{text[:cut]}{ELLIPSIS} ({len(text):,} characters)"


MISSING_CELL = "—"  # a missing value in a table for display (a table would print "None")


def elide_cells(frame, limit: int = CELL_PREVIEW_LIMIT):
    """A copy of ``frame`` for display: every text cell longer than ``limit`` characters is
    cut to its head with "… (N characters)" (:func:`with_length`), so no table sends an
    unbounded cell to the browser, and every missing cell (None, NaN) reads
    :data:`MISSING_CELL`; other cells are unchanged (a number column with no missing value
    stays numbers; one with a missing value becomes text, as Streamlit's Arrow conversion
    would otherwise make it after logging that it could not convert "—")."""
    out = frame.copy()
    for j in range(out.shape[1]):
        column = out.iloc[:, j]
        missing = column.isna().to_numpy(dtype=bool)
        if column.dtype.kind in "biufcmM":
            if missing.any():  # text throughout: Arrow takes no "—" beside numbers
                out.isetitem(j, column.astype(str).where(~missing, MISSING_CELL))
            continue
        lengths = column.map(lambda v: len(v) if isinstance(v, str) else 0)
        if len(column) and lengths.max() > limit:
            column = column.map(lambda v: _preview(v, limit), na_action="ignore")
        if missing.any():
            column = column.astype(object).where(~missing, MISSING_CELL)
        out.isetitem(j, column)
    return out


def _preview(value, limit: int):
    return with_length(value, limit) if isinstance(value, str) else value
