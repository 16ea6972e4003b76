"""Leaf statistics of a fitted forest (algorithms.md §0).

Every seed algorithm needs, for each tree k and the leaf ℓ_k(x) a row x reaches, the *key*
A_k(x) (mean standardised feature vector of the training rows in that leaf) and the *value*
B_k(x) (mean target) or p_k(x) (class frequencies). :class:`LeafStats` computes them once
from all training rows routed to each leaf and then answers per-row queries vectorised and
in row chunks, so memory stays O(chunk × T × m).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy import sparse

from forestviz.trees.fitted import fitted_trees
from forestviz.trees.flat import FlatTrees
from forestviz.trees.leaf_values import own_leaf_values
from forestviz.trees.loaded import (
    MAGNITUDE,
    DamagedState,
    checked_array,
    checked_count,
    checked_trees,
    state_of,
)
from forestviz.trees.lookup import forest_leaf_ids
from forestviz.trees.rows import standard_scaling
from forestviz.trees.threads import (
    SMALL_BATCH,
    row_blocks,
    run_in_threads,
    single_threaded_blas,
    tree_blocks,
)

DEFAULT_CHUNK_SIZE = 16384
_MATMUL_LEAVES = 32  # up to this many leaves per tree, x̃·A for every leaf (BLAS) beats a gather
_MATMUL_BLOCK = 2**18  # entries of one (rows × leaves) product block, kept in cache


@dataclass(eq=False, repr=False)
class LeafStats:
    """Per-leaf count, key (mean x̃) and value of a fitted forest (algorithms.md §0).

    Build with :meth:`from_forest`. Keys live in the standardised space
    x̃ = (x − mean) / std (:func:`~forestviz.trees.rows.standard_scaling`) unless
    ``standardize=False``. Per node of the flat numbering: ``counts`` of training rows,
    ``leaf_means`` A (N × m) and ``leaf_values`` (N,) or (N × C) over ``classes``.

    Saved (pickle, model files) are the trees and what the training rows taught
    (:data:`SAVED`); the flat numbering, its leaf masks and the key norms are rebuilt from
    them when read, after :meth:`__setstate__` has checked every array against the trees.
    """

    trees: list
    flat: FlatTrees
    counts: np.ndarray
    leaf_means: np.ndarray
    leaf_values: np.ndarray
    center: np.ndarray
    scale: np.ndarray
    task: str
    classes: np.ndarray | None
    chunk_size: int
    n_jobs: int | None
    leaf_sq_norms: np.ndarray = field(init=False)  # ||A||² per node
    leaf_column: np.ndarray = field(init=False)  # node id -> column of leaf_terms
    leaf_terms: np.ndarray | None = field(init=False)

    def __post_init__(self):
        self.leaf_sq_norms = np.einsum("ij,ij->i", self.leaf_means, self.leaf_means)
        is_leaf = self.flat.feature < 0
        # shallow trees: ||A||² − 2·x̃·A of every leaf is one product [x̃, 1] @ leaf_terms
        self.leaf_column = np.cumsum(is_leaf) - 1
        self.leaf_terms = (
            np.vstack([-2.0 * self.leaf_means[is_leaf].T, self.leaf_sq_norms[is_leaf]])
            if is_leaf.sum() <= _MATMUL_LEAVES * len(self.trees) else None)

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in SAVED}

    def __setstate__(self, state) -> None:
        """Check a saved state (:func:`check_state`), then rebuild everything derived."""
        state = check_state(state)
        self.__init__(flat=FlatTrees.from_trees(state["trees"]), **state)

    @property
    def n_trees(self) -> int:
        return len(self.trees)

    @classmethod
    def from_forest(cls, forest, X_train, y_train, *, task, standardize=True,
                    chunk_size=DEFAULT_CHUNK_SIZE, n_jobs=None) -> LeafStats:
        """Leaf statistics over *all* training rows reaching each leaf.

        A leaf that no training row reaches keeps the tree's own leaf value and takes the key
        of its nearest ancestor that training rows do reach.
        """
        if task not in ("regression", "classification"):
            raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
        trees = fitted_trees(forest)
        X = np.asarray(X_train, dtype=np.float64)
        y = np.asarray(y_train)
        center, scale = standard_scaling(X) if standardize else (
            np.zeros(X.shape[1]), np.ones(X.shape[1]))
        flat = FlatTrees.from_trees(trees)
        n_nodes = flat.feature.size
        leaves = forest_leaf_ids(trees, flat, X, n_jobs)
        n, n_trees = leaves.shape
        membership = sparse.csr_matrix(
            (np.ones(n * n_trees), (leaves.ravel(), np.repeat(np.arange(n), n_trees))),
            shape=(n_nodes, n),
        )
        counts = np.asarray(membership.sum(axis=1)).ravel()
        per_row = 1.0 / np.maximum(counts, 1)[:, None]
        leaf_means = (membership @ ((X - center) / scale)) * per_row
        if task == "classification":
            classes, codes = np.unique(y, return_inverse=True)
            targets = np.eye(classes.size)[codes]
        else:
            classes, targets = None, y.astype(np.float64)[:, None]
        leaf_values = (membership @ targets) * per_row
        empty = counts == 0
        if empty.any():
            own = own_leaf_values(trees, task, classes)
            leaf_values[empty] = own[empty]
            leaf_means[empty] = _ancestor_keys(trees, flat, X, (X - center) / scale, empty)
        if task == "regression":
            leaf_values = leaf_values[:, 0]
        return cls(trees, flat, counts, leaf_means, leaf_values, center, scale, task, classes,
                   chunk_size, n_jobs)

    def with_values(self, leaf_values) -> LeafStats:
        """The same leaves and keys with other per-node values (flat numbering), e.g. AGBoost's
        scaled tree outputs T·ν·h_k."""
        return replace(self, leaf_values=np.asarray(leaf_values))

    def standardize(self, X) -> np.ndarray:
        """x̃ = (x − mean) / std with the training rows' mean and std."""
        return (np.asarray(X, dtype=np.float64) - self.center) / self.scale

    def global_leaf_ids(self, X) -> np.ndarray:
        """Leaf ids in the flat node numbering (n × T)."""
        return forest_leaf_ids(self.trees, self.flat, X, self.n_jobs)

    def leaf_ids(self, X) -> np.ndarray:
        """Leaf node ids per tree (n × T), equal to scikit-learn's ``apply`` on float32 X."""
        return self.global_leaf_ids(X) - self.flat.offsets

    def _chunks(self, n):
        for start in range(0, n, self.chunk_size):
            yield slice(start, min(start + self.chunk_size, n))

    def distances(self, X) -> np.ndarray:
        """d_k(x) = ||x̃ − A_k(x)||² (n × T), as ||x̃||² − 2 x̃·A + ||A||² per chunk."""
        return self.query(X)[0]

    def values(self, X) -> np.ndarray:
        """Leaf values B_k(x) (n × T) or class frequencies p_k(x) (n × T × C)."""
        return self.leaf_values[self.global_leaf_ids(X)]

    def query(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Distances and leaf values of X with one leaf lookup (:meth:`global_leaf_ids`).

        Shallow trees (≤ 32 leaves per tree on average): d = ||x̃||² + (||A||² − 2·x̃·A) with
        the bracket computed for every leaf as one BLAS product per block of rows and then
        picked per tree, one block of rows per thread. Deep trees: few rows gather their keys;
        many rows go through :meth:`_query_per_tree`.
        """
        X = np.asarray(X, dtype=np.float64)
        if self.leaf_terms is None and X.shape[0] > SMALL_BATCH:
            return self._query_per_tree(X)
        leaves = self.global_leaf_ids(X)
        d = np.empty(leaves.shape)
        values = np.empty(leaves.shape + self.leaf_values.shape[1:])

        def some_rows(rows):
            Xs, ids, out = self.standardize(X[rows]), leaves[rows], d[rows]
            if self.leaf_terms is None:
                cross = (self.leaf_means[ids] @ Xs[:, :, None])[..., 0]
                np.subtract(self.leaf_sq_norms[ids], 2.0 * cross, out=out)
            else:
                self._fill_leaf_terms(Xs, ids, out)
            out += np.einsum("nm,nm->n", Xs, Xs)[:, None]
            np.maximum(out, 0.0, out=out)
            np.take(self.leaf_values, ids, axis=0, out=values[rows], mode="clip")

        with single_threaded_blas(X.shape[0]):
            run_in_threads(some_rows, row_blocks(X.shape[0], self.n_jobs), self.n_jobs)
        return d, values

    def _fill_leaf_terms(self, Xs, leaves, out):
        """||A||² − 2·x̃·A at the given leaves, written to ``out`` (n × T): [x̃, 1] @ leaf_terms
        in blocks of ``_MATMUL_BLOCK`` products, each row's leaves picked by a flat index."""
        n, m = Xs.shape
        augmented = np.ones((n, m + 1))
        augmented[:, :m] = Xs
        n_leaves = self.leaf_terms.shape[1]
        step = max(1, _MATMUL_BLOCK // n_leaves)
        row_start = np.arange(step)[:, None] * n_leaves
        for start in range(0, n, step):
            rows = slice(start, start + step)
            products = augmented[rows] @ self.leaf_terms
            index = self.leaf_column[leaves[rows]]
            index += row_start[: index.shape[0]]
            products.take(index, out=out[rows], mode="clip")

    def _query_per_tree(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Distances and values for many rows of deep trees: per row chunk, one block of trees
        per thread (as scikit-learn's forests predict), each tree doing its compiled ``apply``
        and its n × m key gather while its keys sit in cache. Memory beyond the n × T
        outputs: O(chunk × m) per thread."""
        Xs = self.standardize(X)
        sq = np.einsum("nm,nm->n", Xs, Xs)
        leaves = np.empty((X.shape[0], self.n_trees), dtype=np.intp)
        d = np.empty(leaves.shape)
        for rows in self._chunks(X.shape[0]):
            X32 = np.ascontiguousarray(X[rows], dtype=np.float32)

            def some_trees(block, rows=rows, X32=X32):
                for k in block:
                    leaf = self.trees[k].apply(X32, check_input=False) + self.flat.offsets[k]
                    cross = np.einsum("nm,nm->n", self.leaf_means[leaf], Xs[rows])
                    leaves[rows, k] = leaf
                    d[rows, k] = sq[rows] - 2.0 * cross + self.leaf_sq_norms[leaf]

            run_in_threads(some_trees, tree_blocks(self.n_trees, self.n_jobs), self.n_jobs)
        return np.maximum(d, 0.0), self.leaf_values[leaves]

    def differences(self, X) -> np.ndarray:
        """x̃ − A_k(x) per feature (n × T × m), for models that weight features (ABRF-2/3)."""
        X = np.asarray(X, dtype=np.float64)
        return self.standardize(X)[:, None, :] - self.leaf_means[self.global_leaf_ids(X)]


SAVED = ("trees", "counts", "leaf_means", "leaf_values", "center", "scale", "task", "classes",
         "chunk_size", "n_jobs")
"""What :class:`LeafStats` saves: everything else is derived from these."""


def check_state(state) -> dict:
    """A saved :class:`LeafStats` state whose arrays fit its trees (N nodes, m features):
    counts (N,) ≥ 0, keys (N, m) and values (N,) or (N, C) within ±MAGNITUDE, C sorted unique
    classes, center (m,) within ±MAGNITUDE, scale (m,) within [1/MAGNITUDE, MAGNITUDE];
    DamagedState otherwise."""
    state = state_of(state, SAVED, "leaf statistics")
    trees = checked_trees(state["trees"])
    n_nodes = sum(t.tree_.node_count for t in trees)
    m = trees[0].tree_.n_features
    checked_array(state["counts"], "leaf statistics' row counts", (n_nodes,), low=0.0)
    bounds = {"low": -MAGNITUDE, "high": MAGNITUDE}
    checked_array(state["leaf_means"], "leaf statistics' keys", (n_nodes, m), **bounds)
    checked_array(state["center"], "leaf statistics' feature means", (m,), **bounds)
    checked_array(state["scale"], "leaf statistics' feature scales", (m,), low=1 / MAGNITUDE,
                  high=MAGNITUDE)
    checked_count(state["chunk_size"], "leaf statistics' chunk size", low=1)
    if state["n_jobs"] is not None:
        checked_count(state["n_jobs"], "leaf statistics' number of threads", low=-1)
    classes = state["classes"]
    if state["task"] == "regression" and classes is None:
        checked_array(state["leaf_values"], "leaf values", (n_nodes,), **bounds)
    elif (state["task"] == "classification" and isinstance(classes, np.ndarray)
          and classes.ndim == 1 and classes.size and np.array_equal(np.unique(classes), classes)):
        checked_array(state["leaf_values"], "leaf values", (n_nodes, classes.size), **bounds)
    else:
        raise DamagedState("its leaf statistics' task or classes are damaged")
    return state


def _ancestor_keys(trees, flat: FlatTrees, X, Xs, empty) -> np.ndarray:
    """Keys for empty nodes: the mean x̃ of the rows through their nearest visited ancestor."""
    n_nodes = flat.feature.size
    parent = np.arange(n_nodes)
    inner = np.flatnonzero(flat.feature >= 0)
    parent[flat.left[inner]] = inner
    parent[flat.right[inner]] = inner
    X32 = X.astype(np.float32)
    path_counts, path_sums = np.zeros(n_nodes), np.zeros((n_nodes, Xs.shape[1]))
    for k in np.unique(np.searchsorted(flat.offsets, np.flatnonzero(empty), side="right") - 1):
        nodes = slice(flat.offsets[k], flat.offsets[k] + trees[k].tree_.node_count)
        path = trees[k].decision_path(X32)
        path_counts[nodes] = np.asarray(path.sum(axis=0)).ravel()
        path_sums[nodes] = path.T @ Xs
    node = np.flatnonzero(empty)
    for _ in range(flat.max_depth + 1):
        node = np.where(path_counts[node] > 0, node, parent[node])
    return path_sums[node] / np.maximum(path_counts[node], 1)[:, None]
