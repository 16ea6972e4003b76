"""forestviz.explain.plots, weight distributions: the KDE over trees against scipy and its
formula, and the simplex (ternary) view by hand."""

import numpy as np
import pytest
from scipy.integrate import trapezoid
from scipy.stats import norm

from forestviz.explain import plots
from tests.plot_helpers import dirichlet, ternary_points


# ------------------------------------------------------------------------------- KDEs
@pytest.mark.parametrize("T", [1, 3, 100])
def test_kde_over_tree_index_integrates_to_one_and_matches_the_formula(T):
    alpha = dirichlet(T)
    grid = np.linspace(-10, T + 11, 20 * (T + 21) + 1)
    rho = plots.kde_over_tree_index(alpha, grid)
    assert trapezoid(rho, grid) == pytest.approx(1.0, abs=1e-6)
    brute = sum(a * norm.pdf(grid, loc=k + 1, scale=1.0) for k, a in enumerate(alpha))
    np.testing.assert_allclose(rho, brute, atol=1e-15)
    rows = plots.kde_over_tree_index(np.vstack([alpha, alpha[::-1]]), grid)
    np.testing.assert_allclose(rows[0], rho)
    assert trapezoid(rows[1], grid) == pytest.approx(1.0, abs=1e-6)


def test_attention_kde_figure_draws_alpha_solid_and_softmax_dashed():
    alpha, D = dirichlet(30), dirichlet(30, seed=1)
    fig = plots.attention_kde(alpha, D)
    solid, dashed = fig.data
    assert solid.line.dash == "solid" and dashed.line.dash == "dash"
    x = np.asarray(solid.x)
    assert x[0] <= -2 and x[-1] >= 33
    np.testing.assert_allclose(solid.y, plots.kde_over_tree_index(alpha, x))
    np.testing.assert_allclose(dashed.y, plots.kde_over_tree_index(D, x))
    assert trapezoid(solid.y, x) == pytest.approx(1.0, abs=5e-3)  # 3 kernel widths each side
    assert len(plots.attention_kde([1.0]).data) == 1


# ---------------------------------------------------------------------------- ternary
def test_ternary_coordinates_by_hand_and_rows_sum_to_one():
    weights = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.5, 0.5]])
    groups = [[0], [1, 3], [2]]
    np.testing.assert_allclose(plots.ternary_coordinates(weights, groups),
                               [[0.1, 0.6, 0.3], [0.0, 0.5, 0.5]])
    W = dirichlet(25, 200)
    groups = [[0, 5], [7], [k for k in range(25) if k not in (0, 5, 7)]]
    coords = plots.ternary_coordinates(W, groups)
    np.testing.assert_allclose(coords.sum(axis=1), 1.0)
    np.testing.assert_allclose(coords[:, 1], W[:, 7])  # a partition: exact masses


def test_ternary_coordinates_of_listed_trees_are_shares_among_them():
    weights = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.0, 1.0]])
    coords = plots.ternary_coordinates(weights, [[0], [1], [2]])
    np.testing.assert_allclose(coords[0], np.array([0.1, 0.2, 0.3]) / 0.6)
    assert np.isnan(coords[1]).all()  # no weight on any listed tree
    for bad in ([[0], [0], [1]], [[0], [1]], [[0], [1], [9]], [[], [], []]):
        with pytest.raises(ValueError):
            plots.ternary_coordinates(weights, bad)


def test_ternary_groups_rule():
    assert plots.ternary_groups([0.2, 0.5, 0.3]) == [[0], [1], [2]]
    assert plots.ternary_groups([1.0]) == [[0], [], []]
    W = np.array([[0.1, 0.4, 0.1, 0.4, 0.0], [0.1, 0.2, 0.1, 0.2, 0.4]])  # means tie: tree order
    assert plots.ternary_groups(W) == [[1], [3], [0, 2, 4]]


def test_simplex_figure_for_three_trees_draws_the_sub_simplex_vertices():
    D, w, eps = np.array([0.5, 0.3, 0.2]), np.array([0.0, 0.1, 0.9]), 0.4
    fig = plots.simplex_figure(D, w, eps)
    region, d_point, w_point, a_point = fig.data
    expected = [(1 - eps) * D + eps * np.eye(3)[j] for j in (0, 1, 2, 0)]
    np.testing.assert_allclose(ternary_points(region), expected)
    assert region.fill == "toself"
    np.testing.assert_allclose(ternary_points(d_point), [D])
    np.testing.assert_allclose(ternary_points(w_point), [w])
    np.testing.assert_allclose(ternary_points(a_point), [(1 - eps) * D + eps * w])
    assert [fig.layout.ternary[a].title.text for a in ("aaxis", "baxis", "caxis")] == [
        "Tree 1", "Tree 2", "Tree 3"]
    for trace in fig.data:
        np.testing.assert_allclose(ternary_points(trace).sum(axis=1), 1.0)


def test_simplex_figure_projects_many_trees_exactly():
    T, eps = 30, 0.25
    D, w = dirichlet(T), dirichlet(T, seed=5)
    alpha = (1 - eps) * D + eps * w
    fig = plots.simplex_figure(D, w, eps)
    top = np.argsort(-alpha, kind="stable")[:2]

    def mass(v):
        return [v[top[0]], v[top[1]], 1 - v[top].sum()]

    np.testing.assert_allclose(ternary_points(fig.data[1]), [mass(D)])
    np.testing.assert_allclose(ternary_points(fig.data[3]), [mass(alpha)])
    np.testing.assert_allclose(ternary_points(fig.data[0])[:3],
                               (1 - eps) * np.array(mass(D)) + eps * np.eye(3))
    assert fig.layout.ternary.caxis.title.text == f"the other {T - 2} trees"
    assert "exact" in fig.layout.title.subtitle.text.replace("<br>", " ")
    with pytest.raises(ValueError, match="cover every tree"):
        plots.simplex_figure(D, w, eps, groups=[[0], [1], [2]])


def test_simplex_figure_degenerate_forests():
    one = plots.simplex_figure([1.0], [1.0], 0.5)
    np.testing.assert_allclose(ternary_points(one.data[0]), [[1, 0, 0], [1, 0, 0]])
    assert one.layout.ternary.baxis.title.text == "(no tree)"
    two = plots.simplex_figure([0.5, 0.5], [1.0, 0.0], 0.2)
    np.testing.assert_allclose(ternary_points(two.data[0]), [[0.6, 0.4, 0], [0.4, 0.6, 0],
                                                             [0.6, 0.4, 0]])
    flat = plots.simplex_figure([0.2, 0.3, 0.5], [1 / 3] * 3, 0.0)  # ε = 0: the point α only
    (point,) = flat.data
    assert point.name == "this row's tree weights α"
    np.testing.assert_allclose(ternary_points(point), [[0.2, 0.3, 0.5]])
