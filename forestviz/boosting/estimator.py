"""AGBoost as a scikit-learn regressor (Konstantinov, Utkin & Kirpichenko, "AGBoost:
Attention-based Modification of Gradient Boosting Machine"; algorithms.md §2): attention weights
(:mod:`forestviz.boosting.weights`) over the trees of a gradient boosting machine.
``weights="uniform"`` keeps w_k = 1/T (the paper's "Non-param" model).

Selecting (ε, τ, γ): a boosting ensemble is fitted on a random ``1 − validation_fraction`` of
the rows (or one per cross-validation fold: with ``cv="auto"``, 3 × 5 repeated folds when one
split would hold out fewer than 200 rows, where a single small split's noise decides; a row's
losses are averaged over the repeats, :func:`~forestviz.selection.pool_repeats`), w is fitted on
those rows for every grid point (:data:`~forestviz.attention.search.EPS_GRID` ×
:data:`~forestviz.attention.search.KAPPA_GRID` × :data:`~forestviz.boosting.weights.DISCOUNT_GRID`,
τ = κ·median training distance; all QPs of an ensemble share one Gram matrix and are solved by
simplex NNLS) and each point is scored by its squared error on every held-out row (pooled over
folds). The boosting machine itself (equal tree weights) is a candidate too, unless ε is fixed,
and the one-standard-error rule of :mod:`forestviz.selection` chooses: attention only when it
beats every simpler candidate by more than the standard error of the paired difference and
the rule, cross-fitted over the held-out rows, still beats the machine on the rows it did not
choose on (:func:`~forestviz.selection.confirmed_one_standard_error`; the best of 462 noisy
candidates is otherwise optimistic). ``selected_base_`` says whether the machine won; then
ε = 1 and w_k = 1/T, so ``predict`` is the machine's own prediction. The final ensemble is
fitted on all rows — in threads, at the same time as the validation ones, when ``n_jobs``
allows — and w is refitted there at the chosen point. When ε, τ and γ are all fixed nothing is
searched and no validation ensemble is fitted.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import RepeatedKFold, ShuffleSplit, check_cv
from sklearn.tree import ExtraTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from forestviz.attention.search import EPS_GRID, KAPPA_GRID
from forestviz.attention.simplex import contamination_linear_terms, simplex_nnls
from forestviz.boosting.weights import (
    DISCOUNT_GRID,
    Ensemble,
    Rows,
    attention_numerators,
    attention_softmax,
)
from forestviz.parameters import DISCOUNT
from forestviz.selection import (
    confirmed_one_standard_error,
    one_standard_error,
    pool_repeats,
    weighted_mean_and_se,
)
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
from forestviz.trees.contamination import contaminate, weight_parts
from forestviz.trees.diagnostics import Diagnostics, Search
from forestviz.trees.ensemble import EnsembleOutputs, WeightedEnsemble
from forestviz.trees.leaf_stats import LeafStats
from forestviz.trees.leaf_values import node_values, tree_covers
from forestviz.trees.loaded import (
    MAGNITUDE,
    DamagedState,
    checked_flag,
    checked_number,
    checked_weights,
    same_trees,
)
from forestviz.trees.threads import row_blocks, run_in_threads, single_threaded_blas

SMALL_HELD_OUT = 200
"""With ``cv="auto"``, fewer held-out rows than this in one ``validation_fraction`` split
select by :data:`AUTO_REPEATS` × :data:`AUTO_FOLDS`-fold cross-fitting instead (every row held
out once per repeat; a row's losses are averaged over the repeats)."""
AUTO_FOLDS = 5
AUTO_REPEATS = 3


class AttentionBoostingRegressor(WeightedEnsemble, RegressorMixin, BaseEstimator):
    """AGBoost regressor (Konstantinov, Utkin & Kirpichenko): attention weights over the trees of
    a gradient boosting machine. See :mod:`forestviz.boosting.weights` for the model and the
    module docstring for how (ε, τ, γ) are chosen.

    ``base``: "gbm" (scikit-learn's ``GradientBoostingRegressor``, subsample 1) or "extra"
    (the same boosting loop over ``ExtraTreeRegressor``). ``eps``, ``tau``, ``discount``:
    "auto" (grid search) or a fixed value (τ absolute, in squared distance units).
    ``weights``: "trained" (QP) or "uniform" (w_k = 1/T, the paper's "Non-param").
    ``distance``: "standardized" (x̃, algorithms.md §0) or "raw" features. ``cv``: "auto"
    (one ``validation_fraction`` split, or 3 × 5 repeated shuffled folds when that split would
    hold fewer than :data:`SMALL_HELD_OUT` rows), None (always one split) or a scikit-learn CV
    spec (int, splitter; a row held out by several splits scores its mean loss).
    Fitted: ``estimators_`` (the T trees), ``gbm_`` (base "gbm"), ``init_`` (F_0), ``w_``,
    ``eps_``, ``tau_``, ``discount_``, ``leaf_stats_``, ``search_results_`` (every candidate
    with its held-out loss, standard error and paired difference to the best; the machine's row
    has ``candidate == "base"``), ``selected_base_``.
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
        if not searched:
            splits = []
        elif self.cv == "auto" and X.shape[0] * self.validation_fraction < SMALL_HELD_OUT:
            splits = list(RepeatedKFold(n_splits=AUTO_FOLDS, n_repeats=AUTO_REPEATS,
                                        random_state=rng.randint(2**31 - 1)).split(X))
        elif self.cv not in (None, "auto"):
            splits = list(check_cv(self.cv).split(X, y))
        else:
            splits = list(ShuffleSplit(1, test_size=self.validation_fraction,
                                       random_state=rng.randint(2**31 - 1)).split(X))
        row_sets = [np.arange(X.shape[0])] + [fit_rows for fit_rows, _ in splits]
        ensembles = Parallel(n_jobs=min(len(row_sets), effective_n_jobs(self.n_jobs)),
                             prefer="threads")(
            delayed(self._ensemble)(X[rows], y[rows], weight[rows], seed) for rows in row_sets)
        main = ensembles[0]
        report("forest", 1.0)

        validations = []
        for ens, (_, held_out) in zip(ensembles[1:], splits, strict=True):
            d, V = ens.stats.query(X[held_out])
            validations.append((ens, Rows(d, V, y[held_out] - ens.init, weight[held_out]),
                                held_out))  # the rows' positions, to pool repeated folds
        eps, tau, self.discount_, self.selected_base_ = self._search(
            main, validations, *grids, report, seed=rng.randint(2**31 - 1))
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
        """A fitted state is checked against its trees: the leaf statistics (which check the
        trees and their own arrays) on the very same trees, w on the simplex, ε in [0, 1],
        τ > 0, γ in (0, 1], F_0 finite; DamagedState when something does not fit."""
        super().__setstate__(state)
        if "w_" not in state:
            return
        trees, stats = self.estimators_, self.leaf_stats_
        if not (isinstance(stats, LeafStats) and same_trees(stats.trees, trees)
                and stats.task == "regression"):  # then the trees are those stats checked
            raise DamagedState("its leaf statistics are not built on its trees")
        checked_weights(self.w_, "tree weights w", len(trees))
        self.eps_ = checked_number(self.eps_, "contamination ε", low=0.0, high=1.0)
        self.tau_ = checked_number(self.tau_, "temperature τ", low=1 / MAGNITUDE, high=MAGNITUDE)
        self.discount_ = checked_number(self.discount_, "discount γ", above=0.0, high=1.0)
        self.init_ = checked_number(self.init_, "initial prediction F_0", low=-MAGNITUDE,
                                    high=MAGNITUDE)
        checked_flag(self.selected_base_, "choice of the plain machine")

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

    def _validation_losses(self, ens, held_out, pairs, eps_grid, report) -> np.ndarray:
        """Held-out squared errors (n, len(pairs)·len(eps_grid)) of every (γ, τ) in ``pairs``
        and ε (ε fastest), with w fitted on the ensemble's own rows (one Gram matrix, simplex
        NNLS)."""
        T = len(ens.trees)
        R = np.empty((len(pairs), held_out.target.size))
        Vtr = np.empty((len(pairs), T))

        def softmax_parts(g, tau):
            """Held-out Softmax predictions and Vᵀ·diag(ω)·r of the fitting rows."""
            r = ens.rows.softmax_predictions(tau, g, self.discount_on)
            return (held_out.softmax_predictions(tau, g, self.discount_on),
                    ens.rows.V.T @ (ens.rows.weight * r))

        parts = Parallel(n_jobs=self.n_jobs, prefer="threads", return_as="generator")(
            delayed(softmax_parts)(g, tau) for g, tau in pairs)
        for p, (r_held_out, vtr) in enumerate(parts):
            R[p], Vtr[p] = r_held_out, vtr
            report(0.8 * (p + 1) / len(pairs))
        W = np.full((len(pairs), eps_grid.size, T), 1.0 / T)
        positive = eps_grid > 0
        if self.weights == "trained" and positive.any():
            n_pos = int(positive.sum())
            B = contamination_linear_terms(ens.Vty, np.repeat(Vtr, n_pos, axis=0),
                                           np.tile(eps_grid[positive], len(pairs)))
            W[:, positive] = simplex_nnls(ens.gram, B).reshape(len(pairs), n_pos, T)
        losses = np.empty((held_out.target.size, len(pairs), eps_grid.size))
        e = eps_grid[:, None]
        for p in range(len(pairs)):  # held-out predictions (ε, n) per (γ, τ)
            error = contaminate(R[p], W[p] @ held_out.V.T, e) - held_out.target
            losses[:, p] = (error**2).T
        report(1.0)
        return losses.reshape(held_out.target.size, -1)

    def _search(self, main, validations, eps_grid, kappas, discounts, report, seed=None):
        """Held-out squared errors of the boosting machine itself (equal weights) and of every
        (ε, τ, γ) over the (ensemble, held-out rows) ``validations``; the one-standard-error
        choice (:mod:`forestviz.selection`; simplest first: the machine, then the largest τ,
        ε and γ). The machine is a candidate unless ε was fixed. Returns ε, τ (on the main
        ensemble's distance scale), γ and whether the machine won."""
        auto_tau = self.tau == "auto"
        taus = kappas * main.median_distance if auto_tau else kappas
        pairs = [(g, k) for g in discounts for k in range(kappas.size)]
        blocks, positions, weights = [], [], []
        for v, (ens, held_out, rows) in enumerate(validations):
            positions.append(rows)
            weights.append(held_out.weight)
            unit = ens.median_distance if auto_tau else 1.0
            base = (held_out.V.mean(axis=1) - held_out.target) ** 2
            blocks.append(np.column_stack([base, self._validation_losses(
                ens, held_out, [(g, kappas[k] * unit) for g, k in pairs], eps_grid,
                lambda fraction, v=v: report("search", (v + fraction) / len(validations)))]))
        report("search", 1.0)
        gg, kk, ee = (np.repeat([g for g, _ in pairs], eps_grid.size),
                      np.repeat([k for _, k in pairs], eps_grid.size),
                      np.tile(eps_grid, len(pairs)))
        frame = pd.DataFrame({
            "candidate": ["base"] + ["attention"] * ee.size,
            "eps": np.r_[np.nan, ee], "discount": np.r_[np.nan, gg],
            "kappa": np.r_[np.nan, kappas[kk] if auto_tau else kappas[kk] / main.median_distance],
            "tau": np.r_[np.nan, taus[kk]]})
        base_allowed = self.eps == "auto"
        order = np.concatenate([[0] if base_allowed else [],
                                1 + np.lexsort((-gg, -ee, -kk))]).astype(np.intp)
        if validations:
            losses, weight = pool_repeats(np.concatenate(blocks), np.concatenate(positions),
                                          np.concatenate(weights))
            choose = (partial(confirmed_one_standard_error, random_state=seed) if base_allowed
                      else one_standard_error)
            selection = choose(losses[:, order], weight)
            table = selection.table.set_axis(order)
            frame = frame.join(table)
            if not base_allowed:  # shown for comparison, never chosen
                best = losses[:, order[selection.best]]
                mean, se = weighted_mean_and_se(losses[:, 0], weight)
                difference, difference_se = weighted_mean_and_se(losses[:, 0] - best, weight)
                frame.loc[0, ["validation_loss", "standard_error", "difference_to_best",
                              "difference_se", "n_rows", "selected"]] = [
                    mean, se, difference, difference_se, losses.shape[0], False]
            if not np.isfinite(losses).any():
                warnings.warn("the validation rows carry no weight; using the first grid "
                              "point", RuntimeWarning, stacklevel=3)
        else:
            frame = frame.assign(validation_loss=np.nan, standard_error=np.nan,
                                 difference_to_best=np.nan, difference_se=np.nan, n_rows=0,
                                 selected=np.arange(len(frame)) == 1)
        frame["selected"] = frame["selected"].astype(bool)
        frame["n_rows"] = frame["n_rows"].astype(int)
        self.search_results_ = frame
        chosen = frame.loc[frame["selected"]].iloc[0]
        if chosen["candidate"] == "base":
            return 1.0, float(main.median_distance), 1.0, True
        return float(chosen["eps"]), float(chosen["tau"]), float(chosen["discount"]), False

    # ------------------------------------------------------------------- predict
    def _check_X(self, X):
        return check_rows(self, X, "w_")

    def _attention(self, X):
        """Softmax part D (n, T) and scaled tree values V (n, T) with one leaf lookup."""
        X = self._check_X(X)
        d, V = self.leaf_stats_.query(X)
        return attention_softmax(d, self.tau_, self.discount_, self.discount_on, out=d), V

    def tree_weights(self, X) -> np.ndarray:
        """Attention weights α_k(x) = (1 − ε)·D_k(x) + ε·w_k (n, T), rows sum to 1."""
        D = self._attention(X)[0]
        return contaminate(D, self.w_, self.eps_)

    def tree_weight_parts(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The two parts of α: (1 − ε)·D(x) (n, T) and ε·w broadcast to (n, T)."""
        return self._weight_parts(self._attention(X)[0])

    def _weight_parts(self, D) -> tuple[np.ndarray, np.ndarray]:
        return weight_parts(D, self.w_, self.eps_)

    def tree_predictions(self, X) -> np.ndarray:
        """Scaled tree values V_k(x) = T·ν·h_k(x) (n, T): their mean plus ``init_`` is the
        plain boosting prediction."""
        X = self._check_X(X)
        return self.leaf_stats_.values(X)

    def ensemble_outputs(self, X) -> EnsembleOutputs:
        """α, its two parts (1 − ε)·D(x) and ε·w, the scaled tree values V (as
        :meth:`tree_predictions`) and the offset F_0, from one leaf look-up
        (:class:`~forestviz.trees.ensemble.WeightedEnsemble`)."""
        D, V = self._attention(X)
        parts = self._weight_parts(D)
        return EnsembleOutputs(parts[0] + parts[1], parts, V, offset=float(self.init_))

    def leaf_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The scaled tree values V_k = T·ν·h_k in every node (the boosting trees' own values
        scaled) and the trees' own sample counts."""
        check_is_fitted(self)
        return self.leaf_stats_.leaf_values, tree_covers(self.estimators_)

    def offset(self) -> float:
        """F_0, the boosting machine's initial prediction (added to every row's)."""
        check_is_fitted(self)
        return float(self.init_)

    def contamination(self) -> tuple[float, np.ndarray]:
        """(ε, w): the contamination weight and the trained (or uniform) tree weights w."""
        check_is_fitted(self)
        return float(self.eps_), np.asarray(self.w_, dtype=float)

    def diagnostics(self) -> Diagnostics:
        """The search: every candidate with its held-out loss, whether the plain machine won
        and the chosen discount γ (the search table's curves are read at it)."""
        check_is_fitted(self)
        return Diagnostics(search=Search(self.search_results_, bool(self.selected_base_),
                                         discount=float(self.discount_)))

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
