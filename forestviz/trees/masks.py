"""Leaf look-up by bit masks (QuickScorer: Lucchese et al., SIGIR 2015), for many rows of
small trees: per split feature one ``searchsorted`` and one AND over all trees at once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MASK_FEATURES = 24  # split features up to which LeafMasks beats per-tree ``apply`` (measured)


@dataclass(frozen=True)
class LeafMasks:
    """Leaf lookup by bit masks (QuickScorer: Lucchese et al., SIGIR 2015) for trees of at
    most 64 leaves that split on at most ``MASK_FEATURES`` features.

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
    def from_flat(cls, flat) -> LeafMasks | None:
        """The tables of the trees of ``flat`` (a :class:`~forestviz.trees.flat.FlatTrees`), or
        None when they are too large (then the trees' compiled ``apply`` is faster)."""
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
        if n_bits is None or features.size > MASK_FEATURES:
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
