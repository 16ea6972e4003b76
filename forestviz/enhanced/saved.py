"""The checks of a fitted Enhanced Random Forest read from a model file (forestviz-model/7
saves no derived structure: the learned arrays are checked against the T trees, C classes,
m features and n training rows they belong to, and a file that does not fit is refused with
:class:`~forestviz.trees.loaded.DamagedState`; the leaf table and the neighbour index check and
rebuild themselves).

The quantities are those of the model (Bertsimas & Stoumpou, "Binary Classification: Is
Boosting stronger than Bagging?"; algorithms.md §3): the top-L tree rankings of every training
row and the M nearest neighbours of model weighting (eqs 4-5), the sample importances s_i of
Algorithm 1, Youden's thresholds, the feature subsets (FT) and the validation rows.
"""

from __future__ import annotations

import numpy as np

from forestviz.enhanced.neighbors import TrainingNeighbors
from forestviz.trees.leaf_values import LeafTable
from forestviz.trees.loaded import (
    MAGNITUDE,
    DamagedState,
    checked_array,
    checked_count,
    checked_flag,
    checked_number,
    same_trees,
)


def check_state(model) -> None:
    """Every learned array of a loaded ``model`` against its trees, classes, features and
    training rows; the binary threshold is stored back as a float."""
    trees, classes = model.estimators_, model.classes_
    table, near, (mean, scale) = model.leaf_table_, model.neighbor_index_, model.scaling_
    if not (isinstance(classes, np.ndarray) and classes.ndim == 1 and classes.size >= 2
            and np.array_equal(np.unique(classes), classes)):
        raise DamagedState("its classes are not sorted distinct labels")
    if not (isinstance(table, LeafTable) and same_trees(table.trees, trees)
            and table.values.shape[1] == classes.size):
        raise DamagedState("its leaf table is not built on its trees and classes")
    T, m = len(trees), trees[0].tree_.n_features  # trees the leaf table checked
    checked_count(model.n_estimators, "number of trees", low=T, high=T)
    checked_count(model.n_features_in_, "number of features", low=m, high=m)
    if not isinstance(near, TrainingNeighbors) or near.Z_train.shape[1] != m:
        raise DamagedState("its neighbour index does not fit its features")
    n = len(near.Z_train)
    checked_count(model.n_neighbors_, "number of neighbours M", low=1, high=max(n - 1, 1))
    checked_count(near.n_neighbors, "neighbour index's M", low=model.n_neighbors_,
                  high=model.n_neighbors_)
    checked_count(model.top_trees_, "number of top trees L", low=1, high=T)
    checked_array(model.tree_rankings_, "tree rankings", (n, model.top_trees_), "i", low=0,
                  high=T - 1)
    if not np.array_equal(checked_array(model.train_indices_, "training row positions",
                                        (n,), "i"), np.arange(n)):
        raise DamagedState("its training row positions are not 0, 1, …, n − 1")
    checked_array(model.sample_importance_, "sample importances", (n,), low=0.0)
    checked_array(mean, "feature means", (m,), low=-MAGNITUDE, high=MAGNITUDE)
    checked_array(scale, "feature scales", (m,), low=1 / MAGNITUDE, high=MAGNITUDE)
    checked_flag(model.model_weighting_, "choice of model weighting")
    checked_flag(model.selected_base_, "choice of the plain forest")
    if classes.size == 2:
        model.threshold_ = checked_number(model.threshold_, "threshold", high=1.0)
    else:
        checked_array(model.threshold_, "thresholds", (classes.size,), high=1.0)
    if model.feature_subsets_ is not None:
        checked_array(model.feature_subsets_, "feature subsets", (T, None), "i", low=0,
                      high=m - 1)
    if model.validation_indices_ is not None:
        rows = checked_array(model.validation_indices_, "validation rows", (None,), "i",
                             low=0, high=n - 1)
        checked_array(model.validation_proba_, "validation probabilities",
                      (rows.size, classes.size), low=0.0, high=1.0 + 1e-9)
