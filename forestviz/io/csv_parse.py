"""Parsing a checked CSV payload and typing its columns as pandas' C reader does.

pyarrow's reader is faster and leaner (2.5-4.9 times the file size at its peak against
4.4-9.4 for pandas', ``docs/performance.md``), so it reads every file that
:mod:`forestviz.io.csv_scan` finds it reads like pandas: with pandas' missing-value marks and
booleans, a comma as the decimal mark in a semicolon-separated file, types from all rows (one
block), times kept as text, and strings and dates turned into pandas' types. Other files, and
those pyarrow refuses (ragged rows, over 2 GiB), go through pandas' C reader, whose complaints
are worded for the user.
"""

from __future__ import annotations

import csv
import io
import re
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
from pyarrow import compute as pc
from pyarrow import csv as pa_csv

from forestviz.io.csv_dialect import DELIMITER_NAMES, more_values_than_names
from forestviz.io.errors import SAVE_AS_CSV, DataError

# jemalloc, where pyarrow has it, returns freed memory to the system soonest
_POOL = "jemalloc" if "jemalloc" in pa.supported_memory_backends() else "system"
# the types pandas' reader gives: text and dates as strings, an all-empty column as numbers
_PANDAS = dict.fromkeys([pa.string(), pa.date32()], pa.large_string())
_PANDAS[pa.null()] = pa.float64()
_NA_VALUES = [  # pandas' missing-value marks
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
]


def parse_pandas(payload: bytes, delimiter: str, skip_lines: int) -> pd.DataFrame:
    """The table in UTF-8 ``payload`` read by pandas' C reader; its complaints as DataError."""
    where = f"(read with {DELIMITER_NAMES[delimiter]}s between values)"
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
        raise DataError(f"No table was found in the file. {SAVE_AS_CSV}") from error
    except pd.errors.ParserWarning as error:
        raise more_values_than_names(delimiter) from error
    except (pd.errors.ParserError, csv.Error) as error:
        raise DataError(f"The table could not be read {where}: {_explain(error)}") from error
    except (ValueError, OverflowError, MemoryError) as error:
        raise DataError(
            f"The table could not be read {where}. Check that it is a plain CSV table and "
            "export it again if needed."
        ) from error


def parse_arrow(payload: bytes, delimiter: str, skip: int) -> pd.DataFrame | None:
    """pyarrow's reader set as pandas' in one block (types from all rows), or None if ragged."""
    pool = getattr(pa, f"{_POOL}_memory_pool")()  # one thread, one pool: freed memory is reused
    convert = pa_csv.ConvertOptions(
        null_values=_NA_VALUES,
        true_values=["True", "TRUE", "true"],
        false_values=["False", "FALSE", "false"],
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        decimal_point="," if delimiter == ";" else ".",
    )
    # over 2 GiB there is no single block: pyarrow refuses and pandas' reader takes over
    read = pa_csv.ReadOptions(skip_rows=skip, block_size=len(payload) + 1, use_threads=False)
    parse_options = pa_csv.ParseOptions(delimiter=delimiter, newlines_in_values=True)
    try:
        table = pa_csv.read_csv(
            pa.py_buffer(payload), read, parse_options, convert, memory_pool=pool
        )
        timed = [field.name for field in table.schema if str(field.type).startswith("time")]
        if timed:  # pandas keeps times and timestamps as written: read them again as text
            del table
            convert.column_types = dict.fromkeys(timed, pa.string())
            table = pa_csv.read_csv(
                pa.py_buffer(payload), read, parse_options, convert, memory_pool=pool
            )
    except (pa.ArrowException, OverflowError):
        return None
    for i, field in enumerate(table.schema):  # as pandas has them; a date was YYYY-MM-DD
        kind = _PANDAS.get(field.type)
        if kind:
            table = table.set_column(i, field.name, pc.cast(table[i], kind, memory_pool=pool))
    bools = [i for i, field in enumerate(table.schema) if field.type == pa.bool_()]
    frame = table.to_pandas(split_blocks=True, self_destruct=True, memory_pool=pool)
    for i in bools:  # a missing True / False is NaN from pandas' reader, None from pyarrow's
        frame.isetitem(i, frame.iloc[:, i].fillna(np.nan))
    return frame


def _explain(error: Exception) -> str:
    """pandas' tokenizer messages in plain words, with what to do."""
    message = str(error)
    extra = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
    if extra:
        expected, line, saw = extra.groups()
        return (
            f"line {line} has {saw} values but the header names {expected} columns. Fix that "
            "line (a value containing the separator must be in double quotes) and upload again."
        )
    if "EOF inside string" in message:
        return 'a double quote (") is opened but never closed. Close or remove it and upload again.'
    return "its rows are not well formed. Export the table again as CSV and upload that file."
