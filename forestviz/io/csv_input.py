"""Reading an untrusted CSV table: ``load_csv`` turns bytes, a path or a file object into a
DataFrame or raises :class:`DataError` (nothing else) with a message a non-programmer can act on.

Delimiter and encoding are sniffed from the first records; the header is measured before any
parsing (a 100k-column header is refused at once); binary files, damaged text and ragged rows
get a plain-words reason and what to do about it, as does a value over ``MAX_CELL_CHARS`` or
row over ``MAX_LINE_CHARS`` characters (before parsing). pyarrow parses, in 2.5-5 times the size.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
from pyarrow import compute as pc
from pyarrow import csv as pa_csv

from forestviz.names import elide

MAX_BYTES = 200 * 1024 * 1024  # largest table read whole (the upload limit)
MAX_COLUMNS = 2000
MAX_CELL_CHARS = 100_000  # longest value: pages of text, yet a preview shows it without strain
MAX_LINE_CHARS = 1_000_000  # longest row: 2,000 columns (the cap) of 500; 2,000 numbers take 40k

_DELIMITERS = (",", ";", "\t", "|")
_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
_SNIFF_RECORDS = 20
_SNIFF_CHARS = 65536
_CHARS_PER_COLUMN = 256  # the header may be this long per allowed column before it is refused
_CONTROL_SHARE = 0.01  # more control characters than this share of the text means binary data
_CONTROL = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_MAGIC = (
    (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"), (b"%PDF-", "a PDF document"), (b"\x7fELF", "a program"),
    (b"PK\x03\x04", "an Excel workbook or another ZIP archive"), (b"Rar!\x1a\x07", "a RAR archive"),
    (b"PK\x05\x06", "an empty ZIP archive"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) or Word document"),
    (b"\x1f\x8b", "a gzip-compressed file"), (b"BZh91AY&SY", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"), (b"SQLite format 3\x00", "an SQLite database"),
)
_UNICODE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                 (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_EXCEL_SEP_LINE = re.compile(r"sep=([,;\t|])\n")
_SAVE_AS_CSV = "Save the table as 'CSV UTF-8 (comma delimited)' and upload that file."
_CHUNK = 1 << 20  # bytes per step when decoding and scanning: temporary arrays stay small
_POOL = "jemalloc" if "jemalloc" in pa.supported_memory_backends() else "system"  # frees soonest
_PANDAS = dict.fromkeys([pa.string(), pa.date32()], pa.large_string()) | {pa.null(): pa.float64()}
_NA_VALUES = "|#N/A|#N/A N/A|#NA|-1.#IND|-1.#QNAN|-NaN|-nan|1.#IND|1.#QNAN|<NA>|N/A|NA|NULL|NaN"
_NA_VALUES = [*_NA_VALUES.split("|"), "None", "n/a", "nan", "null"]  # pandas' missing-value marks
_CELL_TOO_LONG = ("{}, column {}, holds a value of {:,} characters; forestviz accepts at most "
                  "{:,} characters per cell. Shorten or remove that value, and upload again.")


class DataError(ValueError):
    """A problem with the user's data, worded for a non-programmer: what is wrong, what to do."""


# --------------------------------------------------------------------------- loading a CSV


