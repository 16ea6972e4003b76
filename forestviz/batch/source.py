"""Rows to explain, streamed from a CSV or Parquet file in chunks of a fixed number of rows, so
memory does not grow with the file.

Parquet files are read by :class:`forestviz.io.parquet_input.ParquetRows` (pyarrow's
``ParquetFile.iter_batches`` within the CSV reader's caps: columns, bytes, cell, row). A CSV
file is read by pyarrow's streaming reader (``pyarrow.csv.open_csv``) the way
:func:`forestviz.io.csv_input.load_csv` reads an upload: the file's first MiB goes through
``load_csv`` itself (binary content, damaged text, ragged rows and the header are refused there
in the same plain words), and the stream takes the delimiter and column names that reading
found, the same encodings (UTF-8, UTF-16/32 with a byte-order mark, else Windows-1252 /
Latin-1), the same missing-value marks and a decimal comma in semicolon-separated files. A
row longer than ``BLOCK_BYTES`` is refused (the reader's block bounds it). The model's columns
are read as text and converted in :func:`forestviz.batch.rows.encode` as the Train page reads
them; nothing else of the file is read.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from pyarrow import csv as pa_csv

from forestviz.io.csv_input import DataError, load_csv, unique_names
from forestviz.io.parquet_input import ParquetRows, first_line

HEAD_BYTES = 1 << 20  # the part of a CSV read by load_csv to check it and find its format
BLOCK_BYTES = 1 << 23  # pyarrow's CSV block: the longest row the stream reads
DELIMITERS = (",", ";", "\t", "|")
# pandas' missing-value marks, which load_csv reads as missing too
NA_VALUES = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
             "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_SEP_LINE = re.compile(r"sep=([,;\t|])\r?\n")


@dataclass(frozen=True)
class Chunk:
    """Consecutive rows of the file: ``table`` (the columns asked for, as read), ``start`` the
    position of its first row among the file's data rows (from 0), ``text`` whether the values
    are CSV text (converted by :func:`forestviz.batch.rows.encode`) and ``decimal_comma``
    whether ``1,5`` means 1.5 (semicolon-separated CSV)."""

    table: pa.Table
    start: int
    text: bool
    decimal_comma: bool = False

    @property
    def n_rows(self) -> int:
        return self.table.num_rows


class RowSource:
    """A CSV or Parquet file of rows (``.parquet`` / ``.pq``: Parquet; anything else: CSV).

    ``columns`` are the file's column names (as ``load_csv`` names them for a CSV);
    ``rows`` the number of data rows when known beforehand (Parquet) or estimated from the
    line count (CSV); :meth:`chunks` streams the rows."""

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.is_file():
            raise DataError(f"There is no file '{self.path}'. Check the path and try again.")
        self.size = self.path.stat().st_size
        self.parquet = self.path.suffix.lower() in (".parquet", ".pq")
        if self.parquet:
            self._rows = ParquetRows(self.path)
            self.columns, self.rows = self._rows.columns, self._rows.rows
        else:
            self._sniff()
            self.rows = None

    # ------------------------------------------------------------------ CSV format
    def _sniff(self) -> None:
        with open(self.path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
        if len(head) == HEAD_BYTES and b"\n" in head:
            head = head[: head.rindex(b"\n") + 1]  # whole lines only
        found = load_csv(head, min_columns=1)  # DataError in its words for a file it refuses
        self.encoding = _encoding(head)
        text = head.decode(self.encoding, errors="replace").removeprefix("\ufeff")
        hint = _SEP_LINE.match(text)
        self.skip = 1 if hint else 0
        utf8 = text.encode("utf-8")
        for delimiter in [hint.group(1)] if hint else DELIMITERS:
            names = _arrow_names(utf8, delimiter, self.skip)
            if names is not None and [n for n in names if n in set(found.columns)] == list(
                    found.columns):
                self.delimiter, self.columns = delimiter, tuple(names)
                return
        raise DataError(f"'{self.path.name}' could not be read in chunks. Save it as 'CSV "
                        "UTF-8 (comma delimited)' and try again.")

    def estimated_rows(self) -> int | None:
        """The data rows: Parquet's count, or a CSV's line count less the header (blank lines
        and line breaks inside quoted values count too, so it is an upper bound)."""
        if self.parquet:
            return self.rows
        if self.encoding not in ("utf8", "cp1252", "latin-1"):
            return None  # UTF-16/32: a newline is more than one byte
        lines, last = 0, b"\n"
        with open(self.path, "rb") as handle:
            while block := handle.read(1 << 23):
                lines += block.count(b"\n")
                last = block[-1:]
        return max(lines + (last != b"\n") - 1 - self.skip, 0)

    # ------------------------------------------------------------------ streaming
    def chunks(self, columns, chunk_rows: int) -> Iterator[Chunk]:
        """The file's rows in chunks of ``chunk_rows`` (the last one shorter), with only
        ``columns`` read (each must be one of :attr:`columns`)."""
        if chunk_rows < 1:
            raise ValueError("chunk_rows must be at least 1")
        columns = list(dict.fromkeys(columns))
        batches = (self._rows.batches(columns, chunk_rows) if self.parquet
                   else self._csv(columns))
        pending, held, start = [], 0, 0
        try:
            for batch in batches:
                pending.append(batch)
                held += batch.num_rows
                while held >= chunk_rows:
                    table = pa.Table.from_batches(pending).combine_chunks()
                    yield self._chunk(table.slice(0, chunk_rows), start)
                    start += chunk_rows
                    rest = table.slice(chunk_rows)
                    pending, held = rest.to_batches(), rest.num_rows
        except (pa.ArrowException, OSError) as err:
            raise DataError(f"'{self.path.name}' could not be read after data row {start:,}: "
                            f"{first_line(err)}") from err
        if held:
            yield self._chunk(pa.Table.from_batches(pending).combine_chunks(), start)

    def _chunk(self, table: pa.Table, start: int) -> Chunk:
        return Chunk(table, start, text=not self.parquet,
                     decimal_comma=not self.parquet and self.delimiter == ";")

    def _csv(self, columns):
        read = pa_csv.ReadOptions(block_size=BLOCK_BYTES, encoding=self.encoding,
                                  skip_rows=self.skip + 1, column_names=list(self.columns))
        parse = pa_csv.ParseOptions(delimiter=self.delimiter, newlines_in_values=True)
        convert = pa_csv.ConvertOptions(
            include_columns=columns, column_types=dict.fromkeys(columns, pa.string()),
            null_values=NA_VALUES, strings_can_be_null=True, quoted_strings_can_be_null=True)
        with pa_csv.open_csv(self.path, read, parse, convert) as reader:
            yield from reader


def _arrow_names(utf8_head: bytes, delimiter: str, skip: int) -> list[str] | None:
    """The header's column names as load_csv names them (spaces around removed, an empty name
    ``column i``, repeated names made unique), read with ``delimiter``; None if unreadable.
    One block in this thread: pyarrow's thread pool started here, for a few kilobytes, was still
    starting its threads when a command refused at once and the process ended, and the C++
    runtime aborted the process ("terminate called without an active exception", exit -6)."""
    options = (pa_csv.ReadOptions(skip_rows=skip, autogenerate_column_names=True,
                                  block_size=len(utf8_head) + 1, use_threads=False),
               pa_csv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
               pa_csv.ConvertOptions(column_types={}, strings_can_be_null=True))
    try:
        header = pa_csv.read_csv(pa.py_buffer(utf8_head), *options).slice(0, 1).to_pylist()
    except pa.ArrowException:
        return None
    if not header:
        return None
    raw = ["" if value is None else str(value).strip() for value in header[0].values()]
    return unique_names([name or f"column {i}" for i, name in enumerate(raw, 1)])


def _encoding(head: bytes) -> str:
    """The text encoding load_csv reads ``head`` with, as pyarrow names it."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec
    for codec in ("utf-8", "cp1252"):
        try:
            head.decode(codec)
        except UnicodeDecodeError:
            continue
        return "utf8" if codec == "utf-8" else codec
    return "latin-1"
