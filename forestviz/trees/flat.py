"""Flat trees: the nodes of T fitted trees in one set of arrays, numbered tree after tree.

Every structure that speaks of "leaf ℓ of tree k" across a forest (leaf statistics, leaf
tables, Decision Machines) uses this numbering: node ``offsets[k] + j`` is node j of tree k.
:meth:`FlatTrees.apply` finds the leaves of a few rows by one vectorised descent through all
trees at once; :class:`~forestviz.trees.masks.LeafMasks`, built alongside when the trees are
small enough, finds those of many rows, and :meth:`FlatTrees.apply_many` those of many rows in
larger trees.

:meth:`FlatTrees.apply_many` is compiled (numba, ``cache=True``) because of a measured figure:
tree by tree, eight rows descend together, so that eight independent loads are in flight where
one row's descent waits on each node in turn; on 60,000 rows of 200 trees of about 700 leaves
(20 features, one thread) it took 0.63 s where the trees' own compiled ``apply``, one call per
tree, took 1.09 s (docs/performance.md, "Batch explanation").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numba
import numpy as np

from forestviz.trees.masks import LeafMasks

_LOCKSTEP = 8  # rows descending a tree together in apply_many


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

    def apply_many(self, X32: np.ndarray, out=None) -> np.ndarray:
        """Global leaf ids (n × T, into ``out`` when given) of float32 rows ``X32``, the same
        as :meth:`apply`, by a compiled descent of each tree, rows in lockstep groups."""
        X32 = np.ascontiguousarray(X32, dtype=np.float32)
        if self._largest_feature >= X32.shape[1]:
            raise ValueError("the rows have fewer features than the trees split on")
        if out is None:
            out = np.empty((X32.shape[0], self.offsets.size), dtype=np.intp)
        _descend(X32, self.offsets, self.feature, self.threshold, self.left, self.right,
                 min(self.max_depth, self.feature.size), out)
        return out

    @cached_property
    def _largest_feature(self) -> int:
        """The largest split feature, once the arrays are checked to fit together (the
        compiled descent reads them without bounds checks)."""
        n = self.feature.size
        parts = (self.offsets, self.left, self.right, self.feature, self.threshold)
        if not (n and all(a.ndim == 1 for a in parts) and self.threshold.size == n
                and self.left.size == n and self.right.size == n
                and all(a.dtype == np.intp for a in parts[:4])
                and self.threshold.dtype == np.float64
                and all(a.min() >= 0 and a.max() < n for a in parts[:3])
                and self.feature.min() >= -1):
            raise ValueError("the flat trees' arrays do not fit together")
        return int(self.feature.max())


    def leaf(self, x32: np.ndarray, tree: int) -> int:
        """Global leaf id of one float32 row ``x32`` (m,) in tree ``tree``: a scalar descent
        of that tree alone (a path needs one tree, not a descent through all T)."""
        node = int(self.offsets[tree])
        feature, threshold, left, right = self.feature, self.threshold, self.left, self.right
        while feature[node] >= 0:
            node = int(left[node] if x32[feature[node]] <= threshold[node] else right[node])
        return node


@numba.njit(nogil=True, cache=True)
def _descend(X32, offsets, feature, threshold, left, right, depth, out):
    """out[i, k]: the leaf of row i in tree k after at most ``depth`` steps (x ≤ threshold goes
    left, float32 compared in float64). Tree by tree, ``_LOCKSTEP`` rows take each step
    together: their loads do not wait on one another."""
    n = X32.shape[0]
    node = np.empty(_LOCKSTEP, dtype=np.intp)
    for k in range(offsets.size):
        for start in range(0, n, _LOCKSTEP):
            width = min(_LOCKSTEP, n - start)
            node[:width] = offsets[k]
            for _ in range(depth):
                moving = False
                for r in range(width):
                    at = node[r]
                    f = feature[at]
                    if f >= 0:
                        moving = True
                        node[r] = left[at] if X32[start + r, f] <= threshold[at] else right[at]
                if not moving:
                    break
            for r in range(width):
                out[start + r, k] = node[r]
