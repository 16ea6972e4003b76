"""Tables written for other programs: CSV that a spreadsheet cannot turn into a formula.

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as a
formula by spreadsheet programs (OWASP, "CSV Injection"), so text that came from an uploaded
file — IDs, class labels, column names — could run a formula in the next program that opens
the download. Following OWASP's advice such a text cell is prefixed with a single quote
``'``; numbers (including negative ones, and text that parses as a number) are left as they are.
"""

from __future__ import annotations

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value):
    """``value`` made inert for a spreadsheet: text starting like a formula gets a leading
    ``'``; numbers, missing values and other text are returned unchanged."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value  # "-1.5" is a number written as text, not a formula


def neutralised(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose column names and text cells are neutralised; numeric columns
    are not touched."""
    out = frame.copy()
    out.columns = [neutralise(str(name)) for name in frame.columns]
    for j in range(out.shape[1]):
        column = out.iloc[:, j]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            out.isetitem(j, column.map(neutralise, na_action="ignore").astype(object))
    return out


def csv_bytes(frame: pd.DataFrame, *, header: bool = True) -> bytes:
    """``frame`` as UTF-8 CSV without the index, neutralised against formula injection
    (without the header line: a later piece of a CSV written piece by piece)."""
    return neutralised(frame).to_csv(index=False, header=header).encode("utf-8")

