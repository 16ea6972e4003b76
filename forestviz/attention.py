"""Attention-based random forests ABRF-1/2/3 and the Softmax model (algorithms.md §1, paper 000).

The weight of tree k for a row x is

    α_k(x) = (1 − ε)·D_k(x) + ε·w_k,   D(x) = softmax_k(−v_k·||(x̃ − A_k(x)) ∘ z||² / 2),

eqs (13)-(24), with A_k(x) the mean standardised training row of x's leaf in tree k. The
Softmax model is ε = 0, v = 1/τ, z = 1; ABRF-1 adds the contamination weights w ∈ Δ_T fitted
by a QP (L2 loss, eqs (17)-(19)) or an LP (L1 loss, eqs (20)-(22)); ABRF-2 trains v and z
(eq 23, ε = 0); ABRF-3 trains v, z and w jointly at the ε chosen for ABRF-1 (eq 24).
Resolved typos followed here (algorithms.md §1): the softmax takes the *negative* distance
(eqs 14, 16, 23, 24 print the positive one); classification uses the tree-level class
frequencies p_k(x_s) in the loss (eq 29 prints the forest-level p(x_s)); v and z are not put on
simplices but parameterised as v = exp(θ)/τ, z = m·softmax(φ); τ is relative to the data,
τ = κ·median d over the training rows, κ on :data:`KAPPA_GRID`.

Selecting (ε, τ). The weights w are fitted on the forest's training rows, as in the paper, for
every point of the grid (:data:`EPS_GRID` × :data:`KAPPA_GRID`) through one Gram matrix
(:mod:`forestviz.simplex`). Each point is scored on held-out rows:

* ``cv`` given: K-fold, a forest per fold, losses summed over folds;
* else, with a bootstrap base forest (``base="random"``): the out-of-bag rows of the one
  forest — each row is scored only by the trees that did not see it, with its own
  contribution removed from the leaf means (leave-one-out leaf statistics), so fitting costs
  one forest;
* else (``base="extra"``, no bootstrap): a random ``validation_fraction`` split, a forest on
  the rest.

The chosen pair is refitted on all training rows. ``search_results_`` lists every pair with
its validation loss (mean squared error, or mean absolute error for ``loss="l1"``; for
classification over the class probabilities, as the paper's loss (30); lower is better).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.model_selection import ShuffleSplit, check_cv
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from forestviz.attention_gradients import AttentionProblem, train_attention
from forestviz.simplex import LP_ROW_CAP, SimplexLP, fit_contamination_weights
from forestviz.trees.checks import (
    Progress,
    check_parameters,
    check_rows,
    ignore_progress,
    is_count,
    is_real,
)
from forestviz.trees.leaf_stats import LeafStats

EPS_GRID = np.round(np.linspace(0.0, 1.0, 11), 2)
"""Contamination levels tried when ``eps="auto"`` (algorithms.md §1)."""
KAPPA_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
"""τ = κ·median training distance, κ tried when ``tau="auto"`` **[resolved]**."""
GRADIENT_ROW_CAP = 4000
"""ABRF-2/3 train on (and early-stop on) at most this many rows, drawn with ``random_state``,
because their gradient needs the (rows × T × m) squared differences."""
PENALTY = 1e-3
"""L2 penalty on θ and φ (ABRF-2/3), relative to the variance of the targets."""
PREDICT_BLOCK = 2048
"""Rows per block in predict: besides the (n, T) leaf ids, peak memory is O(block × T × m)."""

_MODES = ("abrf1", "abrf2", "abrf3", "softmax")
_BASES = {"random": (RandomForestRegressor, RandomForestClassifier),
          "extra": (ExtraTreesRegressor, ExtraTreesClassifier)}


@dataclass(frozen=True)
class _Part:
    """Leaf quantities of a set of rows under one forest.

    ``V`` (n, T, C) leaf values, ``d`` (n, T) distances, ``Y`` (n, C) targets, ``weight``
    (n,) row weights, ``rows`` indices into the fit data, ``leaves`` global leaf ids (n, T);
    for out-of-bag rows ``mask`` (n, T) marks the trees that did not see the row and
    ``scale`` (n, T) = (c/(c − 1))² turns a squared difference to the leaf mean into the one
    to the leave-one-out leaf mean (c = rows in the leaf).
    """

    V: np.ndarray
    d: np.ndarray
    Y: np.ndarray
    weight: np.ndarray
    rows: np.ndarray
    leaves: np.ndarray
    mask: np.ndarray | None = None
    scale: np.ndarray | None = None


@dataclass(frozen=True)
class _Context:
    """One forest, its leaf statistics, the rows fitting w (``train``) with their Gram
    reduction, and the rows scoring it (``val``, may be None)."""

    forest: object
    stats: LeafStats
    values: np.ndarray  # (N, C) leaf values aligned with the estimator's classes
    train: _Part
    val: _Part | None
    gram: np.ndarray  # G = Σ_s ω_s V_sᵀV_s (T, T)
    Vty: np.ndarray  # Σ_s ω_s V_sᵀY_s (T,)
    lipschitz: float  # λ_max(G)
    lp: tuple | None = None  # (rows, SimplexLP) for loss="l1", built once per forest

    @property
    def median_distance(self) -> float:
        """median d over training rows and trees, the unit of τ (falls back to mean, 1)."""
        d = self.train.d
        return float(next((v for v in (np.median(d), d.mean()) if v > 0), 1.0))


def _softmax_weights(scores, mask=None):
    """Row-wise softmax of attention scores (−v·d/2), restricted to ``mask`` if given."""
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return softmax(scores, axis=1)


def _combine(D, V):
    """Σ_k α_k·V_k per row: (n, T) × (n, T, C) → (n, C)."""
    return np.einsum("sk,skc->sc", D, V)


def _stack(V):
    """(n, T, C) → (n·C, T): one row per (sample, class) as in the paper's eq (30)."""
    return V.transpose(0, 2, 1).reshape(-1, V.shape[1])


