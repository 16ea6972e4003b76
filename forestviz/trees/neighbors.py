"""Exact nearest training rows: ERF's model weighting (Bertsimas & Stoumpou, Eqs. 4-5;
algorithms.md §3.3; its index :class:`~forestviz.enhanced.neighbors.TrainingNeighbors`) and the
explainer's nearest training rows (:class:`~forestviz.explain.row.summary.TrainingSummary`) both
search with :class:`NearestRows`.

u_k(x) counts tree k in the top-L lists of the M training rows nearest to x in the
standardised feature space, so every weight rests on an exact M-nearest-neighbour search.
:class:`NearestRows` answers it with :class:`BlockSearch` (float32 GEMM blocks and a
compiled exact selection), and with a KD-tree in at most 3 dimensions, where the tree prunes
well, or for query values too large for float32. In 4 and more dimensions the block search was
faster at every batch size measured, from one row (0.08 against 0.45 ms in 20 dimensions) to
20,000 (docs/performance.md). It stays hand-written because scikit-learn's exact search is
slower on both workloads: ``NearestNeighbors(algorithm="brute")`` took 0.46 s for the
20,000 × 16,000 rows (m = 20) search that the blocks answer in 0.13 s (docs/performance.md,
"Enhanced Random Forest"; 1.37 against 0.74 s in a loaded re-run), and 0.66-0.88 ms for the
explainer's single row (m = 20, n = 20,000) against 0.15-0.20 ms here. A training row
identical to the query row is never its neighbour.
"""

import numba
import numpy as np
from sklearn.neighbors import KDTree

from forestviz.trees.loaded import (
    MAGNITUDE,
    DamagedState,
    checked_array,
    checked_count,
    state_of,
)
from forestviz.trees.threads import row_blocks, run_in_threads, single_threaded_blas

# Up to this many features the KD-tree answers (2-3 dimensions: up to 2× faster than the blocks
# on large batches); beyond, BlockSearch.
_KDTREE_MAX_DIM = 3
# Standardised values at or beyond this could overflow float32 squares: the KD-tree takes them.
_FLOAT32_SAFE = 1e15
# Cells (query rows × training columns) of one float32 distance block: 4 MB.
_BLOCK_CELLS = 1 << 20
# Training columns per group: the compiled pass ranks group minima, then opens the groups.
_MAX_FOLD = 16


