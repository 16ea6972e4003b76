"""The checks of a fitted attention forest read from a model file (forestviz-model/7 saves no
derived structure: the learned arrays are checked against the trees they belong to, and a file
that does not fit is refused with :class:`~forestviz.trees.loaded.DamagedState`).

The quantities and their ranges are those of the model (Utkin & Konstantinov, "Attention-based
Random Forest and Contamination Model", Eqs. 14, 23, 24; algorithms.md §1): w on the unit
simplex Δ_T, tree temperatures v > 0, feature weights z ≥ 0 with mean 1 (z = m·softmax(φ)),
ε in [0, 1] and τ > 0.
"""

from __future__ import annotations

import numpy as np

from forestviz.trees.leaf_stats import LeafStats
from forestviz.trees.loaded import (
    MAGNITUDE,
    DamagedState,
    checked_array,
    checked_count,
    checked_flag,
    checked_number,
    checked_weights,
    same_trees,
)

TEMPERATURE_FACTOR = 1e30
"""v_k·τ = exp(θ_k) lies within [1/this, this] in a saved model (it is 1 untrained)."""


def check_loaded(model, forest_class) -> tuple[np.ndarray, np.ndarray]:
    """A loaded ``model``'s learned parameters checked (:func:`check_state`), and the tables
    prediction reads (``model.prediction_tables()``: leaf values, weighted key norms) rebuilt
    from them, checked against the nodes and returned."""
    check_state(model, forest_class)
    try:
        values, norms = model.prediction_tables()
    except (ValueError, IndexError) as err:
        raise DamagedState("its leaf values do not fit its classes") from err
    n_nodes = model.leaf_stats_.counts.size
    return (checked_array(values, "leaf values", (n_nodes, None)),
            checked_array(norms, "weighted key norms", (n_nodes,)))


def check_state(model, forest_class) -> None:
    """Every learned parameter of a loaded ``model`` against the T trees and m features it
    belongs to: the forest (of ``forest_class``, the class its ``base`` names, or None) and the
    leaf statistics (which checked the trees) on the very same trees, w on the simplex, v > 0
    (v·τ within :data:`TEMPERATURE_FACTOR`), z ≥ 0 summing to m, ε in [0, 1], τ > 0; ε and τ
    are stored back as floats."""
    trees, stats = model.estimators_, model.leaf_stats_
    if not (type(model.forest_) is forest_class and isinstance(stats, LeafStats)
            and same_trees(model.forest_.estimators_, trees) and same_trees(stats.trees, trees)
            and stats.task == model.task):
        raise DamagedState("its forest and leaf statistics are not built on its trees")
    T, m = len(trees), trees[0].tree_.n_features  # trees the leaf statistics checked
    checked_count(model.n_features_in_, "number of features", low=m, high=m)
    checked_weights(model.w_, "tree weights w", T)
    checked_array(model.z_, "feature weights z", (m,), low=0.0)
    if abs(model.z_.sum() - m) > 1e-6 * m:
        raise DamagedState("its feature weights z do not sum to the number of features")
    model.eps_ = checked_number(model.eps_, "contamination ε", low=0.0, high=1.0)
    model.tau_ = checked_number(model.tau_, "temperature τ", low=1 / MAGNITUDE, high=MAGNITUDE)
    checked_array(model.v_, "tree temperatures v", (T,), above=0.0)
    checked_array(model.v_ * model.tau_, "tree temperatures v·τ", (T,),
                  low=1 / TEMPERATURE_FACTOR, high=TEMPERATURE_FACTOR)
    checked_flag(model.own_leaf_values_, "choice of leaf values")
    checked_flag(model.selected_base_, "choice of the plain forest")
    if model.task == "classification" and not (
            isinstance(model.classes_, np.ndarray) and model.classes_.ndim == 1
            and model.classes_.size and np.array_equal(np.unique(model.classes_),
                                                       model.classes_)):
        raise DamagedState("its classes are not sorted distinct labels")
