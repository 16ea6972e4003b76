"""Leaf ids of many rows in all trees of a forest, by the fastest of three ways: one
vectorised descent for a few rows, bit masks for small trees, else the trees' own compiled
``apply``; rows or trees shared out over threads."""

from __future__ import annotations

import numpy as np

from forestviz.trees.flat import FlatTrees
from forestviz.trees.threads import SMALL_BATCH, row_blocks, run_in_threads, tree_blocks


def forest_leaf_ids(trees, flat: FlatTrees, X, n_jobs) -> np.ndarray:
    """Leaf ids (n × T, flat numbering): one vectorised descent for a few rows; else
    :class:`~forestviz.trees.masks.LeafMasks`, one block of rows per thread, when the trees
    allow it, or the trees' own compiled ``apply``, one block of trees per thread."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    if X32.shape[0] <= SMALL_BATCH:
        return flat.apply(X32)
    leaves = np.empty((X32.shape[0], len(trees)), dtype=np.intp)
    if flat.masks is not None:

        def some_rows(rows):
            flat.masks.apply(X32[rows], out=leaves[rows])

        run_in_threads(some_rows, row_blocks(X32.shape[0], n_jobs), n_jobs)
        return leaves

    def some_trees(block):
        for k in block:
            leaves[:, k] = trees[k].apply(X32, check_input=False) + flat.offsets[k]

    run_in_threads(some_trees, tree_blocks(len(trees), n_jobs), n_jobs)
    return leaves
