"""How one of the row's values is said, bounded: the report's cells and the marks of a value
missing or edited (what-if) beside it, which the Explain view shows on the page and in the
record (:mod:`forestviz.explain.row.view`, :mod:`forestviz.explain.report.markup`). A value is
cut to ``VALUE_LIMIT`` characters, saying its full length (:func:`forestviz.names.with_length`),
so that what a file holds does not grow what a page or a PDF lays out."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from forestviz.names import with_length
from forestviz.numbers import plain_number

VALUE_LIMIT = 100  # characters of one value (a cell, a level) in a report


def plain(value, limit: int = VALUE_LIMIT) -> str:
    """A value as the record says it, before escaping: floats to 4 significant digits, no value
    (None, NaN) as "—", any other text cut to ``limit`` characters saying its full length."""
    if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
        return "—"
    if isinstance(value, float | np.floating):
        return f"{plain_number(value, 4)}"
    return with_length(str(value), limit)


def was(value) -> str:
    """How an edited value's old value is said (plain text, the value bounded): "was 187",
    "was missing"."""
    return "was missing" if value is None or pd.isna(value) else f"was {plain(value)}"


def marks(columns, missing, edited: Mapping[str, object]) -> list[str]:
    """Per column: "missing", "edited (was 187)", both, or ""."""
    out = []
    for column in columns:
        said = ["missing"] if column in missing else []
        if column in edited:
            said.append(f"edited ({was(edited[column])})")
        out.append("; ".join(said))
    return out