def load_csv(source, *, max_bytes=MAX_BYTES, max_columns=MAX_COLUMNS,
             max_cell_chars=MAX_CELL_CHARS, max_line_chars=MAX_LINE_CHARS) -> pd.DataFrame:
    """Read an untrusted CSV table from bytes, a path (``str`` / ``PathLike``) or a file object.

    The delimiter (``,`` ``;`` tab ``|``) is sniffed from the first records outside quotes, or
    read from Excel's ``sep=;`` first line. The encoding is UTF-8 (with or without BOM),
    UTF-16/32 with a BOM, else Windows-1252 / Latin-1.
    In a semicolon-separated file a comma is the decimal mark (``1,5`` is 1.5), as in the CSVs
    that spreadsheets write in locales with a decimal comma. Column names are kept verbatim
    (only surrounding spaces are removed); repeated names become ``x``, ``x (2)``, ...; rows
    and unnamed columns that are entirely empty are dropped. A value over ``max_cell_chars`` or
    row over ``max_line_chars`` characters is refused before parsing. Problems raise DataError.
    """
    data = _read_bytes(source, max_bytes)
    if not data or data.isspace():
        raise DataError("The file is empty. Choose a CSV file that contains a table.")
    window = _SNIFF_CHARS + _CHARS_PER_COLUMN * max_columns
    payload, head, blank = _decode(data, window + 1)  # the parsers read UTF-8 ``payload``
    if blank:
        raise DataError("The file contains only blank lines. Choose a CSV file with a table.")
    sample = head[:window].replace("\r\n", "\n").replace("\r", "\n")
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
    if not complete and len(records) == 1 and len(head) > window:
        raise DataError(
            "The first line of the file is extremely long, so it does not look like a table "
            f"header. {_SAVE_AS_CSV}"
        )
    if len(records) > 1 and _count_outside_quotes(records[1], delimiter) + 1 > n_columns:
        raise _more_values_than_names(delimiter)  # pandas would build a column per extra value
    fields = _header_fields(records[0], delimiter)
    problem, differs = _scan(payload, ord(delimiter), max_cell_chars, max_line_chars)
    if problem:
        raise _too_long(payload, delimiter, *problem, fields, max_cell_chars, max_line_chars)
    frame = _parse(payload, delimiter, skip_lines=1 if hint else 0, arrow=not differs)
    if len(fields) != frame.shape[1]:
        fields = [str(name) for name in frame.columns]
    frame.columns = unique_names([name or f"column {i}" for i, name in enumerate(fields, 1)])
    unnamed_and_empty = np.array([not name for name in fields]) & frame.isna().all().to_numpy()
    return _tidy(frame.loc[:, ~unnamed_and_empty], delimiter, max_cell_chars)


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


def _decode(data: bytes, n_chars: int) -> tuple[bytes, str, bool]:
    """The text, decoded 1 MiB at a time, as UTF-8 bytes (``data`` if it is UTF-8), its first
    ``n_chars`` characters and whether they are blank. Binary content raises DataError."""
    if kind := next((kind for magic, kind in _MAGIC if data.startswith(magic)), None):
        raise DataError(f"This file is {kind}, not a CSV table. {_SAVE_AS_CSV}")
    bom = next((codec for bom, codec in _UNICODE_BOMS if data.startswith(bom)), None)
    if not bom and b"\x00" in data:
        raise DataError(
            "The file contains NUL bytes, so it is a binary file or text saved as UTF-16 "
            f"without a byte-order mark, not a plain CSV table. {_SAVE_AS_CSV}"
        )
    for codec in [bom] if bom else ["utf-8-sig", "cp1252", "latin-1"]:  # Latin-1 decodes all
        decoder, head, utf8 = codecs.getincrementaldecoder(codec)(), "", []
        try:
            for start in range(0, len(data), _CHUNK):
                piece = decoder.decode(data[start : start + _CHUNK], start + _CHUNK >= len(data))
                head += piece[: n_chars - len(head)]
                utf8 += [piece.encode()] if codec != "utf-8-sig" else []
        except UnicodeError:
            continue
        break
    else:  # only a BOM's codec fails here: Latin-1 decodes any byte
        raise DataError(f"The file says it is {bom.upper()} text but is damaged. {_SAVE_AS_CSV}")
    payload, sample = data if codec == "utf-8-sig" else b"".join(utf8), head[:_SNIFF_CHARS]
    if b"\x00" in payload or len(_CONTROL.findall(sample)) > _CONTROL_SHARE * len(sample):
        raise DataError(
            f"The file contains binary data (control characters), not a CSV table. {_SAVE_AS_CSV}"
        )
    return payload, (head := head.removeprefix("\ufeff")), not head.strip()


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


