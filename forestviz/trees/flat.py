"""Flat trees: the nodes of T fitted trees in one set of arrays, numbered tree after tree.

Every structure that speaks of "leaf ℓ of tree k" across a forest (leaf statistics, leaf
tables, Decision Machines) uses this numbering: node ``offsets[k] + j`` is node j of tree k.
:meth:`FlatTrees.apply` finds the leaves of a few rows by one vectorised descent through all
trees at once; :class:`~forestviz.trees.masks.LeafMasks`, built alongside when the trees are
small enough, finds those of many rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from forestviz.trees.masks import LeafMasks


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

    def leaf(self, x32: np.ndarray, tree: int) -> int:
        """Global leaf id of one float32 row ``x32`` (m,) in tree ``tree``: a scalar descent
        of that tree alone (a path needs one tree, not a descent through all T)."""
        node = int(self.offsets[tree])
        feature, threshold, left, right = self.feature, self.threshold, self.left, self.right
        while feature[node] >= 0:
            node = int(left[node] if x32[feature[node]] <= threshold[node] else right[node])
        return node
