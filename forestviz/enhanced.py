"""Enhanced Random Forest (Bertsimas & Stoumpou, paper 002; algorithms.md §3).

Adaptive sample weights and sampling probabilities (Algorithm 1, §3.1), per-tree feature
subsets, per-sample model weighting through the top trees of the nearest training rows
(eqs 4-5, §3.3) and tree scores (eqs 6-8). Sample and feature cleaning (Algorithm 2) lives in
:mod:`forestviz.cleaning` and is re-exported here as :func:`clean`.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KDTree
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from forestviz.cleaning import clean
from forestviz.sampling import (
    LeafTable,
    auc_score,
    draw_feature_subsets,
    fit_forest,
    n_subset_features,
    update_weights,
    youden_thresholds,
)
from forestviz.validation import check_rows, ignore_progress

# Rows per chunk when per-tree probabilities (rows × trees × classes) are materialised.
_CHUNK_ROWS = 4096
# Neighbour queries of more rows than this in more than _KDTREE_MAX_DIM dimensions go to the
# blocked GEMM search of _BlockNeighbors: KD-trees degrade there (scikit-learn's own rule of
# thumb is 15 features); smaller batches stay on the KD-tree.
_BLOCK_MIN_ROWS = 16
_KDTREE_MAX_DIM = 15
# Cells (query rows × training rows) of one float32 distance block: 4 MB, cache-resident.
_KNN_BLOCK_CELLS = 1 << 20
# Standardised values at or beyond this could overflow float32 squares: the KD-tree takes them.
_FLOAT32_SAFE = 1e15


class TreeScores(NamedTuple):
    """Tree scores of eqs (6)-(8) for a batch of rows, each n × T.

    ``S1_raw`` counts a tree's appearances in the neighbours' top-L lists (eq 6);
    ``S2_raw = −Σ_neighbours min(rank, L+1)`` (eq 7 as printed, algorithms.md §3.3 [resolved]);
    ``S1``, ``S2`` are their per-row min-max normalisations and ``S = (S1 + S2) / 2`` (eq 8).
    """

    S: np.ndarray
    S1: np.ndarray
    S2: np.ndarray
    S1_raw: np.ndarray
    S2_raw: np.ndarray


class Neighbors(NamedTuple):
    """The M nearest training rows of each query row (indices into the rows given to ``fit``)
    and their Euclidean distances in the standardised feature space."""

    indices: np.ndarray
    distances: np.ndarray


class _BlockNeighbors:
    """Exact k nearest training rows of a batch, by blocks of float32 GEMM distances.

    For a block of query rows a, one GEMM of [a, 1] with [−2b; ‖b‖²] gives D̃ ≈ ‖b‖² − 2a·b
    = d² − ‖a‖² for every training row b. The training rows are shuffled into ``fold`` slices
    of equal length, so the element-wise minimum of the slices is the minimum of D̃ over
    groups of ``fold`` rows. τ is the k-th smallest of the minima of 2k blocks of groups, so
    at least k rows have D̃ ≤ τ; every row of a group whose minimum is at most
    τ + 4(m+4)·ε₃₂·(‖a‖² + 2 max‖b‖²) (four times the float32 error bound on two D̃) and with
    D̃ itself below that limit is a candidate, so the candidates hold every row at most as far
    as the true k-th neighbour. They are ranked by their exact float64 distances, ties by
    training position: the result equals a float64 full scan.
    """

    def __init__(self, Z_train, k, rng):
        n, m = Z_train.shape
        self.Z_train, self.k = Z_train, k
        self.fold = int(np.clip(n // (2 * k), 1, 8))
        width = -(-n // self.fold)
        self.order = np.full(width * self.fold, n)  # padding columns point past the rows
        self.order[:n] = rng.permutation(n)
        shuffled = Z_train[self.order[:n]]
        sq = np.einsum("ij,ij->i", shuffled, shuffled)
        self.weights = np.zeros((m + 1, len(self.order)), dtype=np.float32)
        self.weights[:m, :n], self.weights[m, :n] = -2.0 * shuffled.T, sq
        self.weights[m, n:] = np.finfo(np.float32).max  # never a candidate
        self.slack = 4 * (m + 4) * np.finfo(np.float32).eps
        self.max_sq = sq.max()

    def query(self, Z, n_jobs=None):
        """Positions in ``Z_train`` and distances of the k nearest training rows (n × k each).
        The rows are split over ``n_jobs`` threads (numpy and single-threaded BLAS release the
        GIL); each walks its blocks with one reused distance buffer."""
        block = max(1, _KNN_BLOCK_CELLS // len(self.order))
        jobs = min(effective_n_jobs(n_jobs), -(-len(Z) // block))
        with threadpool_limits(1, user_api="blas"):
            parts = Parallel(n_jobs=jobs, prefer="threads")(
                delayed(self._query_rows)(part, block) for part in np.array_split(Z, jobs)
            )
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def _query_rows(self, Z, block):
        buffer = np.empty((block, len(self.order)), dtype=np.float32)
        found = [self._query_block(Z[start : start + block], buffer)
                 for start in range(0, len(Z), block)]
        return np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])

    def _query_block(self, A, buffer):
        B, n, k, fold = len(A), len(self.Z_train), self.k, self.fold
        A1 = np.ones((B, A.shape[1] + 1), dtype=np.float32)
        A1[:, :-1] = A
        shifted = np.matmul(A1, self.weights, out=buffer[:B])  # d² − ‖a‖², B × (fold·width)
        width = shifted.shape[1] // fold
        group_min = shifted.reshape(B, fold, width).min(axis=1)  # group g: columns g + r·width
        blocks = min(2 * k, width)
        size = width // blocks
        minima = group_min[:, : blocks * size].reshape(B, blocks, size).min(axis=2)
        tau = np.partition(minima, k - 1, axis=1)[:, k - 1]
        limit = tau + self.slack * (np.einsum("ij,ij->i", A, A) + 2 * self.max_sq)
        rows, groups = np.divmod(np.flatnonzero(group_min <= limit[:, None]), width)
        rows = np.repeat(rows, fold)
        cols = (groups[:, None] + width * np.arange(fold)).ravel()
        near = shifted.ravel()[rows * shifted.shape[1] + cols] <= limit[rows]
        rows, cols = rows[near], self.order[cols[near]]
        diff = A[rows] - self.Z_train[cols]
        d2 = np.einsum("ij,ij->i", diff, diff)
        counts = np.bincount(rows, minlength=B)  # ≥ k per row; pad every row to the longest
        slot = np.arange(len(rows)) - (np.cumsum(counts) - counts)[rows]
        dist = np.full((B, counts.max()), np.inf)
        index = np.full(dist.shape, n)
        dist[rows, slot], index[rows, slot] = d2, cols
        best = np.lexsort((index, dist), axis=1)[:, :k]
        return np.take_along_axis(index, best, axis=1), np.sqrt(np.take_along_axis(dist, best, 1))


def _minmax(S, appears):
    """Per-row min-max normalisation; a constant row gives 1 to appearing trees, 0 to others."""
    low = S.min(axis=1, keepdims=True)
    span = S.max(axis=1, keepdims=True) - low
    flat = span == 0
    return np.where(flat, appears.astype(float), (S - low) / np.where(flat, 1.0, span))


class EnhancedForestClassifier(ClassifierMixin, BaseEstimator):
    """Enhanced Random Forest classifier (paper 002, algorithms.md §3).

    Parameters follow the paper's defaults (200 trees, depth 6, SW + SP on, features per split,
    λ = 0.2). ``sample_weighting`` (SW) passes w_i to every tree, ``sample_probabilities`` (SP)
    draws every bootstrap with probabilities s_i = w_i / Σw, ``features_per_tree`` (FT) gives
    every tree one random subset of ``max_features`` features used at all its splits.
    ``n_iterations`` rounds of Algorithm 1 run with ``learning_rate`` λ; the round with the best
    validation AUC (on ``validation_fraction`` of the rows, stratified) is kept, and with
    ``early_stopping`` the loop stops at the first round whose validation AUC drops below the
    best. ``oob_ranking`` computes the training-row quantities out of bag: p_i of the weight
    update (algorithms.md §3.1 option) and the per-row tree ranking (out-of-bag trees first).
    ``model_weighting`` predicts with p(x) = Σ_k u_k(x) p_k(x) from the top ``top_trees`` (L)
    trees of the ``n_neighbors`` (M) nearest training rows (eqs 4-5).

    Fitted attributes: ``estimators_`` (``DecisionTreeClassifier``s trained on the encoded labels
    0..C−1), ``feature_subsets_`` ((T, k) column indices under FT, else ``None``),
    ``train_indices_`` (rows of the fit data that trained the forest; the rest validated it),
    ``sample_importance_`` (final s_i of those rows), ``history_`` (one dict per round),
    ``best_iteration_`` (index into ``history_``), ``threshold_`` (Youden's J of the final model
    on the training rows: a float for binary problems, used by ``predict``; one one-vs-rest
    threshold per class otherwise), ``tree_rankings_`` (top-L trees of every training row,
    best first), ``classes_``.

    *A training row is never its own neighbour*: any training row whose standardised features
    are identical to the query row is skipped (so a training row passed to ``tree_weights`` gets
    leave-one-out weights; exact duplicates of it are skipped too).
    """

    def __init__(
        self,
        n_estimators=200,
        max_depth=6,
        sample_weighting=True,
        sample_probabilities=True,
        features_per_tree=False,
        max_features="sqrt",
        learning_rate=0.2,
        n_iterations=10,
        early_stopping=True,
        validation_fraction=0.2,
        oob_ranking=False,
        model_weighting=True,
        n_neighbors=10,
        top_trees=10,
        random_state=None,
        n_jobs=None,
    ):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.sample_weighting = sample_weighting
        self.sample_probabilities = sample_probabilities
        self.features_per_tree = features_per_tree
        self.max_features = max_features
        self.learning_rate = learning_rate
        self.n_iterations = n_iterations
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.oob_ranking = oob_ranking
        self.model_weighting = model_weighting
        self.n_neighbors = n_neighbors
        self.top_trees = top_trees
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fitting (Algorithm 1)
    def _check_params(self):
        for name in ("n_estimators", "n_iterations", "n_neighbors", "top_trees"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}.")
        if not 0.0 <= self.validation_fraction < 1.0:
            raise ValueError(
                f"validation_fraction must be in [0, 1), got {self.validation_fraction}."
            )
        if self.learning_rate < 0:
            raise ValueError(f"learning_rate must be non-negative, got {self.learning_rate}.")

    def _split(self, y_enc, rng):
        """Stratified validation split (when every class has two rows), else a random one."""
        rows = np.arange(len(y_enc))
        n_val = int(np.ceil(self.validation_fraction * len(rows)))
        if n_val == 0 or len(rows) - n_val < 2:
            return rows, rows[:0]
        n_classes = len(self.classes_)
        stratify = (
            y_enc if np.bincount(y_enc).min() >= 2 and min(n_val, len(rows) - n_val) >= n_classes
            else None
        )
        train, val = train_test_split(
            rows, test_size=n_val, stratify=stratify, random_state=rng.randint(2**31 - 1)
        )
        return np.sort(train), np.sort(val)

    def fit(self, X, y, sample_weight=None, progress: Callable[[str, float], None] | None = None):
        """Algorithm 1: reweight the training rows over ``n_iterations`` forests, keep the best.

        ``progress(stage, fraction)`` is called with stages ``"iteration k/K"`` and
        ``"ranking trees"``, fraction in [0, 1].
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("EnhancedForestClassifier needs at least two classes; got one class.")
        sample_weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        if len(np.unique(y_enc[sample_weight > 0])) < 2:
            raise ValueError("sample_weight leaves only one class with positive weight.")
        report = progress or ignore_progress
        rng = check_random_state(self.random_state)
        n_classes = len(self.classes_)

        train, val = self._split(y_enc, rng)
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        X_tr, y_tr, sw_tr = X32[train], y_enc[train], sample_weight[train]
        X_val, y_val, sw_val = X32[val], y_enc[val], sample_weight[val]
        n_features = X.shape[1]
        subset_size = n_subset_features(self.max_features, n_features)

        weights = sw_tr / sw_tr.mean()  # the paper's w_i = 1, scaled by the user's weights
        history, best = [], None
        for it in range(self.n_iterations):
            report(f"iteration {it + 1}/{self.n_iterations}", it / (self.n_iterations + 1))
            subsets = (
                draw_feature_subsets(self.n_estimators, n_features, subset_size, rng)
                if self.features_per_tree else None
            )
            trees, inbag = fit_forest(
                X_tr, y_tr, n_estimators=self.n_estimators, max_depth=self.max_depth,
                max_features=self.max_features,
                weights=weights if self.sample_weighting else None,
                probabilities=weights / weights.sum() if self.sample_probabilities else None,
                feature_subsets=subsets, rng=rng, n_jobs=self.n_jobs,
            )
            table = LeafTable(trees, n_classes)
            tree_proba = table.values[table.apply(X_tr, self.n_jobs)]
            p_train = self._training_proba(tree_proba, inbag)
            thresholds = youden_thresholds(y_tr, p_train, n_classes, sw_tr)
            p_val = table.values[table.apply(X_val, self.n_jobs)].mean(axis=1)
            val_auc = auc_score(y_val, p_val, sw_val)
            new_weights = update_weights(weights, y_tr, p_train, thresholds, self.learning_rate)
            history.append(self._record(it, thresholds, auc_score(y_tr, p_train, sw_tr),
                                        val_auc, new_weights))
            best_auc = np.nan if best is None else history[best[0]]["validation_auc"]
            if best is None or np.isnan(val_auc) or np.isnan(best_auc) or val_auc > best_auc:
                best = (it, table, subsets, new_weights, inbag)
            elif self.early_stopping and val_auc < best_auc:
                break
            weights = new_weights

        self.best_iteration_, table, self.feature_subsets_, weights, inbag = best
        self.history_ = history
        self.estimators_ = table.trees
        self._leaf_table = table
        self.train_indices_ = train
        self.sample_importance_ = weights / weights.sum()
        report("ranking trees", self.n_iterations / (self.n_iterations + 1))
        self._fit_model_weighting(X, X_tr, y_tr, inbag, rng)
        p_final = self._predict_proba(X[train], X_tr)
        thresholds = youden_thresholds(y_tr, p_final, n_classes, sw_tr)
        self.threshold_ = float(thresholds[1]) if n_classes == 2 else thresholds
        report("done", 1.0)
        return self

    def _training_proba(self, tree_proba, inbag):
        """Algorithm 1's p_i: the mean over all trees (in-sample, as in the paper) or, with
        ``oob_ranking``, over the trees that did not draw the row (a row every tree drew falls
        back to all trees)."""
        if not self.oob_ranking:
            return tree_proba.mean(axis=1)
        oob = (~inbag.T).astype(float)
        oob[oob.sum(axis=1) == 0] = 1.0
        return np.einsum("nt,ntc->nc", oob / oob.sum(axis=1, keepdims=True), tree_proba)

    def _record(self, it, thresholds, train_auc, val_auc, weights):
        """One ``history_`` entry: t*, AUCs and the distribution of the updated weights w_i."""
        q = np.quantile(weights, [0.0, 0.25, 0.5, 0.75, 1.0])
        return {
            "iteration": it + 1,
            "threshold": float(thresholds[1]) if len(thresholds) == 2 else thresholds.tolist(),
            "train_auc": train_auc,
            "validation_auc": val_auc,
            "weight_mean": float(weights.mean()),
            "weight_std": float(weights.std()),
            "weight_min": float(q[0]),
            "weight_q25": float(q[1]),
            "weight_median": float(q[2]),
            "weight_q75": float(q[3]),
            "weight_max": float(q[4]),
            "zero_weight_fraction": float(np.mean(weights == 0)),
        }

    # ------------------------------------------------------- model weighting (§3.3, eqs 4-8)
    def _fit_model_weighting(self, X, X_tr, y_tr, inbag, rng):
        """Rank all trees for every training row z by P_tree(y_z | z), best first; ties by leaf
        support (training rows in the leaf, more first), then by a seeded random permutation,
        never by tree index (algorithms.md §3.3 [resolved]). Keep the top L per row."""
        train = X[self.train_indices_]
        self._mean = train.mean(axis=0)
        scale = train.std(axis=0)
        self._scale = np.where(scale > 0, scale, 1.0)
        self._Z_train = (train - self._mean) / self._scale
        self._kdtree = KDTree(self._Z_train)
        _, multiplicity = np.unique(self._Z_train, axis=0, return_counts=True)
        self._max_multiplicity = int(multiplicity.max())
        self.n_neighbors_ = min(self.n_neighbors, len(train) - 1)
        self.top_trees_ = min(self.top_trees, self.n_estimators)

        table = self._leaf_table
        leaves = table.apply(X_tr, self.n_jobs)
        p_true = table.values[leaves, y_tr[:, None]]
        support = np.bincount(leaves.ravel(), minlength=len(table.values))[leaves]
        keys = (rng.random_sample(leaves.shape), -support, -p_true)
        if self.oob_ranking:
            keys += (inbag.T,)
        order = np.lexsort(keys, axis=1)[:, : self.top_trees_]
        dtype = np.int16 if self.n_estimators <= np.iinfo(np.int16).max else np.int32
        self.tree_rankings_ = order.astype(dtype)
        self._block_neighbors = _BlockNeighbors(
            self._Z_train, min(self.n_neighbors_ + self._max_multiplicity, len(train)), rng
        )
        self._neighbor_memo = {}

    def _neighbors(self, Z):
        """M nearest training rows (positions in the training part) of standardised rows Z,
        skipping training rows identical to the query row.

        A KD-tree answers small batches and low-dimensional data; large batches in more than 15
        dimensions use :class:`_BlockNeighbors`, several times faster there
        (docs/performance.md). Both are exact; only rows at exactly tied distances may get a
        different (equally near) neighbour from the two paths. The last batch's answer is kept,
        so ``tree_weights``, ``tree_scores``, ``neighbors`` and ``predict_proba`` on the same
        rows search once.
        """
        last = self._neighbor_memo.get("last")
        if last is not None and last[0].shape == Z.shape and np.array_equal(last[0], Z):
            return last[1], last[2]
        M = self.n_neighbors_
        k = min(M + self._max_multiplicity, len(self._Z_train))
        if (len(Z) > _BLOCK_MIN_ROWS and Z.shape[1] > _KDTREE_MAX_DIM
                and np.abs(Z).max() < _FLOAT32_SAFE):
            idx, dist = self._block_neighbors.query(Z, self.n_jobs)
        else:
            dist, idx = self._kdtree.query(Z, k=k)
        same = np.all(self._Z_train[idx] == Z[:, None, :], axis=2)
        keep = np.argsort(same, axis=1, kind="stable")[:, :M]
        idx, dist = np.take_along_axis(idx, keep, axis=1), np.take_along_axis(dist, keep, axis=1)
        self._neighbor_memo["last"] = (Z, idx, dist)
        return idx, dist

    def _appearances(self, Z, ranks=True):
        """S1 (eq 6, appearance counts) and, with ``ranks``, the raw S2 (eq 7) of standardised
        rows Z (else ``None``)."""
        idx, _ = self._neighbors(Z)
        top = self.tree_rankings_[idx]  # n × M × L
        n, T, L = len(Z), self.n_estimators, self.top_trees_
        flat = (np.arange(n)[:, None, None] * T + top).ravel()
        S1 = np.bincount(flat, minlength=n * T).reshape(n, T).astype(float)
        if not ranks:
            return S1, None
        positions = np.broadcast_to(np.arange(1, L + 1, dtype=float), top.shape).ravel()
        rank_sum = np.bincount(flat, weights=positions, minlength=n * T).reshape(n, T)
        S2 = -(rank_sum + (self.n_neighbors_ - S1) * (L + 1))
        return S1, S2

    def _standardise(self, X):
        return (X - self._mean) / self._scale

    def _predict_proba(self, X, X32):
        """p(x) = Σ_k u_k(x) p_k(x) (eq 4) or the plain mean over trees, chunked over rows."""
        leaves = self._leaf_table.apply(X32, self.n_jobs)
        out = np.empty((len(X), len(self.classes_)))
        for start in range(0, len(X), _CHUNK_ROWS):
            rows = slice(start, start + _CHUNK_ROWS)
            tree_proba = self._leaf_table.values[leaves[rows]]
            if self.model_weighting:
                S1, _ = self._appearances(self._standardise(X[rows]), ranks=False)
                u = S1 / (self.n_neighbors_ * self.top_trees_)
                out[rows] = np.einsum("nt,ntc->nc", u, tree_proba)
            else:
                out[rows] = tree_proba.mean(axis=1)
        return out

    # ------------------------------------------------------------------------- public API
    def _validate(self, X):
        X = check_rows(self, X, "estimators_")
        return X, np.ascontiguousarray(X, dtype=np.float32)

    def predict_proba(self, X):
        """Class probabilities: model-weighted (eq 4) when ``model_weighting``, else the mean."""
        return self._predict_proba(*self._validate(X))

    def predict(self, X):
        """Binary: class 1 when P(class 1) ≥ ``threshold_`` (Youden's J); multiclass: argmax."""
        proba = self.predict_proba(X)
        if len(self.classes_) == 2:
            return self.classes_[(proba[:, 1] >= self.threshold_).astype(np.intp)]
        return self.classes_[np.argmax(proba, axis=1)]

    def tree_predictions(self, X):
        """p_k(x): every tree's class probabilities, n × T × C."""
        _, X32 = self._validate(X)
        return self._leaf_table.values[self._leaf_table.apply(X32, self.n_jobs)]

    def tree_weights(self, X):
        """u_k(x) = (#appearances of tree k in the neighbours' top-L lists) / (M·L), eq (5);
        n × T, rows sum to 1 (eq 3's extra 1/N_t is a typo, algorithms.md §3.3 [resolved])."""
        X, _ = self._validate(X)
        S1, _ = self._appearances(self._standardise(X), ranks=False)
        return S1 / (self.n_neighbors_ * self.top_trees_)

    def tree_scores(self, X):
        """Tree scores S, S1, S2 of eqs (6)-(8) (see :class:`TreeScores`)."""
        X, _ = self._validate(X)
        S1_raw, S2_raw = self._appearances(self._standardise(X))
        appears = S1_raw > 0
        S1, S2 = _minmax(S1_raw, appears), _minmax(S2_raw, appears)
        return TreeScores(S=(S1 + S2) / 2, S1=S1, S2=S2, S1_raw=S1_raw, S2_raw=S2_raw)

    def neighbors(self, X):
        """The M nearest training rows of each row of X (see :class:`Neighbors`)."""
        X, _ = self._validate(X)
        idx, dist = self._neighbors(self._standardise(X))
        return Neighbors(indices=self.train_indices_[idx], distances=dist.copy())

    @property
    def feature_importances_(self):
        """Mean decrease in impurity, averaged over the trees (Algorithm 2's f_j)."""
        check_is_fitted(self)
        per_tree = [t.feature_importances_ for t in self.estimators_ if t.tree_.node_count > 1]
        if not per_tree:
            return np.zeros(self.n_features_in_)
        mean = np.mean(per_tree, axis=0)
        return mean / mean.sum()


__all__ = ["EnhancedForestClassifier", "Neighbors", "TreeScores", "clean"]
