"""The grid searches' candidate tables (forestviz.selection.candidates) against hand-built
tables and the one-standard-error rule applied by hand, and the contamination-weight grid fits
(forestviz.attention.contamination) against one solve per grid point."""

import itertools

import numpy as np
import pandas as pd
import pytest

from forestviz.attention.contamination import grid_weights
from forestviz.attention.simplex import fit_contamination_weights, simplex_nnls
from forestviz.selection import (
    confirmed_one_standard_error,
    one_standard_error,
    weighted_mean_and_se,
)
from forestviz.selection.candidates import (
    SCORES,
    candidate_table,
    choose,
    chosen,
    grid,
    simplest_first,
    single_candidate,
)


def test_grid_first_axis_outermost():
    points = grid({"kappa": [0.1, 1.0, 10.0], "eps": [0.0, 0.5]})
    expected = list(itertools.product([0.1, 1.0, 10.0], [0.0, 0.5]))
    assert list(points.columns) == ["kappa", "eps"]
    assert list(points.itertuples(index=False, name=None)) == expected
    assert all(dtype == np.float64 for dtype in points.dtypes)


def test_candidate_table_bases_first_without_parameters():
    points = grid({"eps": [0.0, 1.0]})
    table = candidate_table(["base", "base (leaf means)"], points)
    assert table["candidate"].tolist() == ["base", "base (leaf means)", "attention", "attention"]
    assert table.loc[:1, "eps"].isna().all()
    assert table.loc[2:, "eps"].tolist() == [0.0, 1.0]


def test_simplest_first_is_a_descending_sort_by_key_priority():
    points = grid({"discount": [0.5, 1.0], "kappa": [0.1, 1.0, 10.0], "eps": [0.0, 0.5, 1.0]})
    order = simplest_first(points, ("kappa", "eps", "discount"))
    keys = [tuple(-points.loc[i, k] for k in ("kappa", "eps", "discount")) for i in order]
    assert keys == sorted(keys)
    assert sorted(order.tolist()) == list(range(len(points)))
    first = points.loc[order[0]]
    assert (first["kappa"], first["eps"], first["discount"]) == (10.0, 1.0, 1.0)


def _search(seed=0, n=300, n_bases=1):
    """A candidate table (n_bases bases, a 3 × 2 grid) and its losses: the grid's point
    (kappa 0.1, eps 0.5) is clearly better than everything else."""
    rng = np.random.default_rng(seed)
    table = candidate_table([f"base {b}" for b in range(n_bases)],
                            grid({"kappa": [0.1, 1.0, 10.0], "eps": [0.0, 0.5]}))
    losses = 1.0 + 0.1 * rng.normal(size=(n, len(table)))
    winner = table.index[(table["kappa"] == 0.1) & (table["eps"] == 0.5)][0]
    losses[:, winner] -= 0.5
    weight = rng.uniform(0.5, 2.0, size=n)
    return table, losses, weight, winner


@pytest.mark.parametrize("n_bases", [1, 2])
def test_choose_applies_the_confirmed_rule_in_simplicity_order(n_bases):
    table, losses, weight, winner = _search(n_bases=n_bases)
    result = choose(table, losses, weight, n_bases=n_bases, keys=("kappa", "eps"),
                    random_state=3)
    order = np.r_[np.arange(n_bases), n_bases + simplest_first(table.iloc[n_bases:],
                                                                ("kappa", "eps"))]
    by_hand = confirmed_one_standard_error(losses[:, order], weight, n_bases=n_bases,
                                           random_state=3)
    assert order[by_hand.chosen] == winner
    assert result["selected"].tolist() == (np.arange(len(table)) == winner).tolist()
    assert chosen(result)["candidate"] == "attention"
    for row in range(len(table)):  # each row holds its own candidate's scores
        mean, se = weighted_mean_and_se(losses[:, row], weight)
        assert result.loc[row, "validation_loss"] == pytest.approx(mean)
        assert result.loc[row, "standard_error"] == pytest.approx(se)
    assert {"confirmed_difference", "confirmed_se"} <= set(result.columns)
    pd.testing.assert_frame_equal(result[table.columns], table)


