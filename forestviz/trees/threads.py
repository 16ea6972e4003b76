"""Threads for the vectorised look-ups: row and tree blocks on a small standard-library pool,
with BLAS held to one thread while our own threads share the cores.

The look-ups in :mod:`forestviz.trees` and the estimators release the GIL in numpy, BLAS and
scikit-learn's compiled ``apply``, so threads (not processes) split the work: one contiguous
block of rows, or of trees, per thread.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from functools import cache
from itertools import pairwise

import numpy as np
from joblib import effective_n_jobs
from threadpoolctl import ThreadpoolController

SMALL_BATCH = 64  # below this many rows the flat traversal beats per-tree ``apply``


def run_in_threads(function, tasks, n_jobs) -> list:
    """``[function(task) for task in tasks]`` on up to ``effective_n_jobs(n_jobs)`` threads.

    A standard-library pool: it starts in ~0.1 ms where a joblib threading ``Parallel`` takes
    ~10 ms, which matters at prediction time."""
    tasks = list(tasks)
    workers = min(effective_n_jobs(n_jobs), len(tasks))
    if workers <= 1:
        return [function(task) for task in tasks]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, tasks))


def tree_blocks(n_trees: int, n_jobs) -> list[range]:
    """Tree indices split into one contiguous block per job (little dispatch overhead)."""
    return _blocks(n_trees, effective_n_jobs(n_jobs))


def row_blocks(n_rows: int, n_jobs) -> list[slice]:
    """Row indices split into one contiguous slice per job, of at least ``SMALL_BATCH`` rows
    (a thread does not pay for fewer)."""
    n_blocks = min(effective_n_jobs(n_jobs), max(n_rows // SMALL_BATCH, 1))
    return [slice(block.start, block.stop) for block in _blocks(n_rows, n_blocks)]


def _blocks(n: int, n_blocks: int) -> list[range]:
    bounds = np.linspace(0, n, max(min(n_blocks, n), 1) + 1).astype(int)
    return [range(a, b) for a, b in pairwise(bounds)]


@cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()


def single_threaded_blas(n_rows):
    """Context limiting BLAS to one thread when more than ``SMALL_BATCH`` rows are processed
    (below, the products are too small for BLAS to thread): our own threads already share the
    cores, and OpenBLAS threads on small products under load cost far more than they give."""
    if n_rows <= SMALL_BATCH:
        return nullcontext()
    return _blas_controller().limit(limits=1, user_api="blas")

