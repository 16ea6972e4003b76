"""Training ABRF-2 and ABRF-3 from a fitted search (Utkin & Konstantinov, "Attention-based
Random Forest and Contamination Model", Eqs. 23-24; algorithms.md §1).

The tree temperatures v, feature weights z and, for ABRF-3, the contamination weights w are
trained by L-BFGS on analytic gradients (:mod:`forestviz.attention.gradients`) from the Softmax
model (ABRF-2) or the fitted ABRF-1 model (ABRF-3), with a small L2 penalty and early stopping
on the held-out rows of the first context (:mod:`forestviz.attention.context`) — the paper
notes that ABRF-2/3 overfit. The trained parameters are kept only when they beat their
starting point by more than the noise of those rows (the one-standard-error rule of
:mod:`forestviz.selection`); with a separate validation forest, the best iteration count is
then rerun on all rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import softmax

from forestviz.attention.gradients import AttentionProblem, TrainingResult, train_attention
from forestviz.attention.search import weights_at
from forestviz.selection import one_standard_error

GRADIENT_ROW_CAP = 4000
"""ABRF-2/3 train on (and early-stop on) at most this many rows, drawn with ``random_state``,
because their gradient needs the (rows × T × m) squared differences."""
PENALTY = 1e-3
"""L2 penalty on θ and φ (ABRF-2/3), relative to the variance of the targets."""


@dataclass(frozen=True)
class Trained:
    """The outcome of training: the iterations kept (0: the starting point), the tree
    temperatures v (T,), the feature weights z (m,) and, for ABRF-3, w (T,) (else None)."""

    n_iter: int
    v: np.ndarray
    z: np.ndarray
    w: np.ndarray | None


def problem(stats, part, X, tau, eps, rng) -> AttentionProblem:
    """The training or validation problem of the rows of ``part`` at temperature ``tau`` and
    contamination ``eps``, on at most :data:`GRADIENT_ROW_CAP` of them (drawn with ``rng``)."""
    n = part.rows.size
    sub = (np.sort(rng.choice(n, GRADIENT_ROW_CAP, replace=False))
           if n > GRADIENT_ROW_CAP else np.arange(n))
    Q = stats.differences(X[part.rows[sub]]) ** 2
    if part.scale is not None:
        Q *= part.scale[sub][:, :, None]
    weight = part.weight[sub] / part.weight[sub].sum()
    return AttentionProblem(Q, part.V[sub], part.Y[sub], weight, tau, eps,
                            None if part.mask is None else part.mask[sub])


def train_gradient(mode, eps, final_tau, X, contexts, main, kappa, rng, report) -> Trained:
    """ABRF-2/3 (``mode``) at the chosen contamination ``eps`` and κ: L-BFGS from the Softmax
    (ABRF-2) or the fitted ABRF-1 model (ABRF-3) with early stopping on the held-out rows of
    the first context; with a separate validation forest the best iteration count is then
    rerun on ``main``'s rows at ``final_tau``. ``report(stage, fraction)`` follows
    ``"gradient"``."""
    ctx = contexts[0]
    tau = kappa * ctx.median_distance
    T, m = len(ctx.forest.estimators_), X.shape[1]
    problem_eps = eps if mode == "abrf3" else 0.0

    def initial(context, tau):
        if mode == "abrf2":
            return np.zeros(T + m)
        w = weights_at(context, tau, np.array([eps]))[0][0]
        return np.concatenate([np.zeros(T + m), np.log(np.maximum(w, 1e-6))])

    train = problem(ctx.stats, ctx.train, X, tau, problem_eps, rng)
    penalty = PENALTY * float(np.einsum("s,sc->", train.weight,
                                        (train.Y - train.weight @ train.Y) ** 2))
    validation = (None if ctx.val is None else
                  problem(ctx.stats, ctx.val, X, tau, problem_eps, rng))
    start = initial(ctx, tau)
    result = train_attention(train, start, validation=validation, penalty=penalty,
                             progress=lambda fraction: report("gradient", fraction))
    if validation is not None and result.best_iteration > 0:
        # the trained parameters must beat their starting point by more than the noise of
        # the held-out rows (the one-standard-error rule), or training is dropped
        errors = np.column_stack([validation.errors(start), validation.errors(result.params)])
        if one_standard_error(errors, validation.weight).chosen == 0:
            result = TrainingResult(start, 0, result.history)
    params = result.params
    if ctx is not main:
        params = initial(main, final_tau)
        if result.best_iteration > 0:
            final = problem(main.stats, main.train, X, final_tau, problem_eps, rng)
            params = train_attention(final, params, penalty=penalty,
                                     max_iter=result.best_iteration).params
    report("gradient", 1.0)
    return Trained(result.best_iteration, np.exp(params[:T]) / final_tau,
                   m * softmax(params[T:T + m]),
                   softmax(params[T + m:]) if mode == "abrf3" else None)