def test_choose_keeps_the_base_when_nothing_beats_it():
    rng = np.random.default_rng(1)
    table = candidate_table(["base"], grid({"kappa": [0.1, 1.0], "eps": [0.0, 1.0]}))
    losses = 1.0 + 0.1 * rng.normal(size=(200, 1))  # every candidate the same noise
    losses = losses + 0.01 * rng.normal(size=(200, len(table)))
    result = choose(table, losses, None, n_bases=1, keys=("kappa", "eps"), random_state=0)
    assert chosen(result)["candidate"] == "base"


def test_bases_that_do_not_compete_are_compared_with_the_best_grid_point():
    table, losses, weight, winner = _search(n_bases=2)
    losses[:, 0] -= 2.0  # a base better than everything, yet not a candidate
    result = choose(table, losses, weight, n_bases=2, keys=("kappa", "eps"),
                    bases_compete=False)
    assert not result.loc[:1, "selected"].any()
    assert chosen(result).name == winner
    grid_order = 2 + simplest_first(table.iloc[2:], ("kappa", "eps"))
    assert grid_order[one_standard_error(losses[:, grid_order], weight).chosen] == winner
    for base in (0, 1):
        difference = weighted_mean_and_se(losses[:, base] - losses[:, winner], weight)
        assert result.loc[base, "difference_to_best"] == pytest.approx(difference[0])
        assert result.loc[base, "difference_se"] == pytest.approx(difference[1])
        assert result.loc[base, "n_rows"] == len(losses)
    assert "confirmed_difference" not in result.columns
    assert list(result.columns) == [*table.columns, *SCORES]


def test_a_row_without_weight_does_not_count_for_a_compared_base():
    table, losses, weight, _ = _search(n_bases=1)
    weight[:10] = 0.0
    result = choose(table, losses, weight, n_bases=1, keys=("kappa", "eps"),
                    bases_compete=False)
    assert result["n_rows"].tolist() == [len(losses) - 10] * len(table)


def test_single_candidate_without_held_out_rows():
    table = candidate_table(["base"], grid({"kappa": [1.0], "eps": [0.3]}))
    result = single_candidate(table, 1)
    assert result["selected"].tolist() == [False, True]
    assert result["validation_loss"].isna().all()
    assert (result["n_rows"] == 0).all()
    with pytest.raises(ValueError, match="no held-out rows"):
        single_candidate(candidate_table(["base"], grid({"eps": [0.0, 1.0]})), 1)


def _gram_problem(seed=0, n=80, T=9):
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=n)
    V = signal[:, None] + 0.5 * rng.normal(size=(n, T))
    y = 1.5 * signal + 0.3 * rng.normal(size=n)
    weight = rng.uniform(0.5, 1.5, size=n)
    R = rng.dirichlet(np.ones(T), size=(3, n))  # three softmax parts (three τ)
    Vtr = np.stack([V.T @ (weight * np.einsum("nt,nt->n", D, V)) for D in R])
    return (V * weight[:, None]).T @ V, (V * weight[:, None]).T @ y, Vtr


@pytest.mark.parametrize("solver", ["qp", "nnls"])
def test_grid_weights_equal_one_solve_per_point(solver):
    gram, Vty, Vtr = _gram_problem()
    eps = np.array([0.0, 0.3, 1.0])
    W = grid_weights(gram, Vty, Vtr, eps, solver=solver)
    assert W.shape == (3, 3, gram.shape[0])
    np.testing.assert_allclose(W.sum(axis=-1), 1.0)
    np.testing.assert_array_equal(W[:, 0], 1.0 / gram.shape[0])  # ε = 0: w has no effect
    for p in range(3):
        for e in (1, 2):
            if solver == "qp":
                one = fit_contamination_weights(gram, Vty, Vtr[p], [eps[e]]).weights[0]
            else:
                b = (Vty - (1 - eps[e]) * Vtr[p]) / eps[e]
                one = simplex_nnls(gram, b[None, :])[0]
            np.testing.assert_allclose(W[p, e], one, atol=1e-9)
    np.testing.assert_allclose(grid_weights(gram, Vty, Vtr[1], eps, solver=solver), W[1],
                               atol=1e-9)
