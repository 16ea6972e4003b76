"""ERF: the Enhanced Random Forest (Bertsimas & Stoumpou, "Binary Classification: Is Boosting
stronger than Bagging?"; algorithms.md §3).

``sampling`` grows the trees (SP, SW, FT) and ``reweighting`` updates the row weights between
rounds (Algorithm 1); ``neighbors`` (the search of :mod:`forestviz.trees.neighbors`) finds the
exact nearest training rows that ``model_weighting`` turns into per-row tree weights and scores
(Eqs. 4-8), fitted by ``ranking``; ``rounds`` runs Algorithm 1 and ``choice`` chooses how many
rounds to keep; ``cleaning`` is Algorithm 2; ``estimator`` puts them together as a scikit-learn
classifier and ``saved`` checks a model read from a file.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "EnhancedForestClassifier": "forestviz.enhanced.estimator",
    "Neighbors": "forestviz.enhanced.neighbors",
    "TreeScores": "forestviz.enhanced.model_weighting",
    "clean": "forestviz.enhanced.cleaning",
})
