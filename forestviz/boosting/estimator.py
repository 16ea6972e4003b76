"""AGBoost as a scikit-learn regressor (Konstantinov, Utkin & Kirpichenko, "AGBoost:
Attention-based Modification of Gradient Boosting Machine"; algorithms.md §2): attention weights
(:mod:`forestviz.boosting.weights`) over the trees of a gradient boosting machine.
``weights="uniform"`` keeps w_k = 1/T (the paper's "Non-param" model).

Selecting (ε, τ, γ) on held-out rows is :mod:`forestviz.boosting.search`: the boosting machine
itself (equal tree weights) is a candidate unless ε is fixed; ``selected_base_`` says whether it
won, and then ε = 1 and w_k = 1/T, so ``predict`` is the machine's own prediction. The final
ensemble is fitted on all rows — in threads, at the same time as the validation ones, when
``n_jobs`` allows — and w is refitted there at the chosen point. A model read from a file is
checked by :mod:`forestviz.boosting.saved`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.tree import ExtraTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from forestviz.attention.search import EPS_GRID, KAPPA_GRID
from forestviz.boosting.saved import check_state
from forestviz.boosting.search import held_out_rows, held_out_splits, search
from forestviz.boosting.weights import (
    DISCOUNT_GRID,
    Ensemble,
    Rows,
    attention_numerators,
    attention_softmax,
)
from forestviz.parameters import DISCOUNT
from forestviz.trees.checks import (
    ATTENTION_CHECKS,
    check_rows,
    check_sample_weight,
    ignore_progress,
    in_domain,
    is_real,
    one_of,
    parameter_check,
)
from forestviz.trees.contaminated import ContaminatedEnsemble
from forestviz.trees.contamination import contaminate
from forestviz.trees.description import Description
from forestviz.trees.diagnostics import Diagnostics, Search
from forestviz.trees.leaf_stats import LeafStats
from forestviz.trees.leaf_values import node_values, tree_covers
from forestviz.trees.threads import row_blocks, run_in_threads, single_threaded_blas


class AttentionBoostingRegressor(ContaminatedEnsemble, RegressorMixin, BaseEstimator):
    """AGBoost regressor (Konstantinov, Utkin & Kirpichenko): attention weights over the trees of
    a gradient boosting machine. See :mod:`forestviz.boosting.weights` for the model and the
    :mod:`forestviz.boosting.search` for how (ε, τ, γ) are chosen.

    ``base``: "gbm" (scikit-learn's ``GradientBoostingRegressor``, subsample 1) or "extra"
    (the same boosting loop over ``ExtraTreeRegressor``). ``eps``, ``tau``, ``discount``:
    "auto" (grid search) or a fixed value (τ absolute, in squared distance units).
    ``weights``: "trained" (QP) or "uniform" (w_k = 1/T, the paper's "Non-param").
    ``distance``: "standardized" (x̃, algorithms.md §0) or "raw" features. ``cv``: "auto"
    (one ``validation_fraction`` split, or 3 × 5 repeated shuffled folds when that split would
    hold fewer than :data:`~forestviz.boosting.search.SMALL_HELD_OUT` rows), None (always one
    split) or a scikit-learn CV spec (int, splitter; a row held out by several splits scores
    its mean loss).
    Fitted: ``estimators_`` (the T trees), ``gbm_`` (base "gbm"), ``init_`` (F_0), ``w_``,
    ``eps_``, ``tau_``, ``discount_``, ``leaf_stats_``, ``search_results_`` (every candidate
    with its held-out loss, standard error and paired difference to the best; the machine's row
    has ``candidate == "base"``), ``selected_base_``.

    For its helper modules (:mod:`~forestviz.boosting.search` scores the held-out rows,
    :mod:`~forestviz.boosting.saved` checks a loaded model): the parameters and the fitted
    attributes above, nothing else.
    """

    _check_params = parameter_check({
        **ATTENTION_CHECKS,
        "learning_rate": ((lambda rate: is_real(rate) and rate > 0), "a float > 0"),
        "base": one_of("gbm", "extra"),
        "discount": in_domain(DISCOUNT, auto=True),
        "discount_on": one_of("score", "weight"),
        "weights": one_of("trained", "uniform"),
    })

    def __init__(self, n_estimators=100, *, learning_rate=0.1, min_samples_leaf=10,
                 max_depth=3, base="gbm", eps="auto", tau="auto", discount="auto",
                 discount_on="score", weights="trained", distance="standardized",
                 validation_fraction=0.2, cv="auto", random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.base = base
        self.eps = eps
        self.tau = tau
        self.discount = discount
        self.discount_on = discount_on
        self.weights = weights
        self.distance = distance
        self.validation_fraction = validation_fraction
        self.cv = cv
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ----------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None, progress: Callable[[str, float], None] | None = None):
        """Fit the boosting ensemble, select (ε, τ, γ) on held-out rows, fit w on all rows.

        ``progress(stage, fraction)`` is called from the calling thread as the stages
        ("forest": the boosting ensembles, "search", "done") advance.
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        if X.shape[0] < 2:
            raise ValueError(f"AGBoost needs n_samples >= 2, got n_samples={X.shape[0]}")
        weight = check_sample_weight(sample_weight, X)
        report = progress or ignore_progress
        rng = check_random_state(self.random_state)
        seed = rng.randint(2**31 - 1)
        grids = (self._grid(self.eps, EPS_GRID), self._grid(self.tau, KAPPA_GRID),
                 self._grid(self.discount, DISCOUNT_GRID))
        searched = any(grid.size > 1 for grid in grids)

        report("forest", 0.0)
        splits = held_out_splits(self, X, y, rng) if searched else []
        row_sets = [np.arange(X.shape[0])] + [fit_rows for fit_rows, _ in splits]
        ensembles = Parallel(n_jobs=min(len(row_sets), effective_n_jobs(self.n_jobs)),
                             prefer="threads")(
            delayed(self._ensemble)(X[rows], y[rows], weight[rows], seed) for rows in row_sets)
        main = ensembles[0]
        report("forest", 1.0)

        validations = [(ens, held_out_rows(ens, X, y, weight, rows), rows)  # rows: to pool
                       for ens, (_, rows) in zip(ensembles[1:], splits, strict=True)]
        eps, tau, self.discount_, self.selected_base_, self.search_results_ = search(
            self, main, validations, *grids, report, seed=rng.randint(2**31 - 1))
        self.eps_, self.tau_ = eps, tau
        self.w_ = np.full(len(main.trees), 1.0 / len(main.trees))
        if self.weights == "trained" and not self.selected_base_:
            self.w_ = main.weights(tau, self.discount_, self.discount_on, eps)
        self.init_ = main.init
        self.estimators_ = main.trees
        if main.gbm is not None:
            self.gbm_ = main.gbm
        self.leaf_stats_ = main.stats
        report("done", 1.0)
        return self

    def __setstate__(self, state):
        """A fitted state is checked against its trees
        (:func:`~forestviz.boosting.saved.check_state`); DamagedState when something does not
        fit."""
        super().__setstate__(state)
        if "w_" in state:
            check_state(self)

    @staticmethod
    def _grid(value, grid) -> np.ndarray:
        return np.asarray(grid, dtype=np.float64) if value == "auto" else np.array([value], float)

    def _boost(self, X, y, weight, seed):
        """F_0, the T fitted trees and the GBM (or None) of the boosting loop with squared
        loss: h_k fitted to y − F_{k−1}, F_k = F_{k−1} + ν·h_k."""
        if self.base == "gbm":
            gbm = GradientBoostingRegressor(
                n_estimators=self.n_estimators, learning_rate=self.learning_rate,
                max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                subsample=1.0, random_state=seed).fit(X, y, sample_weight=weight)
            return float(gbm.init_.predict(X[:1])[0]), list(gbm.estimators_[:, 0]), gbm
        init = float(np.average(y, weights=weight))
        F, trees = np.full(y.shape, init), []
        for tree_seed in np.random.RandomState(seed).randint(2**31 - 1, size=self.n_estimators):
            tree = ExtraTreeRegressor(max_depth=self.max_depth,
                                      min_samples_leaf=self.min_samples_leaf,
                                      random_state=tree_seed)
            tree.fit(X, y - F, sample_weight=weight)
            F += self.learning_rate * tree.predict(X)
            trees.append(tree)
        return init, trees, None

    def _ensemble(self, X, y, weight, seed) -> Ensemble:
        """Boosting on (X, y), leaf statistics whose values are V = T·ν·(tree's leaf value),
        the rows' distances and values (one leaf lookup) and the Gram reduction."""
        init, trees, gbm = self._boost(X, y, weight, seed)
        stats = LeafStats.from_forest(trees, X, y, task="regression",
                                      standardize=self.distance == "standardized",
                                      n_jobs=self.n_jobs)
        values = len(trees) * self.learning_rate * node_values(trees)
        stats = stats.with_values(values)
        d, V = stats.query(X)
        rows = Rows(d, V, y - init, weight)
        weighted = V * weight[:, None]
        return Ensemble(init, trees, gbm, stats, rows, weighted.T @ V, weighted.T @ rows.target)

    # ------------------------------------------------------------------- predict
    def _check_X(self, X):
        return check_rows(self, X, "w_")

    def _attention(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Softmax part D (n, T) and scaled tree values V (n, T) (as :meth:`tree_predictions`)
        with one leaf look-up (:class:`~forestviz.trees.contaminated.ContaminatedEnsemble`)."""
        X = self._check_X(X)
        d, V = self.leaf_stats_.query(X)
        return attention_softmax(d, self.tau_, self.discount_, self.discount_on, out=d), V

    def tree_predictions(self, X) -> np.ndarray:
        """Scaled tree values V_k(x) = T·ν·h_k(x) (n, T): their mean plus ``init_`` is the
        plain boosting prediction."""
        X = self._check_X(X)
        return self.leaf_stats_.values(X)

    def leaf_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The scaled tree values V_k = T·ν·h_k in every node (the boosting trees' own values
        scaled) and the trees' own sample counts."""
        check_is_fitted(self)
        return self.leaf_stats_.leaf_values, tree_covers(self.estimators_)

    def offset(self) -> float:
        """F_0, the boosting machine's initial prediction (added to every row's)."""
        check_is_fitted(self)
        return float(self.init_)

    def diagnostics(self) -> Diagnostics:
        """The search: every candidate with its held-out loss, whether the plain machine won
        and the chosen discount γ (the search table's curves are read at it)."""
        check_is_fitted(self)
        return Diagnostics(search=Search(self.search_results_, bool(self.selected_base_),
                                         discount=float(self.discount_)))

    def describe(self) -> Description:
        """Attention over a gradient boosting machine's trees: each tree's number is a
        correction added to F_0 (:meth:`offset`); squared error; ε and τ to set."""
        return Description("Attention-based gradient boosting (AGBoost)",
                           base="gradient boosting machine", boosting=True, attention=True)

    def predict(self, X) -> np.ndarray:
        """ŷ(x) = F_0 + (1 − ε)·Σ_k D_k(x)·V_k(x) + ε·Σ_k w_k·V_k(x) (eq 14 with eq 18), with
        D_k = E_k / Σ_j E_j (:func:`attention_numerators`), in place and in row blocks on
        ``n_jobs`` threads."""
        X = self._check_X(X)
        d, V = self.leaf_stats_.query(X)
        prediction = np.empty(X.shape[0])

        def some_rows(rows):
            E = attention_numerators(d[rows], self.tau_, self.discount_, self.discount_on,
                                     out=d[rows])
            softmax_sum = np.einsum("nk,nk->n", E, V[rows]) / E.sum(axis=1)
            prediction[rows] = self.init_ + contaminate(softmax_sum, V[rows] @ self.w_, self.eps_)

        with single_threaded_blas(X.shape[0]):
            run_in_threads(some_rows, row_blocks(X.shape[0], self.n_jobs), self.n_jobs)
        return prediction
