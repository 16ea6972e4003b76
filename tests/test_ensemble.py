"""The weighted-ensemble protocol (forestviz.trees.ensemble): every family's numbers recompose
its own prediction, and scikit-learn forests read through the thin wrapper equal their trees'
own predictions."""

import numpy as np
import pytest
from sklearn.base import is_regressor
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from forestviz.attention import AttentionForestRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.trees.ensemble import ForestEnsemble, WeightedEnsemble, as_ensemble
from forestviz.trees.fitted import estimator_trees
from tests.ensemble_models import MODELS, T, classification, friedman


@pytest.fixture(scope="module", params=list(MODELS))
def fitted(request):
    make, data = MODELS[request.param]
    X, y = data()
    return request.param, make().fit(X[:200], y[:200]), X[200:]


def test_outputs_recompose_the_models_own_prediction(fitted):
    _, model, X = fitted
    out = as_ensemble(model).ensemble_outputs(X)
    n = X.shape[0]
    assert out.weights.shape == (n, T)
    np.testing.assert_allclose(out.weights.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(out.weights >= 0)
    np.testing.assert_allclose(out.parts[0] + out.parts[1], out.weights, rtol=1e-12, atol=1e-15)
    if hasattr(model, "predict_proba"):
        np.testing.assert_allclose(out.predictions(), model.predict_proba(X), rtol=1e-10)
        assert out.tree_predictions.shape == (n, T, len(model.classes_))
    else:
        np.testing.assert_allclose(out.predictions(), model.predict(X), rtol=1e-10)
        assert out.tree_predictions.shape == (n, T)
    # the single quantities agree with the batch
    ensemble = as_ensemble(model)
    np.testing.assert_allclose(ensemble.tree_weights(X), out.weights, rtol=1e-12)
    np.testing.assert_allclose(ensemble.tree_predictions(X), out.tree_predictions, rtol=1e-12)
    assert ensemble.offset() == out.offset  # the same for every row, read without one


def test_contamination_part_is_eps_times_w(fitted):
    name, model, X = fitted
    ensemble = as_ensemble(model)
    eps, w = ensemble.contamination()
    out = ensemble.ensemble_outputs(X)
    assert w.shape == (T,) and w.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(out.parts[1], np.broadcast_to(eps * w, (X.shape[0], T)),
                               atol=1e-15)
    if eps < 1:  # D recovered from (1 − ε)·D is a distribution over the trees
        np.testing.assert_allclose((out.parts[0] / (1 - eps)).sum(axis=1), 1.0, rtol=1e-12)
    if name.startswith(("rf", "et", "erf")):
        assert eps == 0.0
        np.testing.assert_array_equal(w, np.full(T, 1 / T))


def test_plain_forests_are_uniform_over_their_trees_own_predictions():
    X, y = classification(3)
    forest = ExtraTreesClassifier(T, random_state=0).fit(X, y)
    out = ForestEnsemble(forest).ensemble_outputs(X[:7])
    np.testing.assert_array_equal(out.weights, np.full((7, T), 1 / T))
    per_tree = np.stack([tree.predict_proba(X[:7].astype(np.float32))
                         for tree in forest.estimators_], axis=1)
    np.testing.assert_allclose(out.tree_predictions, per_tree, rtol=1e-12)
    Xr, yr = friedman()
    forest = RandomForestRegressor(T, random_state=0).fit(Xr, yr)
    per_tree = np.stack([tree.predict(Xr[:7]) for tree in forest.estimators_], axis=1)
    np.testing.assert_allclose(ForestEnsemble(forest).tree_predictions(Xr[:7]), per_tree)


def test_diagnostics_are_the_fits_own_search_and_rounds(fitted):
    """Every family's typed diagnostics hold its own fitted attributes: the search table and
    choice (AGBoost: the chosen γ), ERF's rounds; a plain forest has neither."""
    _, model, _ = fitted
    found = as_ensemble(model).diagnostics()
    table = getattr(model, "search_results_", None)
    if table is None:
        assert found.search is None and not found.selected_base
    else:
        assert found.search.table is table
        assert found.selected_base == bool(model.selected_base_)
        chosen = found.search.chosen()
        assert chosen.position == int(np.flatnonzero(table["selected"])[0])
        assert found.search.discount == getattr(model, "discount_", None)
    assert (found.rounds is None) == (not isinstance(model, EnhancedForestClassifier))


def test_enhanced_forest_diagnostics_are_its_scores_and_neighbours():
    X, y = classification()
    model = EnhancedForestClassifier(T, n_iterations=2, random_state=0).fit(X[:200], y[:200])
    out = model.ensemble_outputs(X[200:203])
    scores = model.tree_scores(X[200:203])
    for key in ("S", "S1", "S2"):
        np.testing.assert_array_equal(getattr(out.scores, key), getattr(scores, key))
    near = model.neighbors(X[200:203])
    np.testing.assert_array_equal(out.neighbors[0], near.indices)
    np.testing.assert_allclose(out.neighbors[1], near.distances)
    rounds = model.diagnostics().rounds
    assert rounds.history is model.history_
    assert rounds.best == model.best_iteration_
    np.testing.assert_array_equal(rounds.sample_importance, model.sample_importance_)
    np.testing.assert_array_equal(rounds.train_indices, model.train_indices_)


def test_unweighted_enhanced_forest_weights_are_the_ones_it_predicts_with():
    X, y = classification()
    model = EnhancedForestClassifier(T, n_iterations=2, model_weighting=False,
                                     random_state=0).fit(X[:200], y[:200])
    np.testing.assert_array_equal(model.tree_weights(X[200:]), np.full((40, T), 1 / T))
    per_tree = model.tree_predictions(X[200:])
    np.testing.assert_allclose(per_tree.mean(axis=1), model.predict_proba(X[200:]), rtol=1e-12)


def test_only_tree_ensembles_are_accepted():
    X, y = friedman()
    with pytest.raises(TypeError, match="GradientBoostingRegressor is not a weighted tree"):
        as_ensemble(GradientBoostingRegressor(n_estimators=3).fit(X, y))
    with pytest.raises(TypeError, match="expected a scikit-learn forest"):
        ForestEnsemble(object())
    forest = RandomForestRegressor(3, random_state=0).fit(X, y)
    assert as_ensemble(forest).forest is forest
    model = AttentionForestRegressor(T, random_state=0)
    assert as_ensemble(model) is model and isinstance(model, WeightedEnsemble)
    found = ForestEnsemble(forest).diagnostics()
    assert found.search is None and found.rounds is None and not found.selected_base


def test_node_outputs_hold_each_trees_output_at_its_leaves_and_expectations_above(fitted):
    """At the leaf a row reaches, node_outputs is the tree's f_k(x) the prediction uses; at a
    split node it is the count-weighted mean of its children (so a path telescopes)."""
    _, model, X = fitted
    ensemble = as_ensemble(model)
    values, counts = ensemble.node_outputs()
    trees = estimator_trees(model)
    offsets = np.concatenate([[0], np.cumsum([t.tree_.node_count for t in trees])[:-1]])
    leaves = np.stack([t.apply(X.astype(np.float32)) for t in trees], axis=1) + offsets
    np.testing.assert_allclose(values[leaves], ensemble.tree_predictions(X), rtol=1e-12)
    for k, tree in enumerate(trees):  # brute force: every split node from its two children
        t = tree.tree_
        for node in np.flatnonzero(t.children_left >= 0):
            a, b = offsets[k] + t.children_left[node], offsets[k] + t.children_right[node]
            here = offsets[k] + node
            assert counts[here] == pytest.approx(counts[a] + counts[b])
            if counts[here] > 0:
                np.testing.assert_allclose(
                    values[here], (counts[a] * values[a] + counts[b] * values[b]) / counts[here],
                    rtol=1e-10, atol=1e-12)
    if isinstance(model, (RandomForestClassifier, RandomForestRegressor, ExtraTreesRegressor)):
        stored = np.concatenate([t.tree_.value[:, 0, :] for t in trees])
        if is_regressor(model):
            stored = stored[:, 0]
        np.testing.assert_allclose(values, stored, rtol=1e-10, atol=1e-12)
