"""Selecting AGBoost's (ε, τ, γ) on held-out rows (Konstantinov, Utkin & Kirpichenko, "AGBoost:
Attention-based Modification of Gradient Boosting Machine"; algorithms.md §2).

A boosting ensemble is fitted on a random ``1 − validation_fraction`` of the rows, or one per
cross-validation fold (:func:`held_out_splits`: with ``cv="auto"``, :data:`AUTO_REPEATS` ×
:data:`AUTO_FOLDS` repeated folds when one split would hold out fewer than
:data:`SMALL_HELD_OUT` rows, where a single small split's noise decides; a row's losses are
averaged over the repeats, :func:`~forestviz.selection.pool_repeats`). w is fitted on those
rows for every grid point (:data:`~forestviz.attention.search.EPS_GRID` ×
:data:`~forestviz.attention.search.KAPPA_GRID` × :data:`~forestviz.boosting.weights.DISCOUNT_GRID`,
τ = κ·median training distance; all QPs of an ensemble share one Gram matrix and are solved by
simplex NNLS, :func:`~forestviz.attention.contamination.grid_weights`) and each point is scored
by its squared error on every held-out row (pooled over folds). The boosting machine itself
(equal tree weights) is a candidate too, unless ε is fixed, and the one-standard-error rule
chooses over the candidates ordered simplest first (:mod:`forestviz.selection.candidates`: the
machine, then the largest τ, ε and γ): attention only when it beats every simpler candidate by
more than the standard error of the paired difference and the rule, cross-fitted over the
held-out rows, still beats the machine on the rows it did not choose on (the best of 462 noisy
candidates is otherwise optimistic). When ε, τ and γ are all fixed nothing is searched.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import RepeatedKFold, ShuffleSplit, check_cv

from forestviz.attention.contamination import grid_weights
from forestviz.boosting.weights import Rows
from forestviz.selection import pool_repeats
from forestviz.selection.candidates import (
    candidate_table,
    choose,
    chosen,
    grid,
    single_candidate,
)
from forestviz.trees.contamination import contaminate

SMALL_HELD_OUT = 200
"""With ``cv="auto"``, fewer held-out rows than this in one ``validation_fraction`` split
select by :data:`AUTO_REPEATS` × :data:`AUTO_FOLDS`-fold cross-fitting instead (every row held
out once per repeat; a row's losses are averaged over the repeats)."""
AUTO_FOLDS = 5
AUTO_REPEATS = 3
SIMPLEST_FIRST = ("kappa", "eps", "discount")
"""The grid from the smoothest attention weights: the largest τ, then ε, then γ."""


def held_out_splits(model, X, y, rng) -> list:
    """The (fitting rows, held-out rows) pairs of ``model``'s ``cv`` and
    ``validation_fraction`` (module docstring), shuffled with ``rng``."""
    if model.cv == "auto" and X.shape[0] * model.validation_fraction < SMALL_HELD_OUT:
        return list(RepeatedKFold(n_splits=AUTO_FOLDS, n_repeats=AUTO_REPEATS,
                                  random_state=rng.randint(2**31 - 1)).split(X))
    if model.cv not in (None, "auto"):
        return list(check_cv(model.cv).split(X, y))
    return list(ShuffleSplit(1, test_size=model.validation_fraction,
                             random_state=rng.randint(2**31 - 1)).split(X))


def held_out_rows(ens, X, y, weight, rows) -> Rows:
    """The leaf quantities of the held-out ``rows`` under the ensemble ``ens`` fitted
    without them (one leaf lookup)."""
    d, V = ens.stats.query(X[rows])
    return Rows(d, V, y[rows] - ens.init, weight[rows])


def validation_losses(model, ens, held_out, pairs, eps_grid, report) -> np.ndarray:
    """Held-out squared errors (n, len(pairs)·len(eps_grid)) of every (γ, τ) in ``pairs``
    and ε (ε fastest), with w fitted on the ensemble's own rows (one Gram matrix, simplex
    NNLS) or uniform (``model.weights="uniform"``)."""
    T = len(ens.trees)
    R = np.empty((len(pairs), held_out.target.size))
    Vtr = np.empty((len(pairs), T))

    def softmax_parts(g, tau):
        """Held-out Softmax predictions and Vᵀ·diag(ω)·r of the fitting rows."""
        r = ens.rows.softmax_predictions(tau, g, model.discount_on)
        return (held_out.softmax_predictions(tau, g, model.discount_on),
                ens.rows.V.T @ (ens.rows.weight * r))

    parts = Parallel(n_jobs=model.n_jobs, prefer="threads", return_as="generator")(
        delayed(softmax_parts)(g, tau) for g, tau in pairs)
    for p, (r_held_out, vtr) in enumerate(parts):
        R[p], Vtr[p] = r_held_out, vtr
        report(0.8 * (p + 1) / len(pairs))
    if model.weights == "trained":
        W = grid_weights(ens.gram, ens.Vty, Vtr, eps_grid, solver="nnls")
    else:
        W = np.full((len(pairs), eps_grid.size, T), 1.0 / T)
    losses = np.empty((held_out.target.size, len(pairs), eps_grid.size))
    e = eps_grid[:, None]
    for p in range(len(pairs)):  # held-out predictions (ε, n) per (γ, τ)
        error = contaminate(R[p], W[p] @ held_out.V.T, e) - held_out.target
        losses[:, p] = (error**2).T
    report(1.0)
    return losses.reshape(held_out.target.size, -1)


def search(model, main, validations, eps_grid, kappas, discounts, report, seed=None):
    """Held-out squared errors of the boosting machine itself (equal weights) and of every
    (ε, τ, γ) over the (ensemble, held-out :class:`Rows`, their positions) ``validations``;
    the one-standard-error choice (module docstring). The machine is a candidate unless ε
    was fixed. ``kappas`` are the τ themselves when ``model.tau`` is fixed. Returns ε, τ (on
    the main ensemble's distance scale), γ, whether the machine won, and the table of every
    candidate (the estimator's ``search_results_``)."""
    auto_tau = model.tau == "auto"
    pairs = [(g, k) for g in discounts for k in range(kappas.size)]
    blocks, positions, weights = [], [], []
    for v, (ens, held_out, rows) in enumerate(validations):
        positions.append(rows)
        weights.append(held_out.weight)
        unit = ens.median_distance if auto_tau else 1.0
        base = (held_out.V.mean(axis=1) - held_out.target) ** 2
        blocks.append(np.column_stack([base, validation_losses(
            model, ens, held_out, [(g, kappas[k] * unit) for g, k in pairs], eps_grid,
            lambda fraction, v=v: report("search", (v + fraction) / len(validations)))]))
    report("search", 1.0)
    table = candidate_table(["base"], _points(discounts, kappas, eps_grid, auto_tau,
                                              main.median_distance))
    if validations:
        losses, weight = pool_repeats(np.concatenate(blocks), np.concatenate(positions),
                                      np.concatenate(weights))
        table = choose(table, losses, weight, n_bases=1, keys=SIMPLEST_FIRST,
                       bases_compete=model.eps == "auto", random_state=seed)
    else:
        table = single_candidate(table, 1)
    row = chosen(table)
    if row["candidate"] == "base":
        return 1.0, float(main.median_distance), 1.0, True, table
    return float(row["eps"]), float(row["tau"]), float(row["discount"]), False, table


def _points(discounts, kappas, eps_grid, auto_tau, unit):
    """The grid (γ outermost, ε fastest) with κ and τ = κ·``unit``: ``kappas`` are κ when
    ``auto_tau``, else the fixed τ themselves."""
    if auto_tau:
        points = grid({"discount": discounts, "kappa": kappas, "eps": eps_grid})
        points = points.assign(tau=points["kappa"] * unit)
    else:
        points = grid({"discount": discounts, "tau": kappas, "eps": eps_grid})
        points = points.assign(kappa=points["tau"] / unit)
    return points[["eps", "discount", "kappa", "tau"]]
