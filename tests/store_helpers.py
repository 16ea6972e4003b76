"""Shared parts of the model-library tests: a small trained workbench, a library in a real
SQLite file, the numbers an explanation gives (bit for bit), and scripts run in fresh
processes (a restart, concurrent publishers, a publisher killed mid-way)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.io.bundled import load_dataset
from forestviz.store import StoreConfig, open_library

REPO = Path(__file__).resolve().parents[1]
HANG_GUARD = 600  # seconds: a child that takes longer is hung (each takes seconds)


def trained(family: str = "abrf1_qp", trees: int = 10) -> Workbench:
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family=family, n_estimators=trees, random_state=1))
    return bench


def library_at(folder: Path, database: str | None = None):
    """The library of data directory ``folder`` on ``database`` (the ``database`` fixture's
    URL; None: SQLite in ``folder``)."""
    return open_library(StoreConfig(folder, database))


def database_env(database: str | None) -> dict:
    """The environment naming ``database`` to a child process (:func:`run_script`)."""
    return {} if database is None else {"FORESTVIZ_DATABASE_URL": database}


def numbers(bench: Workbench, positions) -> list:
    """What the Explain page shows of each row, as exact text (floats as hex): prediction,
    interval, tree weights, top trees, nearest rows, contributions."""
    found = []
    for position in positions:
        e = bench.explain(int(position))
        found.append({
            "prediction": _hex(e.prediction), "interval": _hex(e.interval or ()),
            "weights": _hex(e.tree_weights), "top": [int(t) for t in e.top_trees],
            "neighbors": e.neighbors.astype(str).to_numpy().tolist(),
            "contributions": _hex(e.contributions.total) + _hex(e.contributions.base_value),
        })
    return found


def _hex(values) -> list[str]:
    return [float(v).hex() for v in np.ravel(np.asarray(values, dtype=float))]


def run_script(code: str, data_dir: Path, *, wait: bool = True, **env):
    """``code`` in a fresh Python process whose library is ``data_dir``: its stdout parsed as
    JSON (``wait``), or the running process."""
    environment = {**os.environ}
    environment.pop("FORESTVIZ_DATABASE_URL", None)  # SQLite in data_dir unless env names one
    environment.update(FORESTVIZ_DATA_DIR=str(data_dir), OMP_NUM_THREADS="1",
                       PYTHONPATH=str(REPO), **env)
    command = [sys.executable, "-c", textwrap.dedent(code)]
    if not wait:
        return subprocess.Popen(command, cwd=REPO, env=environment, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    done = subprocess.run(command, cwd=REPO, env=environment, capture_output=True, text=True,
                          timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])
