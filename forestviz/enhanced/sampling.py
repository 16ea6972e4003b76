"""How the Enhanced Random Forest grows its trees: Algorithm 1 line 4 of Bertsimas & Stoumpou,
"Binary Classification: Is Boosting stronger than Bagging?" (algorithms.md §3.1).

A forest built tree by tree, so that every tree can get its own bootstrap distribution s_i (SP),
sample weights w_i (SW) and feature subset (FT). The reweighting between rounds is
:mod:`forestviz.enhanced.reweighting`.
"""

from math import log2, sqrt
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.tree import DecisionTreeClassifier


def bootstrap_counts(probabilities, n_draws, rng):
    """How often each row is drawn in one bootstrap of ``n_draws`` draws with replacement.

    ``probabilities`` is s (algorithms.md §3.1, SP) or ``None`` for uniform draws; a row with
    s_i = 0 is never drawn.
    """
    n = n_draws if probabilities is None else len(probabilities)
    draws = rng.choice(n, size=n_draws, replace=True, p=probabilities)
    return np.bincount(draws, minlength=n)


def n_subset_features(max_features, n_features):
    """Number of features a tree (FT) or a split considers, with scikit-learn's conventions."""
    if max_features is None:
        return n_features
    if max_features == "sqrt":
        return max(1, int(sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(log2(n_features)))
    if isinstance(max_features, Integral) and not isinstance(max_features, bool):
        if not 1 <= max_features <= n_features:
            raise ValueError(f"max_features={max_features} must be in [1, {n_features}].")
        return int(max_features)
    if isinstance(max_features, Real) and 0.0 < max_features <= 1.0:
        return max(1, int(max_features * n_features))
    raise ValueError(f"max_features={max_features!r} is not 'sqrt', 'log2', None, int or float.")


def _fit_tree(X, y_float, weights, probabilities, subset, seed, tree_params):
    """One tree of Algorithm 1 line 4: bootstrap from s, weights w, features restricted to a subset.

    The tree is fitted on the drawn rows only (their multiplicity × w as ``sample_weight``), which
    is what scikit-learn's forest does with zero-weight rows, without sorting them. Under FT the
    columns outside the subset are held constant, so the tree never splits on them but still
    takes the full feature matrix (dtreeviz draws it with the original feature names).
    """
    rng = np.random.default_rng(seed)
    counts = bootstrap_counts(probabilities, len(y_float), rng).astype(np.float64)
    if weights is not None:
        counts *= weights
    rows = np.flatnonzero(counts > 0)
    X_tree = X[rows]
    if subset is not None:
        outside = np.ones(X.shape[1], dtype=bool)
        outside[subset] = False
        X_tree[:, outside] = 0.0
    tree = DecisionTreeClassifier(random_state=seed, **tree_params)
    tree.fit(X_tree, y_float[rows], sample_weight=counts[rows], check_input=False)
    inbag = np.zeros(len(y_float), dtype=bool)
    inbag[rows] = True
    return tree, inbag


def fit_forest(
    X32, y_enc, *, n_estimators, max_depth, max_features, weights, probabilities,
    feature_subsets, rng, n_jobs,
):
    """Fit ``n_estimators`` trees in parallel threads (trees release the GIL).

    ``X32`` is float32 and C-contiguous, ``y_enc`` the encoded labels, ``weights`` the SW weights
    or ``None``, ``probabilities`` the SP distribution or ``None``, ``feature_subsets`` a
    (T, k) array (FT) or ``None``. Returns the trees and their in-bag masks (T × n).
    """
    seeds = rng.randint(np.iinfo(np.int32).max, size=n_estimators)
    tree_params = {
        "max_depth": max_depth,
        "max_features": None if feature_subsets is not None else max_features,
    }
    y_float = y_enc.astype(np.float64)
    fitted = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_fit_tree)(
            X32, y_float, weights, probabilities,
            None if feature_subsets is None else feature_subsets[k], seeds[k], tree_params,
        )
        for k in range(n_estimators)
    )
    trees = [tree for tree, _ in fitted]
    inbag = np.stack([mask for _, mask in fitted])
    return trees, inbag


def draw_feature_subsets(n_trees, n_features, size, rng):
    """FT: one random feature subset of ``size`` columns per tree, sorted (T × size)."""
    return np.sort(
        np.stack([rng.choice(n_features, size=size, replace=False) for _ in range(n_trees)]),
        axis=1,
    )
