"""Model weighting and tree scores (eqs 4-8): compiled kernels against direct numpy formulas."""

import pickle

import numpy as np
import pytest

from forestviz.enhanced.model_weighting import (
    mean_proba,
    rank_trees,
    tree_scores,
    tree_weights,
    weighted_proba,
)
from forestviz.enhanced.neighbors import TrainingNeighbors


def appearances(neighbors, rankings, n_trees):
    """S1 and the rank sum, by a Python loop over every (row, neighbour, rank)."""
    n, M = neighbors.shape
    S1, rank_sum = np.zeros((n, n_trees)), np.zeros((n, n_trees))
    for i in range(n):
        for a in range(M):
            for rank, k in enumerate(rankings[neighbors[i, a]], start=1):
                S1[i, k] += 1
                rank_sum[i, k] += rank
    return S1, rank_sum


def minmax(S, appears):
    low, high = S.min(axis=1, keepdims=True), S.max(axis=1, keepdims=True)
    flat = high == low
    return np.where(flat, appears.astype(float), (S - low) / np.where(flat, 1, high - low))


@pytest.fixture
def problem():
    rng = np.random.default_rng(0)
    n_train, n_trees, L, M, n = 50, 30, 6, 5, 300
    rankings = np.array([rng.permutation(n_trees)[:L] for _ in range(n_train)], dtype=np.int16)
    neighbors = rng.integers(0, n_train, size=(n, M))
    neighbors[0] = 7  # one row whose neighbours are all the same row: S1 is flat over its L trees
    return neighbors, rankings, n_trees


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_tree_weights_are_counts_over_M_L_and_sum_to_one(problem, n_jobs):
    neighbors, rankings, n_trees = problem
    S1, _ = appearances(neighbors, rankings, n_trees)
    u = tree_weights(neighbors, rankings, n_trees, n_jobs)
    np.testing.assert_array_equal(u, S1 / (neighbors.shape[1] * rankings.shape[1]))
    np.testing.assert_allclose(u.sum(axis=1), 1.0)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_tree_scores_follow_eqs_6_to_8(problem, n_jobs):
    neighbors, rankings, n_trees = problem
    M, L = neighbors.shape[1], rankings.shape[1]
    S1, rank_sum = appearances(neighbors, rankings, n_trees)
    S2 = -(rank_sum + (M - S1) * (L + 1))  # −Σ_neighbours min(rank, L + 1), eq 7 as printed
    got = tree_scores(neighbors, rankings, n_trees, n_jobs)
    np.testing.assert_array_equal(got.S1_raw, S1)
    np.testing.assert_array_equal(got.S2_raw, S2)
    np.testing.assert_allclose(got.S1, minmax(S1, S1 > 0))
    np.testing.assert_allclose(got.S2, minmax(S2, S1 > 0))
    np.testing.assert_allclose(got.S, (got.S1 + got.S2) / 2)
    for part in (got.S, got.S1, got.S2):
        assert part.min() >= 0 and part.max() <= 1
    assert got.S1[0].max() == 1 and set(np.unique(got.S1[0])) == {0.0, 1.0}


def test_weighted_proba_is_sum_of_u_times_tree_probabilities(problem):
    neighbors, rankings, n_trees = problem
    rng = np.random.default_rng(1)
    leaf_values = rng.dirichlet(np.ones(3), size=400)
    leaves = rng.integers(0, 400, size=(len(neighbors), n_trees))
    u = tree_weights(neighbors, rankings, n_trees)
    want = np.einsum("nt,ntc->nc", u, leaf_values[leaves])
    np.testing.assert_allclose(weighted_proba(neighbors, rankings, leaves, leaf_values, 2), want,
                               rtol=1e-12)
    np.testing.assert_allclose(mean_proba(leaves, leaf_values, 2),
                               leaf_values[leaves].mean(axis=1), rtol=1e-12)


def test_rank_trees_orders_by_probability_then_support_then_random_keys():
    p_true = np.array([[0.9, 1.0, 1.0, 1.0, 0.2]])
    support = np.array([[50, 10, 30, 30, 99]])
    tiebreak = np.array([[0.1, 0.2, 0.9, 0.3, 0.0]])
    np.testing.assert_array_equal(rank_trees(p_true, support, tiebreak), [[3, 2, 1, 0, 4]])
    inbag = np.array([[True, True, False, True, False]])  # out-of-bag trees first
    np.testing.assert_array_equal(rank_trees(p_true, support, tiebreak, inbag), [[2, 4, 3, 1, 0]])


def test_remembered_batch_is_not_saved_with_the_neighbour_index():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(80, 20))
    index = TrainingNeighbors(Z, 5, np.random.RandomState(0))
    first = index.query(Z[:30])
    restored = pickle.loads(pickle.dumps(index))
    assert restored._last is None
    again = restored.query(Z[:30])
    np.testing.assert_array_equal(first[0], again[0])
    assert not np.any(again[0] == np.arange(30)[:, None])  # a training row is not its own neighbour


@pytest.mark.parametrize("n_features", [2, 20])
def test_both_search_paths_equal_a_full_scan(n_features):
    """Up to 3 features the KD-tree answers; beyond, the block search, and the KD-tree only for
    query values too large for float32 squares. Every answer equals a float64 full scan (the
    query's own training row excluded)."""
    rng = np.random.default_rng(n_features)
    Z = rng.normal(size=(300, n_features))
    index = TrainingNeighbors(Z, 6, np.random.RandomState(0))
    assert (index.kdtree is None) == (n_features > 3)
    for queries in (rng.normal(size=(40, n_features)), Z[:3], np.full((2, n_features), 1e17)):
        got, dist = index.query(queries)
        full = np.sqrt(((queries[:, None, :] - Z[None]) ** 2).sum(axis=2))
        full[np.all(queries[:, None, :] == Z[None], axis=2)] = np.inf
        want = np.argsort(full, axis=1, kind="stable")[:, :6]
        np.testing.assert_allclose(dist, np.take_along_axis(full, want, axis=1), rtol=1e-12)
        if queries[0, 0] < 1e10:  # at 1e17 every distance ties in float64: order is arbitrary
            np.testing.assert_array_equal(got, want)
    assert index.kdtree is not None  # built for the huge rows
