"""Decision Machines: fitted trees as matrices (Zhang, "Decision Machines"; algorithms.md §4).

A tree's internal nodes are *tests* j with a selection row S_j (one-hot on the split feature)
and a threshold t_j; its leaves are rows of the template matrix B (+1 where the leaf lies in
the test's right subtree, −1 in its left, 0 when the test is not an ancestor). For a row x the
test outcomes are h = sgn(Sx − t) ∈ {−1, +1} with sgn(0) = −1 ("x_f ≤ t_j": go left, as
scikit-learn does), the logical similarity is LS_i = B_i·h / ||B_i||² and the exit leaf is
its unique maximiser (LS = 1); (||B_i||₁ − B_i·h)/2 counts the tests that must flip for x to
reach leaf i. A forest stacks S and t and puts the B's block-diagonally (scipy.sparse).

The matrix form is the reference. Batch look-ups go through the trees' compiled ``apply``
(many rows) or :class:`~forestviz.trees.flat.FlatTrees` (a few rows), both tested against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from forestviz.numbers import number_text
from forestviz.trees.fitted import estimator_trees
from forestviz.trees.flat import FlatTrees
from forestviz.trees.leaf_values import estimator_leaf_values
from forestviz.trees.lookup import forest_leaf_ids
from forestviz.trees.paths import Alternative, Flip, PathStep

# Working-set budget (float32 entries) of one row chunk in the matrix-form look-up.
_MATRIX_CHUNK_ENTRIES = 1 << 23


@dataclass(eq=False, repr=False)
class DecisionMachine:
    """Selection matrix S, thresholds t and block-diagonal templates B of fitted trees.

    Build with :meth:`from_estimator`. Tests (internal nodes) and leaves are numbered tree by
    tree in node-id order: tree k owns tests ``test_offsets[k]:test_offsets[k+1]`` and leaves
    ``leaf_offsets[k]:leaf_offsets[k+1]``; ``test_nodes`` / ``leaf_nodes`` give their node ids
    inside the tree. ``leaf_values`` are leaf values (n_leaves,) or class probabilities
    (n_leaves × C, columns in the order of ``classes``).
    """

    trees: list
    flat: FlatTrees
    selection: sparse.csr_matrix  # (tests × m) int8, one 1 per row
    thresholds: np.ndarray  # (tests,)
    templates: sparse.csr_matrix  # (leaves × tests) int8, B
    test_nodes: np.ndarray
    test_depth: np.ndarray
    test_offsets: np.ndarray
    leaf_nodes: np.ndarray
    leaf_offsets: np.ndarray
    leaf_values: np.ndarray
    classes: np.ndarray | None
    feature_names: tuple[str, ...] | None
    feature_scale: np.ndarray | None
    n_jobs: int | None
    leaf_depth: np.ndarray = field(init=False)  # ||B_i||² = ||B_i||₁ = leaf depth

    def __post_init__(self):
        self.leaf_depth = np.diff(self.templates.indptr)

    @property
    def n_trees(self) -> int:
        return len(self.trees)

    @property
    def n_features(self) -> int:
        return self.selection.shape[1]

    @property
    def test_feature(self) -> np.ndarray:
        """The split feature of every test (the column of S's single 1 in that row)."""
        return self.selection.indices

    @classmethod
    def from_estimator(cls, estimator, *, feature_names=None, feature_scale=None,
                       leaf_values=None, n_jobs=None) -> DecisionMachine:
        """The machine of a tree, a forest, a list of trees or any ``estimators_`` holder.

        ``feature_scale`` (m,), e.g. the training features' std, scales margins when picking
        the most fragile test, the moves of alternatives and the soft relaxation; a scale of 0
        counts as 1. ``feature_names`` default to the estimator's ``feature_names_in_``.
        ``leaf_values``: what each leaf predicts, per node of the flat numbering, in place of
        the trees' own stored values, e.g. a weighted ensemble's
        :meth:`~forestviz.trees.ensemble.WeightedEnsemble.leaf_outputs` (AGBoost's scaled
        V_k, an attention forest's leaf means), so that alternatives speak as the model does.
        """
        trees = estimator_trees(estimator)
        if any(tree.tree_.n_outputs != 1 for tree in trees):
            raise ValueError("multi-output trees are not supported")
        m = trees[0].n_features_in_
        flat = FlatTrees.from_trees(trees)
        is_test = flat.feature >= 0
        test_ids, leaf_ids = np.flatnonzero(is_test), np.flatnonzero(~is_test)
        bounds = np.append(flat.offsets, flat.feature.size)
        test_offsets = np.searchsorted(test_ids, bounds)
        leaf_offsets = np.searchsorted(leaf_ids, bounds)
        owner = np.repeat(np.arange(len(trees)), np.diff(bounds))
        depth = np.concatenate([tree.tree_.compute_node_depths() - 1 for tree in trees])

        column = np.full(flat.feature.size, -1)
        column[test_ids] = np.arange(test_ids.size)
        parent = np.arange(flat.feature.size)
        parent[flat.left[test_ids]] = test_ids
        parent[flat.right[test_ids]] = test_ids
        rows, cols, signs = ([np.empty(0, dtype=np.intp)] for _ in range(3))
        leaf_row, child = np.arange(leaf_ids.size), leaf_ids
        for _ in range(flat.max_depth):  # walk every leaf up to its root, one level at a time
            up = parent[child]
            moved = up != child
            rows.append(leaf_row[moved])
            cols.append(column[up[moved]])
            signs.append(np.where(flat.right[up[moved]] == child[moved], 1, -1))
            leaf_row, child = leaf_row[moved], up[moved]
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        templates = sparse.csr_matrix(
            (np.concatenate(signs).astype(np.int8), (rows, cols)),
            shape=(leaf_ids.size, test_ids.size))
        templates.sort_indices()
        selection = sparse.csr_matrix(
            (np.ones(test_ids.size, dtype=np.int8), (np.arange(test_ids.size),
                                                     flat.feature[test_ids])),
            shape=(test_ids.size, m))
        classes, values = estimator_leaf_values(estimator, trees)
        if leaf_values is not None:
            if np.shape(leaf_values) != values.shape:
                raise ValueError(f"leaf_values must have shape {values.shape}, got "
                                 f"{np.shape(leaf_values)}")
            values = np.asarray(leaf_values, dtype=np.float64)
        if feature_names is None:
            feature_names = getattr(estimator, "feature_names_in_", None)
        if feature_names is not None:
            feature_names = tuple(str(name) for name in feature_names)
            if len(feature_names) != m:
                raise ValueError(f"expected {m} feature names, got {len(feature_names)}")
        if feature_scale is not None:
            feature_scale = np.asarray(feature_scale, dtype=np.float64).reshape(m)
            feature_scale = np.where(feature_scale > 0, feature_scale, 1.0)
        return cls(trees, flat, selection, flat.threshold[test_ids], templates,
                   test_ids - flat.offsets[owner[test_ids]], depth[test_ids], test_offsets,
                   leaf_ids - flat.offsets[owner[leaf_ids]], leaf_offsets, values[leaf_ids],
                   classes, feature_names, feature_scale, n_jobs)

    # ---- look-ups -----------------------------------------------------------------------

    def apply(self, X, *, method="auto") -> np.ndarray:
        """Leaf node ids (n × T); column k equals ``trees[k].apply(X)`` (a forest's ``apply``).

        ``method="matrix"``: the reference: per row chunk h = sgn(Sx − t) (float32 x compared
        with float64 t, as scikit-learn does), B·h as one sparse product, and the exit leaf of
        each tree as the leaf with LS_i = B_i·h/||B_i||² = 1 (its argmax). It costs
        O(n·(|tests| + nnz(B))), far more than a descent, so ``"auto"`` uses the flat descent
        for a few rows and the trees' compiled ``apply`` in threads for many.
        """
        X32 = self._rows(X)
        if method == "auto":
            return forest_leaf_ids(self.trees, self.flat, X32, self.n_jobs) - self.flat.offsets
        if method != "matrix":
            raise ValueError(f"method must be 'auto' or 'matrix', got {method!r}")
        B = self.templates.astype(np.float32)
        n_leaves, n_tests = B.shape
        out = np.empty((X32.shape[0], self.n_trees), dtype=np.intp)
        chunk = max(1, _MATRIX_CHUNK_ENTRIES // max(n_leaves + n_tests, 1))
        for start in range(0, X32.shape[0], chunk):
            rows = slice(start, start + chunk)
            h = self._outcomes(X32[rows]).T
            exit_leaf = (B @ h) == self.leaf_depth[:, None]
            _, leaf = np.nonzero(exit_leaf.T)  # one exit leaf per (row, tree), in tree order
            out[rows] = self.leaf_nodes[leaf].reshape(-1, self.n_trees)
        return out

    def path(self, x, tree: int) -> list[PathStep]:
        """The ordered tests row ``x`` takes in tree ``tree`` (the nonzeros of its exit leaf's
        template row), with margins; the smallest |scaled margin| is marked ``fragile``."""
        x = self._row(x)
        x32 = x.astype(np.float32).astype(np.float64)
        leaf = self._leaf_row(tree, self.flat.leaf(x32, tree) - self.flat.offsets[tree])
        start, stop = self.templates.indptr[leaf], self.templates.indptr[leaf + 1]
        tests, signs = self.templates.indices[start:stop], self.templates.data[start:stop]
        order = np.argsort(self.test_depth[tests])
        tests, signs = tests[order], signs[order]
        feature = self.test_feature[tests]
        margin = x32[feature] - self.thresholds[tests]
        scaled = margin / self._scales(None)[feature]
        fragile = int(np.argmin(np.abs(scaled))) if tests.size else -1
        columns = zip(self.test_depth[tests].tolist(), self.test_nodes[tests].tolist(),
                      feature.tolist(), self.thresholds[tests].tolist(), signs.tolist(),
                      x[feature].tolist(), margin.tolist(), scaled.tolist(), strict=True)
        return [
            PathStep(tree=tree, depth=depth, node=node, feature=f, feature_name=self._name(f),
                     threshold=t, direction="<=" if sign < 0 else ">", value=value,
                     margin=mg, scaled_margin=sc, fragile=i == fragile, spread=self._spread(f))
            for i, (depth, node, f, t, sign, value, mg, sc) in enumerate(columns)
        ]

    def alternatives(self, x, tree: int, max_flips: int = 2) -> list[Alternative]:
        """Leaves of tree ``tree`` that 1..``max_flips`` test flips away from row ``x``
        (flips_i = (||B_i||₁ − B_i·h)/2), nearest first (fewest flips, then ``distance``).

        Each comes with the row moved into the leaf's box: every flipped feature goes to the
        nearest float32 value inside the bounds that the leaf's ancestors put on it.
        """
        if max_flips < 1:
            raise ValueError("max_flips must be at least 1")
        x = self._row(x)
        x32 = x.astype(np.float32).astype(np.float64)
        leaves, tests = self._block(tree)
        feature, threshold = self.test_feature[tests], self.thresholds[tests]
        h = np.where(x32[feature] > threshold, 1, -1)
        B = self.templates[leaves][:, tests]
        flips = (self.leaf_depth[leaves] - B @ h) // 2
        scales = self._scales(None)
        found = []
        for i in np.flatnonzero((flips >= 1) & (flips <= max_flips)):
            entries = slice(B.indptr[i], B.indptr[i + 1])
            cols, signs = B.indices[entries], B.data[entries]
            new_row = _move_into_box(x, x32, feature[cols], threshold[cols], signs)
            if new_row is None:
                continue
            wrong = cols[signs != h[cols]]
            flipped = tuple(
                Flip(node=int(self.test_nodes[tests.start + j]),
                     depth=int(self.test_depth[tests.start + j]), feature=int(feature[j]),
                     feature_name=self._name(feature[j]), threshold=float(threshold[j]),
                     direction="<=" if h[j] > 0 else ">", value=float(x[feature[j]]),
                     new_value=float(new_row[feature[j]]), spread=self._spread(feature[j]))
                for j in wrong[np.argsort(self.test_depth[tests.start + wrong])])
            moved = np.abs(new_row - x) / scales
            value = self.leaf_values[leaves.start + i]
            found.append(Alternative(
                tree=tree, leaf=int(self.leaf_nodes[leaves.start + i]), flips=int(flips[i]),
                tests=flipped, distance=float(moved.sum()),
                prediction=tuple(map(float, value)) if np.ndim(value) else float(value),
                prediction_text=self.describe(value), row=new_row))
        return sorted(found, key=lambda a: (a.flips, a.distance))

    def soft_leaf_probabilities(self, X, scale=None, *, tree=None) -> np.ndarray:
        """Soft leaf membership Π_{ancestors j} σ(B_ij·(x_f − t_j)/s_f) (algorithms.md §4).

        ``scale``: an (m,) array of s_f, or a positive float multiplying ``feature_scale``
        (1 without one); None means ``feature_scale``. Returns (n × leaves of ``tree``), or
        (n × all leaves) when ``tree`` is None; each tree's block sums to 1 per row and tends
        to the exit leaf's one-hot as s → 0.
        """
        X32 = self._rows(X).astype(np.float64)
        leaves, tests = (slice(0, self.leaf_nodes.size), slice(0, self.thresholds.size)) \
            if tree is None else self._block(tree)
        feature = self.test_feature[tests]
        z = (X32[:, feature] - self.thresholds[tests]) / self._scales(scale)[feature]
        B = self.templates[leaves][:, tests]
        right = (B > 0).astype(np.float64)
        left = (B < 0).astype(np.float64)
        log_p = right @ -np.logaddexp(0.0, -z).T + left @ -np.logaddexp(0.0, z).T
        return np.exp(log_p).T

    def describe(self, value) -> str:
        """A leaf prediction in words: "P(1) = 0.81", "virginica (P = 0.93)" or "152.3"."""
        if self.classes is None:
            return number_text(value)
        if self.classes.size == 2:
            return f"P({self.classes[1]}) = {value[1]:.2f}"
        best = int(np.argmax(value))
        return f"{self.classes[best]} (P = {value[best]:.2f})"

    # ---- helpers ------------------------------------------------------------------------

    def _block(self, tree):
        if not 0 <= tree < self.n_trees:
            raise IndexError(f"tree must be in [0, {self.n_trees}), got {tree}")
        return (slice(self.leaf_offsets[tree], self.leaf_offsets[tree + 1]),
                slice(self.test_offsets[tree], self.test_offsets[tree + 1]))

    def _leaf_row(self, tree, node):
        leaves, _ = self._block(tree)
        return leaves.start + int(np.searchsorted(self.leaf_nodes[leaves], node))

    def _name(self, feature) -> str:
        return f"x[{feature}]" if self.feature_names is None else self.feature_names[feature]

    def _spread(self, feature) -> float | None:
        """The feature's scale, which sets the decimals a path prints it with (None without
        ``feature_scale``)."""
        return None if self.feature_scale is None else float(self.feature_scale[feature])

    def _scales(self, scale) -> np.ndarray:
        base = np.ones(self.n_features) if self.feature_scale is None else self.feature_scale
        if scale is None:
            return base
        scale = np.asarray(scale, dtype=np.float64)
        scales = base * scale if scale.ndim == 0 else scale.reshape(self.n_features)
        if not np.all(scales > 0):
            raise ValueError("scales must be positive")
        return scales

    def test_outcomes(self, X) -> np.ndarray:
        """h = sgn(Sx − t) for each row (n × tests, float32 ±1; sgn(0) = −1: "x_f ≤ t_j" goes
        left), with x compared in float32 as scikit-learn does."""
        return self._outcomes(self._rows(X))

    def _outcomes(self, X32) -> np.ndarray:
        return np.where(X32[:, self.test_feature] > self.thresholds, 1.0, -1.0).astype(np.float32)

    def _rows(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"expected rows of {self.n_features} features, got shape {X.shape}")
        if not np.isfinite(X).all():
            raise ValueError("X contains NaN or infinite values; impute them first")
        return np.ascontiguousarray(X, dtype=np.float32)

    def _row(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64).ravel()
        self._rows(x[None, :])
        return x



def _move_into_box(x, x32, feature, threshold, signs):
    """``x`` with each feature that breaks one of a leaf's tests moved to the nearest float32
    value in the leaf's interval (lo, hi] on it; None when that interval holds no float32."""
    out = x.copy()
    for f in np.unique(feature):
        on_f = feature == f
        lo = threshold[on_f & (signs > 0)].max(initial=-np.inf)
        hi = threshold[on_f & (signs < 0)].min(initial=np.inf)
        if lo < x32[f] <= hi:
            continue
        if x32[f] <= lo:
            value = np.float32(lo)
            if value <= lo:
                value = np.nextafter(value, np.float32(np.inf))
        else:
            value = np.float32(hi)
            if value > hi:
                value = np.nextafter(value, np.float32(-np.inf))
        if not lo < value <= hi:
            return None
        out[f] = float(value)
    return out
