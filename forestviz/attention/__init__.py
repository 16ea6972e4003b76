"""ABRF: attention-based random forests (Utkin & Konstantinov, "Attention-based Random Forest
and Contamination Model"; algorithms.md §1).

``weights`` states the attention weights α_k(x) = (1 − ε)·D_k(x) + ε·w_k, ``context`` builds
the forests and held-out rows a search scores, ``search`` selects (ε, τ) on them, ``simplex``
solves QPs and LPs on the unit simplex and ``contamination`` fits w with them over a grid (for
AGBoost too), ``gradients`` and ``training`` train ABRF-2/3, ``estimators`` puts them together
as scikit-learn estimators and ``saved`` checks a model read from a file.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "AttentionForestRegressor": "forestviz.attention.estimators",
    "AttentionForestClassifier": "forestviz.attention.estimators",
    "EPS_GRID": "forestviz.attention.search",
    "KAPPA_GRID": "forestviz.attention.search",
})
