"""Selecting (ε, τ) for the ABRF models (Utkin & Konstantinov, "Attention-based Random Forest
and Contamination Model"; algorithms.md §1).

τ is relative to the data, τ = κ·median d over the training rows, κ on :data:`KAPPA_GRID`. The
weights w are fitted on the forest's training rows, as in the paper, for every point of the
grid (:data:`EPS_GRID` × :data:`KAPPA_GRID`) through one Gram matrix
(:mod:`forestviz.attention.simplex`). Each point is scored on held-out rows:

* ``cv`` given: K-fold, a forest per fold, losses summed over folds;
* else, with a bootstrap base forest (``base="random"``): the out-of-bag rows of the one
  forest — each row is scored only by the trees that did not see it, with its own
  contribution removed from the leaf means (leave-one-out leaf statistics), so fitting costs
  one forest;
* else (``base="extra"``, no bootstrap): a random ``validation_fraction`` split, a forest on
  the rest.

A :class:`Context` is one such forest with its rows; :func:`search` scores the grid over the
contexts. The validation loss is the squared error, or the absolute error for ``loss="l1"``
(for classification summed over the class probabilities, as the paper's Eq. 30), per held-out
row; lower is better.

The plain forest is a candidate too, twice (:data:`BASE_NAMES`): ``"base"``, exactly as
scikit-learn predicts with it (equal weights, each tree's own leaf value from its bootstrap
sample; out of bag, the mean over the trees that did not draw the row), and ``"base (leaf
means)"``, equal weights over the leaf means of all training rows that every attention
candidate uses (out of bag, the leave-one-out means). The second has less variance; without it,
on pure noise attention at a large τ (nearly equal weights) would beat the forest through its
leaf values alone and be chosen as "attention".
The choice is the one-standard-error rule of :mod:`forestviz.selection` over the candidates
ordered simplest first: the forest, then the attention grid from the smoothest weights (the
largest τ, then the largest ε: weights that vary least from row to row) to the sharpest. The
best of 77 grid points looks better on the rows that chose it than it is (the winner's curse),
so attention is then confirmed: the rule is redone without each fifth of the held-out rows and
must beat the plain forests (chosen between them the same way) on the fifth left out by two
standard errors, or the plain forest is kept
(:func:`~forestviz.selection.confirmed_one_standard_error`, as for AGBoost).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from forestviz.attention.simplex import LP_ROW_CAP, SimplexLP, fit_contamination_weights
from forestviz.attention.weights import (
    combine,
    distances,
    median_distance,
    softmax_weights,
    stack,
)
from forestviz.selection import (
    confirmed_one_standard_error,
    one_standard_error,
    weighted_mean_and_se,
)
from forestviz.trees.leaf_stats import LeafStats
from forestviz.trees.leaf_values import estimator_leaf_values, spread_columns

BASE_NAMES = ("base", "base (leaf means)")
"""The two plain forests of the search: its own leaf values, and the leaf means of all rows."""
BASES = len(BASE_NAMES)
EPS_GRID = np.round(np.linspace(0.0, 1.0, 11), 2)
"""Contamination levels tried when ``eps="auto"`` (algorithms.md §1)."""
KAPPA_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
"""τ = κ·median training distance, κ tried when ``tau="auto"`` **[resolved]**."""


@dataclass(frozen=True)
class Part:
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
class Context:
    """One forest, its leaf statistics, the rows fitting w (``train``) with their Gram
    reduction, and the rows scoring it (``val``, may be None)."""

    forest: object
    stats: LeafStats
    values: np.ndarray  # (N, C) leaf values aligned with the estimator's classes
    own_values: np.ndarray  # (N, C) the trees' own leaf values (their bootstrap), aligned too
    train: Part
    val: Part | None
    gram: np.ndarray  # G = Σ_s ω_s V_sᵀV_s (T, T)
    Vty: np.ndarray  # Σ_s ω_s V_sᵀY_s (T,)
    lipschitz: float  # λ_max(G)
    lp: tuple | None = None  # (rows, SimplexLP) for loss="l1", built once per forest
    halves: tuple = ()  # out of bag: ((val rows in half h, context fitting w without half h), …)

    @property
    def median_distance(self) -> float:
        """median d over training rows and trees, the unit of τ (:func:`median_distance`)."""
        return median_distance(self.train.d)


def leaf_part(stats, values, X, Y, weight, rows) -> Part:
    """The leaf quantities of ``rows`` under the forest of ``stats``."""
    leaves = stats.global_leaf_ids(X[rows])
    d = distances(stats, leaves, X[rows], stats.leaf_sq_norms, 1.0)
    return Part(values[leaves], d, Y[rows], weight[rows], rows, leaves)


def oob_part(forest, stats, train) -> Part:
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
    return Part(V, ratio**2 * train.d[keep], train.Y[keep], train.weight[keep],
                train.rows[keep], train.leaves[keep], mask, ratio**2)


def subset(part: Part, index) -> Part:
    """The rows ``index`` of ``part``."""
    return Part(*(None if value is None else value[index] for value in vars(part).values()))


def fitting_terms(train: Part, rng, loss) -> dict:
    """What fitting w needs from the training rows: the Gram reduction G, Vᵀy, λ_max(G)
    and, for ``loss="l1"``, the LP on at most LP_ROW_CAP of them."""
    weighted = stack(train.V * train.weight[:, None, None])
    gram = stack(train.V * np.sqrt(train.weight)[:, None, None])
    gram = gram.T @ gram
    lp = None
    if loss == "l1":
        n, C = train.Y.shape
        cap = max(LP_ROW_CAP // C, 1)
        rows = np.sort(rng.choice(n, cap, replace=False)) if n > cap else np.arange(n)
        lp = (rows, SimplexLP(stack(train.V[rows] * train.weight[rows, None, None])))
    return {"train": train, "gram": gram, "Vty": weighted.T @ train.Y.reshape(-1),
            "lipschitz": float(np.linalg.eigvalsh(gram)[-1]), "lp": lp}


def leaf_value_tables(forest, stats: LeafStats, classes) -> tuple[np.ndarray, np.ndarray]:
    """The two (N, C) tables of leaf values a model may combine, columns aligned with
    ``classes`` (None for regression, C = 1): the leaf means of all training rows
    (``stats``) and the trees' own values (their bootstrap samples)."""
    values = stats.leaf_values.reshape(stats.leaf_values.shape[0], -1)
    forest_classes, own = estimator_leaf_values(forest, forest.estimators_)
    own = own.reshape(own.shape[0], -1)
    if classes is not None:
        values = spread_columns(values, np.searchsorted(classes, stats.classes), classes.size)
        own = spread_columns(own, np.searchsorted(classes, forest_classes), classes.size)
    return values, own


