"""Simplex-constrained least squares for contamination weights (algorithms.md §1, §2).

The ABRF-1 weights (and AGBoost's) solve, for a batch of contamination levels ε and
linear terms,

    min_w ||q − ε·V·w||²  over the unit simplex Δ_T,   q = y − (1 − ε)·r,

the QP of Eq. 15 of Utkin & Konstantinov, "Attention-based Random Forest and Contamination
Model" (q is its Q_s of Eq. 17). With the Gram reduction G = VᵀV (T × T, computed once) the
objective divided by ε² is wᵀGw − 2·bᵀw + const with b = Vᵀq / ε, so every grid point is a
T-dimensional QP whatever n is. :func:`solve_simplex_qp` solves a whole batch of such QPs at
once by accelerated projected gradient (FISTA with adaptive restart) and certifies each one
with the Frank-Wolfe duality gap; :class:`SimplexQP` is the same problem as a cvxpy DPP
problem built once (used as the fallback and to verify the fast solver); :class:`SimplexLP`
is the L1 loss (Eq. 18, as the LP of Eqs. 20-22) as a DPP linear program. cvxpy is imported
when one of these is built (a third of a second): the fast solver needs none of it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

LP_ROW_CAP = 5000
"""The L1 problem has n + T variables; :class:`SimplexLP` is fitted on at most this many rows
(drawn with the caller's seed) so its cost stays bounded for large n (algorithms.md §1)."""

_SOLVED = ("optimal", "optimal_inaccurate")


def project_simplex(V: np.ndarray) -> np.ndarray:
    """Euclidean projection of every row of ``V`` (P × T) onto the unit simplex.

    The sort-based algorithm of Held, Wolfe & Crowder (1974), vectorised over rows.
    """
    V = np.atleast_2d(V)
    T = V.shape[1]
    U = -np.sort(-V, axis=1)
    cumulative = np.cumsum(U, axis=1) - 1.0
    ks = np.arange(1, T + 1)
    support = np.count_nonzero(U - cumulative / ks > 0, axis=1)
    theta = cumulative[np.arange(V.shape[0]), support - 1] / support
    return np.maximum(V - theta[:, None], 0.0)


@dataclass(frozen=True)
class SimplexResult:
    """Weights (P × T), objective wᵀGw − 2bᵀw, Frank-Wolfe gap and status per problem."""

    weights: np.ndarray
    objective: np.ndarray
    gap: np.ndarray
    status: np.ndarray


def _objective(G, B, W):
    return np.einsum("pt,pt->p", W @ G, W) - 2.0 * np.einsum("pt,pt->p", B, W)


def _fw_gap(G, B, W):
    """Frank-Wolfe gap wᵀ∇f − min_k ∇f_k ≥ f(w) − f* of f = wᵀGw − 2bᵀw."""
    grad = 2.0 * (W @ G - B)
    return np.einsum("pt,pt->p", W, grad) - grad.min(axis=1)


def solve_simplex_qp(G, B, *, initial=None, lipschitz=None, tol=1e-7, max_iter=20000,
                     check_every=10) -> SimplexResult:
    """min_w wᵀGw − 2bᵀw over Δ_T for every row b of ``B`` (P × T) at once.

    FISTA with step 1/L (L = 2·λ_max(G)) and gradient restart (O'Donoghue & Candès 2015),
    started from ``initial`` (P × T, e.g. the solutions at a neighbouring τ) or uniform
    weights; ``lipschitz`` = λ_max(G) may be passed when G is reused. Every ``check_every``
    iterations a row stops when its Frank-Wolfe gap wᵀ∇f − min_k ∇f_k (an upper bound of
    f(w) − f*) is at most ``tol`` times the problem scale λ_max(G) + max|b|. Rows that do
    not reach it get status ``"max_iter"`` and keep their last iterate (a feasible point).
    """
    G = np.asarray(G, dtype=np.float64)
    B = np.atleast_2d(np.asarray(B, dtype=np.float64))
    P, T = B.shape
    lam = max(float(np.linalg.eigvalsh(G)[-1]) if lipschitz is None else lipschitz, 1e-300)
    step = 1.0 / (2.0 * lam)
    threshold = tol * (lam + np.abs(B).max(axis=1))
    W = np.full((P, T), 1.0 / T) if initial is None else project_simplex(initial)
    Y, t = W.copy(), np.ones(P)
    gap = _fw_gap(G, B, W)
    idx = np.flatnonzero(gap > threshold)
    for iteration in range(1, max_iter + 1):
        if idx.size == 0:
            break
        grad_y = 2.0 * (Y[idx] @ G - B[idx])
        W_new = project_simplex(Y[idx] - step * grad_y)
        restart = np.einsum("pt,pt->p", grad_y, W_new - W[idx]) > 0
        t_new = np.where(restart, 1.0, 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t[idx] ** 2)))
        momentum = np.where(restart, 0.0, (t[idx] - 1.0) / t_new)[:, None]
        Y[idx] = W_new + momentum * (W_new - W[idx])
        W[idx], t[idx] = W_new, t_new
        if iteration % check_every == 0:
            gap[idx] = _fw_gap(G, B[idx], W_new)
            idx = idx[gap[idx] > threshold[idx]]
    gap = _fw_gap(G, B, W)
    status = np.where(gap <= threshold, "optimal", "max_iter").astype(object)
    return SimplexResult(W, _objective(G, B, W), gap, status)


