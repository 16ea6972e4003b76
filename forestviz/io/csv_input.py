"""Reading an untrusted CSV table: ``load_csv`` turns bytes, a path or a file object into a
DataFrame or raises :class:`DataError` (nothing else) with a message a non-programmer can act on.

The steps, each in its own module: the bytes are read within the size cap and decoded, binary
files refused (:mod:`forestviz.io.csv_decode`); the delimiter is sniffed from the first records
and the header measured before any parsing, so a 100k-column header is refused at once
(:mod:`forestviz.io.csv_dialect`); a value over ``MAX_CELL_CHARS`` or row over
``MAX_LINE_CHARS`` characters is found in the raw bytes (:mod:`forestviz.io.csv_scan`); then
pyarrow or pandas parses and types the columns (:mod:`forestviz.io.csv_parse`). Ragged rows and
damaged text get a plain-words reason and what to do about it. The caps live in
:mod:`forestviz.io.limits`, shared with Parquet.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from forestviz.io.csv_decode import SNIFF_CHARS, decode, read_bytes
from forestviz.io.csv_dialect import (
    DELIMITER_NAMES,
    EXCEL_SEP_LINE,
    count_outside_quotes,
    header_fields,
    leading_records,
    more_values_than_names,
    sniff_delimiter,
)
from forestviz.io.csv_parse import parse_arrow as _parse_arrow
from forestviz.io.csv_parse import parse_pandas
from forestviz.io.csv_scan import Overlong, scan
from forestviz.io.errors import SAVE_AS_CSV, DataError
from forestviz.io.limits import MAX_BYTES, MAX_CELL_CHARS, MAX_COLUMNS, MAX_LINE_CHARS
from forestviz.names import elide

__all__ = [
    "MAX_BYTES",
    "MAX_CELL_CHARS",
    "MAX_COLUMNS",
    "MAX_LINE_CHARS",
    "DataError",
    "load_csv",
    "unique_names",
]

_SNIFF_RECORDS = 20
_CHARS_PER_COLUMN = 256  # the header may be this long per allowed column before it is refused
_CELL_TOO_LONG = (
    "{}, column {}, holds a value of {:,} characters; forestviz accepts at most "
    "{:,} characters per cell. Shorten or remove that value, and upload again."
)


def load_csv(
    source,
    *,
    max_bytes=MAX_BYTES,
    max_columns=MAX_COLUMNS,
    max_cell_chars=MAX_CELL_CHARS,
    max_line_chars=MAX_LINE_CHARS,
    min_columns=2,
) -> pd.DataFrame:
    """Read an untrusted CSV table from bytes, a path (``str`` / ``PathLike``) or a file object.

    The delimiter (``,`` ``;`` tab ``|``) is sniffed from the first records outside quotes, or
    read from Excel's ``sep=;`` first line. The encoding is UTF-8 (with or without BOM),
    UTF-16/32 with a BOM, else Windows-1252 / Latin-1.
    In a semicolon-separated file a comma is the decimal mark (``1,5`` is 1.5), as in the CSVs
    that spreadsheets write in locales with a decimal comma. Column names are kept verbatim
    (only surrounding spaces are removed); repeated names become ``x``, ``x (2)``, ...; rows
    and unnamed columns that are entirely empty are dropped. A value over ``max_cell_chars`` or
    row over ``max_line_chars`` characters is refused before parsing. A table needs
    ``min_columns`` columns (a target and another to train on; new rows of a one-column model
    need one, and a file without a delimiter is then that one column). Problems raise
    DataError.
    """
    data = read_bytes(source, max_bytes)
    if not data or data.isspace():
        raise DataError("The file is empty. Choose a CSV file that contains a table.")
    window = SNIFF_CHARS + _CHARS_PER_COLUMN * max_columns
    text = decode(data, window + 1)
    if text.blank:
        raise DataError("The file contains only blank lines. Choose a CSV file with a table.")
    sample = text.head[:window].replace("\r\n", "\n").replace("\r", "\n")
    hint = EXCEL_SEP_LINE.match(sample)
    records, complete = leading_records(sample[hint.end() :] if hint else sample, _SNIFF_RECORDS)
    if not records:
        raise DataError("No table was found after the 'sep=' line. Choose the right file.")
    delimiter = hint.group(1) if hint else sniff_delimiter(records, single=min_columns < 2)
    _check_header(records, complete, len(text.head) > window, delimiter, max_columns)
    fields = header_fields(records[0], delimiter)
    problem, differs = scan(text.payload, ord(delimiter), max_cell_chars, max_line_chars)
    if problem:
        raise _too_long(text.payload, delimiter, problem, fields, max_cell_chars, max_line_chars)
    frame = _parse(text.payload, delimiter, skip_lines=1 if hint else 0, arrow=not differs)
    if len(fields) != frame.shape[1]:
        fields = [str(name) for name in frame.columns]
    frame.columns = _column_names(fields)
    unnamed_and_empty = np.array([not name for name in fields]) & frame.isna().all().to_numpy()
    return _tidy(frame.loc[:, ~unnamed_and_empty], delimiter, max_cell_chars, min_columns)


def _parse(payload: bytes, delimiter: str, skip_lines: int, arrow: bool) -> pd.DataFrame:
    """The table read by pyarrow if ``arrow`` (the scan found it reads like pandas) and it can,
    else by pandas' C reader. (``_parse_arrow`` is looked up here at each call: the tests and
    ``bench/upload_memory.py`` switch pyarrow off through this name.)"""
    frame = _parse_arrow(payload, delimiter, skip_lines) if arrow else None
    if frame is None:
        frame = parse_pandas(payload, delimiter, skip_lines)
    return frame


def _check_header(records, complete, cut, delimiter, max_columns) -> None:
    """Refuse a header with over ``max_columns`` names, a first line too long to be a header
    (it fills the sniffed window, ``cut``) and a second record longer than the header."""
    n_columns = count_outside_quotes(records[0], delimiter) + 1
    if n_columns > max_columns:
        raise DataError(
            f"The first line names more than {max_columns:,} columns, more than this app can "
            f"handle. Keep at most {max_columns:,} columns and upload the table again."
        )
    if not complete and len(records) == 1 and cut:
        raise DataError(
            "The first line of the file is extremely long, so it does not look like a table "
            f"header. {SAVE_AS_CSV}"
        )
    if len(records) > 1 and count_outside_quotes(records[1], delimiter) + 1 > n_columns:
        raise more_values_than_names(delimiter)  # pandas would build a column per extra value


def _column_names(fields: list[str]) -> list[str]:
    """The header's names, unique, an empty one named by its place (``column 3``)."""
    return unique_names([name or f"column {i}" for i, name in enumerate(fields, 1)])


