"""Feature contributions of one row, per tree and through the row's own tree weights.

Every model here predicts ``offset + Σ_k α_k(x)·f_k(x)`` (:mod:`forestviz.trees.ensemble`). Each
tree's output splits into a base value and one contribution per encoded feature,

    f_k(x) = φ_k0 + Σ_j φ_kj(x),

where φ_k0 is the tree's expected output over its training rows (the root of
:meth:`~forestviz.trees.ensemble.WeightedEnsemble.node_outputs`: the count-weighted mean of its
leaves). Weighting every tree by the row's own α_k gives the contributions of the model,

    prediction(x) = [offset + Σ_k α_k·φ_k0] + Σ_j [Σ_k α_k·φ_kj],

exactly (to rounding), for values and for each class probability alike. With α_k = 1/T (a plain
forest) the total is the forest's own attribution; for an attention forest it is the attribution
of the trees that carry this row's prediction, as much as they carry it.

Two ways to split f_k(x), both computed on the model's own node values and covers (the leaf
values its prediction uses: for attention forests the means of all training rows in a leaf, for
AGBoost the scaled boosting values), so the identity holds for every family:

* ``"path"``: path contributions (Saabas, "Interpreting random forests", 2014; the same numbers
  as ``treeinterpreter`` and ``shap.TreeExplainer(...).shap_values(X, approximate=True)``).
  Down the row's path every split on feature j adds the change of the node value,
  φ_kj = Σ_{splits on j} (value(child) − value(node)); the values telescope from the root to
  the leaf. O(depth) per tree, done for all T trees at once by one vectorised descent.
* ``"treeshap"``: exact Shapley values of each tree with the path-dependent conditional
  expectation (Lundberg, Erion & Lee, "Consistent individualized feature attribution for tree
  ensembles", Algorithm 2), computed by the ``shap`` package's C implementation. To get every
  tree's own φ_k in a single call, tree k's features are renamed k·m + j and the row is repeated
  T times: no two trees then share a feature, so the Shapley value of feature k·m + j is tree
  k's φ_kj. Its cost is O(L·D²) per tree (L leaves, depth D), against O(D) for paths.

Default ``"path"``, from measurements on this machine (bench/explain.py: 200 trees fitted on
20,000 rows × 20 features, median over 100 rows, the row's α given): path contributions take
0.3 ms on the ERF (depth 6) and 0.7 ms on the ABRF classifier (min_samples_leaf=10: ~1,000
leaves a tree, up to depth 30), against 57–66 ms for the same forests' single-row
``predict_proba``; TreeSHAP takes 2.6 ms on the ERF but 64 ms on the ABRF (and ~120 ms on a
regression forest of the same shape), over the budget of 50 ms a row — its time grows with
:attr:`ContributionModel.treeshap_work`, about 30–50 ns a unit here, and shap's C code holds
the GIL, so threads do not help. Path contributions satisfy the same identity at a cost that
barely depends on the trees' size; TreeSHAP is there when its consistency guarantee (a
feature that matters more never gets less credit) is wanted and the trees are small enough.

Build a :class:`ContributionModel` once per model (node values, covers and the shap model are
cached) and call :meth:`~ContributionModel.explain` per row; :func:`contributions` does both.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.fitted import estimator_trees
from forestviz.trees.leaf_values import fill_split_nodes

METHODS = ("path", "treeshap")

# A leaf no training row reaches gets this share of its tree's mean leaf count as its cover in
# TreeSHAP (which needs positive covers), and the tree's base value is recomputed with it.
EMPTY_LEAF_COVER = 1e-9


@dataclass(frozen=True, eq=False)
class Contributions:
    """One row's feature contributions.

    ``per_tree`` (T, m) or (T, m, C): each tree's own φ_kj, with ``tree_base_values`` (T,) or
    (T, C) φ_k0, so that φ_k0 + Σ_j φ_kj = f_k(x), the tree's output for the row;
    ``weights`` the row's α (T,); ``total`` (m,) or (m, C) = Σ_k α_k·φ_kj; ``base_value`` (a
    float or (C,)) = ``offset`` + Σ_k α_k·φ_k0, so that ``base_value + total.sum(axis=0)`` is
    the model's prediction (:attr:`prediction`). Class columns follow the model's
    ``classes_``. ``method``: ``"path"`` or ``"treeshap"``; ``feature_names`` one per
    column (the encoded columns, or the original ones after :meth:`fold`).
    """

    base_value: float | np.ndarray
    per_tree: np.ndarray
    total: np.ndarray
    tree_base_values: np.ndarray
    weights: np.ndarray
    offset: float
    method: str
    feature_names: tuple[str, ...]

    @property
    def prediction(self) -> float | np.ndarray:
        """base value + Σ_j contributions: the model's prediction for the row."""
        return self.base_value + self.total.sum(axis=0)

    @property
    def weighted_per_tree(self) -> np.ndarray:
        """α_k·φ_kj (T, m[, C]): what each tree adds to :attr:`total`."""
        shape = (-1,) + (1,) * (self.per_tree.ndim - 1)
        return self.weights.reshape(shape) * self.per_tree

    def table(self, column: int | None = None) -> pd.DataFrame:
        """The total per feature (``feature``, ``contribution``) as a table, largest magnitude
        first; for a classifier, to the probability of class column ``column``."""
        if self.total.ndim == 1:
            total = self.total
        elif column is None:
            raise ValueError("give the class column of a classifier's contributions")
        else:
            total = self.total[:, column]
        frame = pd.DataFrame({"feature": list(self.feature_names), "contribution": total})
        order = np.argsort(-np.abs(total), kind="stable")
        return frame.iloc[order].reset_index(drop=True)

    def fold(self, source_columns) -> Contributions:
        """The contributions per original column: ``source_columns[j]`` names the original
        column of encoded column j (the preprocessor's ``source_columns_``), and the
        contributions of all encoded columns of one original column (its one-hot levels) are
        summed. Columns keep the order of their first encoded column; totals are unchanged."""
        sources = np.asarray(source_columns, dtype=object)
        if sources.shape != (self.per_tree.shape[1],):
            raise ValueError(f"expected {self.per_tree.shape[1]} source columns, got "
                             f"{sources.shape}")
        keys = [str(s) for s in sources]
        names = list(dict.fromkeys(keys))
        if len(names) == len(keys):  # every encoded column its own column: nothing to sum
            return replace(self, feature_names=tuple(names))
        position = {name: i for i, name in enumerate(names)}
        group = np.array([position[k] for k in keys], dtype=np.intp)
        fold = np.zeros((len(names), sources.size))
        fold[group, np.arange(sources.size)] = 1.0
        # matrix products (BLAS): einsum's generic loop took 0.8 ms for 200 trees × 2 classes
        per_tree = fold @ self.per_tree if self.per_tree.ndim == 3 else self.per_tree @ fold.T
        total = fold @ self.total
        return replace(self, per_tree=per_tree, total=total, feature_names=tuple(names))