def _solve(problem, w, solver) -> tuple[np.ndarray | None, str]:
    """Solve a built cvxpy problem: the weights on the simplex (or None) and the status."""
    import cvxpy as cp

    try:
        problem.solve(solver=solver)
    except cp.SolverError as error:
        return None, f"solver_error: {error}"
    if problem.status not in _SOLVED or w.value is None:
        return None, str(problem.status)
    return project_simplex(w.value)[0], str(problem.status)


class SimplexQP:
    """min_w wᵀGw − 2bᵀw over Δ_T as a cvxpy DPP problem: built once per G, b a parameter.

    G is factored as LLᵀ (eigendecomposition, clipped at 0) so the objective is
    ||Lᵀw||² − 2bᵀw with constant L: disciplined parametrised (DPP), re-solved cheaply.
    """

    def __init__(self, G, solver="CLARABEL"):
        import cvxpy as cp

        G = np.asarray(G, dtype=np.float64)
        values, vectors = np.linalg.eigh((G + G.T) / 2.0)
        factor = vectors * np.sqrt(np.clip(values, 0.0, None))
        T = G.shape[0]
        self.solver = solver
        self.b = cp.Parameter(T)
        self.w = cp.Variable(T, nonneg=True)
        objective = cp.sum_squares(factor.T @ self.w) - 2.0 * (self.b @ self.w)
        self.problem = cp.Problem(cp.Minimize(objective), [cp.sum(self.w) == 1.0])
        self.G = G

    def solve(self, b) -> tuple[np.ndarray | None, str]:
        """Weights (or None) and the solver's status for one linear term b."""
        self.b.value = np.asarray(b, dtype=np.float64)
        return _solve(self.problem, self.w, self.solver)


class SimplexLP:
    """min_w Σ_s |c_s − (Vw)_s| over Δ_T (Eqs. 20-22 divided by ε) as a DPP LP.

    Built once per V (at most :data:`LP_ROW_CAP` rows; the caller samples them), with the
    target c = q/ε as the parameter. The optimum equals the mean absolute error times n.
    """

    def __init__(self, V, solver="HIGHS"):
        import cvxpy as cp

        V = np.asarray(V, dtype=np.float64)
        if V.shape[0] > LP_ROW_CAP:
            raise ValueError(f"SimplexLP takes at most {LP_ROW_CAP} rows, got {V.shape[0]}")
        self.solver = solver
        self.c = cp.Parameter(V.shape[0])
        self.w = cp.Variable(V.shape[1], nonneg=True)
        residual = self.c - V @ self.w
        self.problem = cp.Problem(cp.Minimize(cp.sum(cp.abs(residual))),
                                  [cp.sum(self.w) == 1.0])

    def solve(self, c) -> tuple[np.ndarray | None, str]:
        """Weights (or None) and the solver's status for one target vector c."""
        self.c.value = np.asarray(c, dtype=np.float64)
        with np.errstate(invalid="ignore"):  # cvxpy's bound propagation on |c − Vw|
            return _solve(self.problem, self.w, self.solver)