def _shown(name: str) -> str:
    """A column name in a message: plain, one line, at most 40 characters."""
    return f"'{elide(name)}'"


def _too_long(buf, delimiter, problem: Overlong, fields, max_cell, max_line) -> DataError:
    at = f"Row {problem.row:,} of the file (its first line is row 1)"
    if problem.value_start is None:
        return DataError(
            f"{at} is {problem.length:,} characters long; forestviz accepts at most "
            f"{max_line:,} characters per row. Shorten its long values or remove columns, and "
            "upload again."
        )
    before = buf[problem.row_start : problem.value_start].decode("utf-8", "replace")
    column = count_outside_quotes(before, delimiter)
    names = _column_names(fields)
    name = _shown(names[column]) if column < len(names) else column + 1
    return DataError(_CELL_TOO_LONG.format(at, name, problem.length, max_cell))


def _tidy(frame: pd.DataFrame, delimiter: str, max_cell: int, min_columns: int) -> pd.DataFrame:
    """Drop empty rows; refuse a table without rows, with fewer than ``min_columns`` columns,
    or with a text value over ``max_cell`` characters."""
    frame = frame.loc[~frame.isna().all(axis=1)].reset_index(drop=True)  # no copy if none is empty
    if frame.empty:
        raise DataError(
            "The file has a header line but no rows of data. Add the rows, or choose the "
            "right file."
        )
    if frame.shape[1] < min_columns:
        raise DataError(
            f"Only one column was found (read with {DELIMITER_NAMES[delimiter]}s between "
            "values). A table needs a target column and at least one other column."
        )
    for name in frame.select_dtypes("str").columns:  # a value the scan missed, after a quote
        length = frame[name].str.len()
        if length.max() > max_cell:
            at = f"Data row {length.idxmax() + 1:,} (the first row below the column names is 1)"
            raise DataError(_CELL_TOO_LONG.format(at, _shown(name), int(length.max()), max_cell))
    return frame


def unique_names(names) -> list[str]:
    """Make names unique visibly: the second ``x`` becomes ``x (2)``, the third ``x (3)``
    (skipping any ``x (k)`` that is itself one of the names)."""
    names = list(names)
    taken = set(names)
    seen = set()
    result = []
    for name in names:
        new = name
        copy = 1
        while new in seen or (copy > 1 and new in taken):
            copy += 1
            new = f"{name} ({copy})"
        seen.add(new)
        result.append(new)
    return result
