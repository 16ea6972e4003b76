"""Reading an untrusted CSV table: ``load_csv`` turns bytes, a path or a file object into a
DataFrame or raises :class:`DataError` (nothing else) with a message a non-programmer can act on.

Delimiter and encoding are sniffed from the first records; the header is measured before any
parsing (a 100k-column header is refused at once); binary files, damaged text and ragged rows
get a plain-words reason and what to do about it.
"""

from __future__ import annotations

import csv
import io
import os
import re
import warnings

import numpy as np
import pandas as pd

_DELIMITERS = (",", ";", "\t", "|")
_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
_SNIFF_RECORDS = 20
_SNIFF_CHARS = 65536
_CHARS_PER_COLUMN = 256  # the header may be this long per allowed column before it is refused
_CONTROL_SHARE = 0.01  # more control characters than this share of the text means binary data
_CONTROL = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "an Excel workbook or another ZIP archive"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) or Word document"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"BZh91AY&SY", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "a program"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_UNICODE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_EXCEL_SEP_LINE = re.compile(r"sep=([,;\t|])\n")
_SAVE_AS_CSV = "Save the table as 'CSV UTF-8 (comma delimited)' and upload that file."


class DataError(ValueError):
    """A problem with the user's data, worded for a non-programmer: what is wrong, what to do."""


# --------------------------------------------------------------------------- loading a CSV


def load_csv(source, *, max_bytes=200 * 1024 * 1024, max_columns=2000) -> pd.DataFrame:
    """Read an untrusted CSV table from bytes, a path (``str`` / ``PathLike``) or a file object.

    The delimiter (``,`` ``;`` tab ``|``) is sniffed from the first records outside quotes, or
    read from Excel's ``sep=;`` first line. The encoding is UTF-8 (with or without BOM),
    UTF-16/32 with a BOM, else Windows-1252 / Latin-1.
    In a semicolon-separated file a comma is the decimal mark (``1,5`` is 1.5), as in the CSVs
    that spreadsheets write in locales with a decimal comma. Column names are kept verbatim
    (only surrounding spaces are removed); repeated names become ``x``, ``x (2)``, ...; rows
    and unnamed columns that are entirely empty are dropped. Any problem raises
    :class:`DataError`.
    """
    data = _read_bytes(source, max_bytes)
    if not data or data.isspace():
        raise DataError("The file is empty. Choose a CSV file that contains a table.")
    text, codec = _decode(data)
    if not text or text.isspace():
        raise DataError("The file contains only blank lines. Choose a CSV file with a table.")
    window = _SNIFF_CHARS + _CHARS_PER_COLUMN * max_columns
    sample = text[:window].replace("\r\n", "\n").replace("\r", "\n")
    hint = _EXCEL_SEP_LINE.match(sample)  # Excel's "sep=;" first line names the delimiter
    records, complete = _leading_records(sample[hint.end() :] if hint else sample, _SNIFF_RECORDS)
    if not records:
        raise DataError("No table was found after the 'sep=' line. Choose the right file.")
    delimiter = hint.group(1) if hint else _sniff_delimiter(records)
    n_columns = _count_outside_quotes(records[0], delimiter) + 1
    if n_columns > max_columns:
        raise DataError(
            f"The first line names more than {max_columns:,} columns, more than this app can "
            f"handle. Keep at most {max_columns:,} columns and upload the table again."
        )
    if not complete and len(records) == 1 and len(text) > window:
        raise DataError(
            "The first line of the file is extremely long, so it does not look like a table "
            f"header. {_SAVE_AS_CSV}"
        )
    if len(records) > 1 and _count_outside_quotes(records[1], delimiter) + 1 > n_columns:
        raise _more_values_than_names(delimiter)  # pandas would build a column per extra value
    payload = data if codec == "utf-8-sig" else text.encode("utf-8")  # pandas reads UTF-8
    frame = _parse(payload, delimiter, skip_lines=1 if hint else 0)
    fields = _header_fields(records[0], delimiter)
    if len(fields) != frame.shape[1]:
        fields = [str(name) for name in frame.columns]
    frame.columns = unique_names([name or f"column {i}" for i, name in enumerate(fields, 1)])
    unnamed_and_empty = np.array([not name for name in fields]) & frame.isna().all().to_numpy()
    return _tidy(frame.loc[:, ~unnamed_and_empty], delimiter)


def _read_bytes(source, max_bytes: int) -> bytes:
    try:
        if isinstance(source, bytes | bytearray | memoryview):
            data = bytes(source)
        elif isinstance(source, str | os.PathLike):
            with open(source, "rb") as handle:
                data = handle.read(max_bytes + 1)
        elif hasattr(source, "read"):
            data = source.read(max_bytes + 1)
            if isinstance(data, str):
                data = data.encode("utf-8")
        else:
            raise TypeError(f"load_csv needs bytes, a path or a file object, not {type(source)}")
    except OSError as error:
        raise DataError(
            f"The file could not be opened ({error.strerror or error}). Check that it exists "
            "and that you may read it, then try again."
        ) from error
    if len(data) > max_bytes:
        limit = f"{max_bytes / 2**20:,.0f} MB" if max_bytes >= 2**20 else f"{max_bytes:,} bytes"
        raise DataError(
            f"The file is larger than {limit}, the most this app accepts. Remove rows or "
            "columns you do not need and upload it again."
        )
    return data


