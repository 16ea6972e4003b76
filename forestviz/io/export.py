"""Tables written for other programs: CSV that a spreadsheet cannot turn into a formula.

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as a
formula by spreadsheet programs (OWASP, "CSV Injection"), so text that came from an uploaded
file — IDs, class labels, column names — could run a formula in the next program that opens
the download. Some programs also start a new cell (or line) at a carriage return, line feed or
tab inside a quoted cell, so ``"P1\\r=cmd|' /C calc'!A0"`` would put a formula in a cell of its
own. Following OWASP's advice every such start gets a single quote ``'``: at the beginning of
the cell and right after each CR, LF or tab inside it. Numbers (including negative ones, and
text that parses as a number) are left as they are. Every CSV the product writes goes through
:func:`neutralised` (:func:`csv_bytes` for the downloads, the command line's ``explain`` sink).
"""

from __future__ import annotations

import re

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CELL_BREAKS = "\r\n\t"  # where a spreadsheet may start another cell or line inside one cell
# a position that starts the cell or follows a break, before a formula start: gets a "'"
_UNSAFE_START = re.compile(r"(?:^|(?<=[\r\n\t]))(?=[=+\-@\t\r])")


def neutralise(value):
    """``value`` made inert for a spreadsheet: text whose start, or whose text after a CR, LF
    or tab, begins like a formula gets a ``'`` there; numbers, missing values and other text
    are returned unchanged."""
    if not isinstance(value, str) or _is_number(value):
        return value
    return _UNSAFE_START.sub("'", value)


def _is_number(text: str) -> bool:
    """"-1.5" is a number written as text, not a formula (but "-1\r=cmd" is no number)."""
    if any(char in text for char in CELL_BREAKS):
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


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
    (without the header line: a later piece of a CSV written piece by piece). Lines end in
    CR LF (RFC 4180), so a cell holding a CR or an LF is quoted: with pandas' default LF ending
    a lone CR went out unquoted and a spreadsheet split the cell there."""
    return neutralised(frame).to_csv(index=False, header=header,
                                     lineterminator="\r\n").encode("utf-8")

