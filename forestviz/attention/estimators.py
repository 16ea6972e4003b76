"""The attention-based random forests ABRF-1/2/3 and the Softmax model as scikit-learn
estimators (Utkin & Konstantinov, "Attention-based Random Forest and Contamination Model";
algorithms.md §1).

``fit`` grows the base forest and its held-out rows (:mod:`forestviz.attention.context`),
chooses between the plain forest and every (ε, τ) on those rows by the one-standard-error rule
(:mod:`forestviz.attention.search`), refits the contamination weights w on all training rows
and, for ABRF-2/3, trains the tree temperatures v and feature weights z
(:mod:`forestviz.attention.training`); ``predict`` combines the trees' leaf values with the
attention weights α_k(x) of :mod:`forestviz.attention.weights`. A model read from a file is
checked by :mod:`forestviz.attention.saved`.
``search_results_`` lists every candidate with its held-out loss and standard error;
``selected_base_`` says whether the plain forest won (it is a candidate unless the user fixed
ε, or τ for the modes without ε). When it did, the model is the forest with equal tree weights
(ε = 1, w_k = 1/T), each tree predicting its own leaf value (``predict`` is then the forest's)
or, if that won, the mean of the training rows in its leaf; ``search_results_`` says which.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from forestviz.attention.context import fit_context, held_out_folds, leaf_value_tables
from forestviz.attention.saved import check_loaded
from forestviz.attention.search import EPS_GRID, KAPPA_GRID, search, weights_at
from forestviz.attention.training import train_gradient
from forestviz.attention.weights import (
    PREDICT_BLOCK,
    combine,
    distances,
    softmax_weights,
)
from forestviz.trees.checks import (
    ATTENTION_CHECKS,
    Progress,
    check_rows,
    check_sample_weight,
    ignore_progress,
    one_of,
    parameter_check,
)
from forestviz.trees.contaminated import ContaminatedEnsemble
from forestviz.trees.contamination import contaminate
from forestviz.trees.decision import HeldOutDecision
from forestviz.trees.description import Description, binary_threshold
from forestviz.trees.diagnostics import Diagnostics, Search
from forestviz.trees.leaf_values import tree_covers

_MODES = ("abrf1", "abrf2", "abrf3", "softmax")
_DERIVED = ("_values", "_leaf_norms")  # prediction_tables(), rebuilt on load, never saved
_BASES = {"random": (RandomForestRegressor, RandomForestClassifier),
          "extra": (ExtraTreesRegressor, ExtraTreesClassifier)}


class _AttentionForest(ContaminatedEnsemble, BaseEstimator):
    """Shared fit/predict machinery of the attention forests (see the module docstring and
    :class:`AttentionForestRegressor` for the surface its helper modules use)."""

    _task = "regression"
    _check_params = parameter_check({
        **ATTENTION_CHECKS,
        "base": ((lambda base: base in _BASES), f"one of {sorted(_BASES)}"),
        "mode": one_of(*_MODES),
        "loss": one_of("l2", "l1"),
    })

    def __init__(self, n_estimators=100, *, base="random", mode="abrf1", loss="l2", eps="auto",
                 tau="auto", min_samples_leaf=10, max_depth=None, max_features=1.0,
                 distance="standardized", validation_fraction=0.2, cv=None, random_state=None,
                 n_jobs=None):
        self.n_estimators = n_estimators
        self.base = base
        self.mode = mode
        self.loss = loss
        self.eps = eps
        self.tau = tau
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_features = max_features
        self.distance = distance
        self.validation_fraction = validation_fraction
        self.cv = cv
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ----------------------------------------------------------------- validation
    def _targets(self, y):
        """(n, C) targets: y itself (C = 1) for regression."""
        return y.astype(np.float64)[:, None]

    def _check_X(self, X):
        return check_rows(self, X, "w_")

    # ----------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None, progress: Progress | None = None):
        """Fit the base forest, choose the forest or (ε, τ) on held-out rows, refit w on all
        rows.

        ``progress(stage, fraction)`` is called as the stages ("forest", "search",
        "gradient", "done") advance.
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64,
                             y_numeric=self._task == "regression")
        if self._task == "classification":
            check_classification_targets(y)
            self.classes_ = np.unique(y)
        if X.shape[0] < 2:
            raise ValueError(f"an attention forest needs n_samples >= 2, "
                             f"got n_samples={X.shape[0]}")
        Y = self._targets(y)
        weight = check_sample_weight(sample_weight, X)
        report = progress or ignore_progress
        rng = check_random_state(self.random_state)
        n = X.shape[0]

        eps_grid = self._eps_grid()
        select = self.tau == "auto" or eps_grid.size > 1 or self.mode in ("abrf2", "abrf3")
        report("forest", 0.0)
        main = fit_context(self, X, y, Y, weight, np.arange(n), None, rng,
                           oob=self.cv is None and self.base == "random")
        folds = held_out_folds(self, X, y, rng) if select else None
        contexts = [main] if folds is None else [
            fit_context(self, X, y, Y, weight, fit_rows, val_rows, rng, oob=False)
            for fit_rows, val_rows in folds]
        report("forest", 1.0)

        kappas = KAPPA_GRID if self.tau == "auto" else (self.tau / main.median_distance,)
        eps, kappa, base_kind, self.search_results_ = search(
            contexts, main, eps_grid, kappas, self.loss, report,
            forest=(self.tau if self.mode in ("softmax", "abrf2") else self.eps) == "auto",
            seed=rng.randint(2**31 - 1))
        T, m = len(main.forest.estimators_), X.shape[1]
        self.z_ = np.ones(m)
        self.selected_base_ = base_kind is not None
        if self.selected_base_:  # the plain forest: equal weights
            self.eps_, self.tau_, self.w_ = 1.0, main.median_distance, np.full(T, 1.0 / T)
            self.v_ = np.full(T, 1.0 / self.tau_)
        else:
            self.eps_ = eps
            self.tau_ = kappa * main.median_distance if self.tau == "auto" else float(self.tau)
            self.w_ = weights_at(main, self.tau_, np.array([eps]))[0][0]
            self.v_ = np.full(T, 1.0 / self.tau_)
            if self.mode in ("abrf2", "abrf3"):
                self._train(X, contexts, main, kappa, rng, report)

        self.forest_ = main.forest
        self.estimators_ = main.forest.estimators_
        self.leaf_stats_ = main.stats
        self._own_leaf_values = base_kind == "base"
        self._values, self._leaf_norms = self.prediction_tables()
        report("done", 1.0)
        return self

    @property
    def task(self) -> str:
        """``"regression"`` or ``"classification"``: what the leaf statistics hold."""
        return self._task

    @property
    def own_leaf_values_(self) -> bool:
        """Whether prediction combines the trees' own leaf values (the search kept candidate
        ``"base"``) rather than the means of all training rows in each leaf."""
        return self._own_leaf_values

    def prediction_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The per-node tables prediction reads, computed from the fitted state: the leaf
        values it combines (N, C) and Σ_j z_j²·A_j² per node (N,)."""
        classes = self.classes_ if self._task == "classification" else None
        values, own = leaf_value_tables(self.forest_, self.leaf_stats_, classes)
        return (own if self._own_leaf_values else values,
                (self.leaf_stats_.leaf_means**2) @ (self.z_**2))

    def __getstate__(self):
        """The fitted state without the tables :meth:`prediction_tables` rebuilds."""
        return {name: value for name, value in super().__getstate__().items()
                if name not in _DERIVED}

    def __setstate__(self, state):
        """A fitted state is checked against its trees and the tables of
        :meth:`prediction_tables` are rebuilt and checked
        (:func:`~forestviz.attention.saved.check_loaded`); DamagedState when something does not
        fit."""
        super().__setstate__(state)
        if "w_" in state:
            self._values, self._leaf_norms = check_loaded(self, self._forest_class())

    def _forest_class(self):
        """The forest class ``base`` names for the task (None for an unknown ``base``)."""
        classes = _BASES.get(self.base) if isinstance(self.base, str) else None
        return None if classes is None else classes[self._task == "classification"]

    def _eps_grid(self):
        if self.mode in ("softmax", "abrf2"):
            return np.zeros(1)
        return EPS_GRID if self.eps == "auto" else np.array([float(self.eps)])

    def make_forest(self, seed):
        """An unfitted forest of the class ``base`` names for the task, with the estimator's
        tree parameters and ``random_state=seed``."""
        forest_class = self._forest_class()
        return forest_class(n_estimators=self.n_estimators, min_samples_leaf=self.min_samples_leaf,
                            max_depth=self.max_depth, max_features=self.max_features,
                            random_state=seed, n_jobs=self.n_jobs)

    def _train(self, X, contexts, main, kappa, rng, report) -> None:
        """ABRF-2/3: v, z (and ABRF-3's w) trained from the search's contexts
        (:func:`~forestviz.attention.training.train_gradient`)."""
        trained = train_gradient(self.mode, self.eps_, self.tau_, X, contexts, main, kappa, rng,
                                 report)
        self.n_iter_ = trained.n_iter
        self.v_ = trained.v
        self.z_ = trained.z
        if trained.w is not None:
            self.w_ = trained.w

    # ------------------------------------------------------------------- predict
    def _softmax_part(self, X, leaves=None):
        """Leaf ids (n, T) and the Softmax part D (n, T) for checked rows X."""
        if leaves is None:
            leaves = self.leaf_stats_.global_leaf_ids(X)
        d = distances(self.leaf_stats_, leaves, X, self._leaf_norms, self.z_**2)
        return leaves, softmax_weights(-0.5 * self.v_ * d)

    def tree_predictions(self, X) -> np.ndarray:
        """Per-tree leaf values B_k(x) (n, T), or class frequencies p_k(x) (n, T, C)."""
        return self._leaf_predictions(self.leaf_stats_.global_leaf_ids(self._check_X(X)))

    def _leaf_predictions(self, leaves) -> np.ndarray:
        values = np.take(self._values, leaves, axis=0)
        return values[:, :, 0] if self._task == "regression" else values

    def _attention(self, X) -> tuple[np.ndarray, np.ndarray]:
        """D(x) and the per-tree predictions (as :meth:`tree_predictions`) from one leaf
        look-up (:class:`~forestviz.trees.contaminated.ContaminatedEnsemble`)."""
        leaves, D = self._softmax_part(self._check_X(X))
        return D, self._leaf_predictions(leaves)

    def leaf_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The leaf values the attention combines: the means of all training rows in each
        leaf (leaf statistics, algorithms.md §0) with their counts, or, when the search kept
        the forest itself (candidate ``"base"``), the trees' own values and bootstrap counts."""
        check_is_fitted(self)
        values = self._values[:, 0] if self._task == "regression" else self._values
        if self._own_leaf_values:
            return values, tree_covers(self.estimators_)
        return values, self.leaf_stats_.counts

    def diagnostics(self) -> Diagnostics:
        """The search: every candidate with its held-out loss (``search_results_``) and
        whether the plain forest won."""
        check_is_fitted(self)
        return Diagnostics(search=Search(self.search_results_, bool(self.selected_base_)))

    def describe(self) -> Description:
        """An attention forest of its ``loss``, with ε and τ to set; a classifier decides by
        its held-out threshold."""
        threshold = self.decision_threshold() if isinstance(self, HeldOutDecision) else None
        return Description("Attention-based random forest", loss=self.loss, attention=True,
                           threshold=binary_threshold(threshold))

    def _predict_values(self, X) -> np.ndarray:
        """Σ_k α_k(x)·V_k(x) (n, C): one leaf lookup (the trees' compiled ``apply`` in
        threads), then blocks of :data:`PREDICT_BLOCK` rows."""
        X = self._check_X(X)
        leaves = self.leaf_stats_.global_leaf_ids(X)
        out = np.empty((X.shape[0], self._values.shape[1]))
        for start in range(0, X.shape[0], PREDICT_BLOCK):
            block = slice(start, start + PREDICT_BLOCK)
            D = self._softmax_part(X[block], leaves[block])[1]
            out[block] = combine(contaminate(D, self.w_, self.eps_), self._values[leaves[block]])
        return out


class AttentionForestRegressor(RegressorMixin, _AttentionForest):
    """Attention-based random forest regressor (ABRF-1/2/3 or Softmax; Utkin & Konstantinov).

    See :mod:`forestviz.attention.weights` for the model and :mod:`forestviz.attention.search`
    for how (ε, τ) are chosen.
    ``eps``/``tau``: "auto" (grid search) or a fixed value (τ absolute, in squared distance
    units). Fitted: ``forest_``, ``estimators_``, ``leaf_stats_``, ``w_``, ``eps_``, ``tau_``,
    ``v_`` (tree temperatures, 1/τ unless trained), ``z_`` (feature weights, 1 unless trained),
    ``search_results_`` (every candidate: ``candidate``, ``eps``, ``kappa``, ``tau``,
    ``validation_loss``, ``standard_error``, ``difference_to_best``, ``difference_se``,
    ``n_rows``, ``selected``), ``selected_base_`` (the plain forest won the search),
    ``own_leaf_values_`` (prediction combines the trees' own leaf values).

    For its helper modules (:mod:`~forestviz.attention.context` grows the forests,
    :mod:`~forestviz.attention.saved` checks a loaded model), besides the parameters and the
    fitted attributes above: ``task`` ("regression" or "classification"),
    :meth:`make_forest` (an unfitted base forest for a seed) and :meth:`prediction_tables`
    (the per-node tables prediction reads, rebuilt from the fitted state). They read nothing
    else of the estimator and write only the numbers they check back as floats.
    """

    def predict(self, X) -> np.ndarray:
        """ŷ(x) = Σ_k α_k(x)·B_k(x) (Eq. 8, with α of Eq. 14, 23 or 24)."""
        return self._predict_values(X)[:, 0]


class AttentionForestClassifier(HeldOutDecision, ClassifierMixin, _AttentionForest):
    """Attention-based random forest classifier: p(x) = Σ_k α_k(x)·p_k(x) (Eq. 27; w fitted by
    the QP of Eq. 30).

    Same parameters, fitted attributes and surface for the helper modules as
    :class:`AttentionForestRegressor`, plus
    ``classes_`` and ``threshold_``, the product's decision rule for two classes chosen on
    held-out rows (:mod:`forestviz.trees.decision`); ``max_features`` defaults to "sqrt" as in
    scikit-learn's forests.
    """

    _task = "classification"

    def __init__(self, n_estimators=100, *, base="random", mode="abrf1", loss="l2", eps="auto",
                 tau="auto", min_samples_leaf=10, max_depth=None, max_features="sqrt",
                 distance="standardized", validation_fraction=0.2, cv=None, random_state=None,
                 n_jobs=None):
        super().__init__(n_estimators, base=base, mode=mode, loss=loss, eps=eps, tau=tau,
                         min_samples_leaf=min_samples_leaf, max_depth=max_depth,
                         max_features=max_features, distance=distance,
                         validation_fraction=validation_fraction, cv=cv,
                         random_state=random_state, n_jobs=n_jobs)

    def _targets(self, y):
        """One-hot targets h_s(c) (n, C) over ``classes_``."""
        return (y[:, None] == self.classes_[None, :]).astype(np.float64)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities Σ_k α_k(x)·p_k(x) (n, C); rows sum to 1."""
        return self._predict_values(X)