def make_context(forest, stats: LeafStats, classes, X, Y, weight, fit_rows, val_rows, rng, *,
                 oob, loss) -> Context:
    """A forest fitted on ``fit_rows`` with its leaf statistics (``classes``: the estimator's,
    None for regression), the Gram reduction of those rows, and the validation part:
    ``val_rows``, the out-of-bag rows (``oob``) or none.

    Out of bag, w fitted on all training rows has seen every scored row's target, which
    flatters the contaminated candidates (on pure noise they beat the forest). So w is
    cross-fitted: the training rows are split at random in two halves, and the rows of each
    half are scored with w fitted on the other half (``halves``)."""
    values, own = leaf_value_tables(forest, stats, classes)
    train = leaf_part(stats, values, X, Y, weight, fit_rows)
    val = (oob_part(forest, stats, train) if oob else
           None if val_rows is None else leaf_part(stats, values, X, Y, weight, val_rows))
    context = Context(forest, stats, values, own, val=val, **fitting_terms(train, rng, loss))
    if not oob:
        return context
    half = np.zeros(X.shape[0], dtype=np.intp)
    half[fit_rows] = rng.permutation(fit_rows.size) % 2
    halves = tuple((np.flatnonzero(half[val.rows] == h),
                    replace(context, val=None, **fitting_terms(
                        subset(train, np.flatnonzero(half[fit_rows] != h)), rng, loss)))
                   for h in (0, 1))
    return replace(context, halves=halves)


