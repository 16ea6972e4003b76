"""Per-sample model weighting and tree scores of the Enhanced Random Forest (Bertsimas &
Stoumpou, "Binary Classification: Is Boosting stronger than Bagging?", Eqs. 4-8; algorithms.md
§3.3).

Every training row z keeps its top-L trees, ranked by P_tree(y_z | z). For a query row x with
M nearest training rows, tree k appears S1_k times in their top-L lists; then
u_k(x) = S1_k / (M·L) (Eq. 5), p(x) = Σ_k u_k(x) p_k(x) (Eq. 4), and the scores S1, S2 and S
(Eqs. 6-8). Only the M·L appearances are visited per row (compiled loops, rows shared out over
threads), never a dense rows × trees × lists array.
"""

from typing import NamedTuple

import numba
import numpy as np

from forestviz.trees.threads import row_blocks, run_in_threads


class TreeScores(NamedTuple):
    """Tree scores of Eqs. 6-8 for a batch of rows, each n × T.

    ``S1_raw`` counts a tree's appearances in the neighbours' top-L lists (Eq. 6);
    ``S2_raw = −Σ_neighbours min(rank, L+1)`` (Eq. 7 as printed, algorithms.md §3.3 [resolved]);
    ``S1``, ``S2`` are their per-row min-max normalisations and ``S = (S1 + S2) / 2`` (Eq. 8).
    """

    S: np.ndarray
    S1: np.ndarray
    S2: np.ndarray
    S1_raw: np.ndarray
    S2_raw: np.ndarray


def rank_trees(p_true, support, tiebreak, inbag_first=None, n_jobs=None):
    """Per training row, the trees sorted best first by P_tree(y_z | z); ties by leaf support
    (more training rows first), then by the random ``tiebreak`` keys, never by tree index
    (algorithms.md §3.3 [resolved]). ``inbag_first`` (rows × trees, True where the tree drew
    the row) puts out-of-bag trees first. Row blocks are sorted on ``n_jobs`` threads."""
    keys = (tiebreak, -support, -p_true)
    if inbag_first is not None:
        keys += (inbag_first,)
    order = np.empty(p_true.shape, dtype=np.intp)

    def some_rows(rows):
        order[rows] = np.lexsort(tuple(key[rows] for key in keys), axis=1)

    run_in_threads(some_rows, row_blocks(len(order), n_jobs), n_jobs)
    return order


@numba.njit(nogil=True, cache=True)
def _count(neighbors, rankings, counts):
    """counts[i, k] = appearances of tree k in the top-L lists of row i's neighbours (S1)."""
    for i in range(neighbors.shape[0]):
        row = counts[i]
        row[:] = 0.0
        for a in range(neighbors.shape[1]):
            for k in rankings[neighbors[i, a]]:
                row[k] += 1.0


@numba.njit(nogil=True, cache=True)
def _minmax(raw, appears, out):
    """Per-row min-max normalisation; a constant row gives 1 to appearing trees, 0 to others."""
    low, high = raw.min(), raw.max()
    for k in range(raw.shape[0]):
        if high > low:
            out[k] = (raw[k] - low) / (high - low)
        else:
            out[k] = 1.0 if appears[k] > 0 else 0.0


@numba.njit(nogil=True, cache=True)
def _score_row(near, rankings, S, S1, S2, S1_raw, S2_raw):
    """Eqs 6-8 for one row with neighbours ``near``: S1_raw counts the appearances,
    S2_raw = −M(L+1) + Σ_appearances (L + 1 − rank)."""
    M, L = near.shape[0], rankings.shape[1]
    S1_raw[:] = 0.0
    S2_raw[:] = -M * (L + 1.0)
    for a in range(M):
        top = rankings[near[a]]
        for rank in range(L):
            S1_raw[top[rank]] += 1.0
            S2_raw[top[rank]] += L - rank
    _minmax(S1_raw, S1_raw, S1)
    _minmax(S2_raw, S1_raw, S2)
    for k in range(S.shape[0]):
        S[k] = (S1[k] + S2[k]) / 2


@numba.njit(nogil=True, cache=True)
def _score(neighbors, rankings, S, S1, S2, S1_raw, S2_raw):
    """Eqs 6-8 for every row."""
    for i in range(neighbors.shape[0]):
        _score_row(neighbors[i], rankings, S[i], S1[i], S2[i], S1_raw[i], S2_raw[i])


@numba.njit(nogil=True, cache=True)
def _ranking_score(neighbors, rankings, S, S1_raw):
    """S and S1_raw of Eqs 6-8 for every row, S1, S2 and S2_raw kept for one row at a time."""
    scratch = np.empty((3, S.shape[1]))
    S1, S2, S2_raw = scratch[0], scratch[1], scratch[2]
    for i in range(neighbors.shape[0]):
        _score_row(neighbors[i], rankings, S[i], S1, S2, S1_raw[i], S2_raw)


