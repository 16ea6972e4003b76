"""Reading an untrusted Parquet file within the CSV reader's bounds
(:mod:`forestviz.io.csv_input`): columns, bytes held at once, characters per value and per row.

A Parquet file is small on disk for what it holds once read: a value stored once in a column's
dictionary page may be repeated in every row by four-byte indices, and pages are compressed
(Apache Parquet format, "Encodings": PLAIN_DICTIONARY / RLE_DICTIONARY). A 2 KB file whose text
column repeats one 1 MB value over 200,000 rows is 200 GB once decoded into strings. So the
file is checked in three steps, each refusal one line naming the column:

1. **Schema**, before any data is read: at most ``max_columns`` columns (leaf columns, nested
   ones counted by their leaves), no two with one name, and the columns read of the kinds a
   table holds: text, numbers, true/false, categories (dictionary-typed text or numbers) or
   all-missing; binary data, dates and times, lists, records and maps are refused by name.
2. **Row groups**, from the file's metadata: the unpacked size of the columns read in each row
   group (the sum of their column chunks' ``total_uncompressed_size``) at most ``max_bytes``,
   the CSV's byte budget; pyarrow reads a row group's column chunks whole.
3. **Batches** (``ParquetFile.iter_batches``): text columns are read as dictionaries
   (``read_dictionary``), so a repeated value is never copied before it is measured; each
   batch's text is checked to be UTF-8, each value against ``max_cell_chars``, each row's text
   against ``max_line_chars``, and the batch's size once decoded against ``max_bytes``; only
   then are the dictionaries of columns stored as plain text decoded back to text.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
from pyarrow import compute as pc
from pyarrow import parquet as pq

from forestviz.io.errors import DataError
from forestviz.io.limits import (
    MAX_BYTES,
    MAX_CELL_CHARS,
    MAX_COLUMNS,
    MAX_LINE_CHARS,
)
from forestviz.names import elide

_CONVERT = "Convert the column (or leave it out of the file) and try again."
_REFUSED = (  # (test, what the column holds), the first that matches
    (pa.types.is_binary, "binary data"), (pa.types.is_large_binary, "binary data"),
    (pa.types.is_fixed_size_binary, "binary data"), (pa.types.is_temporal, "dates or times"),
    (pa.types.is_list, "lists"), (pa.types.is_large_list, "lists"),
    (pa.types.is_fixed_size_list, "lists"), (pa.types.is_struct, "nested records"),
    (pa.types.is_map, "maps"), (pa.types.is_union, "unions of types"),
)


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _plain(kind: pa.DataType) -> bool:
    """Text, a number or true/false (or all missing)."""
    return (_is_text(kind) or pa.types.is_integer(kind) or pa.types.is_floating(kind)
            or pa.types.is_decimal(kind) or pa.types.is_boolean(kind) or pa.types.is_null(kind))


def _held(kind: pa.DataType) -> str | None:
    """What a column of ``kind`` holds when forestviz does not read it, else None."""
    if _plain(kind) or (pa.types.is_dictionary(kind) and _plain(kind.value_type)):
        return None
    if pa.types.is_dictionary(kind):
        return f"categories of {_held(kind.value_type) or 'another kind'}"
    return next((words for test, words in _REFUSED if test(kind)), "values of another kind")


def _layout(schema: pa.Schema, file: str) -> tuple[list[int], dict[str, float]]:
    """(the positions of the text columns, the bytes a row takes in each other column) of a
    batch with ``schema``; DataError for a column of another kind (a name can also select
    the leaves of a nested column)."""
    text, widths = [], {}
    for i, field in enumerate(schema):
        if held := _held(field.type):
            raise _other_kind(field.name, file, held)
        kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        if _is_text(kind):
            text.append(i)
        else:  # numbers of categories: the index and, at most, a number per row
            index = field.type.index_type.bit_width if pa.types.is_dictionary(field.type) else 0
            widths[field.name] = (index + (0 if pa.types.is_null(kind) else kind.bit_width)) / 8
    return text, widths


class ParquetRows:
    """The rows of the Parquet file at ``path``, read in checked batches.

    ``columns`` are its column names and ``rows`` its number of rows (from the metadata);
    :meth:`batches` streams the chosen columns. DataError for a file that is not Parquet or
    that passes a cap."""

    def __init__(self, path, *, max_bytes: int = MAX_BYTES, max_columns: int = MAX_COLUMNS,
                 max_cell_chars: int = MAX_CELL_CHARS, max_line_chars: int = MAX_LINE_CHARS):
        self.path = Path(path)
        self.max_bytes, self.max_cell, self.max_line = max_bytes, max_cell_chars, max_line_chars
        try:
            meta = pq.ParquetFile(self.path).metadata
            if meta.num_columns > max_columns:
                raise DataError(f"'{self.path.name}' has {meta.num_columns:,} columns, more than "
                                f"the {max_columns:,} forestviz reads. Keep the columns you "
                                "need and try again.")
            self.schema = meta.schema.to_arrow_schema()
        except (pa.ArrowException, OSError) as err:
            raise DataError(f"'{self.path.name}' is not a readable Parquet file "
                            f"({first_line(err)}).") from err
        names = self.schema.names
        if len(set(names)) < len(names):
            twice = next(name for i, name in enumerate(names) if name in names[:i])
            raise DataError(f"'{self.path.name}' has {names.count(twice)} columns named "
                            f"{_shown(twice)}. Give every column its own name and try again.")
        self.columns, self.rows, self._meta = tuple(names), meta.num_rows, meta
        self._kinds = (pa.schema([]), ((), {}))  # the last batch schema and its _layout

    def batches(self, columns, batch_rows: int) -> Iterator[pa.RecordBatch]:
        """Batches of ``batch_rows`` rows (the last one shorter) of ``columns`` (names among
        :attr:`columns`), each checked against the caps; text as the file types it."""
        columns = list(dict.fromkeys(columns))
        for name in columns:
            kind = self.schema.field(name).type
            if held := _held(kind):  # a nested type's text would name the file's fields
                shown = "nested" if pa.types.is_nested(kind) else str(kind)
                raise _other_kind(name, self.path.name, f"{held} ({shown})")
        leaves = self._check_row_groups(columns)
        text = [name for name in columns if _is_text(self.schema.field(name).type)]
        plain = pq.ParquetFile(self.path)
        peek = pq.ParquetFile(self.path, read_dictionary=text) if text else None
        start = 0
        for i in range(self._meta.num_row_groups):
            widest = {name: self._widest(peek, i, name, leaves[name]) for name in text}
            # text that could expand past the budget is read as dictionaries, measured per batch
            risky = ([name for name in text if widest[name]]
                     if batch_rows * sum(widest.values()) > self.max_bytes else [])
            reader = pq.ParquetFile(self.path, read_dictionary=risky) if risky else plain
            for batch in reader.iter_batches(batch_size=batch_rows, row_groups=[i],
                                             columns=columns):
                yield self._checked(batch, start, set(risky))
                start += batch.num_rows

    def _widest(self, peek: pq.ParquetFile, group: int, name: str, leaves) -> int:
        """The bytes of the longest value in the dictionary page of text column ``name`` in
        row group ``group`` (0 without one), once its values are checked to be UTF-8 and
        within ``max_cell``: each row stored through the dictionary decodes to at most that."""
        if not any(self._meta.row_group(group).column(j).has_dictionary_page for j in leaves):
            return 0
        first = next(peek.iter_batches(batch_size=1, row_groups=[group], columns=[name]), None)
        if first is None:
            return 0
        values = first.column(0).dictionary  # the page's values, whatever the row uses
        lengths = self._text_lengths(name, values, None)
        return pc.max(lengths).as_py() or 0

    def _check_row_groups(self, columns) -> dict[str, list[int]]:
        """Refuse a row group whose ``columns`` take more than ``max_bytes`` unpacked (the
        leaves pyarrow reads for a name: the column, or every leaf under it); the leaves."""
        paths = [self._meta.schema.column(j).path for j in range(self._meta.num_columns)]
        leaves = {name: [j for j, path in enumerate(paths)
                         if path == name or path.startswith(f"{name}.")] for name in columns}
        for i in range(self._meta.num_row_groups):
            group = self._meta.row_group(i)
            sizes = {name: sum(group.column(j).total_uncompressed_size for j in found)
                     for name, found in leaves.items()}
            if sum(sizes.values()) > self.max_bytes:
                largest = max(sizes, key=sizes.get)
                raise DataError(
                    f"Row group {i + 1:,} of '{self.path.name}' takes "
                    f"{_mb(sum(sizes.values()))} unpacked in the columns read (column "
                    f"{_shown(largest)} the largest), more than the {_mb(self.max_bytes)} "
                    "forestviz reads at once. Write the file in smaller row groups (e.g. "
                    "row_group_size=100_000) and try again.")
        return leaves

    def _checked(self, batch: pa.RecordBatch, start: int, decode: set) -> pa.RecordBatch:
        """``batch`` once its text is valid and within the caps; the dictionaries of the
        ``decode`` columns decoded, decimals as float64."""
        if not batch.schema.equals(self._kinds[0]):  # checked once per kind of batch
            self._kinds = (batch.schema, _layout(batch.schema, self.path.name))
        text, widths = self._kinds[1]
        used = {name: width * batch.num_rows for name, width in widths.items()}
        row_bytes, texts = np.zeros(batch.num_rows, np.int64), []
        rows_may_be_long = len(text) * self.max_cell > self.max_line
        for i in text:
            name, column = batch.schema.names[i], batch.column(i)
            lengths = self._text_lengths(name, column, start)
            if rows_may_be_long:
                row_bytes += _numpy(lengths)
                texts.append(column)
            used[name] = (pc.sum(lengths).as_py() or 0) + 8 * len(column)
        for row in np.flatnonzero(row_bytes > self.max_line):  # bytes >= characters
            chars = sum(len(column[int(row)].as_py() or "") for column in texts)
            if chars > self.max_line:
                raise DataError(f"Row {start + row + 1:,} of '{self.path.name}' holds "
                                f"{chars:,} characters of text; forestviz accepts at most "
                                f"{self.max_line:,} characters per row. Shorten its values "
                                "and try again.")
        if sum(used.values()) > self.max_bytes:
            largest = max(used, key=used.get)
            raise DataError(
                f"Rows {start + 1:,}-{start + batch.num_rows:,} of '{self.path.name}' take "
                f"{_mb(sum(used.values()))} once read (column {_shown(largest)} the most), more "
                f"than the {_mb(self.max_bytes)} forestviz holds at once. Read fewer rows at "
                "a time (--chunk-rows) or shorten the values, and try again.")
        if not decode and not any(map(pa.types.is_decimal, batch.schema.types)):
            return batch
        fields, arrays = [], []
        for field, column in zip(batch.schema, batch.columns, strict=True):
            if field.name in decode:  # read as a dictionary, stored as text
                field = self.schema.field(field.name)
                column = column.dictionary_decode().cast(field.type)
            elif pa.types.is_decimal(field.type):
                field, column = field.with_type(pa.float64()), column.cast(pa.float64())
            fields.append(field)
            arrays.append(column)
        return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))

    def _text_lengths(self, name: str, column: pa.Array, start: int | None) -> pa.Array:
        """The bytes of each row's value in text ``column`` (missing stays missing), once its
        text is checked to be UTF-8 and no value is over ``max_cell`` characters (a refusal
        names the row, counted from ``start``, unless it is None: a dictionary's values)."""
        try:
            column.validate(full=True)
        except pa.ArrowInvalid as err:
            raise DataError(f"Column {_shown(name)} of '{self.path.name}' holds text that is "
                            f"not valid UTF-8 ({first_line(err)}). {_CONVERT}") from err
        if isinstance(column, pa.DictionaryArray):
            sizes = pc.take(pc.binary_length(column.dictionary), column.indices)
        else:
            sizes = pc.binary_length(column)
        if (pc.max(sizes).as_py() or 0) <= self.max_cell:  # bytes >= characters
            return sizes
        for row in np.flatnonzero(_numpy(sizes) > self.max_cell):
            chars = len(column[int(row)].as_py())
            if chars > self.max_cell:
                where = (f"Column {_shown(name)} of '{self.path.name}'" if start is None else
                         f"Row {start + row + 1:,} of '{self.path.name}', column {_shown(name)},")
                raise DataError(f"{where} holds a value of {chars:,} characters; forestviz "
                                f"accepts at most {self.max_cell:,} characters per cell. "
                                "Shorten or remove that value, and try again.")
        return sizes


def _numpy(sizes: pa.Array) -> np.ndarray:
    return sizes.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)


def _other_kind(name: str, file: str, held: str) -> DataError:
    return DataError(f"Column {_shown(name)} of '{file}' holds {held}; forestviz reads text, "
                     f"numbers, true/false values and categories. {_CONVERT}")


def _shown(name: str) -> str:
    return f"'{elide(name)}'"


def _mb(size: int) -> str:
    return f"{size / 2**20:,.0f} MB"


def first_line(error: Exception) -> str:
    """The first line of ``error``'s message (its type's name when it has none)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
