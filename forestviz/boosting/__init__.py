"""AGBoost: attention over the trees of a gradient boosting machine (Konstantinov, Utkin &
Kirpichenko, "AGBoost: Attention-based Modification of Gradient Boosting Machine";
algorithms.md §2).

``weights`` states the discounted attention weights and the ensembles they are fitted on;
``search`` selects (ε, τ, γ) on held-out rows; ``estimator`` fits and predicts, as a
scikit-learn regressor; ``saved`` checks a model read from a file. The contamination weights
are fitted as ABRF's (:mod:`forestviz.attention.contamination`).
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "AttentionBoostingRegressor": "forestviz.boosting.estimator",
    "DISCOUNT_GRID": "forestviz.boosting.weights",
})