def _decode(data: bytes) -> tuple[str, str]:
    """The text and the codec that decoded it; binary content raises DataError."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            raise DataError(f"This file is {kind}, not a CSV table. {_SAVE_AS_CSV}")
    for bom, codec in _UNICODE_BOMS:
        if data.startswith(bom):
            try:
                text, used = data.decode(codec), codec
            except UnicodeError as error:
                raise DataError(
                    f"The file says it is {codec.upper()} text but is damaged. {_SAVE_AS_CSV}"
                ) from error
            break
    else:
        if b"\x00" in data:
            raise DataError(
                "The file contains NUL bytes, so it is a binary file or text saved as UTF-16 "
                f"without a byte-order mark, not a plain CSV table. {_SAVE_AS_CSV}"
            )
        text, used = _decode_8bit(data)
    sample = text[:_SNIFF_CHARS]
    if "\x00" in text or len(_CONTROL.findall(sample)) > _CONTROL_SHARE * len(sample):
        raise DataError(
            f"The file contains binary data (control characters), not a CSV table. {_SAVE_AS_CSV}"
        )
    return text.removeprefix("\ufeff"), used


def _decode_8bit(data: bytes) -> tuple[str, str]:
    """UTF-8 (BOM optional), else Windows-1252, else Latin-1 (which decodes any byte)."""
    for codec in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(codec), codec
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def _leading_records(text: str, n_records: int) -> tuple[list[str], bool]:
    """The first non-blank records of ``text``; a quoted field may span lines.

    Returns the records and whether the last one ended inside ``text`` (a newline outside quotes).
    """
    records, start, in_quotes = [], 0, False
    for match in re.finditer(r'["\n]', text):
        if match.group() == '"':
            in_quotes = not in_quotes
        elif not in_quotes:
            if text[start : match.start()].strip():
                records.append(text[start : match.start()])
                if len(records) == n_records:
                    return records, True
            start = match.end()
    if text[start:].strip():
        records.append(text[start:])
        return records, False
    return records, True


def _count_outside_quotes(record: str, delimiter: str) -> int:
    return sum(part.count(delimiter) for part in record.split('"')[::2])


def _sniff_delimiter(records: list[str]) -> str:
    """The candidate found in the header whose count agrees with most of the following records."""
    header, rows = records[0], records[1:]

    def score(delimiter):
        in_header = _count_outside_quotes(header, delimiter)
        agree = sum(_count_outside_quotes(row, delimiter) == in_header for row in rows)
        return in_header > 0, agree, in_header

    best = max(_DELIMITERS, key=score)
    if score(best)[0]:
        return best
    raise DataError(
        "Only one column was found: the first line contains no comma, semicolon, tab or '|'. "
        "A table needs a target column and at least one other column. If the file is a table, "
        f"{_SAVE_AS_CSV[0].lower()}{_SAVE_AS_CSV[1:]}"
    )


def _parse(payload: bytes, delimiter: str, skip_lines: int) -> pd.DataFrame:
    where = f"(read with {_DELIMITER_NAMES[delimiter]}s between values)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                io.BytesIO(payload),
                encoding="utf-8-sig",
                sep=delimiter,
                engine="c",
                decimal="," if delimiter == ";" else ".",
                index_col=False,
                skiprows=skip_lines,
                skipinitialspace=True,
                low_memory=False,
            )
    except pd.errors.EmptyDataError as error:
        raise DataError(f"No table was found in the file. {_SAVE_AS_CSV}") from error
    except pd.errors.ParserWarning as error:
        raise _more_values_than_names(delimiter) from error
    except (pd.errors.ParserError, csv.Error) as error:
        raise DataError(f"The table could not be read {where}: {_explain(error)}") from error
    except (ValueError, OverflowError, MemoryError) as error:
        raise DataError(
            f"The table could not be read {where}. Check that it is a plain CSV table and "
            "export it again if needed."
        ) from error


def _more_values_than_names(delimiter: str) -> DataError:
    return DataError(
        "The rows have more values than the header has column names (read with "
        f"{_DELIMITER_NAMES[delimiter]}s between values). Give every column a name in the first "
        "line, or check the separator, and upload again."
    )


def _explain(error: Exception) -> str:
    """pandas' tokenizer messages in plain words, with what to do."""
    message = str(error)
    if extra := re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message):
        expected, line, saw = extra.groups()
        return (
            f"line {line} has {saw} values but the header names {expected} columns. Fix that "
            "line (a value containing the separator must be in double quotes) and upload again."
        )
    if "EOF inside string" in message:
        return 'a double quote (") is opened but never closed. Close or remove it and upload again.'
    return "its rows are not well formed. Export the table again as CSV and upload that file."


def _header_fields(header: str, delimiter: str) -> list[str]:
    """The column names in the header record, stripped of surrounding spaces."""
    try:
        reader = csv.reader(io.StringIO(header), delimiter=delimiter, skipinitialspace=True)
        fields = next(reader, [])
    except csv.Error:
        return []
    return [field.strip() for field in fields]


def _tidy(frame: pd.DataFrame, delimiter: str) -> pd.DataFrame:
    """Drop empty rows; refuse a table without rows or with fewer than two columns."""
    frame = frame.dropna(how="all").reset_index(drop=True)
    if frame.empty:
        raise DataError(
            "The file has a header line but no rows of data. Add the rows, or choose the "
            "right file."
        )
    if frame.shape[1] < 2:
        raise DataError(
            f"Only one column was found (read with {_DELIMITER_NAMES[delimiter]}s between "
            "values). A table needs a target column and at least one other column."
        )
    return frame


def unique_names(names) -> list[str]:
    """Make names unique visibly: the second ``x`` becomes ``x (2)``, the third ``x (3)``
    (skipping any ``x (k)`` that is itself one of the names)."""
    names = list(names)
    taken, seen, result = set(names), set(), []
    for name in names:
        new, copy = name, 1
        while new in seen or (copy > 1 and new in taken):
            copy += 1
            new = f"{name} ({copy})"
        seen.add(new)
        result.append(new)
    return result
