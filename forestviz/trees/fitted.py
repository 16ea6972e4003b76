"""The fitted scikit-learn trees of a model: a forest's ``estimators_`` (raveled, as gradient
boosting keeps a 2-D array), a list of trees, or a single tree."""

from __future__ import annotations

import numpy as np
from sklearn.tree import BaseDecisionTree


def fitted_trees(forest) -> list[BaseDecisionTree]:
    """The fitted scikit-learn trees of a forest, or of a plain list of trees."""
    trees = list(getattr(forest, "estimators_", forest))
    trees = [t for t in np.ravel(np.asarray(trees, dtype=object))]
    if not trees or not all(isinstance(t, BaseDecisionTree) for t in trees):
        raise TypeError("expected a fitted scikit-learn forest or a list of fitted trees")
    return trees


def estimator_trees(estimator) -> list[BaseDecisionTree]:
    """The fitted scikit-learn trees of a single tree, a forest, a list of trees or any
    estimator exposing ``estimators_`` (a 2-D array, as in gradient boosting, is raveled)."""
    if isinstance(estimator, BaseDecisionTree):
        return [estimator]
    return fitted_trees(estimator)


def impurity_importance(trees, n_features: int) -> np.ndarray:
    """Mean decrease in impurity per feature, averaged over the trees that split at all and
    normalised to sum to 1 (scikit-learn's rule for its forests; zeros when no tree splits)."""
    per_tree = [t.feature_importances_ for t in trees if t.tree_.node_count > 1]
    if not per_tree:
        return np.zeros(n_features)
    mean = np.mean(per_tree, axis=0)
    return mean / mean.sum()
