"""LeafStats against a brute-force per-leaf computation (algorithms.md §0)."""

import numpy as np
import pytest
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from forestviz.trees import FlatTrees, LeafStats, fitted_trees


def brute_force(trees, X_train, y_train, X, *, task, standardize=True):
    """Loop over every tree and row: the key, value and distance of each (row, tree)."""
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1.0
    if not standardize:
        mean, std = np.zeros_like(mean), np.ones_like(std)
    Xs_train, Xs = (X_train - mean) / std, (X - mean) / std
    classes = np.unique(y_train)
    n, T = X.shape[0], len(trees)
    dist = np.empty((n, T))
    values = np.empty((n, T)) if task == "regression" else np.empty((n, T, classes.size))
    for k, tree in enumerate(trees):
        train_leaf = tree.apply(X_train.astype(np.float32))
        leaf = tree.apply(X.astype(np.float32))
        for i in range(n):
            rows = train_leaf == leaf[i]
            key = Xs_train[rows].mean(axis=0)
            dist[i, k] = np.sum((Xs[i] - key) ** 2)
            if task == "regression":
                values[i, k] = y_train[rows].mean()
            else:
                values[i, k] = [np.mean(y_train[rows] == c) for c in classes]
    return dist, values


def data(n=300, m=5, seed=0, constant_column=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    if constant_column:
        X[:, 2] = 3.0
    y = X[:, 0] - 2 * X[:, 1] + rng.normal(scale=0.5, size=n)
    return X, y


@pytest.mark.parametrize(
    "forest_cls", [RandomForestRegressor, ExtraTreesRegressor], ids=["bootstrap", "extra"]
)
@pytest.mark.parametrize("standardize", [True, False], ids=["standardized", "raw"])
def test_regression_matches_brute_force(forest_cls, standardize):
    X, y = data(constant_column=True)
    X_new, _ = data(n=40, seed=1)
    forest = forest_cls(n_estimators=8, min_samples_leaf=5, random_state=0).fit(X, y)
    stats = LeafStats.from_forest(forest, X, y, task="regression", standardize=standardize)
    dist, values = brute_force(forest.estimators_, X, y, X_new, task="regression",
                               standardize=standardize)
    np.testing.assert_allclose(stats.distances(X_new), dist, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(stats.values(X_new), values, rtol=1e-12)
    assert np.all(np.isfinite(stats.distances(X_new)))


@pytest.mark.parametrize(
    "forest_cls", [RandomForestClassifier, ExtraTreesClassifier], ids=["bootstrap", "extra"]
)
def test_classification_with_classes_missing_from_leaves(forest_cls):
    X, y_cont = data(n=240)
    y = np.digitize(y_cont, [-1.5, 1.5]).astype(str)  # three classes, pure leaves lack some
    forest = forest_cls(n_estimators=6, min_samples_leaf=3, random_state=0).fit(X, y)
    stats = LeafStats.from_forest(forest, X, y, task="classification")
    dist, values = brute_force(forest.estimators_, X, y, X[:50], task="classification")
    got = stats.values(X[:50])
    assert got.shape == (50, 6, 3)
    np.testing.assert_allclose(got, values, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=2), 1.0)
    assert np.any(got == 0.0)  # leaves without some class really occur here
    np.testing.assert_allclose(stats.distances(X[:50]), dist, atol=1e-9)
    np.testing.assert_array_equal(stats.classes, np.unique(y))


def test_leaves_no_training_row_reaches_fall_back():
    X, y = data(n=200)
    tree = DecisionTreeRegressor(min_samples_leaf=2, random_state=0).fit(X, y)
    X_half, y_half = X[X[:, 0] < 0], y[X[:, 0] < 0]  # the statistics see only half the rows
    stats = LeafStats.from_forest([tree], X_half, y_half, task="regression")
    empty_leaves = np.flatnonzero((stats.counts == 0) & (stats.flat.feature < 0))
    assert empty_leaves.size > 0
    # value: the tree's own leaf value; key: the nearest ancestor that rows reach
    np.testing.assert_allclose(stats.leaf_values[empty_leaves],
                               tree.tree_.value[empty_leaves, 0, 0])
    X_far = X[X[:, 0] > 1]
    assert np.all(np.isfinite(stats.distances(X_far)))
    parent = {c: p for p in range(tree.tree_.node_count)
              for c in (tree.tree_.children_left[p], tree.tree_.children_right[p]) if c >= 0}
    through = tree.decision_path(X_half.astype(np.float32)).toarray().astype(bool)
    X_half_std = (X_half - X_half.mean(axis=0)) / X_half.std(axis=0)
    for leaf in empty_leaves:
        node = leaf
        while not through[:, node].any():
            node = parent[node]
        np.testing.assert_allclose(stats.leaf_means[leaf], X_half_std[through[:, node]].mean(0))


def test_leaf_ids_equal_apply_including_values_on_thresholds():
    X, y = data(n=400)
    forest = RandomForestRegressor(n_estimators=10, min_samples_leaf=3, random_state=0).fit(X, y)
    stats = LeafStats.from_forest(forest, X, y, task="regression")
    thresholds = np.concatenate([t.tree_.threshold[t.tree_.feature >= 0]
                                 for t in forest.estimators_])
    on_threshold = np.tile(X[:1], (thresholds.size, 1))
    on_threshold[:, 0] = thresholds  # exactly on (or next to, after float32 rounding) a split
    for batch in (on_threshold, on_threshold[:10], X, X[:1]):  # both lookup paths
        np.testing.assert_array_equal(stats.leaf_ids(batch), forest.apply(batch))


def test_flat_descent_equals_compiled_apply_on_many_random_trees():
    rng = np.random.default_rng(3)
    for seed in range(20):
        X = rng.normal(size=(150, 4)).round(1)  # many ties with thresholds
        y = rng.integers(0, 3, size=150)
        trees = [DecisionTreeClassifier(max_depth=d, random_state=seed).fit(X, y)
                 for d in (1, 4, None)]
        flat = FlatTrees.from_trees(trees)
        X32 = X.astype(np.float32)
        expected = np.column_stack([t.apply(X32) for t in trees])
        np.testing.assert_array_equal(flat.apply(X32) - flat.offsets, expected)


def test_chunking_does_not_change_results():
    X, y = data(n=300)
    forest = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    whole = LeafStats.from_forest(forest, X, y, task="regression", chunk_size=10_000)
    chunked = LeafStats.from_forest(forest, X, y, task="regression", chunk_size=7)
    np.testing.assert_allclose(chunked.distances(X), whole.distances(X))
    d, v = chunked.query(X)
    np.testing.assert_allclose(d, whole.distances(X))
    np.testing.assert_allclose(v, whole.values(X))


def test_differences_agree_with_distances():
    X, y = data(n=200)
    forest = ExtraTreesRegressor(n_estimators=4, min_samples_leaf=4, random_state=0).fit(X, y)
    stats = LeafStats.from_forest(forest, X, y, task="regression")
    diff = stats.differences(X[:30])
    np.testing.assert_allclose((diff**2).sum(axis=2), stats.distances(X[:30]), atol=1e-9)


def test_training_leaf_means_average_to_zero_in_standardised_space():
    X, y = data(n=500)
    forest = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    stats = LeafStats.from_forest(forest, X, y, task="regression")
    for k in range(3):
        nodes = slice(stats.flat.offsets[k],
                      stats.flat.offsets[k] + forest.estimators_[k].tree_.node_count)
        weighted = (stats.counts[nodes, None] * stats.leaf_means[nodes]).sum(axis=0)
        np.testing.assert_allclose(weighted / X.shape[0], 0.0, atol=1e-12)


def test_rejects_unfitted_or_foreign_models_and_bad_task():
    X, y = data(n=50)
    with pytest.raises(TypeError):
        fitted_trees([object()])
    forest = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="task"):
        LeafStats.from_forest(forest, X, y, task="ranking")