@numba.njit(nogil=True, cache=True, fastmath=True)
def _fold_minimum(row, minima):
    """minima[g] = min_r row[g + r·G], G = len(minima). The values are finite (no NaN), so the
    fast-math flags only let the loop vectorise; the minimum itself is exact."""
    groups = minima.shape[0]
    for g in range(groups):
        minima[g] = row[g]
    for r in range(1, row.shape[0] // groups):
        part = row[r * groups : (r + 1) * groups]
        for g in range(groups):
            x, y = part[g], minima[g]
            minima[g] = x if x < y else y


@numba.njit(nogil=True, cache=True)
def _select_nearest(shifted, groups, queries, slack, Z_train, order, index, distance):
    """k = index.shape[1] nearest training rows of every query row, from its block of
    D̃ = ‖b‖² − 2a·b (float32, ``shifted``; column c holds training row ``order[c]``, and group
    g the columns g, g + G, g + 2G, … for G = ``groups``).

    τ, the k-th smallest group minimum, bounds the k-th smallest D̃ from above (k groups each
    hold a column at most τ). Every column with D̃ ≤ τ + slack is a candidate, so the candidates
    hold every row at most as far as the true k-th neighbour; they are ranked by exact float64
    distances, ties by training position.
    """
    n_rows, k, n_train = queries.shape[0], index.shape[1], Z_train.shape[0]
    columns = shifted.shape[1]
    minima = np.empty(groups, np.float32)
    kth = np.empty(k, np.float32)
    for i in range(n_rows):
        row = shifted[i]
        _fold_minimum(row, minima)
        kth[:] = np.inf
        for g in range(groups):
            v = minima[g]
            if v < kth[k - 1]:
                j = k - 1
                while j > 0 and kth[j - 1] > v:
                    kth[j] = kth[j - 1]
                    j -= 1
                kth[j] = v
        limit = kth[k - 1] + slack[i]
        best_d, best_i = distance[i], index[i]
        best_d[:] = np.inf
        best_i[:] = n_train
        for g in range(groups):
            if minima[g] > limit:
                continue
            for c in range(g, columns, groups):
                if row[c] > limit:
                    continue
                train = order[c]
                if train == n_train:  # padding: a candidate only when k exceeds the groups
                    continue
                d2 = 0.0
                for f in range(queries.shape[1]):
                    t = queries[i, f] - Z_train[train, f]
                    d2 += t * t
                if d2 > best_d[k - 1] or (d2 == best_d[k - 1] and train > best_i[k - 1]):
                    continue
                j = k - 1
                while j > 0 and (best_d[j - 1] > d2 or (best_d[j - 1] == d2
                                                         and best_i[j - 1] > train)):
                    best_d[j], best_i[j] = best_d[j - 1], best_i[j - 1]
                    j -= 1
                best_d[j], best_i[j] = d2, train
        for j in range(k):
            best_d[j] = np.sqrt(best_d[j])


class BlockSearch:
    """Exact k nearest training rows of a batch: float32 GEMM blocks and a compiled selection.

    For a block of query rows a, one GEMM of [a, 1] with [−2b; ‖b‖²] gives D̃ = d² − ‖a‖² for
    every training row b; :func:`_select_nearest` keeps the rows within
    4(m+4)·ε₃₂·(‖a‖² + 2 max‖b‖²) (four times the float32 error bound on two D̃) of the k-th
    smallest and ranks them by float64 distances, so the result equals a float64 full scan.
    The training rows are shuffled into ``fold`` slices of G columns (G odd, so no row stride
    is a power of two, which slows the GEMM by a third); padding columns are never candidates.
    """

    def __init__(self, Z_train, k, permutation):
        n, m = Z_train.shape
        self.Z_train, self.k = np.ascontiguousarray(Z_train, dtype=np.float64), k
        fold = int(np.clip(n // (2 * k), 1, _MAX_FOLD))
        groups = -(-n // fold)
        self.groups = groups + (groups % 2 == 0)
        self.order = np.full(self.groups * fold, n)  # padding columns point past the rows
        self.order[:n] = permutation
        shuffled = self.Z_train[self.order[:n]]
        sq = np.einsum("ij,ij->i", shuffled, shuffled)
        self.weights = np.zeros((m + 1, len(self.order)), dtype=np.float32)
        self.weights[:m, :n], self.weights[m, :n] = -2.0 * shuffled.T, sq
        self.weights[m, n:] = np.finfo(np.float32).max
        self.slack = 4 * (m + 4) * np.finfo(np.float32).eps
        self.max_sq = sq.max()

    def query(self, Z, n_jobs=None, k=None):
        """Positions in ``Z_train`` and distances of the k nearest training rows (n × k each;
        ``k`` defaults to the one built for, at most the number of training rows). The rows
        are shared out over ``n_jobs`` threads (single-threaded BLAS and the compiled pass
        release the GIL)."""
        Z = np.ascontiguousarray(Z, dtype=np.float64)
        k = self.k if k is None else k
        index = np.empty((len(Z), k), dtype=np.intp)
        distance = np.empty((len(Z), k))
        with single_threaded_blas(len(Z)):
            run_in_threads(lambda rows: self._query_rows(Z[rows], index[rows], distance[rows]),
                           row_blocks(len(Z), n_jobs), n_jobs)
        return index, distance

    def _query_rows(self, Z, index, distance):
        """Walk the rows in blocks of about ``_BLOCK_CELLS`` distances, one reused buffer."""
        block = max(1, _BLOCK_CELLS // len(self.order))
        shifted = np.empty((block, len(self.order)), dtype=np.float32)
        ones = np.ones((block, Z.shape[1] + 1), dtype=np.float32)
        for start in range(0, len(Z), block):
            rows = slice(start, start + block)
            A = Z[rows]
            A1 = ones[: len(A)]
            A1[:, :-1] = A
            np.matmul(A1, self.weights, out=shifted[: len(A)])
            slack = self.slack * (np.einsum("ij,ij->i", A, A) + 2 * self.max_sq)
            _select_nearest(shifted[: len(A)], self.groups, A, slack, self.Z_train, self.order,
                            index[rows], distance[rows])


class NearestRows:
    """The M nearest standardised training rows of query rows, identical rows skipped.

    Searches k = M + (largest number of identical training rows) neighbours, so that M remain
    after the rows identical to the query are dropped (a training row passed back gets its
    leave-one-out neighbours); M is ``n_neighbors`` unless a query asks for another number.
    Both paths are exact; only rows at exactly tied distances could get a different, equally
    near, neighbour from the two, and a table takes the same path for every batch size (unless
    a query value is too large for float32: in more than 3 dimensions the KD-tree is built the
    first time that happens). The last batch's answer is kept, so ``tree_weights``,
    ``tree_scores``, ``neighbors`` and ``predict_proba`` on the same rows search once; neither
    it nor the KD-tree is saved with the model.
    """

    def __init__(self, Z_train, n_neighbors, rng):
        blocks = Z_train.shape[1] > _KDTREE_MAX_DIM
        self._build(Z_train, n_neighbors, rng.permutation(len(Z_train)) if blocks else None)

    def _build(self, Z_train, n_neighbors, permutation) -> None:
        self.Z_train, self.n_neighbors = Z_train, n_neighbors
        _, multiplicity = np.unique(Z_train, axis=0, return_counts=True)
        self.k = min(n_neighbors + int(multiplicity.max()), len(Z_train))
        self.kdtree = KDTree(Z_train) if permutation is None else None
        self.blocks = None if permutation is None else BlockSearch(Z_train, self.k, permutation)
        self._last = None

    def __getstate__(self):
        """The training rows, M and the block search's shuffle alone: the index is rebuilt from
        them when read (model files never hold a KD-tree or the blocks: scikit-learn's compiled
        index arrays and the compiled selection follow them unchecked)."""
        order = None if self.blocks is None else self.blocks.order[: len(self.Z_train)]
        return {"Z_train": self.Z_train, "n_neighbors": self.n_neighbors, "permutation": order}

    def __setstate__(self, state):
        """Check the saved rows (n × m within ±MAGNITUDE), M (1..n) and shuffle (a permutation
        of the rows, given exactly when m > 3), then rebuild the index."""
        state = state_of(state, ("Z_train", "n_neighbors", "permutation"), "neighbour index")
        Z = checked_array(state["Z_train"], "standardised training rows", (None, None),
                          low=-MAGNITUDE, high=MAGNITUDE)
        n = len(Z)
        checked_count(state["n_neighbors"], "number of neighbours", low=1, high=max(n, 1))
        permutation = state["permutation"]
        if (Z.shape[1] <= _KDTREE_MAX_DIM) != (permutation is None) or (
                permutation is not None and not np.array_equal(
                    np.bincount(checked_array(permutation, "row shuffle", (n,), "i", low=0,
                                              high=n - 1), minlength=n), np.ones(n, int))):
            raise DamagedState("its neighbour index's row shuffle is not a permutation of its "
                               "training rows")
        self._build(Z, state["n_neighbors"], permutation)

    def query(self, Z, n_jobs=None, n_neighbors=None):
        """(indices, distances), each n × M: positions in ``Z_train``, nearest first;
        M = ``n_neighbors`` (default: the one given at construction)."""
        M = self.n_neighbors if n_neighbors is None else n_neighbors
        last = self._last
        if (last is not None and last[0] == M and last[1].shape == Z.shape
                and np.array_equal(last[1], Z)):
            return last[2], last[3]
        n = len(self.Z_train)
        if self.n_neighbors == M or self.k == n:  # k capped at n: every row already
            k = self.k
        else:  # self.k − self.n_neighbors is the largest multiplicity
            k = min(M + self.k - self.n_neighbors, n)
        if self.blocks is not None and np.all(np.abs(Z) < _FLOAT32_SAFE):
            index, distance = (self.blocks.query(Z, n_jobs) if k == self.k
                               else self.blocks.query(Z, n_jobs, k))
        else:
            if self.kdtree is None:
                self.kdtree = KDTree(self.Z_train)
            distance, index = self.kdtree.query(Z, k=k)
        same = distance == 0  # only rows at distance 0 can be identical; check those
        if same.any():
            rows = np.nonzero(same)[0]
            same[same] = np.all(self.Z_train[index[same]] == Z[rows], axis=1)
            keep = np.argsort(same, axis=1, kind="stable")[:, :M]
            index = np.take_along_axis(index, keep, axis=1)
            distance = np.take_along_axis(distance, keep, axis=1)
        else:  # nothing to skip: the first M (most queries of rows not in the training set)
            index = np.ascontiguousarray(index[:, :M])
            distance = np.ascontiguousarray(distance[:, :M])
        self._last = (M, Z, index, distance)
        return index, distance
