"""Parquet read within the CSV's bounds (forestviz.io.parquet_input): the hostile files of
issue 30 — one 1 MB value repeated over 200,000 rows through a dictionary (in a model column and
in the ID column, with and without pyarrow's stored schema), binary, nested, list, map and
timestamp columns, duplicated names, oversized row groups, rows or batches — are each refused in
one line naming the column, quickly and in bounded memory; ordinary files read as before."""

import decimal
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pyarrow import parquet as pq

from forestviz.batch.source import RowSource
from forestviz.io.csv_input import DataError
from forestviz.io.parquet_input import ParquetRows
from tests.cli_tables import ID

REPO = Path(__file__).resolve().parents[1]
ROWS = 200_000
BIG = "x" * (1 << 20)


def repeated(n: int, value: str) -> pa.DictionaryArray:
    """``value`` in each of ``n`` rows, stored once in the dictionary."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value]))


def pima_columns(n: int) -> dict:
    """The Pima model's numeric columns, ``n`` rows of plausible values."""
    frame = pd.read_csv(REPO / "data" / "pima_diabetes.csv")
    numeric = frame.drop(columns=[ID, "Diabetes"]).select_dtypes("number")
    return {name: np.full(n, float(numeric[name].median())) for name in numeric.columns}


def write(path: Path, columns: dict, **options) -> Path:
    names = list(columns)
    pq.write_table(pa.Table.from_arrays([pa.array(c) if not isinstance(c, pa.Array) else c
                                         for c in columns.values()], names=names), path,
                   compression="zstd", **options)
    return path


def too_long(name: str) -> str:
    """The refusal of the 1 MB value: by row when the file types the column as categories, by
    the dictionary's value when it is stored as text (read as a dictionary to measure it)."""
    return (f"(Row 1 of 'bomb.parquet', column '{name}',|Column '{name}' of 'bomb.parquet') "
            "holds a value of 1,048,576 characters")


def refusal(path, columns=None, **caps) -> str:
    """The one-line DataError of reading ``columns`` (all) of ``path`` in chunks of 5,000."""
    with pytest.raises(DataError) as refused:
        rows = ParquetRows(path, **caps)
        for _ in rows.batches(columns or rows.columns, 5_000):
            pass
    message = str(refused.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("stored_schema", [True, False])
def test_one_big_value_repeated_by_a_dictionary_is_refused_before_it_is_copied(tmp_path,
                                                                               stored_schema):
    path = write(tmp_path / "bomb.parquet", {"note": repeated(ROWS, BIG), "age": np.ones(ROWS)},
                 store_schema=stored_schema)
    assert path.stat().st_size < 300_000
    started = time.perf_counter()
    message = refusal(path)
    assert time.perf_counter() - started < 60  # a hang guard: refused in well under 1 s quiet
    assert re.match(too_long("note"), message) and "at most 100,000 characters per cell" in message


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["text", "ID"])
def test_the_command_refuses_the_bombs_in_one_line_and_bounded_memory(kind, cli_model,
                                                                      tmp_path):
    columns = pima_columns(ROWS)
    if kind == "text":
        columns["Glucose (mg/dL)"] = repeated(ROWS, BIG)
    columns[ID] = repeated(ROWS, BIG if kind == "ID" else "P0001")
    path = write(tmp_path / "bomb.parquet", columns)
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "forestviz", "--quiet", "explain",
                              str(cli_model), str(path), "--out", str(tmp_path / "o.parquet")],
                             env=env, stderr=subprocess.PIPE, text=True)
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds, peak_mb = time.perf_counter() - started, usage.ru_maxrss / 1024
    assert child.returncode == 2 and err.count("\n") == 1, err
    name = "Glucose (mg/dL)" if kind == "text" else ID
    assert re.match(too_long(re.escape(name)), err.removeprefix("forestviz: error: ")), err
    assert seconds < 120 and peak_mb < 1_000, (seconds, peak_mb)  # 4 GB and more before
    assert not list(tmp_path.glob("*o.parquet*"))


HOSTILE_COLUMNS = {
    "binary": (pa.array([b"\xff\xfe\x00"] * 3, pa.binary()), "binary data"),
    "fixed-size binary": (pa.array([b"ab"] * 3, pa.binary(2)), "binary data"),
    "timestamp": (pa.array(pd.to_datetime(["2024-01-01"] * 3)), "dates or times"),
    "date": (pa.array(np.array(["2024-01-01"] * 3, "datetime64[D]")), "dates or times"),
    "list": (pa.array([[1, 2]] * 3), "lists"),
    "struct": (pa.array([{"a": 1, "b": "x"}] * 3), "nested records"),
    "map": (pa.array([[("k", 1)]] * 3, pa.map_(pa.string(), pa.int64())), "maps"),
    "categories of binary": (pa.DictionaryArray.from_arrays(pa.array([0, 0, 0], pa.int32()),
                                                            pa.array([b"\xff"])),
                             "categories of binary data"),
}


