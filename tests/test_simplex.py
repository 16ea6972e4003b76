"""The simplex QP/LP solvers against cvxpy and the problems' own definitions."""

import cvxpy as cp
import numpy as np
import pytest

from forestviz.attention.simplex import (
    LP_ROW_CAP,
    SimplexLP,
    SimplexQP,
    contamination_linear_terms,
    fit_contamination_weights,
    project_simplex,
    solve_simplex_qp,
)


def _problem(seed, n=60, T=12):
    """Correlated 'tree predictions' V (like a forest's), targets y and a softmax part r."""
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=n)
    V = signal[:, None] + 0.5 * rng.normal(size=(n, T))
    y = 1.5 * signal + 0.3 * rng.normal(size=n)
    D = rng.dirichlet(np.ones(T), size=n)
    return V, y, np.einsum("st,st->s", D, V)


def test_projection_matches_cvxpy_and_lands_on_simplex():
    rng = np.random.default_rng(0)
    points = rng.normal(scale=2.0, size=(5, 7))
    projected = project_simplex(points)
    assert np.all(projected >= 0)
    np.testing.assert_allclose(projected.sum(axis=1), 1.0)
    for point, result in zip(points, projected, strict=True):
        w = cp.Variable(7)
        cp.Problem(cp.Minimize(cp.sum_squares(w - point)), [w >= 0, cp.sum(w) == 1]).solve()
        np.testing.assert_allclose(result, w.value, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batched_projected_gradient_matches_dpp_cvxpy(seed):
    V, y, r = _problem(seed)
    G = V.T @ V
    eps = np.array([0.1, 0.5, 1.0])
    B = contamination_linear_terms(V.T @ y, V.T @ r, eps)
    fast = solve_simplex_qp(G, B)
    assert np.all(fast.status == "optimal")
    qp = SimplexQP(G)  # built once, re-solved for each b
    for p in range(eps.size):
        w, status = qp.solve(B[p])
        assert status == "optimal"
        reference = w @ G @ w - 2 * B[p] @ w
        assert fast.objective[p] <= reference + 1e-6 * abs(reference)
        assert fast.gap[p] >= fast.objective[p] - reference - 1e-9  # the gap bounds the excess


@pytest.mark.parametrize("eps", [0.2, 0.7, 1.0])
def test_gram_reduction_equals_the_direct_qp(eps):
    V, y, r = _problem(3, n=40, T=8)
    result = fit_contamination_weights(V.T @ V, V.T @ y, V.T @ r, [eps])
    w = cp.Variable(8, nonneg=True)
    q = y - (1 - eps) * r
    direct = cp.Problem(cp.Minimize(cp.sum_squares(q - eps * V @ w)), [cp.sum(w) == 1])
    direct.solve(solver="CLARABEL")
    ours = np.sum((q - eps * V @ result.weights[0]) ** 2)
    np.testing.assert_allclose(ours, direct.value, rtol=1e-6)
    np.testing.assert_allclose(result.weights[0], w.value, atol=1e-3)


def test_unconverged_rows_fall_back_to_cvxpy():
    V, y, r = _problem(4)
    G, eps = V.T @ V, np.array([0.5])
    result = fit_contamination_weights(G, V.T @ y, V.T @ r, eps, max_iter=1)
    assert result.status[0] == "cvxpy_optimal"
    reference = solve_simplex_qp(G, contamination_linear_terms(V.T @ y, V.T @ r, eps))
    np.testing.assert_allclose(result.objective, reference.objective, rtol=1e-5)


def test_warm_start_reaches_the_same_optimum():
    V, y, r = _problem(5)
    G = V.T @ V
    B = contamination_linear_terms(V.T @ y, V.T @ r, np.array([0.3, 0.9]))
    cold = solve_simplex_qp(G, B)
    warm = solve_simplex_qp(G, B, initial=cold.weights[::-1])
    np.testing.assert_allclose(warm.objective, cold.objective, rtol=1e-7)


def test_eps_must_be_positive():
    V, y, r = _problem(6)
    with pytest.raises(ValueError, match="eps > 0"):
        fit_contamination_weights(V.T @ V, V.T @ y, V.T @ r, [0.0, 0.5])


def test_lp_objective_is_the_absolute_error_and_matches_eqs_20_22():
    V, y, r = _problem(7, n=50, T=6)
    eps = 0.6
    c = (y - (1 - eps) * r) / eps
    lp = SimplexLP(V)
    w, status = lp.solve(c)
    assert status == "optimal"
    np.testing.assert_allclose(lp.problem.value, np.abs(c - V @ w).sum(), rtol=1e-7)
    # eqs (20)-(22): auxiliary G_s >= ±(q_s − ε V_s w), minimise Σ G_s
    g, v = cp.Variable(50), cp.Variable(6, nonneg=True)
    q = y - (1 - eps) * r
    residual = q - eps * V @ v
    paper = cp.Problem(cp.Minimize(cp.sum(g)), [g >= residual, g >= -residual, cp.sum(v) == 1])
    with np.errstate(invalid="ignore"):  # cvxpy's bound propagation on the free G_s
        paper.solve(solver="HIGHS")
    np.testing.assert_allclose(eps * lp.problem.value, paper.value, rtol=1e-6)


def test_lp_refuses_more_rows_than_the_cap():
    with pytest.raises(ValueError, match="at most"):
        SimplexLP(np.zeros((LP_ROW_CAP + 1, 2)))
