"""dtreeviz's view of one fitted scikit-learn tree, through its public hooks only.

:class:`ForestShadowTree` subclasses dtreeviz's public ``ShadowSKDTree`` (public constructor)
and overrides two of its public methods instead of setting dtreeviz's attributes or copying the
tree to change its ``classes_``. Build it once per (tree, training data) and hand it to
``dtreeviz.DTreeVizAPI``. Names are drawn as given: make them drawable first
(:func:`forestviz.explain.treeviz.display_names`).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from dtreeviz.models.sklearn_decision_trees import ShadowSKDTree


class ForestShadowTree(ShadowSKDTree):
    """dtreeviz's shadow of ``tree`` (alone or of a forest) over training rows ``X_train``
    (finite) with labels or targets ``y_train``.

    * :meth:`get_node_samples` (node → training rows, which dtreeviz builds with a Python loop
      over rows: 8.6 s for 20,000 rows) is one sparse transpose of scikit-learn's
      ``decision_path`` of the rows as float32 (as the tree compares), computed here once.
    * :meth:`classes` is ``0..C-1``. For a classifier, ``classes`` are the labels the model was
      fitted on: a forest's ``classes_`` (its trees are fitted on codes ``0..C-1``, which are
      their own ``classes_``) or a lone tree's. ``y_train`` holds such labels and is coded in
      that order; ``class_names`` (default: the labels as text) name the codes, as dtreeviz
      indexes colours and names by code. Leave ``classes`` None for a regression tree.
    """

    def __init__(self, tree, X_train, y_train, *, classes=None, feature_names,
                 target_name="target", class_names=None):
        X_train = np.asarray(X_train, dtype=np.float64)
        y_train = np.asarray(y_train)
        if classes is not None:
            classes = np.asarray(classes)
            codes = np.clip(np.searchsorted(classes, y_train), 0, classes.size - 1)
            if not np.array_equal(classes[codes], y_train):
                raise ValueError("y_train holds labels the model was not fitted on")
            y_train = codes
            class_names = [str(c) for c in (classes if class_names is None else class_names)]
            if len(class_names) != classes.size:
                raise ValueError(f"expected {classes.size} class names, got {len(class_names)}")
        super().__init__(tree, X_train, y_train, list(feature_names), target_name, class_names)
        paths = tree.decision_path(X_train.astype(np.float32)).tocsc()
        self.rows_by_node = defaultdict(list, enumerate(np.split(paths.indices,
                                                                 paths.indptr[1:-1])))

    def get_node_samples(self):
        """{node id: indices of the training rows through the node}."""
        return self.rows_by_node

    def classes(self):
        """The class codes ``0..C-1`` of a classifier's ``y_train``, else None."""
        return np.arange(self.nclasses()) if self.is_classifier() else None
