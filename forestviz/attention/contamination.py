"""Fitting the contamination weights w of α = (1 − ε)·D + ε·w over a grid, for ABRF and
AGBoost alike (Utkin & Konstantinov, "Attention-based Random Forest and Contamination Model",
Eqs. 15-22; algorithms.md §1, and §2 for AGBoost, whose w solves the same problem with target
y − F_0).

For a contamination level ε and the Softmax predictions r_s = Σ_k D_k(x_s)·V_k(x_s) of the rows
fitting w (one r per τ, and for AGBoost per discount γ), w ∈ Δ_T minimises

    Σ_s ω_s·(y_s − (1 − ε)·r_s − ε·V_s·w)²                (Eq. 15, the QP), or
    Σ_s ω_s·|y_s − (1 − ε)·r_s − ε·V_s·w|                 (Eqs. 18-22, the LP).

With the Gram reduction G = VᵀΩV and VᵀΩy computed once per set of rows by the family (its
layout of V: ABRF stacks the classes, Eq. 30), a grid point enters the QP only through VᵀΩr
(:func:`~forestviz.attention.simplex.contamination_linear_terms`), so :func:`grid_weights`
solves a whole grid as one batch of T-dimensional QPs: by certified projected gradient with a
cvxpy fallback (:func:`~forestviz.attention.simplex.fit_contamination_weights`, warm-started
from a neighbouring τ), or by simplex NNLS (:func:`~forestviz.attention.simplex.simplex_nnls`,
exact on the ill-conditioned Gram matrices of boosting trees). :func:`l1_weights` replaces the
QP weights by the LP's. At ε = 0 w has no effect on α and is left uniform, 1/T. The mix
itself, (1 − ε)·D + ε·w, is :func:`~forestviz.attention.weights.contaminate`.
"""

from __future__ import annotations

import warnings

import numpy as np

from forestviz.attention.simplex import (
    contamination_linear_terms,
    fit_contamination_weights,
    simplex_nnls,
)


def grid_weights(gram, Vty, Vtr, eps, *, solver="qp", initial=None, lipschitz=None):
    """Contamination weights w (..., E, T) for every VᵀΩr of ``Vtr`` (..., T) and every ε of
    ``eps`` (E,), uniform where ε = 0.

    ``gram`` = VᵀΩV (T, T) and ``Vty`` = VᵀΩy (T,) of the rows fitting w. ``solver="qp"``:
    :func:`~forestviz.attention.simplex.fit_contamination_weights`, warm-started from
    ``initial`` (..., E, T) when given, ``lipschitz`` = λ_max(G) saving its eigenvalue;
    ``solver="nnls"``: :func:`~forestviz.attention.simplex.simplex_nnls`."""
    eps = np.asarray(eps, dtype=np.float64)
    Vtr = np.asarray(Vtr, dtype=np.float64)
    T = gram.shape[0]
    lead = Vtr.shape[:-1]
    W = np.full((*lead, eps.size, T), 1.0 / T)
    positive = eps > 0
    n_positive = int(positive.sum())
    if n_positive == 0:
        return W
    n_lead = int(np.prod(lead, dtype=np.intp))
    linear = np.repeat(Vtr.reshape(n_lead, T), n_positive, axis=0)
    levels = np.tile(eps[positive], n_lead)
    if solver == "nnls":
        fitted = simplex_nnls(gram, contamination_linear_terms(Vty, linear, levels))
    else:
        start = None if initial is None else initial[..., positive, :].reshape(-1, T)
        fitted = fit_contamination_weights(gram, Vty, linear, levels, initial=start,
                                           lipschitz=lipschitz).weights
    W[..., positive, :] = fitted.reshape(*lead, n_positive, T)
    return W


def l1_weights(lp, Y, R, weight, eps, W):
    """``W`` (E, T) with the weights of every ε > 0 replaced by the LP's (Eqs. 20-22): ``lp``
    the :class:`~forestviz.attention.simplex.SimplexLP` built on the rows' weighted stacked V,
    ``Y`` (n, C) their targets, ``R`` (n, C) their Softmax predictions and ``weight`` (n, 1)
    their row weights. A failed LP keeps the QP weights with a warning naming the solver
    status."""
    for p in np.flatnonzero(eps > 0):
        # Q_s of Eq. 17, y − (1 − ε)·r, weighted and divided by ε
        target = (weight * (Y - (1 - eps[p]) * R)).reshape(-1) / eps[p]
        w, status = lp.solve(target)
        if w is None:
            warnings.warn(f"L1 (LP) weights for eps={eps[p]:g} failed with status "
                          f"{status!r}; using the L2 (QP) weights", RuntimeWarning,
                          stacklevel=3)
        else:
            W[p] = w
    return W
