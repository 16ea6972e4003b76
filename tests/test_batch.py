"""Batch explanation (forestviz.batch): each output row equals the Explain page's explanation of
the same row, whatever the file format, chunk size or place the chunks run (a real Dask
cluster of two worker processes on loopback)."""

import hashlib
from dataclasses import asdict

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pyarrow import parquet as pq

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.batch.model import BatchModel, read_model, training_dataset
from forestviz.batch.rows import top_trees
from forestviz.batch.run import backend, explain_file
from forestviz.batch.sink import RowSink
from forestviz.batch.source import RowSource
from forestviz.io.bundled import load_dataset
from forestviz.io.csv_input import DataError, load_csv
from forestviz.persistence.model_file import ModelFile
from tests.store_helpers import run_script

TOP_K = 4


@pytest.fixture(scope="module")
def pima():
    return load_dataset("pima_diabetes")


@pytest.fixture(scope="module", params=["erf", "abrf1_qp", "vanilla"])
def trained(request, pima, tmp_path_factory):
    """(the Workbench with a small model of each kind, its model file's path)."""
    bench = Workbench(pima)
    bench.train(Settings(family=request.param, n_estimators=15))
    path = tmp_path_factory.mktemp("model") / f"{request.param}.skops"
    path.write_bytes(bench.save())
    return bench, path


@pytest.fixture(scope="module")
def rows(pima, tmp_path_factory):
    """50 rows of the table as a CSV, one value missing and one ID that looks like a formula."""
    frame = pima.frame.iloc[::13].reset_index(drop=True).copy()
    frame.loc[3, "BMI (kg/m2)"] = np.nan
    frame.loc[5, "Patient ID"] = "=1+2"
    path = tmp_path_factory.mktemp("rows") / "rows.csv"
    frame.to_csv(path, index=False)
    return frame, path


def run(model, data, out, **options):
    with backend(scatter=[model]), RowSink(out) as sink:
        explain_file(model, RowSource(data), sink, **options)
    return pd.read_parquet(out) if out.suffix == ".parquet" else pd.read_csv(out)


def ready(path, pima, contributions=True):
    model = read_model(path).with_training(training_dataset(read_model(path).file))
    return model.with_contributions() if contributions else model


@pytest.mark.slow
def test_every_output_row_is_the_explain_page_s_explanation(trained, rows, pima, tmp_path):
    bench, path = trained
    frame, data = rows
    out = run(ready(path, pima), data, tmp_path / "out.parquet", top_k=TOP_K,
              contributions=True, chunk_rows=16)
    assert len(out) == len(frame)
    for i, values in frame.iterrows():
        e = bench.explain(values=values[list(pima.feature_columns)],
                          row_id=values["Patient ID"])
        row = out.iloc[i]
        assert row["id"] == e.row_id
        assert row["predicted_class"] == e.predicted_class
        assert [row[f"P({c})"] for c in e.classes] == list(e.prediction)
        assert row["threshold"] == e.threshold
        assert (row["interval_low"], row["interval_high"]) == e.interval
        assert row["calibrated_risk"] == e.calibrated_risk
        assert row["effective_trees"] == e.effective_trees
        assert row["top5_share"] == e.top5_share
        tops = [row[f"top_tree_{r}"] for r in range(1, TOP_K + 1)]
        assert tops == list(e.top_trees[:TOP_K] + 1)  # numbered from 1, as the app shows
        assert [row[f"top_weight_{r}"] for r in range(1, TOP_K + 1)] == list(
            e.tree_weights[e.top_trees[:TOP_K]])
        c = e.contributions
        assert row["base_value"] == pytest.approx(c.base_value[1], abs=1e-12)
        found = [row[f"contribution[{name}]"] for name in c.feature_names]
        np.testing.assert_allclose(found, c.total[:, 1], rtol=0, atol=1e-12)


def resized_model() -> bytes:
    bench = Workbench(load_dataset("friedman1", n_samples=150))
    bench.train(Settings(family="abrf1_qp", n_estimators=3))
    return bench.save()


