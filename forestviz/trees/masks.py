"""Leaf look-up by bit masks (QuickScorer: Lucchese et al., SIGIR 2015), for many rows of
small trees: per split feature one binary search and one AND over all trees at once.

The look-up is compiled (numba, ``cache=True``) because of a measured figure: row by row the T
masks stay in the first-level cache while the split features' tables are ANDed in, where the
vectorised numpy form (one ``searchsorted`` and one rows × T gather per feature) moved the
whole rows × T mask array through memory once per split feature: 0.36 s against 0.18 s for
60,000 rows of a 200-tree depth-6 forest on 20 features, one thread (docs/performance.md,
"Batch explanation").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np

MASK_FEATURES = 24  # split features up to which LeafMasks beats per-tree ``apply`` (measured)
# The lowest set bit's index by one product: (b · B) >> 58 is distinct for the 64 single bits b
# (B a de Bruijn sequence of order 6; Leiserson, Prokop & Randall, "Using de Bruijn Sequences to
# Index a 1 in a Computer Word", 1998).
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_SHIFT = np.uint64(58)
_BIT_INDEX = np.zeros(64, dtype=np.intp)
_BIT_INDEX[((np.uint64(1) << np.arange(64, dtype=np.uint64)) * _DE_BRUIJN) >> _SHIFT] = (
    np.arange(64))


@dataclass(frozen=True)
class LeafMasks:
    """Leaf lookup by bit masks (QuickScorer: Lucchese et al., SIGIR 2015) for trees of at
    most 64 leaves that split on at most ``MASK_FEATURES`` features.

    Bit r of tree k's mask stands for its r-th leaf from the left. A row that goes right at a
    node (x_f > threshold) rules out the leaves of its left subtree; the exit leaf is the
    leftmost leaf never ruled out. With a feature's split nodes sorted by threshold, the
    nodes a row goes right at are a prefix, so per feature one binary search picks a row of
    precomputed prefix ANDs (all trees at once) and the row's masks are the AND of those rows
    over the features, with no per-tree work.
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
        X32 = np.ascontiguousarray(X32, dtype=np.float32)
        starts, thresholds, tables = self._packed
        if self.features.size and not 0 <= self.features.min() <= self.features.max() < (
                X32.shape[1]):
            raise ValueError("the rows have fewer features than the trees split on")
        if out is None:
            out = np.empty((X32.shape[0], self.all_leaves.size), dtype=np.intp)
        _exit_leaves(X32, self.features.astype(np.intp), starts, thresholds, tables,
                     self.all_leaves, self.first.astype(np.intp), self.leaves.astype(np.intp),
                     _BIT_INDEX, out)
        return out

    @cached_property
    def _packed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(starts, thresholds, tables): every feature's thresholds in one array, feature f's
        at ``starts[f]:starts[f + 1]``, and its table rows at ``starts[f] + f + q``; checked
        to fit together, as the compiled look-up reads them without bounds checks."""
        n_trees = self.all_leaves.size
        if (len(self.thresholds) != self.features.size or len(self.tables) != self.features.size
                or self.first.shape != (n_trees,) or self.leaves.size == 0
                or any(t.shape != (q.size + 1, n_trees) or t.dtype != self.all_leaves.dtype
                       for q, t in zip(self.thresholds, self.tables, strict=True))):
            raise ValueError("the leaf masks' tables do not fit together")
        sizes = [q.size for q in self.thresholds]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        thresholds = np.concatenate([np.empty(0), *self.thresholds]).astype(np.float64)
        tables = np.concatenate([np.empty((0, n_trees), self.all_leaves.dtype), *self.tables])
        return starts, thresholds, tables


@numba.njit(nogil=True, cache=True)
def _exit_leaves(X32, features, starts, thresholds, tables, all_leaves, first, leaves,
                 bit_index, out):
    """out[i, k]: the exit leaf of row i in tree k. Per split feature, the number q of its
    thresholds below x (numpy's ``searchsorted``; NaN after all) picks the table row ANDed
    into the row's T masks; the exit leaf is each mask's lowest set bit. Positions are clipped
    into ``leaves``."""
    n_trees, last = out.shape[1], leaves.size - 1
    masks = np.empty(n_trees, dtype=all_leaves.dtype)
    for i in range(X32.shape[0]):
        masks[:] = all_leaves
        for f in range(features.size):
            x = np.float64(X32[i, features[f]])
            low, high = starts[f], starts[f + 1]
            if x != x:
                low = high
            while low < high:
                middle = (low + high) >> 1
                if thresholds[middle] < x:
                    low = middle + 1
                else:
                    high = middle
            row = tables[low + f]
            for k in range(n_trees):
                masks[k] &= row[k]
        for k in range(n_trees):
            mask = np.uint64(masks[k])
            lowest = mask & (~mask + np.uint64(1))
            position = first[k] + bit_index[(lowest * _DE_BRUIJN) >> _SHIFT]
            out[i, k] = leaves[max(0, min(position, last))]