def _distances(stats, leaves, X, leaf_norms, zsq):
    """Σ_j z_j²·(x̃_j − A_kj(x))² (n, T) as ||z∘x̃||² − 2·(z²∘x̃)·A + Σ z²A² (algorithms.md §0),
    in row chunks of ``PREDICT_BLOCK`` so the (chunk, T, m) gather stays small."""
    Xs = stats.standardize(X)
    d = np.empty(leaves.shape)
    for start in range(0, X.shape[0], PREDICT_BLOCK):
        rows = slice(start, start + PREDICT_BLOCK)
        ids, xz = leaves[rows], Xs[rows] * zsq
        cross = np.einsum("ntm,nm->nt", stats.leaf_means[ids], xz)
        own = np.einsum("nm,nm->n", xz, Xs[rows])[:, None]
        d[rows] = np.maximum(own - 2.0 * cross + leaf_norms[ids], 0.0)
    return d


def _validation_loss(part, R, W, eps, loss):
    """Validation loss per ε (P,) for weights W (P, T) and Softmax predictions R (n, C).

    A row scored by a subset of trees (``mask``) uses the sub-forest model: the softmax over
    the subset (R) and w renormalised over it; a row whose subset carries no w mass is left
    out of that ε's loss.
    """
    n, _, C = part.V.shape
    V = part.V if part.mask is None else part.V * part.mask[:, :, None]
    contamination = (_stack(V) @ W.T).reshape(n, C, -1).transpose(0, 2, 1)  # (n, P, C)
    if part.mask is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            contamination = contamination / (part.mask @ W.T)[:, :, None]
    e = eps[None, :, None]
    with np.errstate(invalid="ignore"):
        prediction = np.where(e == 0, R[:, None, :], (1 - e) * R[:, None, :] + e * contamination)
    error = prediction - part.Y[:, None, :]
    per_row = (error**2 if loss == "l2" else np.abs(error)).sum(axis=2)  # (n, P)
    ok = np.isfinite(per_row)
    total = (np.where(ok, per_row, 0.0) * part.weight[:, None]).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / (ok * part.weight[:, None]).sum(axis=0)


