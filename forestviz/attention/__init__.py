"""ABRF: attention-based random forests (Utkin & Konstantinov, "Attention-based Random Forest
and Contamination Model"; algorithms.md §1).

``weights`` states the attention weights α_k(x) = (1 − ε)·D_k(x) + ε·w_k, ``search`` selects
(ε, τ) on held-out rows, ``simplex`` fits w (QP and LP on the unit simplex), ``gradients``
trains ABRF-2/3, ``estimators`` puts them together as scikit-learn estimators.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "AttentionForestRegressor": "forestviz.attention.estimators",
    "AttentionForestClassifier": "forestviz.attention.estimators",
    "EPS_GRID": "forestviz.attention.search",
    "KAPPA_GRID": "forestviz.attention.search",
})
