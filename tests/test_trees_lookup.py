"""The compiled leaf look-ups of many rows (forestviz.trees.masks, forestviz.trees.flat) against
scikit-learn's own ``apply``, and the checks that keep them inside their arrays: the caches they
build from the trees are never saved, and arrays that do not fit are refused."""

import pickle
from dataclasses import replace

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from forestviz.trees import FlatTrees, LeafMasks, LeafStats, LeafTable
from forestviz.trees.lookup import forest_leaf_ids
from forestviz.trees.threads import SMALL_BATCH


def forest(max_depth, n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 7)).round(1)  # many rows tie with thresholds
    y = X[:, 0] - X[:, 1] ** 2 + rng.normal(size=n)
    model = RandomForestRegressor(9, max_depth=max_depth, min_samples_leaf=1,
                                  random_state=seed).fit(X, y)
    return model, X


@pytest.mark.parametrize("max_depth", [3, 6, None])
def test_many_rows_get_scikit_learns_leaves_through_either_look_up(max_depth):
    model, X = forest(max_depth)
    flat = FlatTrees.from_trees(model.estimators_)
    assert (flat.masks is None) == (max_depth is None)  # deep trees: the compiled descent
    X32 = np.vstack([X, X + 0.05]).astype(np.float32)
    expected = model.apply(X32) + flat.offsets
    assert X32.shape[0] > SMALL_BATCH
    np.testing.assert_array_equal(forest_leaf_ids(model.estimators_, flat, X32, 2), expected)
    np.testing.assert_array_equal(flat.apply_many(X32), expected)
    np.testing.assert_array_equal(flat.apply(X32), expected)  # the few-rows descent agrees
    missing = np.where(np.arange(X32.size).reshape(X32.shape) % 5 == 0, np.nan, X32)
    np.testing.assert_array_equal(forest_leaf_ids(model.estimators_, flat, missing, 2),
                                  flat.apply(missing))  # NaN goes right in every look-up


def test_the_flat_trees_are_never_saved_but_rebuilt_from_the_trees():
    """Leaf statistics and leaf tables save their trees, not the flat numbering or its masks
    (derived, and followed by compiled code without bounds checks); read back, they rebuild
    them and find the same leaves."""
    model, X = forest(4)
    stats = LeafStats.from_forest(model, X, X[:, 0], task="regression")
    classifier = RandomForestClassifier(5, max_depth=4, random_state=0).fit(X, X[:, 0] > 0)
    table = LeafTable(classifier.estimators_, 2)
    for saved in (stats, table):
        state = saved.__getstate__()
        assert not any(isinstance(v, FlatTrees | LeafMasks) for v in state.values())
        restored = pickle.loads(pickle.dumps(saved))
        assert restored.flat is not saved.flat and restored.flat.masks is not None
        for name in ("offsets", "feature", "threshold", "left", "right"):
            np.testing.assert_array_equal(getattr(restored.flat, name), getattr(saved.flat, name))
        np.testing.assert_array_equal(restored.flat.masks.apply(X), saved.flat.masks.apply(X))
    assert not {"leaf_sq_norms", "leaf_column", "leaf_terms"} & set(stats.__getstate__())
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(stats)).query(X)[0],
                                  stats.query(X)[0])


def test_arrays_that_do_not_fit_are_refused_before_any_compiled_read():
    model, X = forest(None)
    flat = FlatTrees.from_trees(model.estimators_)
    X32 = X.astype(np.float32)
    outside = replace(flat, left=np.where(flat.left == flat.left.max(), flat.feature.size,
                                          flat.left))
    with pytest.raises(ValueError, match="do not fit"):
        outside.apply_many(X32)
    with pytest.raises(ValueError, match="fewer features"):
        flat.apply_many(X32[:, :3])
    shallow = FlatTrees.from_trees(forest(3)[0].estimators_)
    torn = replace(shallow.masks, tables=shallow.masks.tables[:-1])
    with pytest.raises((ValueError, TypeError)):
        torn.apply(X32)
    with pytest.raises(ValueError, match="fewer features"):
        shallow.masks.apply(X32[:, :1])