def weights_at(ctx, tau, eps, initial=None):
    """Contamination weights (P, T) for every ε at τ on ``ctx``'s training rows (QP, or
    LP for ``loss="l1"``) and the Softmax predictions R of those rows. At ε = 0 w has no
    effect and is left uniform. ``initial`` (P, T) warm-starts the QP solver."""
    part = ctx.train
    R = combine(softmax_weights(-part.d / (2.0 * tau)), part.V)
    T = part.V.shape[1]
    W = np.full((eps.size, T), 1.0 / T)
    positive = np.flatnonzero(eps > 0)
    if positive.size == 0:
        return W, R
    Vtr = stack(part.V * part.weight[:, None, None]).T @ R.reshape(-1)
    W[positive] = fit_contamination_weights(
        ctx.gram, ctx.Vty, Vtr, eps[positive], lipschitz=ctx.lipschitz,
        initial=None if initial is None else initial[positive]).weights
    if ctx.lp is not None:
        fit_l1(ctx, R, eps, positive, W)
    return W, R


def fit_l1(ctx, R, eps, positive, W):
    """Replace the QP weights by the LP ones (Eqs. 20-22, on the context's LP rows, at most
    :data:`~forestviz.attention.simplex.LP_ROW_CAP` stacked rows); a failed LP keeps the QP
    weights with a warning naming the solver status."""
    part, (rows, lp) = ctx.train, ctx.lp
    omega = part.weight[rows, None]
    for p in positive:
        # Q_s of Eq. 17, y − (1 − ε)·r, weighted and divided by ε
        target = (omega * (part.Y[rows] - (1 - eps[p]) * R[rows])).reshape(-1) / eps[p]
        w, status = lp.solve(target)
        if w is None:
            warnings.warn(f"L1 (LP) weights for eps={eps[p]:g} failed with status "
                          f"{status!r}; using the L2 (QP) weights", RuntimeWarning,
                          stacklevel=3)
        else:
            W[p] = w