@pytest.mark.slow
def test_a_regression_model_gives_its_value_and_conformal_interval(tmp_path):
    # the table by that name has other rows
    assert training_dataset(ModelFile.read(resized_model())) is None
    data = load_dataset("friedman1")
    bench = Workbench(data)
    bench.train(Settings(family="abrf1_qp", n_estimators=10))
    path = tmp_path / "m.skops"
    path.write_bytes(bench.save())
    rows = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pandas(data.X.iloc[:40], preserve_index=False), rows)
    model = read_model(path).with_training(training_dataset(read_model(path).file))
    out = run(model, rows, tmp_path / "out.csv")
    assert "threshold" not in out and "calibrated_risk" not in out
    for i in range(40):
        e = bench.explain(i, row_id=str(i))
        assert out.loc[i, "prediction"] == pytest.approx(e.prediction, rel=1e-15)
        assert (out.loc[i, "interval_low"], out.loc[i, "interval_high"]) == pytest.approx(
            e.interval, rel=1e-15)
        assert out.loc[i, "id"] == i  # positions from 0 without an ID column


def test_output_does_not_depend_on_chunks_format_or_threads(trained, rows, pima, tmp_path):
    _, path = trained
    frame, data = rows
    model = ready(path, pima, contributions=False)
    whole = run(model, data, tmp_path / "a.parquet", chunk_rows=10_000)
    semicolons = tmp_path / "rows-semicolon.csv"  # Excel's CSV in a decimal-comma locale
    frame.to_csv(semicolons, sep=";", decimal=",", index=False, na_rep="NA")
    parquet = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), parquet)
    pd.testing.assert_frame_equal(run(model, data, tmp_path / "b.parquet", chunk_rows=7), whole,
                                  check_exact=True)
    pd.testing.assert_frame_equal(run(model, semicolons, tmp_path / "c.parquet"), whole,
                                  check_exact=True)
    pd.testing.assert_frame_equal(run(model, parquet, tmp_path / "d.parquet"), whole,
                                  check_exact=True)
    with backend(jobs=2, scatter=[model]), RowSink(tmp_path / "e.parquet") as sink:
        explain_file(model, RowSource(data), sink, chunk_rows=9)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "e.parquet"), whole,
                                  check_exact=True)


@pytest.mark.slow
def test_a_chunk_of_many_rows_equals_its_rows_one_at_a_time(trained, pima, tmp_path):
    """Chunks of more rows than the single-row look-ups take (bit masks or the compiled
    descent for the leaves, tree by tree distances, the block neighbour search) write what
    each row alone gives, as the Explain page explains one row."""
    _, path = trained
    frame = pima.frame.iloc[:150].reset_index(drop=True)
    data = tmp_path / "many.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), data)
    model = ready(path, pima, contributions=False)
    pd.testing.assert_frame_equal(run(model, data, tmp_path / "a.parquet", chunk_rows=150),
                                  run(model, data, tmp_path / "b.parquet", chunk_rows=1),
                                  check_exact=True)


def test_an_excel_csv_in_windows_1252_reads_as_the_upload_does(trained, rows, pima, tmp_path):
    _, path = trained
    frame = rows[0]
    model = ready(path, pima, contributions=False)
    frame = frame.assign(**{"Patient ID": [f"Zoë {i}" for i in range(len(frame))]})
    excel = tmp_path / "excel.csv"  # Excel's "sep=" first line, semicolons, decimal commas
    excel.write_bytes(b"sep=;\r\n" + frame.to_csv(sep=";", decimal=",", index=False,
                                                  lineterminator="\r\n").encode("cp1252"))
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    found = run(model, excel, tmp_path / "a.parquet")
    assert found["id"].iloc[1] == "Zoë 1"
    pd.testing.assert_frame_equal(found, run(model, plain, tmp_path / "b.parquet"),
                                  check_exact=True)
    source = RowSource(excel)
    assert source.columns == tuple(load_csv(excel).columns) and source.estimated_rows() == len(
        frame)


def test_csv_output_cannot_run_a_spreadsheet_formula(trained, rows, pima, tmp_path):
    _, path = trained
    out = tmp_path / "out.csv"
    run(ready(path, pima, contributions=False), rows[1], out)
    assert "\"'=1+2\"" in out.read_text()  # OWASP: a leading quote keeps it text
    assert not list(tmp_path.glob(".*partial"))


