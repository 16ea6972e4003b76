"""AGBoost: attention over the trees of a gradient boosting machine (Konstantinov, Utkin &
Kirpichenko, "AGBoost: Attention-based Modification of Gradient Boosting Machine";
algorithms.md §2).

``weights`` states the discounted attention weights and the ensembles they are fitted on;
``estimator`` selects (ε, τ, γ) and predicts, as a scikit-learn regressor. The contamination
weights reuse the ABRF simplex solvers (:mod:`forestviz.attention.simplex`).
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "AttentionBoostingRegressor": "forestviz.boosting.estimator",
    "DISCOUNT_GRID": "forestviz.boosting.weights",
})