class ContributionModel:
    """What one model's contributions need, computed once: the flat trees (as
    :class:`~forestviz.trees.flat.FlatTrees`, with sklearn's routing of missing values), the
    node values and covers of :meth:`~forestviz.trees.ensemble.WeightedEnsemble.node_outputs`,
    every node's change from its parent, and (on first use) the shap model for TreeSHAP."""

    def __init__(self, model, trees, values, counts, feature_names, offset):
        self.model = model
        self.trees = trees
        self.n_trees = len(trees)
        self.n_features = int(trees[0].n_features_in_)
        self.feature_names = tuple(feature_names)
        self.offset = float(offset)
        sizes = np.array([t.tree_.node_count for t in trees])
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        shift = np.repeat(self.offsets, sizes)
        left = np.concatenate([t.tree_.children_left for t in trees]).astype(np.intp)
        right = np.concatenate([t.tree_.children_right for t in trees]).astype(np.intp)
        leaf = left < 0
        self.feature = np.where(leaf, -1, np.concatenate([t.tree_.feature for t in trees]))
        self.threshold = np.concatenate([t.tree_.threshold for t in trees])
        self.left = np.where(leaf, -1, left + shift)
        self.right = np.where(leaf, -1, right + shift)
        self.missing_left = np.concatenate([_missing_go_to_left(t.tree_) for t in trees])
        self.values = np.asarray(values, dtype=np.float64)
        self.counts = np.asarray(counts, dtype=np.float64)
        self.tree_of = np.repeat(np.arange(self.n_trees), sizes)
        # every split node's children: the change of value into the child, and the feature
        # the split tests (the column of φ the change is credited to)
        parent = np.full(self.feature.size, -1, dtype=np.intp)
        split = np.flatnonzero(~leaf)
        parent[self.left[split]] = split
        parent[self.right[split]] = split
        child = parent >= 0
        self.delta = np.zeros_like(self.values)
        self.delta[child] = self.values[child] - self.values[parent[child]]
        self.column = np.zeros(self.feature.size, dtype=np.intp)  # tree·m + feature, per child
        self.column[child] = (self.tree_of[child] * self.n_features
                              + self.feature[parent[child]])
        self.max_depth = max(int(t.tree_.max_depth) for t in trees)
        self._shap = None

    @classmethod
    def from_model(cls, model, *, feature_names=None) -> ContributionModel:
        """Read a fitted model of any family (through :func:`as_ensemble`; the constant of the
        prediction, AGBoost's F_0, from its ``offset()``). ``feature_names``: the encoded
        columns' names (default: the model's ``feature_names_in_``, else x0, x1, …)."""
        ensemble = as_ensemble(model)
        trees = estimator_trees(model)
        values, counts = ensemble.node_outputs()
        m = int(trees[0].n_features_in_)
        if feature_names is None:
            names = getattr(model, "feature_names_in_", None)
            feature_names = [f"x{j}" for j in range(m)] if names is None else list(names)
        if len(feature_names) != m:
            raise ValueError(f"expected {m} feature names, got {len(feature_names)}")
        return cls(model, trees, values, counts, [str(n) for n in feature_names],
                   ensemble.offset())

    @property
    def treeshap_work(self) -> int:
        """The sum of all leaves' depths: what TreeSHAP's time for one row grows with (about
        30–50 ns a unit on the benchmark machine; path contributions need only T·depth
        steps). 200 trees of depth 6: ~77,000 units (2–3 ms); 200 trees of ~1,000 leaves:
        ~1.3 million (50–65 ms)."""
        depth = np.concatenate([t.tree_.compute_node_depths() for t in self.trees]) - 1
        return int(depth[self.feature < 0].sum())

    # ------------------------------------------------------------------ one row
    def row_weights(self, x) -> np.ndarray:
        """The row's α (T,) through the protocol."""
        return as_ensemble(self.model).tree_weights(_frame(self.model, self._check_row(x)))[0]

    def explain(self, x, weights=None, *, method: str = "path") -> Contributions:
        """The contributions of row ``x`` (m encoded values) with tree weights ``weights``
        (the row's α, (T,); default: computed through the protocol)."""
        x = self._check_row(x)
        if weights is None:
            weights = self.row_weights(x)
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (self.n_trees,):
            raise ValueError(f"expected {self.n_trees} tree weights, got shape {weights.shape}")
        base, phi = self.per_tree(x, method=method)
        total = np.tensordot(weights, phi, axes=1)  # Σ_k α_k·φ_kj (BLAS, not einsum's loop)
        base_value = self.offset + np.tensordot(weights, base, axes=1)
        if base_value.ndim == 0:
            base_value = float(base_value)
        return Contributions(base_value=base_value, per_tree=phi, total=total,
                             tree_base_values=base, weights=weights, offset=self.offset,
                             method=method, feature_names=self.feature_names)

    def per_tree(self, x, *, method: str = "path") -> tuple[np.ndarray, np.ndarray]:
        """(φ_k0 (T[, C]), φ_kj (T, m[, C])) of row ``x`` for every tree, unweighted."""
        x = self._check_row(x)
        if method == "path":
            return self._path(x)
        if method == "treeshap":
            return self._treeshap(x)
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")

    def _check_row(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim > 2 or (x.ndim == 2 and x.shape[0] != 1) or x.size != self.n_features:
            raise ValueError(f"expected one row of {self.n_features} features, got shape "
                             f"{x.shape}")
        return x.ravel()

    def _path(self, x) -> tuple[np.ndarray, np.ndarray]:
        """Saabas: one descent through all trees at once, recording the nodes reached; each
        node's change from its parent goes to (its tree, its parent's split feature)."""
        x32 = x.astype(np.float32)  # the trees compare float32 inputs, as scikit-learn does
        missing = np.isnan(x32)
        node = self.offsets
        reached = []
        while True:
            feature = self.feature[node]
            inner = feature >= 0
            if not inner.all():
                node, feature = node[inner], feature[inner]
            if node.size == 0:
                break
            value = x32[feature]
            go_left = (value <= self.threshold[node]) | (missing[feature]
                                                         & self.missing_left[node])
            node = np.where(go_left, self.left[node], self.right[node])
            reached.append(node)
        T, m = self.n_trees, self.n_features
        base = self.values[self.offsets]
        if not reached:
            return base, np.zeros((T, m, *self.values.shape[1:]))
        nodes = np.concatenate(reached)
        column, delta = self.column[nodes], self.delta[nodes]
        if delta.ndim == 1:
            phi = np.bincount(column, weights=delta, minlength=T * m).reshape(T, m)
        else:
            phi = np.stack([np.bincount(column, weights=delta[:, c], minlength=T * m)
                            for c in range(delta.shape[1])], axis=1).reshape(T, m, -1)
        return base, phi

    def _treeshap(self, x) -> tuple[np.ndarray, np.ndarray]:
        explainer, base = self._shap_model()
        T, m = self.n_trees, self.n_features
        row = np.tile(x.astype(np.float32), T)[None, :]
        phi = np.asarray(explainer.shap_values(row, check_additivity=False))
        # (1, T·m) for one output, (1, T·m, C) for several
        phi = phi.reshape((T, m, *self.values.shape[1:]))
        return base, phi

    def _shap_model(self):
        """The shap TreeExplainer over all trees with tree k's features renamed k·m + j
        (built once), and the trees' base values under the covers it uses."""
        if self._shap is None:
            import shap  # imported on first use: it is slow to import

            counts = self.counts.copy()
            leaf = self.feature < 0
            for k in range(self.n_trees):  # empty leaves: a tiny positive cover (see top)
                nodes = np.flatnonzero(leaf & (self.tree_of == k))
                empty = nodes[counts[nodes] <= 0]
                if empty.size:
                    scale = max(counts[nodes].mean(), 1.0)
                    counts[empty] = EMPTY_LEAF_COVER * scale
            values, covers = fill_split_nodes(self.trees, self.values, counts)
            m = self.n_features
            trees = []
            for k, tree in enumerate(self.trees):
                t = tree.tree_
                nodes = slice(self.offsets[k], self.offsets[k] + t.node_count)
                left = t.children_left.astype(np.int32)
                right = t.children_right.astype(np.int32)
                split = left >= 0
                node_values = values[nodes]
                trees.append({
                    "children_left": left,
                    "children_right": right,
                    "children_default": np.where(
                        split, np.where(_missing_go_to_left(t), left, right), -1
                    ).astype(np.int32),
                    "features": np.where(split, t.feature + k * m, -1).astype(np.int32),
                    "thresholds": t.threshold.astype(np.float64),
                    "values": node_values.reshape(t.node_count, -1),
                    "node_sample_weight": covers[nodes],
                })
            explainer = shap.TreeExplainer({"trees": trees, "input_dtype": np.float32})
            self._shap = explainer, values[self.offsets]
        return self._shap


def contributions(model, x, *, weights=None, method: str = "path",
                  feature_names=None) -> Contributions:
    """The feature contributions of ``model``'s prediction for the encoded row ``x`` (m,):
    :meth:`ContributionModel.explain` of a model built for this call. Build a
    :class:`ContributionModel` once to explain many rows of one model."""
    built = ContributionModel.from_model(model, feature_names=feature_names)
    return built.explain(x, weights, method=method)


def _missing_go_to_left(tree) -> np.ndarray:
    """Where scikit-learn sends a missing value at each node (left when it has no such
    record, as trees without missing-value support never see one)."""
    found = getattr(tree, "missing_go_to_left", None)
    if found is None:
        return np.ones(tree.node_count, dtype=bool)
    return np.asarray(found, dtype=bool)


def _frame(model, x):
    """One row as the model was fitted: a DataFrame with its feature names when it has them."""
    names = getattr(model, "feature_names_in_", None)
    row = np.asarray(x, dtype=np.float64)[None, :]
    return row if names is None else pd.DataFrame(row, columns=names)