def contamination_linear_terms(Vty, Vtr, eps) -> np.ndarray:
    """b = Vᵀq/ε = (Vᵀy − (1 − ε)·Vᵀr)/ε for each ε > 0 (P × T); Vtr is (T,) or (P, T)."""
    eps = np.asarray(eps, dtype=np.float64)
    return (np.asarray(Vty)[None, :] - (1.0 - eps)[:, None] * np.atleast_2d(Vtr)) / eps[:, None]


def fit_contamination_weights(G, Vty, Vtr, eps, *, initial=None, lipschitz=None, tol=1e-7,
                              max_iter=20000) -> SimplexResult:
    """Contamination weights w ∈ Δ_T minimising ||y − (1−ε)·r − ε·V·w||² for a batch of ε.

    ``G = VᵀV``, ``Vty = Vᵀy`` (T,), ``Vtr = Vᵀr`` with r the Softmax prediction (T,) or
    one per ε (P, T); ``eps`` (P,) with every ε > 0 (at ε = 0 the weights play no role);
    ``initial`` (P, T) warm-starts the solver, ``lipschitz`` = λ_max(G) saves its eigenvalue.
    The batch goes through :func:`solve_simplex_qp`; a problem it leaves unconverged is
    re-solved by the cvxpy DPP problem :class:`SimplexQP` (built once for G), and if that
    fails too a ``RuntimeWarning`` names both statuses and the best projected-gradient iterate
    is kept (feasible, within the reported gap of the optimum) — never uniform weights.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    if np.any(eps <= 0):
        raise ValueError("fit_contamination_weights needs every eps > 0")
    B = contamination_linear_terms(Vty, Vtr, eps)
    result = solve_simplex_qp(G, B, initial=initial, lipschitz=lipschitz, tol=tol,
                              max_iter=max_iter)
    unconverged = np.flatnonzero(result.status != "optimal")
    if unconverged.size:
        fallback = SimplexQP(G)
        for p in unconverged:
            w, status = fallback.solve(B[p])
            if w is None:
                warnings.warn(
                    f"simplex QP for eps={eps[p]:g} did not converge (projected gradient: "
                    f"gap {result.gap[p]:.3g}; cvxpy: {status}); keeping the best "
                    "projected-gradient iterate", RuntimeWarning, stacklevel=2)
                continue
            result.weights[p] = w
            result.status[p] = f"cvxpy_{status}"
        result = SimplexResult(result.weights, _objective(G, B, result.weights),
                               _fw_gap(G, B, result.weights), result.status)
    return result


NNLS_PENALTY = 1e3
"""M / sqrt(λ_max(G)) of the least-squares row that enforces Σw = 1 in :func:`simplex_nnls`."""


def simplex_nnls(G, B) -> np.ndarray:
    """min_w wᵀGw − 2bᵀw over Δ_T for every row b of ``B`` (P × T), by non-negative least
    squares: the grid search's QPs (:func:`fit_contamination_weights` certifies the final weights).

    With G = RᵀR, R = Λ^{1/2}Qᵀ over the positive eigenvalues, and b in the range of G (true for
    b = Vᵀq), the objective is ||Rw − c||² + const with c = Λ^{−1/2}Qᵀb. The constraint Σw = 1
    is one more least-squares row M·(Σw − 1), M = :data:`NNLS_PENALTY`·sqrt(λ_max), so each
    problem is one Lawson-Hanson NNLS of size T + 1; the O(1/M²) error in Σw is removed by
    renormalising. It is exact where projected gradient needs thousands of iterations on the
    ill-conditioned Gram matrices of boosting trees (whose early trees dominate λ_max); a
    problem NNLS does not finish goes to :func:`solve_simplex_qp`.
    """
    lam, Q = np.linalg.eigh(G)
    lam_max = max(float(lam[-1]), 1e-300)
    keep = lam > lam_max * 1e-12
    root = np.sqrt(lam[keep])
    penalty = NNLS_PENALTY * np.sqrt(lam_max)
    A = np.vstack([root[:, None] * Q[:, keep].T, np.full((1, G.shape[0]), penalty)])
    C = np.column_stack([(B @ Q[:, keep]) / root, np.full(B.shape[0], penalty)])
    W = np.empty(B.shape)
    for p, c in enumerate(C):
        try:
            W[p] = nnls(A, c, maxiter=50 * A.shape[1])[0]
        except RuntimeError:  # iteration limit
            W[p] = solve_simplex_qp(G, B[p]).weights[0]
    return W / W.sum(axis=1, keepdims=True)
