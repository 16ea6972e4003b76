"""How a person names a row, and how forestviz finds it: by its ID (the ID column's value as
text), or, when no row has that ID, by its row number (the table's row label, which counts the
file's data rows from 0 and keeps counting past the rows dropped for an empty target). The
Explain page's "ID, or row number" box and the command line's ``report ROWS`` both look rows up
here, so one name finds one row in both."""

from __future__ import annotations

import pandas as pd


def row_ids(frame: pd.DataFrame, id_column: str | None) -> pd.Series:
    """The rows' IDs as text: the ID column's values, or the row labels when the table has no
    ID column (or ``frame`` does not hold it)."""
    if id_column is not None and id_column in frame.columns:
        return frame[id_column].astype(str)
    return pd.Series(frame.index.astype(str), index=frame.index, name="row")


def row_position(frame: pd.DataFrame, id_column: str | None, wanted: str) -> int | None:
    """The position in ``frame`` of the row named ``wanted``: the first row whose ID is
    ``wanted`` (surrounding spaces ignored), else the row whose label is the whole number
    ``wanted`` in ASCII digits; None when no row is named so."""
    wanted = str(wanted).strip()
    matches = (row_ids(frame, id_column) == wanted).to_numpy().nonzero()[0]
    if matches.size:
        return int(matches[0])
    if wanted.isascii() and wanted.isdigit() and int(wanted) in frame.index:  # not "¹"
        return int(frame.index.get_loc(int(wanted)))
    return None