def _scan(buf: bytes, sep: int, max_cell: int, max_line: int, quoted: bool = True):
    """The first value over ``max_cell`` characters or row over ``max_line`` (length, row from 1,
    row start, value start or None), and if pyarrow reads otherwise than pandas ("0x1F", " nan")."""
    whole, n, first = np.frombuffer(buf, np.uint8), len(buf), 3 * buf.startswith(codecs.BOM_UTF8)
    inside, cell, line, rows, differs, tab = 0, first, first, 0, False, 9 if sep != 9 else 32
    for off in range(0, n, _CHUNK):
        chunk = whole[off : off + _CHUNK]
        ends = np.flatnonzero((chunk == sep) | (chunk == 10) | (chunk == 13)) + off
        ends = np.append(ends, n) if off + _CHUNK >= n else ends  # the file's end ends a value
        odd = np.flatnonzero(((chunk | 32) == ord("x")) | (chunk == ord("+"))) + off  # +3, 0x1F
        plus, lead = whole[odd] == ord("+"), whole[odd - 1]
        differs |= bool(np.any(np.where(plus, np.isin(lead, (sep, 10, 13, 32, 34)), lead == 48)))
        quotes = np.flatnonzero(chunk == ord('"')) + off if quoted else ends[:0]
        if quotes.size or inside:
            before = np.bincount(np.searchsorted(ends, quotes), minlength=ends.size + 1).cumsum()
            ends = ends[(before[: ends.size] + inside) & 1 == 0]  # outside quotes
            opens = (np.arange(quotes.size) + inside) % 2 == 0  # else it closes a value
            near = whole[np.where(opens, quotes - 1, np.minimum(quotes + 1, n - 1))]
            fits = np.isin(near, (sep, 10, 13, 34)) | (quotes == np.where(opens, first, n - 1))
            if not fits[opens].all():  # a quote inside a value: pandas reads it as text
                return _scan(buf, sep, max_cell, max_line, quoted=False)
            differs, inside = differs or not fits.all(), (inside + quotes.size) % 2  # "x"y
            differs |= bool(np.isin(whole[(quotes + 2 * opens - 1) % n], [9, 32]).any())  # " x"
        pre, byte, post = (whole[np.clip(ends + step, 0, n - 1)] for step in (-1, 0, 1))
        differs |= bool(np.any((pre == 32) | (pre == tab) | (post == 32) | (post == tab)))  # " x"
        stop = (byte == 13) | (byte == 10) & (pre != 13) | (ends == n)
        stops, starts = ends[stop], np.concatenate(([cell], ends[:-1] + 1))
        begins = np.concatenate(([line], stops + 1))  # where the rows start
        for i in np.flatnonzero(ends - starts > max_cell):
            if (length := _chars(buf, starts[i], ends[i], value=True)) > max_cell:
                k = int(np.count_nonzero(stop[:i]))
                return (length, rows + k + 1, begins[k], starts[i]), differs
        for k in np.flatnonzero(stops - begins[:-1] > max_line):
            begin = begins[k] + (buf[begins[k] - 1 : begins[k] + 1] == b"\r\n")
            if (length := _chars(buf, begin, stops[k])) > max_line:
                return (length, rows + int(k) + 1, begin, None), differs
        rows, cell, line = rows + stops.size, ends[-1] + 1 if ends.size else cell, begins[-1]
    return None, differs or bool(inside) or not quoted


def _chars(buf: bytes, start: int, end: int, value: bool = False) -> int:
    """Characters in UTF-8 ``buf[start:end]``; a quoted ``value``'s quotes are not counted."""
    quotes = buf.count(b'"', start, end) // 2 + 1 if value and buf[start : start + 1] == b'"' else 0
    part, steps = np.frombuffer(buf, np.uint8, end - start, start), range(0, end - start, _CHUNK)
    return sum(int(np.count_nonzero((part[i : i + _CHUNK] & 0xC0) != 0x80)) for i in steps) - quotes


def _shown(name: str) -> str:  # a column name in a message: plain, one line, <= 40 characters
    return f"'{elide(name)}'"


