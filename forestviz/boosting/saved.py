"""The checks of a fitted AGBoost read from a model file (forestviz-model/7 saves no derived
structure: the learned arrays are checked against the trees they belong to, and a file that
does not fit is refused with :class:`~forestviz.trees.loaded.DamagedState`).

The quantities and their ranges are those of the model (Konstantinov, Utkin & Kirpichenko,
"AGBoost: Attention-based Modification of Gradient Boosting Machine"; algorithms.md §2): w on
the unit simplex Δ_T, ε in [0, 1], τ > 0, the discount γ in (0, 1] and a finite F_0.
"""

from __future__ import annotations

from forestviz.trees.leaf_stats import LeafStats
from forestviz.trees.loaded import (
    MAGNITUDE,
    DamagedState,
    checked_flag,
    checked_number,
    checked_weights,
    same_trees,
)


def check_state(model) -> None:
    """Every learned parameter of a loaded ``model`` against its trees: the leaf statistics
    (which check the trees and their own arrays) on the very same trees, w on the simplex,
    ε in [0, 1], τ > 0, γ in (0, 1], F_0 finite; the numbers are stored back as floats."""
    trees, stats = model.estimators_, model.leaf_stats_
    if not (isinstance(stats, LeafStats) and same_trees(stats.trees, trees)
            and stats.task == "regression"):  # then the trees are those stats checked
        raise DamagedState("its leaf statistics are not built on its trees")
    checked_weights(model.w_, "tree weights w", len(trees))
    model.eps_ = checked_number(model.eps_, "contamination ε", low=0.0, high=1.0)
    model.tau_ = checked_number(model.tau_, "temperature τ", low=1 / MAGNITUDE, high=MAGNITUDE)
    model.discount_ = checked_number(model.discount_, "discount γ", above=0.0, high=1.0)
    model.init_ = checked_number(model.init_, "initial prediction F_0", low=-MAGNITUDE,
                                 high=MAGNITUDE)
    checked_flag(model.selected_base_, "choice of the plain machine")