@pytest.mark.parametrize("kind", list(HOSTILE_COLUMNS))
def test_a_column_of_another_kind_is_refused_by_name(kind, tmp_path):
    values, words = HOSTILE_COLUMNS[kind]
    path = write(tmp_path / "f.parquet", {"age": [1.0, 2.0, 3.0], "odd\ncolumn": values})
    message = refusal(path)
    assert message.startswith(f"Column 'odd column' of 'f.parquet' holds {words}")
    assert "forestviz reads text, numbers, true/false values and categories" in message
    ParquetRows(path).batches(["age"], 10)  # a column not read is not refused
    assert [b.num_rows for b in ParquetRows(path).batches(["age"], 10)] == [3]


def test_duplicated_names_and_too_many_columns_are_refused(tmp_path):
    path = tmp_path / "twice.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array([1.0]), pa.array([2.0]), pa.array([3.0])],
                                        names=["a", "Glucose", "Glucose"]), path)
    with pytest.raises(DataError, match="has 2 columns named 'Glucose'"):
        RowSource(path)
    wide = write(tmp_path / "wide.parquet", {f"c{i}": [1.0] for i in range(30)})
    with pytest.raises(DataError, match="has 30 columns, more than the 20 forestviz reads"):
        ParquetRows(wide, max_columns=20)


def test_a_row_group_over_the_byte_budget_is_refused_from_the_metadata(tmp_path):
    path = write(tmp_path / "wide rows.parquet",
                 {"a": np.zeros(100_000), "b": np.arange(100_000.0)}, use_dictionary=False)
    message = refusal(path, max_bytes=1 << 20)
    assert message.startswith("Row group 1 of 'wide rows.parquet' takes 2 MB unpacked in the "
                              "columns read (column 'b' the largest), more than the 1 MB")
    assert [b.num_rows for b in ParquetRows(path, max_bytes=1 << 20).batches(["a"], 50_000)
            ] != []  # one column alone fits (only the columns read count)


def test_a_batch_that_expands_past_the_budget_is_refused(tmp_path):
    path = write(tmp_path / "long.parquet", {"note": repeated(20_000, "y" * 90_000),
                                             "age": np.ones(20_000)})
    message = refusal(path)
    assert message.startswith("Rows 1-5,000 of 'long.parquet' take 429 MB once read (column "
                              "'note' the most), more than the 200 MB")
    batches = ParquetRows(path).batches(["note"], 500)  # 43 MB a batch: read
    assert next(batches)["note"][0].as_py() == "y" * 90_000


def test_a_row_over_the_line_cap_is_refused(tmp_path):
    path = write(tmp_path / "row.parquet", {f"t{i}": ["z" * 60_000] for i in range(20)})
    assert refusal(path).startswith("Row 1 of 'row.parquet' holds 1,200,000 characters of text")


def test_text_that_is_not_utf8_is_refused_by_column(tmp_path):
    raw = pa.array([b"ok", b"\xff\xfe"], pa.binary()).view(pa.string())
    path = write(tmp_path / "latin.parquet", {"name": raw, "age": [1.0, 2.0]})
    assert refusal(path).startswith("Column 'name' of 'latin.parquet' holds text that is not "
                                    "valid UTF-8")


def test_ordinary_columns_read_as_pyarrow_reads_them(tmp_path):
    n = 12_345
    rng = np.random.default_rng(0)
    columns = {
        "text": pa.array([f"patient {i}" if i % 7 else None for i in range(n)]),
        "large text": pa.array([f"é{i % 13}" for i in range(n)], pa.large_string()),
        "integers": pa.array(rng.integers(-5, 5, n)),
        "floats": pa.array(np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n))),
        "flags": pa.array(rng.random(n) < 0.5),
        "category": pa.array(rng.choice(["a", "b", "c"], n)).dictionary_encode(),
        "missing": pa.nulls(n),
    }
    path = write(tmp_path / "ok.parquet", columns, row_group_size=5_000)
    expected = pq.read_table(path)
    found = pa.Table.from_batches(list(ParquetRows(path).batches(list(columns), 1_000)))
    assert found.schema.equals(expected.schema)
    pd.testing.assert_frame_equal(found.to_pandas(), expected.to_pandas())
    money = write(tmp_path / "money.parquet", {"price": pa.array(
        [decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], pa.decimal128(6, 2))})
    batch = next(ParquetRows(money).batches(["price"], 10))
    assert batch.schema.field("price").type == pa.float64()
    assert batch["price"].to_pylist() == [1.25, None, -3.5]


def test_not_a_parquet_file_is_one_line(tmp_path):
    path = tmp_path / "fake.parquet"
    path.write_bytes(b"PAR1" + os.urandom(1000) + b"PAR1")
    with pytest.raises(DataError, match=r"'fake\.parquet' is not a readable Parquet file"):
        ParquetRows(path)
