"""What one tree says at its leaves, as the model's prediction uses it, and where it comes from.

Every model here predicts offset + Σ_k α_k(x)·f_k(x) (:mod:`forestviz.trees.ensemble`). A drawing
of tree k shows f_k at its leaves, read from the protocol's ``node_outputs()``, not the value
scikit-learn stored in the tree (which dtreeviz would draw), because the two differ by family:

* Breiman's random forests ("Random Forests", 2001) and the Enhanced Random Forest (Bertsimas &
  Stoumpou, Eq. 4): f_k is the tree's own stored value, from its bootstrap sample, while the
  training rows in the leaf may hold other classes;
* attention forests (Utkin & Konstantinov, "Attention-based random forest and contamination
  model", Eq. 8, with leaf values over all training rows): f_k is the mean of all training rows
  in the leaf;
* AGBoost (Konstantinov, Utkin & Kirpichenko, "AGBoost: attention-based modification of gradient
  boosting machine"): f_k = V_k = T·ν·h_k, h_k the raw residual tree's value (Friedman,
  "Greedy function approximation: a gradient boosting machine", 2001), ν the learning rate.

The protocol gives the numbers but not their origin, and the library never branches on the
family; so the origin a drawing names is checked on the numbers themselves (:func:`origin`):
the words state what was verified.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.leaf_values import estimator_leaf_values

SCALED = "scaled"  # V_k = T·ν·h_k: a boosting tree's value, scaled
ROWS = "rows"  # the mean (class shares) of the training rows in the leaf
BOOTSTRAP = "bootstrap"  # an ensemble tree's own stored value: its bootstrap sample
OWN = "own"  # a lone tree's own stored value
MODEL = "model"  # none of these: the model's own number, origin not named


def _close(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-7, atol=1e-9 * scale))


@dataclass(frozen=True, eq=False)
class TreeOutputs:
    """One tree's outputs per node: ``values`` f_k ((n_nodes,) or (n_nodes, C) class
    probabilities in the model's class order), ``counts`` the (weighted) training rows each
    summarises, ``own`` the values the tree itself stores, ``leaves`` which nodes are leaves,
    ``scale`` c with values = c·own at every leaf (AGBoost's T·ν; 1 for every other family),
    ``n_trees`` T, ``ensemble`` whether the numbers come from a weighted ensemble (not a lone
    tree or a list of trees) and ``offset`` its offset (F_0 of AGBoost, else 0)."""

    values: np.ndarray
    counts: np.ndarray
    own: np.ndarray
    leaves: np.ndarray
    scale: float
    n_trees: int
    ensemble: bool
    offset: float = 0.0

    @property
    def additive(self) -> bool:
        """Whether the tree may be a boosting stage (values scaled, or an offset added): a
        regression tree of an ensemble with c ≠ 1 or F_0 ≠ 0. Its drawing depends on the trees
        before it (:func:`origin`)."""
        return self.values.ndim == 1 and (self.scale != 1.0 or self.offset != 0.0)

    @property
    def learning_rate(self) -> float:
        """ν = c / T of a boosting tree."""
        return self.scale / self.n_trees

    def digest(self) -> str:
        digest = hashlib.blake2b(digest_size=16)
        for array in (self.values, self.counts):
            digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
        digest.update(repr((self.scale, self.n_trees, self.ensemble, self.offset)).encode())
        return digest.hexdigest()


def origin(outputs: TreeOutputs, trees, tree_index, rows_by_node, X, y):
    """Where tree ``tree_index``'s leaf values come from, checked on the numbers, and for a
    boosting tree the residuals it was fitted to, on V_k's scale (else None).

    ``rows_by_node``: {node: training rows}; ``X``, ``y``: the training rows and their targets
    (class codes 0..C−1 for a classifier). In this order:

    * :data:`SCALED`: values = c·own with c ≠ 1, or an additive tree whose own leaf values are
      the means of the residuals y − F_{k−1} over its training rows (gradient boosting with
      squared loss, F_{k−1} = F_0 + ν·Σ_{j<k} h_j, ν = c/T): so a boosting machine whose
      T·ν happens to be 1 is still named as one;
    * :data:`ROWS`: every leaf that training rows reach holds their mean (class shares);
    * :data:`BOOTSTRAP` (a tree of an ensemble) when every leaf holds the tree's own value and
      that value could come from a sample of the training rows in the leaf (within their range
      of targets, or only classes they hold), :data:`OWN` for a lone tree's own value;
    * else :data:`MODEL`: the model's number, its origin not named.
    """
    values, own = outputs.values, outputs.own
    leaves = np.flatnonzero(outputs.leaves)
    filled = [leaf for leaf in leaves if len(rows_by_node[leaf])]
    if outputs.additive:
        residuals = _residuals(outputs, trees, tree_index, X, y)
        fitted = bool(filled) and _close(
            own[filled], [residuals[rows_by_node[leaf]].mean() for leaf in filled])
        if outputs.scale != 1.0 or fitted:
            return SCALED, outputs.scale * residuals
    if filled and _close(values[filled], [_mean(y, rows_by_node[leaf], values)
                                          for leaf in filled]):
        return ROWS, None
    if not _close(values[leaves], own[leaves]):
        return MODEL, None
    if not outputs.ensemble:
        return OWN, None
    if all(_from_rows(own[leaf], y[rows_by_node[leaf]]) for leaf in filled):
        return BOOTSTRAP, None
    return MODEL, None


def _mean(y, rows, values):
    if values.ndim == 1:
        return float(np.mean(y[rows]))
    return np.bincount(y[rows], minlength=values.shape[1]) / len(rows)


def _from_rows(value, y) -> bool:
    """Whether ``value`` can be the mean (class shares) of a weighted sample of ``y``."""
    if np.ndim(value) == 0:
        tol = 1e-9 * max(1.0, float(np.abs(y).max()))
        return bool(y.min() - tol <= value <= y.max() + tol)
    return bool(np.all((value <= 1e-12) | np.isin(np.arange(value.size), y)))


def tree_outputs(model, trees, tree_index) -> TreeOutputs:
    """:class:`TreeOutputs` of tree ``tree_index`` of ``model`` (``trees``: its fitted trees,
    :func:`forestviz.trees.fitted.estimator_trees`; the offset from the protocol's
    ``offset()``).

    A weighted ensemble's values come from ``as_ensemble(model).node_outputs()``, node j of tree
    k at ``offsets[k] + j`` (offsets: cumulative node counts); a lone tree or a list of trees
    says what it stores.
    """
    tree = trees[tree_index]
    own = estimator_leaf_values(model, [tree])[1]
    leaves = tree.tree_.children_left < 0
    try:
        ensemble = as_ensemble(model)
    except TypeError:
        return TreeOutputs(own, tree.tree_.weighted_n_node_samples, own, leaves, 1.0,
                           len(trees), False)
    values, counts = ensemble.node_outputs(tree_index)
    # an offset is added to values, not to class probabilities
    offset = ensemble.offset() if values.ndim == 1 else 0.0
    return TreeOutputs(values, counts, own, leaves, _scale(values[leaves], own[leaves]),
                       len(trees), True, offset)


def _scale(values, own) -> float:
    """c with values = c·own (c > 0, c ≠ 1), else 1: regression leaves only."""
    if values.ndim != 1:
        return 1.0
    norm = float(own @ own)
    if norm == 0.0:
        return 1.0
    c = float(own @ values) / norm
    if c > 0.0 and not np.isclose(c, 1.0, rtol=1e-9, atol=0.0) and _close(values, c * own):
        return c
    return 1.0


def _residuals(outputs: TreeOutputs, trees, tree_index, X, y) -> np.ndarray:
    """y − F_{k−1}(X) with F_{k−1} = F_0 + ν·Σ_{j<k} h_j: the residuals a boosting machine with
    squared loss fitted tree k to (Friedman 2001)."""
    X32 = np.asarray(X, dtype=np.float32)
    F = np.full(X32.shape[0], outputs.offset)
    for tree in trees[:tree_index]:
        F += outputs.learning_rate * tree.predict(X32)
    return np.asarray(y, dtype=np.float64) - F
