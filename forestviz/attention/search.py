"""Selecting (ε, τ) for the ABRF models (Utkin & Konstantinov, "Attention-based Random Forest
and Contamination Model"; algorithms.md §1).

τ is relative to the data, τ = κ·median d over the training rows, κ on :data:`KAPPA_GRID`. The
weights w are fitted on the forest's training rows, as in the paper, for every point of the
grid (:data:`EPS_GRID` × :data:`KAPPA_GRID`) through one Gram matrix
(:mod:`forestviz.attention.contamination`). Each point is scored on held-out rows: K-fold
forests, the out-of-bag rows of the one forest, or a validation split
(:mod:`forestviz.attention.context`, one :class:`~forestviz.attention.context.Context` per
forest); :func:`search` scores the grid over the contexts. The validation loss is the squared
error, or the absolute error for ``loss="l1"`` (for classification summed over the class
probabilities, as the paper's Eq. 30), per held-out row; lower is better.

The plain forest is a candidate too, twice (:data:`BASE_NAMES`): ``"base"``, exactly as
scikit-learn predicts with it (equal weights, each tree's own leaf value from its bootstrap
sample; out of bag, the mean over the trees that did not draw the row), and ``"base (leaf
means)"``, equal weights over the leaf means of all training rows that every attention
candidate uses (out of bag, the leave-one-out means). The second has less variance; without it,
on pure noise attention at a large τ (nearly equal weights) would beat the forest through its
leaf values alone and be chosen as "attention".
The choice is the one-standard-error rule of :mod:`forestviz.selection` over the candidates
ordered simplest first (:mod:`forestviz.selection.candidates`): the forest, then the attention
grid from the smoothest weights (the largest τ, then the largest ε: weights that vary least
from row to row) to the sharpest. The
best of 77 grid points looks better on the rows that chose it than it is (the winner's curse),
so attention is then confirmed: the rule is redone without each fifth of the held-out rows and
must beat the plain forests (chosen between them the same way) on the fifth left out by two
standard errors, or the plain forest is kept
(:func:`~forestviz.selection.confirmed_one_standard_error`, as for AGBoost).
"""

from __future__ import annotations

import numpy as np

from forestviz.attention.contamination import grid_weights, l1_weights
from forestviz.attention.context import subset
from forestviz.attention.weights import combine, softmax_weights, stack
from forestviz.selection.candidates import (
    candidate_table,
    choose,
    chosen,
    grid,
    single_candidate,
)
from forestviz.trees.contamination import contaminate

BASE_NAMES = ("base", "base (leaf means)")
"""The two plain forests of the search: its own leaf values, and the leaf means of all rows."""
BASES = len(BASE_NAMES)
EPS_GRID = np.round(np.linspace(0.0, 1.0, 11), 2)
"""Contamination levels tried when ``eps="auto"`` (algorithms.md §1)."""
KAPPA_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
"""τ = κ·median training distance, κ tried when ``tau="auto"`` **[resolved]**."""
SIMPLEST_FIRST = ("kappa", "eps")
"""The grid from the smoothest attention weights: the largest τ, then the largest ε."""


def weights_at(ctx, tau, eps, initial=None):
    """Contamination weights (P, T) for every ε at τ on ``ctx``'s training rows (QP, or
    LP for ``loss="l1"``, :mod:`forestviz.attention.contamination`) and the Softmax
    predictions R of those rows. ``initial`` (P, T) warm-starts the QP solver."""
    part = ctx.train
    R = combine(softmax_weights(-part.d / (2.0 * tau)), part.V)
    Vtr = stack(part.V * part.weight[:, None, None]).T @ R.reshape(-1)
    W = grid_weights(ctx.gram, ctx.Vty, Vtr, eps, initial=initial, lipschitz=ctx.lipschitz)
    if ctx.lp is not None and np.any(eps > 0):
        rows, lp = ctx.lp
        l1_weights(lp, part.Y[rows], R[rows], part.weight[rows, None], eps, W)
    return W, R


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
        prediction = contaminate(R[:, None, :], contamination, e)
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


def context_losses(ctx, eps_grid, kappas, loss, report) -> np.ndarray:
    """Held-out losses (n, BASES + len(kappas)·len(eps_grid)) of ``ctx``'s scoring rows: the
    plain forests (:data:`BASE_NAMES`), then every (κ, ε), ε fastest. Out of bag, each half
    of the rows is scored with w fitted on the other half (``ctx.halves``);
    ``report(fraction)`` follows the κ."""
    val = ctx.val
    block = np.empty((val.Y.shape[0], BASES + len(kappas) * eps_grid.size))
    block[:, 0] = forest_losses(ctx, loss)
    T = val.V.shape[1]
    block[:, 1] = row_losses(val, np.zeros(val.Y.shape), np.full((1, T), 1.0 / T),
                             np.ones(1), loss)[:, 0]
    fits = ctx.halves or ((np.arange(val.Y.shape[0]), ctx),)
    W = [None] * len(fits)
    for i, kappa in enumerate(kappas):
        report(i / len(kappas))
        tau = kappa * ctx.median_distance
        R = combine(softmax_weights(-val.d / (2.0 * tau), val.mask), val.V)
        columns = slice(BASES + i * eps_grid.size, BASES + (i + 1) * eps_grid.size)
        for f, (rows, fit) in enumerate(fits):
            W[f], _ = weights_at(fit, tau, eps_grid, initial=W[f])
            block[rows, columns] = row_losses(subset(val, rows), R[rows], W[f], eps_grid, loss)
    return block


def search(contexts, main, eps_grid, kappas, loss, report, *, forest=True, seed=None):
    """Held-out losses of the plain forests (:data:`BASE_NAMES`) and of every (ε, κ) over the
    contexts' rows, and the one-standard-error choice among them (module docstring): ε, κ,
    which plain forest won (None: attention) and the table of every candidate (the
    estimator's ``search_results_``; the plain forests' rows have no ε or τ). Attention is
    kept only when the choice, cross-fitted over the held-out rows (folds shuffled with
    ``seed``), beats the plain forests' own choice on the rows it was not made on
    (:func:`~forestviz.selection.candidates.choose`; the table gains
    ``confirmed_difference`` and ``confirmed_se`` when attention won the plain rule).
    ``forest=False``: the plain forests are scored for comparison but are not candidates
    (the user fixed ε or τ), and nothing is confirmed."""
    points = grid({"kappa": kappas, "eps": eps_grid})
    points = points[["eps", "kappa"]].assign(tau=points["kappa"] * main.median_distance)
    table = candidate_table(BASE_NAMES, points)
    blocks, weights = [], []
    for c, ctx in enumerate(contexts):
        if ctx.val is not None:
            blocks.append(context_losses(
                ctx, eps_grid, kappas, loss,
                lambda fraction, c=c: report("search", (c + fraction) / len(contexts))))
            weights.append(ctx.val.weight)
        report("search", (c + 1) / len(contexts))
    if blocks:
        table = choose(table, np.concatenate(blocks), np.concatenate(weights), n_bases=BASES,
                       keys=SIMPLEST_FIRST, bases_compete=forest, random_state=seed)
    else:
        table = single_candidate(table, BASES)
    row = chosen(table)
    if row["candidate"] != "attention":
        return 1.0, 1.0, row["candidate"], table
    return float(row["eps"]), float(row["kappa"]), None, table