def row_losses(part, R, W, eps, loss):
    """Held-out loss per row and ε (n, P) for weights W (P, T) and Softmax predictions R
    (n, C); NaN where undefined.

    A row scored by a subset of its trees (``mask``: out of bag) uses the sub-forest model:
    the softmax over the subset (R) and the attention weights α restricted to the subset and
    renormalised, (1 − ε)·D + ε·w_S over (1 − ε) + ε·Σ_S w; only at ε = 1 with no w mass on
    the subset is the row not scored.
    """
    n, _, C = part.V.shape
    V = part.V if part.mask is None else part.V * part.mask[:, :, None]
    contamination = (stack(V) @ W.T).reshape(n, C, -1).transpose(0, 2, 1)  # (n, P, C)
    e = eps[None, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        prediction = (1.0 - e) * R[:, None, :] + e * contamination
        if part.mask is not None:
            prediction /= (1.0 - e) + e * (part.mask @ W.T)[:, :, None]
    return _loss(prediction - part.Y[:, None, :], loss)


def forest_losses(ctx, loss):
    """Held-out loss per row (n,) of the plain forest itself: the mean of the trees' own leaf
    values over all trees, or over the trees that did not draw the row (out of bag: what
    scikit-learn's ``oob_prediction_`` averages)."""
    part = ctx.val
    own = ctx.own_values[part.leaves]  # (n, T, C)
    trees = np.ones(part.leaves.shape) if part.mask is None else part.mask.astype(float)
    prediction = np.einsum("nt,ntc->nc", trees / trees.sum(axis=1, keepdims=True), own)
    return _loss(prediction - part.Y, loss)


def _loss(error, loss):
    return (error**2 if loss == "l2" else np.abs(error)).sum(axis=-1)


def search(contexts, main, eps_grid, kappas, loss, report, *, forest=True, seed=None):
    """Held-out losses of the plain forests (:data:`BASE_NAMES`) and of every (ε, κ) over the
    contexts' rows, and the one-standard-error choice among them (module docstring): ε, κ,
    which plain forest won (None: attention) and the table of every candidate (the
    estimator's ``search_results_``; the plain forests' rows have no ε or τ). Attention is
    kept only when the choice, cross-fitted over the held-out rows (folds shuffled with
    ``seed``), beats the plain forests' own choice on the rows it was not made on
    (:func:`~forestviz.selection.confirmed_one_standard_error`; the table gains
    ``confirmed_difference`` and ``confirmed_se`` when attention won the plain rule).
    ``forest=False``: the plain forests are scored for comparison but are not candidates
    (the user fixed ε or τ), and nothing is confirmed."""
    n_grid = len(kappas) * eps_grid.size
    blocks, weights = [], []
    scored = any(ctx.val is not None for ctx in contexts)
    steps = len(contexts) * len(kappas)
    for c, ctx in enumerate(contexts):
        if ctx.val is None:
            report("search", (c + 1) * len(kappas) / steps)
            continue
        block = np.empty((ctx.val.Y.shape[0], BASES + n_grid))
        block[:, 0] = forest_losses(ctx, loss)
        T = ctx.val.V.shape[1]
        block[:, 1] = row_losses(ctx.val, np.zeros(ctx.val.Y.shape), np.full((1, T), 1.0 / T),
                                 np.ones(1), loss)[:, 0]
        fits = ctx.halves or ((np.arange(ctx.val.Y.shape[0]), ctx),)
        W = [None] * len(fits)
        for i, kappa in enumerate(kappas):
            report("search", (c * len(kappas) + i) / steps)
            tau = kappa * ctx.median_distance
            R = combine(softmax_weights(-ctx.val.d / (2.0 * tau), ctx.val.mask), ctx.val.V)
            columns = slice(BASES + i * eps_grid.size, BASES + (i + 1) * eps_grid.size)
            for f, (rows, fit) in enumerate(fits):
                W[f], _ = weights_at(fit, tau, eps_grid, initial=W[f])
                block[rows, columns] = row_losses(subset(ctx.val, rows), R[rows], W[f],
                                                  eps_grid, loss)
        blocks.append(block)
        weights.append(ctx.val.weight)
    report("search", 1.0)
    kk, ee = np.meshgrid(np.arange(len(kappas)), np.arange(eps_grid.size), indexing="ij")
    kk, ee = kk.ravel(), ee.ravel()
    grid = pd.DataFrame({
        "candidate": "attention", "eps": eps_grid[ee], "kappa": np.asarray(kappas, float)[kk],
        "tau": np.asarray(kappas, float)[kk] * main.median_distance})
    frame = pd.concat([pd.DataFrame({"candidate": list(BASE_NAMES), "eps": np.nan,
                                     "kappa": np.nan, "tau": np.nan}), grid],
                      ignore_index=True)
    # simplest first: the forest, its leaf means, then the largest τ, then the largest ε
    order = np.concatenate([np.arange(BASES), BASES + np.lexsort((-eps_grid[ee], -kk))])
    if scored:
        losses, weight = np.concatenate(blocks)[:, order], np.concatenate(weights)
        selection = (confirmed_one_standard_error(losses, weight, n_bases=BASES,
                                                  random_state=seed) if forest else
                     one_standard_error(losses[:, BASES:], weight))
        table = selection.table
        if not forest:  # the forests' rows for comparison only, never selected
            best = losses[:, BASES + selection.best]
            shown = [(*weighted_mean_and_se(losses[:, b], weight),
                      *weighted_mean_and_se(losses[:, b] - best, weight)) for b in range(BASES)]
            table = pd.concat([pd.DataFrame({
                "validation_loss": [row[0] for row in shown],
                "standard_error": [row[1] for row in shown],
                "difference_to_best": [row[2] for row in shown],
                "difference_se": [row[3] for row in shown],
                "n_rows": [int(np.sum(np.isfinite(losses[:, b]) & (weight > 0)))
                           for b in range(BASES)],
                "selected": False}), table], ignore_index=True)
        table = table.iloc[np.argsort(order)].reset_index(drop=True)
        frame = pd.concat([frame, table], axis=1)
    else:
        frame = frame.assign(validation_loss=np.nan, standard_error=np.nan,
                             difference_to_best=np.nan, difference_se=np.nan, n_rows=0,
                             selected=False)
        fallback = int(np.flatnonzero(grid["kappa"] == 1.0)[0]) if 1.0 in kappas else 0
        if n_grid > 1:
            warnings.warn("no held-out rows to select (eps, tau); using the Softmax model "
                          "with kappa = 1", RuntimeWarning, stacklevel=3)
        else:
            fallback = 0
        frame.loc[BASES + fallback, "selected"] = True
    chosen = frame.loc[frame["selected"]].iloc[0]
    if chosen["candidate"] != "attention":
        return 1.0, 1.0, chosen["candidate"], frame
    return float(chosen["eps"]), float(chosen["kappa"]), None, frame