class _AttentionForest(BaseEstimator):
    """Shared fit/predict machinery of the attention forests (see the module docstring)."""

    _task = "regression"

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
    def _check_params(self):
        check_parameters(self, [
            ("n_estimators", is_count(self.n_estimators), "an int >= 1"),
            ("base", self.base in _BASES, f"one of {sorted(_BASES)}"),
            ("mode", self.mode in _MODES, f"one of {list(_MODES)}"),
            ("loss", self.loss in ("l2", "l1"), "'l2' or 'l1'"),
            ("eps", self.eps == "auto" or (is_real(self.eps) and 0.0 <= self.eps <= 1.0),
             "'auto' or a float in [0, 1]"),
            ("tau", self.tau == "auto" or (is_real(self.tau) and np.isfinite(self.tau)
                                           and self.tau > 0), "'auto' or a float > 0"),
            ("distance", self.distance in ("standardized", "raw"), "'standardized' or 'raw'"),
            ("validation_fraction", is_real(self.validation_fraction)
             and 0.0 < self.validation_fraction < 1.0, "a float in (0, 1)"),
        ])

    def _targets(self, y):
        """(n, C) targets: y itself (C = 1) for regression."""
        return y.astype(np.float64)[:, None]

    def _check_X(self, X):
        return check_rows(self, X, "w_")

    # ----------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None, progress: Progress | None = None):
        """Fit the base forest, select (ε, τ) on held-out rows, refit w on all rows.

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
        weight = (np.ones(X.shape[0]) if sample_weight is None
                  else _check_sample_weight(sample_weight, X))
        report = progress or ignore_progress
        rng = check_random_state(self.random_state)
        n = X.shape[0]

        eps_grid = self._eps_grid()
        select = self.tau == "auto" or eps_grid.size > 1 or self.mode in ("abrf2", "abrf3")
        report("forest", 0.0)
        main = self._context(X, y, Y, weight, np.arange(n), None, rng,
                             oob=self.cv is None and self.base == "random")
        if not select:  # a fixed (ε, τ): no validation forest (scored out of bag if free)
            folds = None
        elif self.cv is not None:
            folds = check_cv(self.cv, y, classifier=self._task == "classification").split(X, y)
        elif self.base == "random":
            folds = None
        else:
            folds = ShuffleSplit(1, test_size=self.validation_fraction,
                                 random_state=rng.randint(2**31 - 1)).split(X)
        contexts = [main] if folds is None else [
            self._context(X, y, Y, weight, fit_rows, val_rows, rng, oob=False)
            for fit_rows, val_rows in folds]
        report("forest", 1.0)

        kappas = KAPPA_GRID if self.tau == "auto" else (self.tau / main.median_distance,)
        eps, kappa = self._search(contexts, main, eps_grid, kappas, report)
        self.eps_ = eps
        self.tau_ = kappa * main.median_distance if self.tau == "auto" else float(self.tau)
        w, _ = self._weights_at(main, self.tau_, np.array([eps]))
        T, m = len(main.forest.estimators_), X.shape[1]
        self.w_ = w[0]
        self.v_ = np.full(T, 1.0 / self.tau_)
        self.z_ = np.ones(m)
        if self.mode in ("abrf2", "abrf3"):
            self._train_gradient(X, contexts, main, kappa, rng, report)

        self.forest_ = main.forest
        self.estimators_ = main.forest.estimators_
        self.leaf_stats_ = main.stats
        self._values = main.values
        self._leaf_norms = (main.stats.leaf_means**2) @ (self.z_**2)
        report("done", 1.0)
        return self

    def _eps_grid(self):
        if self.mode in ("softmax", "abrf2"):
            return np.zeros(1)
        return EPS_GRID if self.eps == "auto" else np.array([float(self.eps)])

    def _make_forest(self, seed):
        forest_class = _BASES[self.base][self._task == "classification"]
        return forest_class(n_estimators=self.n_estimators, min_samples_leaf=self.min_samples_leaf,
                            max_depth=self.max_depth, max_features=self.max_features,
                            random_state=seed, n_jobs=self.n_jobs)

    def _context(self, X, y, Y, weight, fit_rows, val_rows, rng, *, oob) -> _Context:
        """Forest on ``fit_rows``, its leaf statistics and Gram reduction, and the
        validation part: ``val_rows``, the out-of-bag rows (``oob``) or none."""
        forest = self._make_forest(rng.randint(2**31 - 1))
        forest.fit(X[fit_rows], y[fit_rows], sample_weight=weight[fit_rows])
        stats = LeafStats.from_forest(forest, X[fit_rows], y[fit_rows], task=self._task,
                                      standardize=self.distance == "standardized",
                                      n_jobs=self.n_jobs)
        values = stats.leaf_values.reshape(stats.leaf_values.shape[0], -1)
        if self._task == "classification":
            aligned = np.zeros((values.shape[0], self.classes_.size))
            aligned[:, np.searchsorted(self.classes_, stats.classes)] = values
            values = aligned
        train = self._part(stats, values, X, Y, weight, fit_rows)
        val = (self._oob_part(forest, stats, train) if oob else
               None if val_rows is None else self._part(stats, values, X, Y, weight, val_rows))
        weighted = _stack(train.V * train.weight[:, None, None])
        gram = _stack(train.V * np.sqrt(train.weight)[:, None, None])
        gram = gram.T @ gram
        lp = None
        if self.loss == "l1":  # the LP is built once per forest, on at most LP_ROW_CAP rows
            n, C = train.Y.shape
            cap = max(LP_ROW_CAP // C, 1)
            rows = np.sort(rng.choice(n, cap, replace=False)) if n > cap else np.arange(n)
            lp = (rows, SimplexLP(_stack(train.V[rows] * train.weight[rows, None, None])))
        return _Context(forest, stats, values, train, val, gram,
                        weighted.T @ train.Y.reshape(-1), float(np.linalg.eigvalsh(gram)[-1]),
                        lp)

    @staticmethod
    def _part(stats, values, X, Y, weight, rows) -> _Part:
        leaves = stats.global_leaf_ids(X[rows])
        d = _distances(stats, leaves, X[rows], stats.leaf_sq_norms, 1.0)
        return _Part(values[leaves], d, Y[rows], weight[rows], rows, leaves)

    @staticmethod
    def _oob_part(forest, stats, train) -> _Part:
        """Out-of-bag view of the training rows with leave-one-out leaf statistics: in a
        leaf of c rows, B⁽⁻ˢ⁾ = (c·B − y_s)/(c − 1) and x̃_s − A⁽⁻ˢ⁾ = c/(c − 1)·(x̃_s − A)."""
        n, T = train.leaves.shape
        samples = forest.estimators_samples_
        mask = np.ones((n, T), dtype=bool)
        mask[np.concatenate(samples), np.repeat(np.arange(T), [s.size for s in samples])] = False
        c = stats.counts[train.leaves]
        mask &= c > 1
        keep = mask.any(axis=1)
        mask, c = mask[keep], c[keep]
        ratio = np.where(mask, c / np.maximum(c - 1, 1), 1.0)
        V = (c[:, :, None] * train.V[keep] - train.Y[keep][:, None, :]) / np.maximum(
            c - 1, 1)[:, :, None]
        V = np.where(mask[:, :, None], V, 0.0)
        return _Part(V, ratio**2 * train.d[keep], train.Y[keep], train.weight[keep],
                     train.rows[keep], train.leaves[keep], mask, ratio**2)

    def _weights_at(self, ctx, tau, eps, initial=None):
        """Contamination weights (P, T) for every ε at τ on ``ctx``'s training rows (QP, or
        LP for ``loss="l1"``) and the Softmax predictions R of those rows. At ε = 0 w has no
        effect and is left uniform. ``initial`` (P, T) warm-starts the QP solver."""
        part = ctx.train
        R = _combine(_softmax_weights(-part.d / (2.0 * tau)), part.V)
        T = part.V.shape[1]
        W = np.full((eps.size, T), 1.0 / T)
        positive = np.flatnonzero(eps > 0)
        if positive.size == 0:
            return W, R
        Vtr = _stack(part.V * part.weight[:, None, None]).T @ R.reshape(-1)
        W[positive] = fit_contamination_weights(
            ctx.gram, ctx.Vty, Vtr, eps[positive], lipschitz=ctx.lipschitz,
            initial=None if initial is None else initial[positive]).weights
        if ctx.lp is not None:
            self._fit_l1(ctx, R, eps, positive, W)
        return W, R

    @staticmethod
    def _fit_l1(ctx, R, eps, positive, W):
        """Replace the QP weights by the LP ones (eqs 20-22, on the context's LP rows, at most
        :data:`~forestviz.simplex.LP_ROW_CAP` stacked rows); a failed LP keeps the QP weights
        with a warning naming the solver status."""
        part, (rows, lp) = ctx.train, ctx.lp
        omega = part.weight[rows, None]
        for p in positive:
            target = (omega * (part.Y[rows] - (1 - eps[p]) * R[rows])).reshape(-1) / eps[p]
            w, status = lp.solve(target)
            if w is None:
                warnings.warn(f"L1 (LP) weights for eps={eps[p]:g} failed with status "
                              f"{status!r}; using the L2 (QP) weights", RuntimeWarning,
                              stacklevel=3)
            else:
                W[p] = w

    def _search(self, contexts, main, eps_grid, kappas, report):
        """Validation loss of every (ε, κ), summed over the contexts; the best pair."""
        losses = np.zeros((len(kappas), eps_grid.size))
        scored = any(ctx.val is not None for ctx in contexts)
        steps = len(contexts) * len(kappas)
        for c, ctx in enumerate(contexts):
            W = None
            for i, kappa in enumerate(kappas):
                report("search", (c * len(kappas) + i) / steps)
                if not scored:
                    continue
                tau = kappa * ctx.median_distance
                W, _ = self._weights_at(ctx, tau, eps_grid, initial=W)
                R = _combine(_softmax_weights(-ctx.val.d / (2.0 * tau), ctx.val.mask), ctx.val.V)
                losses[i] += _validation_loss(ctx.val, R, W, eps_grid, self.loss)
        report("search", 1.0)
        if not scored:
            losses[:] = np.nan
        kk, ee = np.meshgrid(np.arange(len(kappas)), np.arange(eps_grid.size), indexing="ij")
        self.search_results_ = pd.DataFrame({
            "eps": eps_grid[ee.ravel()], "kappa": np.asarray(kappas)[kk.ravel()],
            "tau": np.asarray(kappas)[kk.ravel()] * main.median_distance,
            "validation_loss": losses.ravel()})
        if np.isfinite(losses).any():
            i, e = np.unravel_index(np.nanargmin(losses), losses.shape)
            return float(eps_grid[e]), float(kappas[i])
        if losses.size > 1:
            warnings.warn("no held-out rows to select (eps, tau); using the Softmax model "
                          "with kappa = 1", RuntimeWarning, stacklevel=3)
            return 0.0, 1.0 if 1.0 in kappas else float(kappas[0])
        return float(eps_grid[0]), float(kappas[0])

    def _problem(self, stats, part, X, tau, rng):
        """ABRF-2/3 training or validation problem on at most GRADIENT_ROW_CAP rows."""
        n = part.rows.size
        sub = (np.sort(rng.choice(n, GRADIENT_ROW_CAP, replace=False))
               if n > GRADIENT_ROW_CAP else np.arange(n))
        Q = stats.differences(X[part.rows[sub]]) ** 2
        if part.scale is not None:
            Q *= part.scale[sub][:, :, None]
        weight = part.weight[sub] / part.weight[sub].sum()
        eps = self.eps_ if self.mode == "abrf3" else 0.0
        return AttentionProblem(Q, part.V[sub], part.Y[sub], weight, tau, eps,
                                None if part.mask is None else part.mask[sub])

    def _train_gradient(self, X, contexts, main, kappa, rng, report):
        """ABRF-2/3: L-BFGS from the Softmax (ABRF-2) or the fitted ABRF-1 model (ABRF-3)
        with early stopping on the held-out rows of the first context; with a separate
        validation forest the best iteration count is then rerun on all rows."""
        ctx = contexts[0]
        tau = kappa * ctx.median_distance
        T, m = len(ctx.forest.estimators_), X.shape[1]

        def initial(context, tau):
            if self.mode == "abrf2":
                return np.zeros(T + m)
            w = self._weights_at(context, tau, np.array([self.eps_]))[0][0]
            return np.concatenate([np.zeros(T + m), np.log(np.maximum(w, 1e-6))])

        train = self._problem(ctx.stats, ctx.train, X, tau, rng)
        penalty = PENALTY * float(np.einsum("s,sc->", train.weight,
                                            (train.Y - train.weight @ train.Y) ** 2))
        validation = None if ctx.val is None else self._problem(ctx.stats, ctx.val, X, tau, rng)
        result = train_attention(train, initial(ctx, tau), validation=validation,
                                 penalty=penalty,
                                 progress=lambda fraction: report("gradient", fraction))
        params = result.params
        if ctx is not main:
            params = initial(main, self.tau_)
            if result.best_iteration > 0:
                final = self._problem(main.stats, main.train, X, self.tau_, rng)
                params = train_attention(final, params, penalty=penalty,
                                         max_iter=result.best_iteration).params
        self.n_iter_ = result.best_iteration
        self.v_ = np.exp(params[:T]) / self.tau_
        self.z_ = m * softmax(params[T:T + m])
        if self.mode == "abrf3":
            self.w_ = softmax(params[T + m:])
        report("gradient", 1.0)

    # ------------------------------------------------------------------- predict
    def _softmax_part(self, X, leaves=None):
        """Leaf ids (n, T) and the Softmax part D (n, T) for checked rows X."""
        if leaves is None:
            leaves = self.leaf_stats_.global_leaf_ids(X)
        d = _distances(self.leaf_stats_, leaves, X, self._leaf_norms, self.z_**2)
        return leaves, _softmax_weights(-0.5 * self.v_ * d)

    def tree_weights(self, X) -> np.ndarray:
        """Attention weights α_k(x) = (1 − ε)·D_k(x) + ε·w_k (n, T), rows sum to 1."""
        D = self._softmax_part(self._check_X(X))[1]
        return (1.0 - self.eps_) * D + self.eps_ * self.w_

    def tree_weight_parts(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The two parts of α: (1 − ε)·D(x) (n, T) and ε·w broadcast to (n, T)."""
        return self._weight_parts(self._softmax_part(self._check_X(X))[1])

    def _weight_parts(self, D) -> tuple[np.ndarray, np.ndarray]:
        return (1.0 - self.eps_) * D, np.broadcast_to(self.eps_ * self.w_, D.shape).copy()

    def tree_predictions(self, X) -> np.ndarray:
        """Per-tree leaf values B_k(x) (n, T), or class frequencies p_k(x) (n, T, C)."""
        return self._leaf_predictions(self.leaf_stats_.global_leaf_ids(self._check_X(X)))

    def _leaf_predictions(self, leaves) -> np.ndarray:
        values = self._values[leaves]
        return values[:, :, 0] if self._task == "regression" else values

    def weights_and_predictions(self, X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What an explanation shows, from one leaf look-up: the two parts of α, (1 − ε)·D(x)
        and ε·w (each n, T), and the per-tree predictions (as :meth:`tree_predictions`)."""
        leaves, D = self._softmax_part(self._check_X(X))
        return (*self._weight_parts(D), self._leaf_predictions(leaves))

    def _predict_values(self, X) -> np.ndarray:
        """Σ_k α_k(x)·V_k(x) (n, C): one leaf lookup (the trees' compiled ``apply`` in
        threads), then blocks of :data:`PREDICT_BLOCK` rows."""
        X = self._check_X(X)
        leaves = self.leaf_stats_.global_leaf_ids(X)
        out = np.empty((X.shape[0], self._values.shape[1]))
        for start in range(0, X.shape[0], PREDICT_BLOCK):
            block = slice(start, start + PREDICT_BLOCK)
            D = self._softmax_part(X[block], leaves[block])[1]
            alpha = (1.0 - self.eps_) * D + self.eps_ * self.w_
            out[block] = _combine(alpha, self._values[leaves[block]])
        return out


class AttentionForestRegressor(RegressorMixin, _AttentionForest):
    """Attention-based random forest regressor (ABRF-1/2/3 or Softmax), paper 000.

    See the module docstring for the model, the parameters' roles and how (ε, τ) are chosen.
    ``eps``/``tau``: "auto" (grid search) or a fixed value (τ absolute, in squared distance
    units). Fitted: ``forest_``, ``estimators_``, ``leaf_stats_``, ``w_``, ``eps_``, ``tau_``,
    ``v_`` (tree temperatures, 1/τ unless trained), ``z_`` (feature weights, 1 unless trained),
    ``search_results_``.
    """

    def predict(self, X) -> np.ndarray:
        """ŷ(x) = Σ_k α_k(x)·B_k(x) (eqs 13, 23, 24)."""
        return self._predict_values(X)[:, 0]


class AttentionForestClassifier(ClassifierMixin, _AttentionForest):
    """Attention-based random forest classifier: p(x) = Σ_k α_k(x)·p_k(x) (eqs 28-30).

    Same parameters and fitted attributes as :class:`AttentionForestRegressor`, plus
    ``classes_``; ``max_features`` defaults to "sqrt" as in scikit-learn's forests.
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

    def predict(self, X) -> np.ndarray:
        """The class with the largest probability."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
