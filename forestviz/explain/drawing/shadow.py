"""dtreeviz's view of one fitted scikit-learn tree, through its public hooks only.

:class:`ForestShadowTree` subclasses dtreeviz's public ``ShadowSKDTree`` (public constructor)
and overrides its public methods instead of setting dtreeviz's attributes or copying the tree to
change its ``classes_``. Hand it to ``dtreeviz.DTreeVizAPI``. Names are drawn as given: make them
drawable first (:func:`.drawn_names.display_names`).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from dtreeviz.models.sklearn_decision_trees import ShadowSKDTree

from forestviz.explain.drawing.drawn_numbers import Printed, short
from forestviz.trees.leaf_values import estimator_leaf_values


def node_rows(tree, X_train) -> defaultdict:
    """{node id: indices of the training rows through the node}: one sparse transpose of
    scikit-learn's ``decision_path`` of the rows as float32 (as the tree compares). dtreeviz
    builds it with a Python loop over rows (8.6 s for 20,000 rows)."""
    paths = tree.decision_path(np.asarray(X_train, dtype=np.float32)).tocsc()
    return defaultdict(list, enumerate(np.split(paths.indices, paths.indptr[1:-1])))


def class_codes(classes, y) -> np.ndarray:
    """``y`` (labels among ``classes``, sorted) as codes 0..C−1; ValueError for another
    label."""
    classes = np.asarray(classes)
    codes = np.clip(np.searchsorted(classes, y), 0, classes.size - 1)
    if not np.array_equal(classes[codes], y):
        raise ValueError("y_train holds labels the model was not fitted on")
    return codes


class ForestShadowTree(ShadowSKDTree):
    """dtreeviz's shadow of ``tree`` (alone or of a forest) over training rows ``X_train``
    (finite) with labels or targets ``y_train``.

    * :meth:`get_node_samples` is :func:`node_rows` (pass ``rows_by_node`` to reuse it).
    * :meth:`classes` is ``0..C-1``. For a classifier, ``classes`` are the labels the model was
      fitted on: a forest's ``classes_`` (its trees are fitted on codes ``0..C-1``, which are
      their own ``classes_``) or a lone tree's. ``y_train`` holds such labels and is coded in
      that order; ``class_names`` (default: the labels as text) name the codes, as dtreeviz
      indexes colours and names by code. Leave ``classes`` None for a regression tree.
    * :meth:`get_prediction` is the model's own output at a leaf: ``outputs`` per node
      (:mod:`.tree_outputs`; default: what the tree stores), its class with
      the largest probability, or its value in the page's short form
      (:func:`~.drawn_numbers.short`, printed whole by dtreeviz:
      :class:`~.drawn_numbers.Printed`), not the tree's stored value.
    * :meth:`get_node_split` is the threshold as the page prints it (``thresholds``
      {node: value}, :mod:`.drawn_numbers`), while the row's way down
      (:meth:`shouldGoLeftAtSplit`, :meth:`predict_path` when ``path`` is given) and the split
      of the training rows (:meth:`get_split_samples`) follow the tree's exact thresholds, as
      ``apply`` does: the drawing is of one row, passed to ``view`` with its printed values.
    """

    def __init__(self, tree, X_train, y_train, *, classes=None, feature_names,
                 target_name="target", class_names=None, rows_by_node=None, outputs=None,
                 thresholds=None, path=None):
        X_train = np.asarray(X_train, dtype=np.float64)
        y_train = np.asarray(y_train)
        if classes is not None:
            y_train = class_codes(classes, y_train)
            class_names = [str(c) for c in (classes if class_names is None else class_names)]
            if len(class_names) != len(classes):
                raise ValueError(f"expected {len(classes)} class names, got {len(class_names)}")
        super().__init__(tree, X_train, y_train, list(feature_names), target_name, class_names)
        self.rows_by_node = node_rows(tree, X_train) if rows_by_node is None else rows_by_node
        self.outputs = (estimator_leaf_values(tree, [tree])[1] if outputs is None
                        else np.asarray(outputs))
        self.shown_thresholds = dict(thresholds or {})
        self.path = None if path is None else [int(node) for node in path]

    def get_node_samples(self):
        """{node id: indices of the training rows through the node}."""
        return self.rows_by_node

    def classes(self):
        """The class codes ``0..C-1`` of a classifier's ``y_train``, else None."""
        return np.arange(self.nclasses()) if self.is_classifier() else None

    def get_prediction(self, id):
        """The model's output at leaf ``id``: its most probable class code, or its value in
        short form."""
        if self.is_classifier():
            return int(np.argmax(self.outputs[id]))
        return Printed(short(self.outputs[id]))

    def get_node_split(self, id):
        """The threshold of node ``id`` as printed."""
        return self.shown_thresholds.get(int(id), float(self.tree_model.tree_.threshold[id]))

    def shouldGoLeftAtSplit(self, id, x):
        """The tree's own test: x as float32 ≤ the exact threshold."""
        return bool(np.float32(x) <= self.tree_model.tree_.threshold[id])

    def get_split_samples(self, id):
        """Positions, among the rows through node ``id``, of those its left and right children
        receive."""
        rows = np.asarray(self.get_node_samples()[id])
        left = np.isin(rows, self.get_node_samples()[self.get_children_left()[id]])
        return np.flatnonzero(left), np.flatnonzero(~left)

    def predict_path(self, x):
        """The shadow nodes of ``path`` (the row's, decided on its exact values); dtreeviz's
        walk with :meth:`shouldGoLeftAtSplit` when no path was given."""
        if self.path is None:
            return super().predict_path(x)
        nodes = {node.id: node for node in (*self.internal, *self.leaves)}
        return [nodes[node] for node in self.path]
