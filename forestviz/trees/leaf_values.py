"""The trees' own leaf predictions in the flat numbering (:mod:`forestviz.trees.flat`): the
values or class frequencies scikit-learn stored in each node when it grew the tree, with a
forest's class columns aligned.

:class:`LeafTable` serves the Enhanced Random Forest (per-tree class probabilities by one
gather), :func:`estimator_leaf_values` the Decision Machines and :func:`own_leaf_values` the
leaves of :class:`~forestviz.trees.leaf_stats.LeafStats` that no training row reaches.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier
from sklearn.tree import BaseDecisionTree

from forestviz.trees.flat import FlatTrees
from forestviz.trees.lookup import forest_leaf_ids


class LeafTable:
    """All leaves of a forest in one table, so per-tree probabilities are one gather.

    ``values[offsets[k] + node]`` is the class distribution (over all ``n_classes``) that tree k
    stores in ``node``; a class a tree never saw gets probability 0. The numbering is
    :class:`~forestviz.trees.flat.FlatTrees`', whose look-ups ``apply`` uses.
    """

    def __init__(self, trees, n_classes):
        self.trees = trees
        self.flat = FlatTrees.from_trees(trees)
        self.offsets = self.flat.offsets
        self.values = np.zeros((self.flat.feature.size, n_classes))
        for tree, start in zip(trees, self.offsets, strict=True):
            value = tree.tree_.value[:, 0, :]
            value = value / value.sum(axis=1, keepdims=True)
            self.values[start : start + len(value)][:, tree.classes_.astype(np.intp)] = value

    def apply(self, X32, n_jobs=None):
        """Global leaf ids (n × T) of float32 rows ``X32`` (:func:`forest_leaf_ids`)."""
        return forest_leaf_ids(self.trees, self.flat, X32, n_jobs)


def own_leaf_values(trees, task, classes) -> np.ndarray:
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


def estimator_leaf_values(estimator, trees):
    """Per-node leaf predictions in the flat numbering: values, or class probabilities with
    columns aligned to the estimator's classes (a forest's trees hold class codes)."""
    if not is_classifier(trees[0]):
        return None, np.concatenate([tree.tree_.value[:, 0, 0] for tree in trees])
    if isinstance(estimator, BaseDecisionTree) or not hasattr(estimator, "classes_"):
        classes = np.unique(np.concatenate([tree.classes_ for tree in trees]))
        columns = [np.searchsorted(classes, tree.classes_) for tree in trees]
    else:
        classes = np.asarray(estimator.classes_)
        columns = [np.asarray(tree.classes_, dtype=np.intp) for tree in trees]
    blocks = []
    for tree, cols in zip(trees, columns, strict=True):
        value = tree.tree_.value[:, 0, :]
        block = np.zeros((value.shape[0], classes.size))
        block[:, cols] = value / np.maximum(value.sum(axis=1, keepdims=True), 1e-300)
        blocks.append(block)
    return classes, np.concatenate(blocks)

