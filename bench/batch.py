"""Batch explanation at scale (issue 16, item 3): ``forestviz explain`` on a large file against
scikit-learn's ``predict_proba`` of the same forest on the same rows, measured in the same run.

    PYTHONPATH=. .venv/bin/python bench/batch.py [--rows 1000000] [--train 20000] [--trees 200]
        [--chunk-rows 5000] [--cluster 2] [--models erf abrf] [--format parquet|csv]

Data: ``make_classification`` (m = 20, 10 informative), ``--train`` rows to fit on and
``--rows`` fresh rows written to one Parquet (or CSV) file. Models as in ``bench/explain.py``:
an Enhanced RF (200 trees, depth 6, 2 rounds, model weighting on) and an ABRF classifier (200
trees, min_samples_leaf 10, ε = 0.5 and τ = 1 fixed: the per-row work does not depend on how
they were chosen), saved as model files with ``n_jobs=None`` (one thread, as the app saves them).

References (same rows, in memory, ``n_jobs=2``): the ERF's: a ``RandomForestClassifier(200,
max_depth=6)`` fitted on the same rows (the shape of the ERF's own forest); the ABRF's: its own
``forest_``. Each explain run is the real command in a fresh process (``--quiet``, top 5
trees): its own time for the rows (reading, explaining, writing; the process's start and the
model file's loading are shown apart), and the peak resident memory of the process and all its
children (the Dask workers) sampled every 50 ms with psutil. Runs: one chunk after the other
(``--jobs 1``), two chunks at once on threads (``--jobs 2``) and a local Dask cluster of
``--cluster`` workers (``--local-cluster``; its time includes starting the cluster), whose
output is checked to equal the single-process output exactly.

Reading (issue 30): the rows file read in chunks by forestviz's bounded Parquet reader
(:class:`forestviz.io.parquet_input.ParquetRows`: schema, row groups and every batch checked)
against pyarrow's plain ``ParquetFile.iter_batches`` (the reader before the bounds), the two
alternated ``--read-repeats`` times in the same run, the model columns alone and with a text ID
column; ``--read-only`` stops there.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pyarrow as pa
from pyarrow import csv as pa_csv
from pyarrow import parquet as pq
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

from forestviz import persistence
from forestviz.app.workflow import Settings
from forestviz.attention import AttentionForestClassifier
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.io.parquet_input import ParquetRows
from forestviz.io.preprocessing import TablePreprocessor

REPO = Path(__file__).resolve().parents[1]
SAMPLE_SECONDS = 0.05


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--train", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument("--chunk-rows", type=int, default=5_000)
    parser.add_argument("--cluster", type=int, default=2, help="workers; 0 skips the cluster")
    parser.add_argument("--models", nargs="+", default=["erf", "abrf"], choices=["erf", "abrf"])
    parser.add_argument("--format", choices=["parquet", "csv"], default="parquet")
    parser.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--read-repeats", type=int, default=5)
    parser.add_argument("--read-only", action="store_true", help="only the reading figures")
    return parser.parse_args()


def model_file(estimator, family: str, X: np.ndarray, y: np.ndarray, path: Path) -> None:
    """A Train-page model file around ``estimator`` fitted on ``X``, ``y`` (numeric columns
    x0…: the preprocessor passes them through unchanged)."""
    columns = [f"x{j}" for j in range(X.shape[1])]
    pre = TablePreprocessor().fit(pd.DataFrame(X, columns=columns))
    estimator.set_params(n_jobs=None)
    payload = {"settings": asdict(Settings(family=family, n_estimators=estimator.n_estimators)),
               "choice": {"source": "upload:benchmark", "target": "y", "id_column": None,
                          "exclude": [], "task": "auto"},
               "dataset_name": "benchmark", "estimator": estimator, "preprocessor": pre,
               "train_rows": np.arange(len(y)), "test_rows": np.arange(0)}
    path.write_bytes(persistence.dumps(payload))


def run_cli(arguments: list[str]) -> dict:
    """Run ``python -m forestviz explain …``; its own rows time, the wall time and the peak
    resident memory of its process tree (MiB)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "forestviz", "--quiet", "explain",
                                *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, text=True)
    watched, peak = psutil.Process(process.pid), 0
    while process.poll() is None:
        try:
            tree = [watched, *watched.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(SAMPLE_SECONDS)
    out, err = process.communicate()
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"forestviz explain failed ({process.returncode}): {err.strip()}")
    seconds = float(re.search(r"in ([\d.]+) s", out).group(1))
    return {"rows s": seconds, "wall s": wall, "peak MiB": peak / 2**20}


def read_seconds(read, path: Path, columns: list[str], chunk_rows: int) -> float:
    """CPU seconds of this process to read ``columns`` of ``path`` in batches of
    ``chunk_rows`` rows (CPU, not wall time: the machine is shared)."""
    started = time.process_time()
    rows = sum(batch.num_rows for batch in read(path, columns, chunk_rows))
    assert rows == pq.ParquetFile(path).metadata.num_rows
    return time.process_time() - started


