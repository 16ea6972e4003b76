"""Model names and descriptions as plain, bounded text.

What a publisher types is shown to every viewer, so it is text, never markup: one line for a
name (:func:`forestviz.names.clean`: controls, line breaks and bidirectional overrides out,
white space collapsed), lines cleaned one by one for a description. Both are capped, and a
name cannot hold ``@``, which separates it from the version (``NAME@VERSION``). The pages
show them as text (``st.text``, escaped HTML); no link is ever made of them.
"""

from __future__ import annotations

import unicodedata

from forestviz.names import clean
from forestviz.store.config import StoreError
from forestviz.store.tables import NAME_CHARS, TEXT_CHARS


def model_name(text) -> str:
    """A model's name, cleaned and checked (StoreError naming the problem)."""
    name = clean(unicodedata.normalize("NFC", str(text)))
    if not name:
        raise StoreError("A published model needs a name.")
    if len(name) > NAME_CHARS:
        raise StoreError(f"A model's name has at most {NAME_CHARS} characters; this one has "
                         f"{len(name)}.")
    if "@" in name:
        raise StoreError("A model's name cannot contain '@' (it separates NAME@VERSION).")
    return name


def plain_text(text, what: str) -> str:
    """A description or intended use: each line cleaned, blank edges trimmed, at most
    ``TEXT_CHARS`` characters (StoreError beyond)."""
    lines = [clean(line) for line in unicodedata.normalize("NFC", str(text or "")).splitlines()]
    found = "\n".join(lines).strip("\n")
    if len(found) > TEXT_CHARS:
        raise StoreError(f"The {what} has at most {TEXT_CHARS:,} characters; this one has "
                         f"{len(found):,}.")
    return found