def test_a_file_without_a_model_column_is_refused_before_any_output(trained, rows, pima,
                                                                   tmp_path):
    _, path = trained
    frame, _ = rows
    data = tmp_path / "short.csv"
    frame.drop(columns=["Glucose (mg/dL)"]).to_csv(data, index=False)
    with pytest.raises(DataError, match=r"no column 'Glucose \(mg/dL\)'"):
        run(ready(path, pima, contributions=False), data, tmp_path / "out.parquet")
    assert not list(tmp_path.glob("*.parquet")) and not list(tmp_path.glob(".*"))


def test_the_training_table_is_found_by_name_or_by_its_very_bytes(pima):
    bench = Workbench(pima)
    bench.train(Settings(family="erf", n_estimators=5))
    payload = ModelFile.of(bench.model).payload()
    model = BatchModel.from_file(ModelFile.read(bench.save()))
    assert model.intervals is None
    assert training_dataset(model.file).name == pima.name  # a bundled table: found by name
    table = pima.frame.to_csv(index=False).encode()
    choice = {**asdict(bench.choice), "exclude": [],
              "source": f"upload:{hashlib.sha256(table).hexdigest()}"}
    upload = BatchModel.from_file(ModelFile.parse({**payload, "choice": choice}))
    assert training_dataset(upload.file) is None
    assert training_dataset(upload.file, table + b"\n\n") is None  # not the very file
    found = training_dataset(upload.file, table, "pima.csv")
    assert len(found.frame) == len(pima.frame)
    with_interval = upload.with_training(found)
    assert with_interval.intervals.interval(0.3) == bench.model.intervals.interval(0.3)


@pytest.mark.parametrize("keys", ["distinct", "ties", "equal", "two keys"])
def test_top_trees_are_lexsort_s_first(keys):
    rng = np.random.default_rng(0)
    n, T = 300, 120
    weights = {"distinct": rng.random((n, T)), "ties": rng.integers(0, 4, (n, T)) / 4,
               "equal": np.full((n, T), 1 / T), "two keys": rng.integers(0, 3, (n, T)) / 3}[keys]
    ordered = [weights] if keys != "two keys" else [weights, rng.integers(0, 3, (n, T))]
    if keys == "ties":
        weights[::7, ::5] = np.nan  # NaN last, as lexsort puts it
        weights[::11, 1::3] = -0.0  # equal to 0.0
    for k in (1, 5, T, T + 3):
        expected = np.lexsort([np.broadcast_to(np.arange(T), (n, T)),
                               *[-key for key in ordered]], axis=1)[:, :min(k, T)]
        np.testing.assert_array_equal(top_trees(ordered, k), expected)


@pytest.mark.slow
def test_a_dask_cluster_gives_the_single_process_output_exactly(rows, pima, tmp_path):
    from distributed import LocalCluster

    bench = Workbench(pima)
    bench.train(Settings(family="erf", n_estimators=15))
    path = tmp_path / "erf.skops"
    path.write_bytes(bench.save())
    model = ready(path, pima)
    single = run(model, rows[1], tmp_path / "single.parquet", chunk_rows=8, contributions=True)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    with cluster, backend(scheduler=cluster.scheduler_address, scatter=[model]) as n_jobs, \
            RowSink(tmp_path / "cluster.parquet") as sink:
        assert n_jobs == 2
        explain_file(model, RowSource(rows[1]), sink, chunk_rows=8, contributions=True)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "cluster.parquet"), single,
                                  check_exact=True)


SNIFF_THREADS = """
    import json, os
    from forestviz.batch.source import RowSource
    from forestviz.io.csv_input import load_csv

    def threads():
        return len(os.listdir("/proc/self/task"))

    load_csv(b"a,b\\n1,2\\n", min_columns=1)  # what the upload reader starts, started first
    before = threads()
    source = RowSource(os.environ["ROWS"])
    print(json.dumps([before, threads(), list(source.columns)]))
"""


def test_reading_a_csvs_header_starts_no_thread_pool(tmp_path):
    """A command refused just after its table's header was read (a bad output) ended while
    pyarrow's thread pool, started for those few kilobytes, was still starting: the C++ runtime
    aborted the process ("terminate called without an active exception", exit -6), once in a
    clean-clone run. The header is read in the calling thread."""
    path = tmp_path / "rows.csv"
    path.write_text("id,x;y,z\nP1,1,2\nP2,3,4\n")
    before, after, columns = run_script(SNIFF_THREADS, tmp_path, ROWS=str(path))
    assert columns == ["id", "x;y", "z"]
    assert after == before