def compare_reading(rows: np.ndarray, folder: Path, args) -> None:
    """Bounded reader against pyarrow's plain one, alternated, on the rows plus a text ID."""
    path = folder / "read.parquet"
    table = pa.table({f"x{j}": rows[:, j] for j in range(rows.shape[1])})
    ids = pa.array([f"P{i:07d}" for i in range(len(rows))])
    pq.write_table(table.append_column("id", ids), path)
    del table, ids
    readers = {
        "pyarrow iter_batches": lambda p, c, n: pq.ParquetFile(p).iter_batches(
            batch_size=n, columns=c),
        "forestviz ParquetRows": lambda p, c, n: ParquetRows(p).batches(c, n),
    }
    models = [f"x{j}" for j in range(rows.shape[1])]
    size = path.stat().st_size / 2**20
    print(f"\nreading {len(rows):,} rows of Parquet ({size:,.0f} MiB), CPU time, in "
          f"batches of {args.chunk_rows:,}, medians of {args.read_repeats} alternated runs:")
    for label, columns in (("model columns", models), ("model columns + text ID",
                                                       [*models, "id"])):
        times = {name: [] for name in readers}
        for _ in range(args.read_repeats):
            for name, read in readers.items():
                times[name].append(read_seconds(read, path, columns, args.chunk_rows))
        plain, bounded = (float(np.median(times[name])) for name in readers)
        runs = "; ".join(", ".join(f"{t:.3f}" for t in found) for found in times.values())
        print(f"  {label:<24} pyarrow {plain:6.3f} s, bounded {bounded:6.3f} s: "
              f"{bounded / plain:5.2f}x (runs, pyarrow; bounded: {runs})")
    path.unlink()


def main() -> None:
    args = arguments()
    n, m = args.train, args.features
    X_all, y_all = make_classification(n_samples=n + args.rows, n_features=m,
                                       n_informative=m // 2, random_state=0)
    X, y, rows = X_all[:n], y_all[:n], X_all[n:]
    del X_all, y_all
    folder = Path(tempfile.mkdtemp(prefix="forestviz-bench-"))
    data = folder / f"rows.{args.format}"
    table = pa.table({f"x{j}": rows[:, j] for j in range(m)})
    (pq.write_table if args.format == "parquet" else pa_csv.write_csv)(table, data)
    del table
    print(f"data: make_classification, {n:,} training rows, {args.rows:,} rows to explain "
          f"({data.stat().st_size / 2**20:,.0f} MiB {args.format}), m = {m}, T = {args.trees}, "
          f"chunks of {args.chunk_rows:,} rows, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}")
    if args.format == "parquet":
        compare_reading(rows, folder, args)
    if args.read_only:
        data.unlink()
        folder.rmdir()
        return
    models = {
        "erf": (lambda: EnhancedForestClassifier(args.trees, n_iterations=2, model_weighting=True,
                                                 n_jobs=2, random_state=0),
                lambda model: RandomForestClassifier(args.trees, max_depth=6, n_jobs=2,
                                                     random_state=0).fit(X, y)),
        "abrf": (lambda: AttentionForestClassifier(args.trees, eps=0.5, tau=1.0, n_jobs=2,
                                                   random_state=0),
                 lambda model: model.forest_),
    }
    for name in args.models:
        make, reference = models[name]
        started = time.perf_counter()
        model = make().fit(X, y)
        fit = time.perf_counter() - started
        forest = reference(model)
        forest.set_params(n_jobs=2)
        started = time.perf_counter()
        forest.predict_proba(rows)
        sklearn = time.perf_counter() - started
        path = folder / f"{name}.skops"
        model_file(model, "erf" if name == "erf" else "abrf1_qp", X, y, path)
        print(f"\n{name.upper()}: fit {fit:.1f} s, model file {path.stat().st_size / 2**20:.1f} "
              f"MiB; scikit-learn predict_proba of {args.rows:,} rows (n_jobs=2): "
              f"{sklearn:.2f} s")
        outputs = {}
        runs = [(f"--jobs {j}", ["--jobs", str(j)]) for j in args.jobs]
        if args.cluster:
            runs.append((f"--local-cluster {args.cluster}",
                         ["--local-cluster", str(args.cluster)]))
        for label, extra in runs:
            out = folder / f"{name}-{label.split()[-1]}-{len(outputs)}.parquet"
            found = run_cli([str(path), str(data), "--out", str(out), "--chunk-rows",
                             str(args.chunk_rows), *extra])
            outputs[label] = out
            print(f"  {label:<18} rows {found['rows s']:7.2f} s = "
                  f"{found['rows s'] / sklearn:5.2f}x predict_proba "
                  f"({args.rows / found['rows s']:,.0f} rows/s); whole command "
                  f"{found['wall s']:6.2f} s; peak memory {found['peak MiB']:,.0f} MiB")
        first = next(iter(outputs.values()))
        reference_frame = pd.read_parquet(first)
        for label, out in list(outputs.items())[1:]:
            same = reference_frame.equals(pd.read_parquet(out))
            print(f"  output of {label} equals {next(iter(outputs))}: {same}")
            out.unlink()
        first.unlink()
        path.unlink()
    data.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