@numba.njit(nogil=True, cache=True)
def _weighted_sum(neighbors, rankings, leaves, leaf_values, out):
    """out[i] = Σ over row i's M·L appearances of p_k(x_i) / (M·L) = Σ_k u_k p_k (Eq. 4), with
    p_k(x_i) = leaf_values[leaves[i, k]]."""
    share = 1.0 / (neighbors.shape[1] * rankings.shape[1])
    for i in range(neighbors.shape[0]):
        out[i] = 0.0
        for a in range(neighbors.shape[1]):
            for k in rankings[neighbors[i, a]]:
                proba = leaf_values[leaves[i, k]]
                for c in range(out.shape[1]):
                    out[i, c] += share * proba[c]


@numba.njit(nogil=True, cache=True)
def _mean(leaves, leaf_values, out):
    """out[i] = (1/T) Σ_k leaf_values[leaves[i, k]]: the plain forest (u_k = 1/T in Eq. 4)."""
    share = 1.0 / leaves.shape[1]
    for i in range(leaves.shape[0]):
        out[i] = 0.0
        for k in range(leaves.shape[1]):
            proba = leaf_values[leaves[i, k]]
            for c in range(out.shape[1]):
                out[i, c] += share * proba[c]


def _by_rows(kernel, n_rows, n_jobs, *arrays):
    """Run ``kernel`` on row slices of every array, one slice per thread."""
    run_in_threads(lambda rows: kernel(*(a[rows] for a in arrays)), row_blocks(n_rows, n_jobs),
                   n_jobs)


def tree_weights(neighbors, rankings, n_trees, n_jobs=None):
    """u_k(x) = S1_k / (M·L), Eq. 5: n × T, rows sum to 1."""
    _check_lists(neighbors, rankings, n_trees)
    counts = np.empty((len(neighbors), n_trees))
    _by_rows(lambda idx, out: _count(idx, rankings, out), len(neighbors), n_jobs,
             neighbors, counts)
    counts /= neighbors.shape[1] * rankings.shape[1]
    return counts


def tree_scores(neighbors, rankings, n_trees, n_jobs=None) -> TreeScores:
    """S, S1, S2 and the raw S1, S2 of Eqs. 6-8, each n × T."""
    _check_lists(neighbors, rankings, n_trees)
    scores = TreeScores(*(np.empty((len(neighbors), n_trees)) for _ in TreeScores._fields))
    _by_rows(lambda idx, *out: _score(idx, rankings, *out), len(neighbors), n_jobs,
             neighbors, *scores)
    return scores


def ranking_scores(neighbors, rankings, n_trees, n_jobs=None) -> tuple[np.ndarray, np.ndarray]:
    """(S, S1_raw) of :func:`tree_scores`, the same numbers, without the three other n × T
    arrays: what ordering the trees and weighting them (Eq. 5) need."""
    _check_lists(neighbors, rankings, n_trees)
    S, S1_raw = np.empty((len(neighbors), n_trees)), np.empty((len(neighbors), n_trees))
    _by_rows(lambda idx, *out: _ranking_score(idx, rankings, *out), len(neighbors), n_jobs,
             neighbors, S, S1_raw)
    return S, S1_raw


def _check_lists(neighbors, rankings, n_trees) -> None:
    """ValueError unless the neighbours index ``rankings`` and the lists name trees below
    ``n_trees`` (the compiled loops index with them unchecked)."""
    if (neighbors.size and not 0 <= neighbors.min() <= neighbors.max() < len(rankings)) or (
            rankings.size and not 0 <= rankings.min() <= rankings.max() < n_trees):
        raise ValueError("the neighbours or tree rankings do not fit the model")


def weighted_proba(neighbors, rankings, leaves, leaf_values, n_jobs=None):
    """p(x) = Σ_k u_k(x) p_k(x) (Eq. 4); p_k(x_i) = ``leaf_values[leaves[i, k]]``, the class
    distribution of the leaf of tree k that row i reaches."""
    _check_lists(neighbors, rankings, leaves.shape[1])
    out = np.empty((len(neighbors), leaf_values.shape[1]))
    _by_rows(lambda idx, rows_leaves, o: _weighted_sum(idx, rankings, rows_leaves, leaf_values, o),
             len(neighbors), n_jobs, neighbors, leaves, out)
    return out


def mean_proba(leaves, leaf_values, n_jobs=None):
    """The plain forest's p(x) = (1/T) Σ_k p_k(x), without the rows × trees × classes array."""
    out = np.empty((len(leaves), leaf_values.shape[1]))
    _by_rows(lambda rows_leaves, o: _mean(rows_leaves, leaf_values, o), len(leaves), n_jobs,
             leaves, out)
    return out