def test_leaf_masks_equal_apply_on_shallow_trees_and_threshold_values():
    """The QuickScorer bit-mask lookup (batches of many rows) against scikit-learn's apply."""
    rng = np.random.default_rng(7)
    for seed, (depth, leaves) in enumerate([(1, None), (3, None), (6, None), (None, 64),
                                            (None, 17)]):
        X = rng.normal(size=(300, 6)).round(1)  # many rows tie with thresholds
        y = X[:, 0] + rng.normal(size=300)
        trees = [DecisionTreeRegressor(max_depth=depth, max_leaf_nodes=leaves, random_state=s)
                 .fit(X[s::2], y[s::2]) for s in range(3 + seed)]
        flat = FlatTrees.from_trees(trees)
        assert flat.masks is not None
        thresholds = np.concatenate([t.tree_.threshold[t.tree_.feature >= 0] for t in trees])
        on_threshold = np.repeat(X[:1], thresholds.size, axis=0)
        on_threshold[:, 0] = thresholds
        for batch in (X, on_threshold):
            X32 = batch.astype(np.float32)
            expected = np.column_stack([t.apply(X32) for t in trees]) + flat.offsets
            np.testing.assert_array_equal(flat.masks.apply(X32), expected)


def test_leaf_masks_are_skipped_for_deep_trees():
    X, y = data(n=2000)
    deep = DecisionTreeRegressor(min_samples_leaf=1, random_state=0).fit(X, y)
    assert deep.get_n_leaves() > 64
    assert FlatTrees.from_trees([deep]).masks is None
