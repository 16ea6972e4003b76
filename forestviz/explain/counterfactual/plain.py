"""The plain forest inside a model: its fitted trees with equal weights.

A scikit-learn forest is its plain forest; the attention forests, the Enhanced RF and AGBoost
weigh the same trees by the row (α_k(x)), and α_k = 1/T gives their plain model back
(:mod:`forestviz.trees.ensemble`). Read through public parts only: the trees' ``tree_``
arrays (``children_left``, ``children_right``, ``feature``, ``threshold``) and the protocol's
``leaf_outputs`` (what each leaf predicts) and ``offset``.

Leaves are numbered tree by tree in depth-first order (left before right), so the leaves below
any node are one run of consecutive numbers, which the program's split constraints read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from forestviz.trees.ensemble import SKLEARN_FORESTS, as_ensemble
from forestviz.trees.fitted import estimator_trees


@dataclass(frozen=True, eq=False)
class Split:
    """The split nodes of all trees: ``feature`` and ``threshold`` of each, and the runs of
    leaves ``[left_start, left_stop)`` left of it and ``[right_start, right_stop)`` right."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray  # (s, 2)
    right: np.ndarray  # (s, 2)


@dataclass(frozen=True, eq=False)
class PlainForest:
    """``trees`` with equal weights 1/T: prediction offset + mean of the leaves' values
    (``values``: per node of the flat numbering, (N,) values or (N, C) class
    probabilities); ``exact``: whether this is the model's own prediction."""

    trees: list
    values: np.ndarray
    offset: float
    exact: bool

    @classmethod
    def of(cls, model) -> PlainForest:
        """The plain forest of any model of the product, or of a scikit-learn forest."""
        ensemble = as_ensemble(model)
        values, _ = ensemble.leaf_outputs()
        return cls(estimator_trees(model), np.asarray(values, dtype=np.float64),
                   float(ensemble.offset()), isinstance(model, SKLEARN_FORESTS))

    @property
    def n_trees(self) -> int:
        return len(self.trees)

    @property
    def n_leaves(self) -> int:
        return int(self._order[1].size)

    @cached_property
    def _order(self) -> tuple[list[tuple[int, int]], np.ndarray, Split]:
        """(leaf runs per tree, flat node id of each leaf in leaf order, the splits)."""
        runs, leaves, parts = [], [], []
        base = 0
        for tree in self.trees:
            first = len(leaves)
            order, start, count = _preorder(tree.tree_)
            t = tree.tree_
            inner = order[t.children_left[order] >= 0]
            leaves.extend(base + order[t.children_left[order] < 0])
            lc, rc = t.children_left[inner], t.children_right[inner]
            parts.append((t.feature[inner], t.threshold[inner],
                          first + np.stack([start[lc], start[lc] + count[lc]], axis=1),
                          first + np.stack([start[rc], start[rc] + count[rc]], axis=1)))
            runs.append((first, len(leaves)))
            base += t.node_count
        feature, threshold, left, right = (np.concatenate(p) for p in zip(*parts, strict=True))
        split = Split(feature.astype(np.intp), threshold.astype(np.float64),
                      left.astype(np.intp), right.astype(np.intp))
        return runs, np.asarray(leaves, dtype=np.intp), split

    def tree_leaves(self) -> list[tuple[int, int]]:
        """The run of leaf numbers of each tree."""
        return self._order[0]

    def leaf_values(self) -> np.ndarray:
        """Each leaf's value, in leaf order: (L, C), or (L, 1) for values."""
        values = self.values[self._order[1]]
        return values[:, None] if values.ndim == 1 else values

    def splits(self) -> Split:
        return self._order[2]

    def predict(self, X) -> np.ndarray:
        """offset + (1/T) Σ_t v_t(x): (n,) values or (n, C) class probabilities."""
        X = np.asarray(X, dtype=np.float32)
        start, total = 0, 0.0
        for tree in self.trees:
            total = total + self.values[start + tree.apply(X)]
            start += tree.tree_.node_count
        return self.offset + total / self.n_trees


def _preorder(t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A tree's nodes in depth-first order, left before right; per node, the number of leaves
    before it in that order and the number of leaves below it."""
    left, right = t.children_left, t.children_right
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if left[node] >= 0:
            stack.extend((right[node], left[node]))
    order = np.asarray(order, dtype=np.intp)
    is_leaf = left[order] < 0
    start = np.empty(t.node_count, dtype=np.intp)
    start[order] = np.cumsum(is_leaf) - is_leaf
    count = np.zeros(t.node_count, dtype=np.intp)
    for node in order[::-1]:
        count[node] = 1 if left[node] < 0 else count[left[node]] + count[right[node]]
    return order, start, count
