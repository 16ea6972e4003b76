"""One rule for feature importance and one for the effective number of trees, wherever they
are shown: checked against scikit-learn's forests and brute force."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain.row.explanation import effective_trees
from forestviz.trees.fitted import estimator_trees, impurity_importance

X, y = make_classification(200, n_features=6, n_informative=3, random_state=0)


def test_impurity_importance_is_scikit_learns_for_its_forests():
    for forest in (RandomForestClassifier(20, random_state=0),
                   ExtraTreesClassifier(20, max_depth=1, random_state=0)):
        forest.fit(X, y)
        np.testing.assert_allclose(impurity_importance(estimator_trees(forest), 6),
                                   forest.feature_importances_, rtol=1e-12)


def test_the_forest_page_and_erf_cleaning_use_the_same_importance():
    model = EnhancedForestClassifier(15, n_iterations=2, random_state=0).fit(X, y)
    np.testing.assert_allclose(impurity_importance(estimator_trees(model), 6),
                               model.feature_importances_)


def test_no_split_means_no_importance():
    stumps = RandomForestClassifier(3, max_depth=1, random_state=0).fit(X, np.zeros(200))
    np.testing.assert_array_equal(impurity_importance(estimator_trees(stumps), 6), np.zeros(6))


def test_effective_trees_brute_force():
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(7), size=5)
    expected = [1 / sum(w * w for w in row) for row in weights]
    np.testing.assert_allclose(effective_trees(weights), expected)
    assert effective_trees(np.full(10, 0.1)) == pytest.approx(10.0)
    assert effective_trees(np.eye(4)[1]) == 1.0
