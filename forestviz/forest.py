"""Leaf statistics of a fitted forest (algorithms.md §0).

Every seed algorithm needs, for each tree k and the leaf ℓ_k(x) a row x reaches, the *key*
A_k(x) (mean standardised feature vector of the training rows in that leaf) and the *value*
B_k(x) (mean target) or p_k(x) (class frequencies). :class:`LeafStats` computes them once
from all training rows routed to each leaf and then answers per-row queries vectorised and
in row chunks, so memory stays O(chunk × T × m).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, replace
from functools import cache
from itertools import pairwise

import numpy as np
from joblib import effective_n_jobs
from scipy import sparse
from sklearn.tree import BaseDecisionTree
from threadpoolctl import ThreadpoolController

DEFAULT_CHUNK_SIZE = 16384
_SMALL_BATCH = 64  # below this many rows the flat traversal beats per-tree ``apply``
_MATMUL_LEAVES = 32  # up to this many leaves per tree, x̃·A for every leaf (BLAS) beats a gather
_MATMUL_BLOCK = 2**18  # entries of one (rows × leaves) product block, kept in cache
_MASK_FEATURES = 24  # split features up to which LeafMasks beats per-tree ``apply`` (measured)


def fitted_trees(forest) -> list[BaseDecisionTree]:
    """The fitted scikit-learn trees of a forest, or of a plain list of trees."""
    trees = list(getattr(forest, "estimators_", forest))
    trees = [t for t in np.ravel(np.asarray(trees, dtype=object))]
    if not trees or not all(isinstance(t, BaseDecisionTree) for t in trees):
        raise TypeError("expected a fitted scikit-learn forest or a list of fitted trees")
    return trees


@dataclass(frozen=True)
class FlatTrees:
    """All nodes of T trees in one array, so a leaf lookup is one vectorised descent.

    Node ``offsets[k] + j`` is node j of tree k. Comparisons are made on float32 inputs
    promoted to float64, exactly as scikit-learn's ``apply`` does.
    """

    offsets: np.ndarray  # (T,) first global node id of each tree
    feature: np.ndarray  # (N,) split feature, -1 at leaves
    threshold: np.ndarray  # (N,) float64
    left: np.ndarray  # (N,) global id of the left child (self at leaves)
    right: np.ndarray  # (N,) global id of the right child (self at leaves)
    max_depth: int
    masks: LeafMasks | None = None  # lookup for many rows, when the trees are small enough

    @classmethod
    def from_trees(cls, trees) -> FlatTrees:
        sizes = np.array([t.tree_.node_count for t in trees])
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        feature = np.concatenate([t.tree_.feature for t in trees]).astype(np.intp)
        threshold = np.concatenate([t.tree_.threshold for t in trees])
        own = np.arange(feature.size, dtype=np.intp)
        left = np.concatenate([t.tree_.children_left for t in trees]).astype(np.intp)
        right = np.concatenate([t.tree_.children_right for t in trees]).astype(np.intp)
        shift = np.repeat(offsets, sizes)
        is_leaf = left < 0
        left = np.where(is_leaf, own, left + shift)
        right = np.where(is_leaf, own, right + shift)
        feature[is_leaf] = -1
        depth = max(t.tree_.max_depth for t in trees)
        flat = cls(offsets, feature, threshold, left, right, int(depth))
        return replace(flat, masks=LeafMasks.from_flat(flat))

    def apply(self, X32: np.ndarray) -> np.ndarray:
        """Global leaf ids (n × T) of float32 rows ``X32`` by one vectorised descent."""
        n = X32.shape[0]
        node = np.broadcast_to(self.offsets, (n, self.offsets.size)).copy()
        rows = np.arange(n)[:, None]
        for _ in range(self.max_depth):
            feat = self.feature[node]
            inner = feat >= 0
            if not inner.any():
                break
            value = X32[rows, np.where(inner, feat, 0)]
            go_left = value <= self.threshold[node]
            node = np.where(go_left, self.left[node], self.right[node])
        return node


@dataclass(frozen=True)
class LeafMasks:
    """Leaf lookup by bit masks (QuickScorer: Lucchese et al., SIGIR 2015) for trees of at
    most 64 leaves that split on at most ``_MASK_FEATURES`` features.

    Bit r of tree k's mask stands for its r-th leaf from the left. A row that goes right at a
    node (x_f > threshold) rules out the leaves of its left subtree; the exit leaf is the
    leftmost leaf never ruled out. With a feature's split nodes sorted by threshold, the
    nodes a row goes right at are a prefix, so per feature one ``searchsorted`` picks a row
    of precomputed prefix ANDs (all trees at once) and the row's masks are the AND of those
    rows over the features — vectorised over rows, with no per-tree work.
    """

    features: np.ndarray  # (F,) features the trees split on
    thresholds: tuple  # per feature: its split thresholds, sorted
    tables: tuple  # per feature: (q_f + 1, T) masks after going right at the first q nodes
    leaves: np.ndarray  # global leaf ids ordered by tree, then from left to right
    first: np.ndarray  # (T,) position in ``leaves`` of each tree's leftmost leaf
    all_leaves: np.ndarray  # (T,) the masks before any split: every bit set

    @classmethod
    def from_flat(cls, flat: FlatTrees) -> LeafMasks | None:
        """The tables of ``flat``'s trees, or None when they are too large (then the trees'
        compiled ``apply`` is faster)."""
        n_nodes, n_trees = flat.feature.size, flat.offsets.size
        tree = np.repeat(np.arange(n_trees), np.diff(np.append(flat.offsets, n_nodes)))
        inner = np.flatnonzero(flat.feature >= 0)
        features = np.unique(flat.feature[inner])
        depth = np.zeros(n_nodes, dtype=np.intp)
        for _ in range(flat.max_depth):
            depth[flat.left[inner]] = depth[flat.right[inner]] = depth[inner] + 1
        size = (flat.feature < 0).astype(np.intp)  # leaves under each node, bottom-up
        for level in range(flat.max_depth - 1, -1, -1):
            nodes = inner[depth[inner] == level]
            size[nodes] = size[flat.left[nodes]] + size[flat.right[nodes]]
        n_bits = next((b for b in (8, 16, 32, 64) if size[flat.offsets].max() <= b), None)
        if n_bits is None or features.size > _MASK_FEATURES:
            return None
        rank = np.zeros(n_nodes, dtype=np.intp)  # rank of a node's leftmost leaf, top-down
        for level in range(flat.max_depth):
            nodes = inner[depth[inner] == level]
            rank[flat.left[nodes]] = rank[nodes]
            rank[flat.right[nodes]] = rank[nodes] + size[flat.left[nodes]]
        dtype = np.dtype(f"uint{n_bits}")
        left = flat.left[inner]
        left_bits = ((np.uint64(1) << size[left].astype(np.uint64)) - np.uint64(1)) << rank[
            left].astype(np.uint64)
        go_right = np.zeros(n_nodes, dtype=dtype)
        go_right[inner] = (~left_bits).astype(dtype)
        by_threshold = inner[np.lexsort((flat.threshold[inner], flat.feature[inner]))]
        all_leaves = np.full(n_trees, np.iinfo(dtype).max, dtype=dtype)
        groups = np.split(by_threshold, np.searchsorted(flat.feature[by_threshold], features[1:]))
        thresholds, tables = [], []
        for nodes in groups[: features.size]:
            table = np.tile(all_leaves, (nodes.size + 1, 1))
            table[np.arange(1, nodes.size + 1), tree[nodes]] = go_right[nodes]
            thresholds.append(flat.threshold[nodes])
            tables.append(np.bitwise_and.accumulate(table, axis=0))
        leaf_nodes = np.flatnonzero(flat.feature < 0)
        leaves = leaf_nodes[np.lexsort((rank[leaf_nodes], tree[leaf_nodes]))]
        return cls(features, tuple(thresholds), tuple(tables), leaves,
                   np.searchsorted(tree[leaves], np.arange(n_trees)), all_leaves)

    def apply(self, X32: np.ndarray, out=None) -> np.ndarray:
        """Global leaf ids (n × T, into ``out`` when given) of float32 rows ``X32`` (x ≤
        threshold goes left, compared in float64 as scikit-learn's ``apply`` does)."""
        masks = np.tile(self.all_leaves, (X32.shape[0], 1))
        for feature, thresholds, table in zip(self.features, self.thresholds, self.tables,
                                              strict=True):
            masks &= table[np.searchsorted(thresholds, X32[:, feature])]
        lowest = masks & (~masks + 1)  # the leftmost leaf left is the lowest set bit
        position = self.first + np.bitwise_count(lowest - 1)
        return np.take(self.leaves, position, out=out, mode="clip")  # "clip": no buffering


class LeafStats:
    """Per-leaf count, key (mean x̃) and value of a fitted forest (algorithms.md §0).

    Build with :meth:`from_forest`. Keys live in the standardised space
    x̃ = (x − mean) / std (ddof 0, a zero std counts as 1) unless ``standardize=False``.
    """

    def __init__(self, trees, flat, counts, leaf_means, leaf_values, center, scale, task,
                 classes, chunk_size, n_jobs):
        self.trees = trees
        self.flat = flat
        self.counts = counts
        self.leaf_means = leaf_means
        self.leaf_sq_norms = np.einsum("ij,ij->i", leaf_means, leaf_means)
        is_leaf = flat.feature < 0
        # shallow trees: ||A||² − 2·x̃·A of every leaf is one product [x̃, 1] @ leaf_terms
        self.leaf_column = np.cumsum(is_leaf) - 1  # node id -> column of leaf_terms
        self.leaf_terms = (np.vstack([-2.0 * leaf_means[is_leaf].T, self.leaf_sq_norms[is_leaf]])
                           if is_leaf.sum() <= _MATMUL_LEAVES * len(trees) else None)
        self.leaf_values = leaf_values
        self.center = center
        self.scale = scale
        self.task = task
        self.classes = classes
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs

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
        center, scale = (X.mean(axis=0), X.std(axis=0)) if standardize else (
            np.zeros(X.shape[1]), np.ones(X.shape[1]))
        scale = np.where(scale > 0, scale, 1.0)
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
            own = _own_leaf_values(trees, task, classes)
            leaf_values[empty] = own[empty]
            leaf_means[empty] = _ancestor_keys(trees, flat, X, (X - center) / scale, empty)
        if task == "regression":
            leaf_values = leaf_values[:, 0]
        return cls(trees, flat, counts, leaf_means, leaf_values, center, scale, task, classes,
                   chunk_size, n_jobs)

    def with_values(self, leaf_values) -> LeafStats:
        """The same leaves and keys with other per-node values (flat numbering), e.g. AGBoost's
        scaled tree outputs T·ν·h_k."""
        return LeafStats(self.trees, self.flat, self.counts, self.leaf_means,
                         np.asarray(leaf_values), self.center, self.scale, self.task,
                         self.classes, self.chunk_size, self.n_jobs)

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
        if self.leaf_terms is None and X.shape[0] > _SMALL_BATCH:
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


def forest_leaf_ids(trees, flat: FlatTrees, X, n_jobs) -> np.ndarray:
    """Leaf ids (n × T, flat numbering): one vectorised descent for a few rows; else
    :class:`LeafMasks`, one block of rows per thread, when the trees allow it, or the trees'
    own compiled ``apply``, one block of trees per thread."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    if X32.shape[0] <= _SMALL_BATCH:
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
    """Row indices split into one contiguous slice per job, of at least ``_SMALL_BATCH`` rows
    (a thread does not pay for fewer)."""
    n_blocks = min(effective_n_jobs(n_jobs), max(n_rows // _SMALL_BATCH, 1))
    return [slice(block.start, block.stop) for block in _blocks(n_rows, n_blocks)]


def _blocks(n: int, n_blocks: int) -> list[range]:
    bounds = np.linspace(0, n, max(min(n_blocks, n), 1) + 1).astype(int)
    return [range(a, b) for a, b in pairwise(bounds)]


@cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()


def single_threaded_blas(n_rows):
    """Context limiting BLAS to one thread when more than ``_SMALL_BATCH`` rows are processed
    (below, the products are too small for BLAS to thread): our own threads already share the
    cores, and OpenBLAS threads on small products under load cost far more than they give."""
    if n_rows <= _SMALL_BATCH:
        return nullcontext()
    return _blas_controller().limit(limits=1, user_api="blas")


def _own_leaf_values(trees, task, classes) -> np.ndarray:
    """The trees' own stored leaf values in the flat numbering (fallback for empty leaves)."""
    blocks = []
    for tree in trees:
        value = tree.tree_.value
        if task == "regression":
            blocks.append(value[:, 0, :1])
            continue
        fractions = value[:, 0, :] / np.maximum(value[:, 0, :].sum(axis=1, keepdims=True), 1e-300)
        if fractions.shape[1] == classes.size:  # a forest's tree: classes already aligned
            blocks.append(fractions)
            continue
        full = np.zeros((value.shape[0], classes.size))
        full[:, np.searchsorted(classes, tree.classes_)] = fractions
        blocks.append(full)
    return np.concatenate(blocks)


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