def _too_long(buf, delimiter, length, row, begin, start, fields, max_cell, max_line) -> DataError:
    at = f"Row {row:,} of the file (its first line is row 1)"
    if start is None:
        return DataError(
            f"{at} is {length:,} characters long; forestviz accepts at most {max_line:,} "
            "characters per row. Shorten its long values or remove columns, and upload again."
        )
    column = _count_outside_quotes(buf[begin:start].decode("utf-8", "replace"), delimiter)
    names = unique_names([name or f"column {i}" for i, name in enumerate(fields, 1)])
    name = _shown(names[column]) if column < len(names) else column + 1
    return DataError(_CELL_TOO_LONG.format(at, name, length, max_cell))


def _parse(payload: bytes, delimiter: str, skip_lines: int, arrow: bool) -> pd.DataFrame:
    if arrow and (frame := _parse_arrow(payload, delimiter, skip_lines)) is not None:
        return frame
    where = f"(read with {_DELIMITER_NAMES[delimiter]}s between values)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                io.BytesIO(payload), encoding="utf-8-sig", sep=delimiter, engine="c",
                decimal="," if delimiter == ";" else ".", index_col=False, skiprows=skip_lines,
                skipinitialspace=True, low_memory=False,
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


def _parse_arrow(payload: bytes, delimiter: str, skip: int) -> pd.DataFrame | None:
    """pyarrow's reader set as pandas' in one block (types from all rows), or None if ragged."""
    pool = getattr(pa, f"{_POOL}_memory_pool")()  # one thread, one pool: freed memory is reused
    convert = pa_csv.ConvertOptions(
        null_values=_NA_VALUES, true_values=["True", "TRUE", "true"], strings_can_be_null=True,
        false_values=["False", "FALSE", "false"], quoted_strings_can_be_null=True,
        decimal_point="," if delimiter == ";" else ".")
    try:  # over 2 GiB, no single block: pandas' reader
        read = pa_csv.ReadOptions(skip_rows=skip, block_size=len(payload) + 1, use_threads=False)
        options = read, pa_csv.ParseOptions(delimiter=delimiter, newlines_in_values=True), convert
        table = pa_csv.read_csv(pa.py_buffer(payload), *options, memory_pool=pool)
        if timed := [f.name for f in table.schema if str(f.type).startswith("time")]:
            del table  # pandas keeps times and timestamps as written: read them again as text
            convert.column_types = dict.fromkeys(timed, pa.string())
            table = pa_csv.read_csv(pa.py_buffer(payload), *options, memory_pool=pool)
    except (pa.ArrowException, OverflowError):
        return None
    for i, field in enumerate(table.schema):  # as pandas has them; a date was YYYY-MM-DD
        if kind := _PANDAS.get(field.type):
            table = table.set_column(i, field.name, pc.cast(table[i], kind, memory_pool=pool))
    bools = [i for i, field in enumerate(table.schema) if field.type == pa.bool_()]
    frame = table.to_pandas(split_blocks=True, self_destruct=True, memory_pool=pool)
    for i in bools:  # a missing True / False is NaN from pandas' reader, None from pyarrow's
        frame.isetitem(i, frame.iloc[:, i].fillna(np.nan))
    return frame


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


def _tidy(frame: pd.DataFrame, delimiter: str, max_cell: int) -> pd.DataFrame:
    """Drop empty rows; refuse a table without rows, with fewer than two columns, or with a
    text value over ``max_cell`` characters."""
    frame = frame.loc[~frame.isna().all(axis=1)].reset_index(drop=True)  # no copy if none is empty
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
    for name in frame.select_dtypes("str").columns:  # a value _scan missed, behind a stray quote
        if (length := frame[name].str.len()).max() > max_cell:
            at = f"Data row {length.idxmax() + 1:,} (the first row below the column names is 1)"
            raise DataError(_CELL_TOO_LONG.format(at, _shown(name), int(length.max()), max_cell))
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
