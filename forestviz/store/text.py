"""Model names and descriptions as plain, bounded text.

What a publisher types is shown to every viewer, so it is text, never markup: one line for a
name, in the one normal form names are compared and stored in (:func:`forestviz.names.normal_form`:
NFKC, invisible characters out, controls, line breaks and bidirectional overrides out, white
space collapsed), lines cleaned one by one for a description. Both are capped, and the length
of what was sent is checked before any work (a 10 MB description is refused at once, not
after seconds of cleaning); a name cannot hold ``@``, which separates it from the version
(``NAME@VERSION``). The pages show them as text (``st.text``, escaped HTML); no link is ever
made of them.
"""

from __future__ import annotations

import unicodedata

from forestviz.names import clean, normal_form
from forestviz.store.config import StoreError
from forestviz.store.tables import NAME_CHARS, TEXT_CHARS


def _bounded(text: str, limit: int, what: str) -> str:
    """``text`` when it has at most ``limit`` characters; StoreError naming its length."""
    if len(text) > limit:
        raise StoreError(f"{what} has at most {limit:,} characters; this one has "
                         f"{len(text):,}.")
    return text


def model_name(text) -> str:
    """A model's name in its normal form, checked (StoreError naming the problem)."""
    raw = _bounded(str(text), NAME_CHARS, "A model's name")  # before any work
    name = _bounded(normal_form(raw), NAME_CHARS, "A model's name")
    if not name:
        raise StoreError("A published model needs a name.")
    if "@" in name:
        raise StoreError("A model's name cannot contain '@' (it separates NAME@VERSION).")
    return name


def reference(text) -> str:
    """A ``NAME[@VERSION]`` as typed or pasted, in the names' normal form (a full-width "＠"
    or an invisible character copied with it no longer hides the version)."""
    return normal_form(_bounded(str(text), NAME_CHARS + 12, "A model's reference"))


def plain_text(text, what: str) -> str:
    """A description or intended use: each line cleaned, blank edges trimmed, at most
    ``TEXT_CHARS`` characters as sent and as kept (StoreError beyond)."""
    raw = _bounded(str(text or ""), TEXT_CHARS, f"The {what}")  # before any work
    lines = [clean(line) for line in unicodedata.normalize("NFC", raw).splitlines()]
    return _bounded("\n".join(lines).strip("\n"), TEXT_CHARS, f"The {what}")
