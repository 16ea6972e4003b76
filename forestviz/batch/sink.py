"""Explained rows written chunk by chunk: Parquet through pyarrow's ``ParquetWriter`` (one row
group a chunk), CSV through pyarrow's ``CSVWriter`` with every text cell and column name
neutralised against spreadsheet formulas (:mod:`forestviz.io.export`: IDs and class labels come
from the user's files). The output appears under its name only once every row is written; until
then it is a hidden ``.partial`` file next to it, removed if the run fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
from pyarrow import csv as pa_csv
from pyarrow import parquet as pq

from forestviz.io.csv_input import DataError
from forestviz.io.export import neutralised

PARQUET = (".parquet", ".pq")


class RowSink:
    """Write DataFrames of one schema to ``path`` (``.parquet``/``.pq`` or ``.csv``)."""

    def __init__(self, path):
        self.path = Path(path)
        suffix = self.path.suffix.lower()
        if suffix not in (*PARQUET, ".csv"):
            raise DataError(f"The output '{self.path.name}' must end in .parquet or .csv.")
        if not self.path.parent.is_dir():
            raise DataError(f"The folder of the output '{self.path}' does not exist.")
        self.parquet = suffix in PARQUET
        self.partial = self.path.with_name(f".{self.path.name}.partial")
        self.rows = 0
        self._writer = None
        self._schema = None

    def write(self, frame: pd.DataFrame) -> None:
        if not self.parquet:
            frame = neutralised(frame)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        if self._writer is None:
            self._schema = table.schema.remove_metadata()
            self._writer = (pq.ParquetWriter(self.partial, self._schema) if self.parquet
                            else pa_csv.CSVWriter(self.partial, self._schema))
        self._writer.write_table(table.cast(self._schema))
        self.rows += len(frame)

    def __enter__(self) -> RowSink:
        return self

    def __exit__(self, kind, error, trace) -> None:
        if self._writer is not None:
            self._writer.close()
        if kind is None and self._writer is not None:
            os.replace(self.partial, self.path)
        else:
            self.partial.unlink(missing_ok=True)
