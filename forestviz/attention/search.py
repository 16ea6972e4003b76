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
contexts. The validation loss is the mean squared error, or the mean absolute error for
``loss="l1"``; for classification over the class probabilities, as the paper's Eq. 30;
lower is better.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from forestviz.attention.simplex import LP_ROW_CAP, SimplexLP, fit_contamination_weights
from forestviz.attention.weights import (
    combine,
    contaminate,
    distances,
    median_distance,
    softmax_weights,
    stack,
)
from forestviz.trees.leaf_stats import LeafStats
from forestviz.trees.leaf_values import spread_columns

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
    train: Part
    val: Part | None
    gram: np.ndarray  # G = Σ_s ω_s V_sᵀV_s (T, T)
    Vty: np.ndarray  # Σ_s ω_s V_sᵀY_s (T,)
    lipschitz: float  # λ_max(G)
    lp: tuple | None = None  # (rows, SimplexLP) for loss="l1", built once per forest

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


def make_context(forest, stats: LeafStats, classes, X, Y, weight, fit_rows, val_rows, rng, *,
                 oob, loss) -> Context:
    """A forest fitted on ``fit_rows`` with its leaf statistics (``classes``: the estimator's,
    None for regression), the Gram reduction of those rows, and the validation part:
    ``val_rows``, the out-of-bag rows (``oob``) or none."""
    values = stats.leaf_values.reshape(stats.leaf_values.shape[0], -1)
    if classes is not None:
        values = spread_columns(values, np.searchsorted(classes, stats.classes), classes.size)
    train = leaf_part(stats, values, X, Y, weight, fit_rows)
    val = (oob_part(forest, stats, train) if oob else
           None if val_rows is None else leaf_part(stats, values, X, Y, weight, val_rows))
    weighted = stack(train.V * train.weight[:, None, None])
    gram = stack(train.V * np.sqrt(train.weight)[:, None, None])
    gram = gram.T @ gram
    lp = None
    if loss == "l1":  # the LP is built once per forest, on at most LP_ROW_CAP rows
        n, C = train.Y.shape
        cap = max(LP_ROW_CAP // C, 1)
        rows = np.sort(rng.choice(n, cap, replace=False)) if n > cap else np.arange(n)
        lp = (rows, SimplexLP(stack(train.V[rows] * train.weight[rows, None, None])))
    return Context(forest, stats, values, train, val, gram,
                   weighted.T @ train.Y.reshape(-1), float(np.linalg.eigvalsh(gram)[-1]), lp)


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


def validation_loss(part, R, W, eps, loss):
    """Validation loss per ε (P,) for weights W (P, T) and Softmax predictions R (n, C).

    A row scored by a subset of trees (``mask``) uses the sub-forest model: the softmax over
    the subset (R) and w renormalised over it; a row whose subset carries no w mass is left
    out of that ε's loss.
    """
    n, _, C = part.V.shape
    V = part.V if part.mask is None else part.V * part.mask[:, :, None]
    contamination = (stack(V) @ W.T).reshape(n, C, -1).transpose(0, 2, 1)  # (n, P, C)
    if part.mask is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            contamination = contamination / (part.mask @ W.T)[:, :, None]
    e = eps[None, :, None]
    with np.errstate(invalid="ignore"):
        prediction = np.where(e == 0, R[:, None, :], contaminate(R[:, None, :], contamination, e))
    error = prediction - part.Y[:, None, :]
    per_row = (error**2 if loss == "l2" else np.abs(error)).sum(axis=2)  # (n, P)
    ok = np.isfinite(per_row)
    total = (np.where(ok, per_row, 0.0) * part.weight[:, None]).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / (ok * part.weight[:, None]).sum(axis=0)


def search(contexts, main, eps_grid, kappas, loss, report):
    """Validation loss of every (ε, κ), summed over the contexts: the best pair and the table
    of every pair with its loss (the estimator's ``search_results_``)."""
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
            W, _ = weights_at(ctx, tau, eps_grid, initial=W)
            R = combine(softmax_weights(-ctx.val.d / (2.0 * tau), ctx.val.mask), ctx.val.V)
            losses[i] += validation_loss(ctx.val, R, W, eps_grid, loss)
    report("search", 1.0)
    if not scored:
        losses[:] = np.nan
    kk, ee = np.meshgrid(np.arange(len(kappas)), np.arange(eps_grid.size), indexing="ij")
    results = pd.DataFrame({
        "eps": eps_grid[ee.ravel()], "kappa": np.asarray(kappas)[kk.ravel()],
        "tau": np.asarray(kappas)[kk.ravel()] * main.median_distance,
        "validation_loss": losses.ravel()})
    if np.isfinite(losses).any():
        i, e = np.unravel_index(np.nanargmin(losses), losses.shape)
        return float(eps_grid[e]), float(kappas[i]), results
    if losses.size > 1:
        warnings.warn("no held-out rows to select (eps, tau); using the Softmax model "
                      "with kappa = 1", RuntimeWarning, stacklevel=3)
        return 0.0, 1.0 if 1.0 in kappas else float(kappas[0]), results
    return float(eps_grid[0]), float(kappas[0]), results
