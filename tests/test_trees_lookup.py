"""The compiled leaf look-ups of many rows (forestviz.trees.masks, forestviz.trees.flat) against
scikit-learn's own ``apply``, and the checks that keep them inside their arrays: the caches they
build are never saved, never taken from a saved state, and arrays that do not fit are refused."""

import pickle
from dataclasses import replace

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

from forestviz.trees import FlatTrees
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


def test_the_checked_caches_are_not_saved_nor_read_from_a_saved_state():
    model, X = forest(4)
    flat = FlatTrees.from_trees(model.estimators_)
    X32 = X.astype(np.float32)
    flat.masks.apply(X32)
    flat.apply_many(X32)
    assert "_packed" in vars(flat.masks) and "_largest_feature" in vars(flat)
    restored = pickle.loads(pickle.dumps(flat))
    assert "_packed" not in vars(restored.masks) and "_largest_feature" not in vars(restored)
    forged = flat.__getstate__() | {"_largest_feature": 10**6}
    copy = FlatTrees.__new__(FlatTrees)
    copy.__setstate__(forged)
    assert copy._largest_feature == flat.feature.max()  # recomputed, not the saved number
    np.testing.assert_array_equal(restored.apply_many(X32), flat.apply_many(X32))


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
