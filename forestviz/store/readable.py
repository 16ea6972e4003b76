"""An audit event's detail as people read it on the Audit page: its facts (the compact JSON of
:func:`forestviz.store.audit.facts`) as "risk 0.571 · interval 0.420–0.630 · row 12", numbers
through :mod:`forestviz.numbers` (three significant digits, thousands grouped, a true minus,
never the float's 17 digits or scientific notation). A detail that is not a JSON object (a
row's ID) reads as it is; none reads "—". The CSV export keeps the detail as stored."""

from __future__ import annotations

import json
from numbers import Integral, Real

from forestviz.numbers import NOTHING, aligned_texts, plain_number

DIGITS = 3
"""Significant digits of a fact's number (a risk, a value, a range's ends)."""


def fact_text(value) -> str:
    """One fact's value: a number (:data:`DIGITS` significant digits; a count whole and
    grouped), two numbers as a range "0.420–0.630", a list joined, True as "yes"."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return f"{value:,}".replace("-", "−")
    if isinstance(value, Real):
        return plain_number(value, DIGITS)
    if isinstance(value, list):
        if len(value) == 2 and all(_number(v) for v in value):
            return "–".join(aligned_texts(*value, digits=DIGITS))
        return ", ".join(map(fact_text, value))
    if isinstance(value, dict):
        return "; ".join(f"{k} {fact_text(v)}" for k, v in value.items())
    return NOTHING if value is None else str(value)


def _number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def detail_text(detail) -> str:
    """An event's detail for people: its facts "name value" joined by " · " (an underscore in
    a name read as a space)."""
    if detail is None or (isinstance(detail, float) and detail != detail):
        return NOTHING
    try:
        found = json.loads(detail)
    except ValueError:
        return str(detail)
    if not isinstance(found, dict):
        return str(detail)
    return " · ".join(f"{name.replace('_', ' ')} {fact_text(value)}"
                      for name, value in found.items())
