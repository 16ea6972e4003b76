"""Explained rows written chunk by chunk: Parquet through pyarrow's ``ParquetWriter`` (one row
group a chunk), CSV through pyarrow's ``CSVWriter`` with every text cell and column name
neutralised against spreadsheet formulas (:mod:`forestviz.io.export`: IDs and class labels come
from the user's files). The output is written through :class:`forestviz.io.safe_write.SafeOutput`:
under a temporary name nobody can predict, put in place only once every row is written; a link
or another non-regular file at the output's name is refused before any row is explained (unless
``force``), and an error while writing (a full disk) removes the temporary file and ends with
one line saying how many rows had been written.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pandas as pd
import pyarrow as pa
from pyarrow import csv as pa_csv
from pyarrow import parquet as pq

from forestviz.io.csv_input import DataError
from forestviz.io.export import neutralised
from forestviz.io.safe_write import SafeOutput, incomplete

PARQUET = (".parquet", ".pq")


class RowSink:
    """Write DataFrames of one schema to ``path`` (``.parquet``/``.pq`` or ``.csv``)."""

    def __init__(self, path, *, force: bool = False):
        self.path = Path(path)
        suffix = self.path.suffix.lower()
        if suffix not in (*PARQUET, ".csv"):
            raise DataError(f"The output '{self.path.name}' must end in .parquet or .csv.")
        self.output = SafeOutput(self.path, force=force)
        self.parquet = suffix in PARQUET
        self.rows = 0
        self._writer = None
        self._schema = None

    def write(self, frame: pd.DataFrame) -> None:
        if not self.parquet:
            frame = neutralised(frame)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        try:
            if self._writer is None:
                self._schema = table.schema.remove_metadata()
                handle = self.output.open()
                self._writer = (pq.ParquetWriter(handle, self._schema) if self.parquet
                                else pa_csv.CSVWriter(handle, self._schema))
            self._writer.write_table(table.cast(self._schema))
        except OSError as err:
            raise incomplete(self.path, f"{self.rows:,} rows", err) from err
        self.rows += len(frame)

    def __enter__(self) -> RowSink:
        return self

    def __exit__(self, kind, error, trace) -> None:
        try:
            if kind is None and self._writer is not None:
                self._writer.close()
                self.output.commit()
        except OSError as err:
            raise incomplete(self.path, f"{self.rows:,} rows", err) from err
        finally:
            if self._writer is not None and kind is not None:
                self._close_quietly()
            self.output.discard()

    def _close_quietly(self) -> None:
        """Close the writer after a failure (its own error, if any, adds nothing)."""
        with contextlib.suppress(OSError, pa.ArrowException):
            self._writer.close()
