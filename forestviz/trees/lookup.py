"""Leaf ids of many rows in all trees of a forest, by the fastest of three ways: one
vectorised descent for a few rows, bit masks for small trees, else a compiled descent
(:meth:`~forestviz.trees.flat.FlatTrees.apply_many`); one block of rows per thread."""

from __future__ import annotations

import numpy as np

from forestviz.trees.flat import FlatTrees
from forestviz.trees.threads import SMALL_BATCH, row_blocks, run_in_threads


def forest_leaf_ids(trees, flat: FlatTrees, X, n_jobs) -> np.ndarray:
    """Leaf ids (n × T, flat numbering; ``trees`` are those ``flat`` was built from): one
    vectorised descent for a few rows; else :class:`~forestviz.trees.masks.LeafMasks` when the
    trees allow it, or the compiled descent, one block of rows per thread."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    if X32.shape[0] <= SMALL_BATCH:
        return flat.apply(X32)
    leaves = np.empty((X32.shape[0], len(trees)), dtype=np.intp)
    apply = flat.apply_many if flat.masks is None else flat.masks.apply

    def some_rows(rows):
        apply(X32[rows], out=leaves[rows])

    run_in_threads(some_rows, row_blocks(X32.shape[0], n_jobs), n_jobs)
    return leaves
