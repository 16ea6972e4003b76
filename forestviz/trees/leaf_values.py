"""The trees' own leaf predictions in the flat numbering (:mod:`forestviz.trees.flat`): the
values or class frequencies scikit-learn stored in each node when it grew the tree, with the
class columns aligned.

:func:`node_values` and :func:`node_class_values` read them (the one place class columns are
aligned, with :func:`spread_columns`); :class:`LeafTable` serves the Enhanced Random Forest
(per-tree class probabilities by one gather), :func:`estimator_leaf_values` the Decision
Machines and :func:`own_leaf_values` the leaves of :class:`~forestviz.trees.leaf_stats.LeafStats`
that no training row reaches.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier
from sklearn.tree import BaseDecisionTree

from forestviz.trees.flat import FlatTrees
from forestviz.trees.loaded import DamagedState, checked_count, checked_trees, state_of
from forestviz.trees.lookup import forest_leaf_ids


class LeafTable:
    """All leaves of a forest in one table, so per-tree probabilities are one gather.

    ``values[offsets[k] + node]`` is the class distribution (over all ``n_classes``) that tree k
    stores in ``node``; a class a tree never saw gets probability 0. The numbering is
    :class:`~forestviz.trees.flat.FlatTrees`', whose look-ups ``apply`` uses. Saved are the
    trees and the number of classes alone: the rest is rebuilt from them when read.
    """

    def __init__(self, trees, n_classes):
        self.trees = trees
        self.flat = FlatTrees.from_trees(trees)
        self.offsets = self.flat.offsets
        self.values = node_class_values(trees, np.arange(n_classes))  # trees hold class codes

    def __getstate__(self) -> dict:
        return {"trees": self.trees, "n_classes": self.values.shape[1]}

    def __setstate__(self, state) -> None:
        """Check the saved trees (they hold class codes 0..C−1), then rebuild the table."""
        state = state_of(state, ("trees", "n_classes"), "leaf table")
        trees = checked_trees(state["trees"])
        n_classes = checked_count(state["n_classes"], "number of classes", low=1)
        if not all(np.array_equal(t.classes_, np.unique(t.classes_))
                   and t.classes_.size == t.tree_.value.shape[2]
                   and np.isin(t.classes_, np.arange(n_classes)).all() for t in trees):
            raise DamagedState("its trees' classes do not fit the model's")
        self.__init__(trees, n_classes)

    def apply(self, X32, n_jobs=None):
        """Global leaf ids (n × T) of float32 rows ``X32`` (:func:`forest_leaf_ids`)."""
        return forest_leaf_ids(self.trees, self.flat, X32, n_jobs)


def spread_columns(values, columns, n_columns) -> np.ndarray:
    """``values`` (n, c) written to the ``columns`` (c,) of an (n, ``n_columns``) table of zeros:
    class frequencies over a subset of the classes, aligned to all of them."""
    table = np.zeros((values.shape[0], n_columns))
    table[:, columns] = values
    return table


def node_values(trees) -> np.ndarray:
    """The value stored in every node of regression ``trees``, in the flat numbering (N,)."""
    return np.concatenate([tree.tree_.value[:, 0, 0] for tree in trees])


def node_class_values(trees, classes) -> np.ndarray:
    """The class frequencies stored in every node of classification ``trees``, in the flat
    numbering (N × C), columns in the order of ``classes``: the classes as the trees label them
    (a forest's trees hold the codes 0..C−1, standalone trees their labels). A tree that saw
    every class fills the columns in order; one that saw fewer fills the columns of its
    ``classes_`` and leaves 0 for the classes it never saw."""
    classes = np.asarray(classes)
    blocks = []
    for tree in trees:
        value = tree.tree_.value[:, 0, :]
        fractions = value / np.maximum(value.sum(axis=1, keepdims=True), 1e-300)
        if fractions.shape[1] != classes.size:
            fractions = spread_columns(fractions, np.searchsorted(classes, tree.classes_),
                                       classes.size)
        blocks.append(fractions)
    return np.concatenate(blocks)


def own_leaf_values(trees, task, classes) -> np.ndarray:
    """The trees' own stored leaf values in the flat numbering (fallback for empty leaves):
    (N, 1) values or (N, C) class frequencies over ``classes``."""
    if task == "regression":
        return node_values(trees)[:, None]
    return node_class_values(trees, classes)


def estimator_leaf_values(estimator, trees):
    """Per-node leaf predictions in the flat numbering: values, or class probabilities with
    columns aligned to the estimator's classes (a forest's trees hold class codes)."""
    if not is_classifier(trees[0]):
        return None, node_values(trees)
    if isinstance(estimator, BaseDecisionTree) or not hasattr(estimator, "classes_"):
        classes = np.unique(np.concatenate([tree.classes_ for tree in trees]))
        return classes, node_class_values(trees, classes)
    classes = np.asarray(estimator.classes_)
    return classes, node_class_values(trees, np.arange(classes.size))


def tree_covers(trees) -> np.ndarray:
    """The (weighted) number of training rows each tree saw through every node, in the flat
    numbering (N,): scikit-learn's ``weighted_n_node_samples``, what the trees' own values
    average over (for a bootstrap forest, the tree's own bootstrap sample)."""
    return np.concatenate([tree.tree_.weighted_n_node_samples for tree in trees])


def fill_split_nodes(trees, values, counts) -> tuple[np.ndarray, np.ndarray]:
    """Leaf values and counts (flat numbering; what split nodes hold is ignored) with every
    split node set to the count-weighted mean of the leaves below it and their total count.

    For a tree's own values with its own ``weighted_n_node_samples`` this gives back what
    scikit-learn stored in the split nodes; for any other leaf values (leaf means over all
    training rows, AGBoost's scaled values) it gives the matching expectations, so the values
    along a path telescope from the root's (the tree's expected output) to the leaf's. A split
    node whose leaves hold no rows takes the plain mean of its children. Vectorised by depth:
    one step per level.
    """
    values = np.array(values, dtype=np.float64)
    counts = np.array(counts, dtype=np.float64)
    left = np.concatenate([tree.tree_.children_left for tree in trees])
    right = np.concatenate([tree.tree_.children_right for tree in trees])
    sizes = [tree.tree_.node_count for tree in trees]
    shift = np.repeat(np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
    split = left >= 0
    left = np.where(split, left + shift, -1)
    right = np.where(split, right + shift, -1)
    depth = np.concatenate([tree.tree_.compute_node_depths() for tree in trees])
    counts[split] = 0.0
    shape = (-1,) + (1,) * (values.ndim - 1)
    for level in range(int(depth.max(initial=0)) - 1, -1, -1):
        nodes = np.flatnonzero(split & (depth == level + 1))  # sklearn's depths start at 1
        a, b = left[nodes], right[nodes]
        total = counts[a] + counts[b]
        share = np.where(total > 0, counts[a] / np.where(total > 0, total, 1.0), 0.5)
        values[nodes] = share.reshape(shape) * values[a] + (1.0 - share).reshape(shape) * values[b]
        counts[nodes] = total
    return values, counts
