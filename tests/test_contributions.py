"""Feature contributions (forestviz.explain.row.contributions): the sum identity for every family,
the same numbers as shap on plain forests, per-tree values against brute force, folding."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import shap
from sklearn.ensemble import (
    RandomForestClassifier,
    RandomForestRegressor,
)

from forestviz.boosting import AttentionBoostingRegressor
from forestviz.explain.row.contributions import ContributionModel, Contributions, contributions
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.fitted import estimator_trees
from tests.ensemble_models import MODELS, T, classification, friedman

METHODS = ("path", "treeshap")


@pytest.fixture(scope="module", params=list(MODELS))
def fitted(request):
    make, data = MODELS[request.param]
    X, y = data()
    model = make().fit(X[:200], y[:200])
    return request.param, model, ContributionModel.from_model(model), X[200:210]


def _prediction(model, X):
    return model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)


@pytest.mark.parametrize("method", METHODS)
def test_contributions_add_up_to_the_models_prediction(fitted, method):
    """offset + Σ_k α_k φ_k0 + Σ_j Σ_k α_k φ_kj is the model's own prediction, and every tree's
    φ_k0 + Σ_j φ_kj its own output f_k(x), to 1e-9."""
    _, model, built, X = fitted
    out = as_ensemble(model).ensemble_outputs(X)
    expected = _prediction(model, X)
    for i, x in enumerate(X):
        c = built.explain(x, method=method)
        np.testing.assert_allclose(c.weights, out.weights[i], rtol=1e-12)
        np.testing.assert_allclose(c.prediction, expected[i], rtol=0, atol=1e-9)
        np.testing.assert_allclose(c.base_value + c.total.sum(axis=0), expected[i], atol=1e-9)
        np.testing.assert_allclose(c.tree_base_values + c.per_tree.sum(axis=1),
                                   out.tree_predictions[i], rtol=0, atol=1e-9)
        np.testing.assert_allclose(c.weighted_per_tree.sum(axis=0), c.total, atol=1e-12)
        assert c.offset == out.offset and c.method == method
        assert c.per_tree.shape == (T, 6, *out.tree_predictions.shape[2:])


def test_agboost_keeps_its_offset_in_the_base_value():
    X, y = friedman()
    model = AttentionBoostingRegressor(T, random_state=0).fit(X[:200], y[:200])
    c = contributions(model, X[200], weights=np.full(T, 1 / T))
    assert c.offset == pytest.approx(float(model.init_)) and c.offset != 0
    assert c.base_value == pytest.approx(c.offset + c.tree_base_values.mean())


@pytest.mark.parametrize("make", [
    lambda: RandomForestRegressor(T, random_state=0).fit(*friedman()),
    lambda: RandomForestClassifier(T, random_state=0).fit(*classification()),
    lambda: RandomForestClassifier(T, max_depth=4, random_state=0).fit(*classification(3)),
], ids=["regressor", "classifier", "3-classes"])
def test_uniform_weights_give_shaps_numbers_on_a_plain_forest(make):
    """path = shap's approximate=True (Saabas), treeshap = shap's exact Tree SHAP, base value =
    shap's expected value. shap 0.51 gives (n, m) for a regressor and (n, m, C) for a
    classifier."""
    forest = make()
    X = (friedman() if isinstance(forest, RandomForestRegressor) else classification())[0][:25]
    built = ContributionModel.from_model(forest)
    uniform = np.full(T, 1 / T)
    explainer = shap.TreeExplainer(forest)
    for method, approximate in (("path", True), ("treeshap", False)):
        reference = np.asarray(explainer.shap_values(X, approximate=approximate))
        ours = [built.explain(x, uniform, method=method) for x in X]
        assert reference.shape == (len(X), *ours[0].total.shape)
        np.testing.assert_allclose(np.stack([c.total for c in ours]), reference, rtol=0,
                                   atol=1e-9)
        np.testing.assert_allclose(ours[0].base_value, np.squeeze(explainer.expected_value),
                                   rtol=0, atol=1e-9)


def test_missing_values_follow_the_trees_own_routing():
    """A forest fitted on rows with missing values sends them where scikit-learn does."""
    X, y = friedman()
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.15] = np.nan
    forest = RandomForestRegressor(T, random_state=0).fit(X, y)
    built = ContributionModel.from_model(forest)
    explainer = shap.TreeExplainer(forest)
    rows = X[:20]
    assert np.isnan(rows).any()
    for method, approximate in (("path", True), ("treeshap", False)):
        ours = np.stack([built.explain(x, np.full(T, 1 / T), method=method).total
                         for x in rows])
        np.testing.assert_allclose(ours, explainer.shap_values(rows, approximate=approximate),
                                   atol=1e-9)
        predicted = [built.explain(x, np.full(T, 1 / T), method=method).prediction
                     for x in rows]
        np.testing.assert_allclose(predicted, forest.predict(rows), atol=1e-9)


def _saabas_one_tree(tree, values, x):
    """Brute force: walk tree's nodes with its own decision_path, crediting each step's value
    change to the feature tested at the step."""
    t = tree.tree_
    path = tree.decision_path(x[None, :].astype(np.float32)).indices  # root first
    phi = np.zeros((x.size, *values.shape[1:]))
    for parent, child in itertools.pairwise(path):
        phi[t.feature[parent]] += values[child] - values[parent]
    return values[0], phi


def _shapley_one_tree(tree, values, covers, x):
    """Brute force Shapley values of one tree with the path-dependent expectation (Lundberg et
    al., Algorithm 1 for E[f(x) | x_S], then the Shapley formula over all subsets)."""
    t = tree.tree_
    x32 = x.astype(np.float32)
    m = x.size

    def expectation(node, S):
        if t.children_left[node] < 0:
            return values[node]
        a, b = t.children_left[node], t.children_right[node]
        if t.feature[node] in S:
            return expectation(a if x32[t.feature[node]] <= t.threshold[node] else b, S)
        return (covers[a] * expectation(a, S) + covers[b] * expectation(b, S)) / covers[node]

    phi = np.zeros((m, *values.shape[1:]))
    for j in range(m):
        others = [i for i in range(m) if i != j]
        for size in range(m):
            weight = math.factorial(size) * math.factorial(m - size - 1) / math.factorial(m)
            for S in itertools.combinations(others, size):
                S = set(S)
                phi[j] += weight * (expectation(0, S | {j}) - expectation(0, S))
    return expectation(0, set()), phi


@pytest.mark.parametrize("name", ["abrf1-classifier", "agboost"])
def test_per_tree_values_equal_a_brute_force_walk_down_each_tree(name):
    make, data = MODELS[name]
    X, y = data()
    model = make().fit(X[:200], y[:200])
    built = ContributionModel.from_model(model)
    values, counts = as_ensemble(model).node_outputs()
    trees = estimator_trees(model)
    for x in X[200:203]:
        base, phi = built.per_tree(x, method="path")
        shapley_base, shapley = built.per_tree(x, method="treeshap")
        for k in (0, 5, T - 1):
            nodes = slice(built.offsets[k], built.offsets[k] + trees[k].tree_.node_count)
            v0, expected = _saabas_one_tree(trees[k], values[nodes], x)
            np.testing.assert_allclose(base[k], v0, atol=1e-12)
            np.testing.assert_allclose(phi[k], expected, rtol=0, atol=1e-9)
            v0, expected = _shapley_one_tree(trees[k], values[nodes], counts[nodes], x)
            np.testing.assert_allclose(shapley_base[k], v0, atol=1e-12)
            np.testing.assert_allclose(shapley[k], expected, rtol=0, atol=1e-9)


def test_folding_one_hot_columns_preserves_the_total():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"size": rng.normal(size=300),
                          "colour": rng.choice(["red", "green", "blue"], 300),
                          "weight": rng.normal(size=300),
                          "shape": rng.choice(["round", "square"], 300)})
    y = (frame["size"] + (frame["colour"] == "red") + (frame["shape"] == "round")
         + rng.normal(scale=0.3, size=300))
    prep = TablePreprocessor().fit(frame)
    Z = prep.transform(frame)
    forest = RandomForestRegressor(T, random_state=0).fit(Z, y)
    built = ContributionModel.from_model(forest, feature_names=prep.feature_names_out_)
    for method in METHODS:
        c = built.explain(Z[0], method=method)
        folded = c.fold(prep.source_columns_)
        assert folded.feature_names == ("size", "colour", "weight", "shape")
        assert folded.per_tree.shape == (T, 4)
        for name in folded.feature_names:
            encoded = prep.source_columns_ == name
            i = folded.feature_names.index(name)
            assert folded.total[i] == pytest.approx(c.total[encoded].sum(), abs=1e-12)
            np.testing.assert_allclose(folded.per_tree[:, i], c.per_tree[:, encoded].sum(axis=1),
                                       atol=1e-12)
        assert folded.prediction == pytest.approx(forest.predict(Z[:1])[0], abs=1e-9)
        assert folded.base_value == c.base_value
        table = folded.table()
        assert list(table.columns) == ["feature", "contribution"]
        assert np.all(np.diff(np.abs(table["contribution"])) <= 0)
    with pytest.raises(ValueError, match="source columns"):
        c.fold(["a", "b"])


def test_folding_class_contributions_keeps_the_class_columns():
    X, y = classification(3)
    forest = RandomForestClassifier(T, random_state=0).fit(X, y)
    c = contributions(forest, X[0])
    folded = c.fold(["a", "a", "b", "c", "c", "c"])
    assert folded.total.shape == (3, 3) and folded.per_tree.shape == (T, 3, 3)
    np.testing.assert_allclose(folded.prediction, forest.predict_proba(X[:1])[0], atol=1e-9)
    np.testing.assert_allclose(folded.total[2], c.total[3:].sum(axis=0), atol=1e-12)


def test_treeshap_with_a_leaf_no_training_row_reaches_still_adds_up():
    """TreeSHAP needs positive covers: an empty leaf gets a tiny one, and the tree's base value
    is recomputed with it, so the identity still holds."""
    X, y = friedman()
    forest = RandomForestRegressor(T, random_state=0).fit(X, y)
    values, counts = as_ensemble(forest).node_outputs()
    trees = estimator_trees(forest)
    leaves = np.flatnonzero(np.concatenate([t.tree_.children_left < 0 for t in trees]))
    counts = counts.copy()
    counts[leaves[::7]] = 0.0  # as if no training row reached them
    from forestviz.trees.leaf_values import fill_split_nodes

    values, counts = fill_split_nodes(trees, values, counts)
    built = ContributionModel(forest, trees, values, counts, [f"x{j}" for j in range(6)], 0.0)
    for x in X[:5]:
        for method in METHODS:
            c = built.explain(x, np.full(T, 1 / T), method=method)
            assert np.isfinite(c.total).all()
            np.testing.assert_allclose(c.prediction, forest.predict(x[None, :])[0], atol=1e-9)


def test_bad_arguments_are_refused():
    X, y = friedman()
    forest = RandomForestRegressor(3, random_state=0).fit(X, y)
    built = ContributionModel.from_model(forest)
    with pytest.raises(ValueError, match="method must be one of"):
        built.explain(X[0], method="lime")
    with pytest.raises(ValueError, match="one row of 6 features"):
        built.explain(X[:2])
    with pytest.raises(ValueError, match="3 tree weights"):
        built.explain(X[0], np.ones(4) / 4)
    with pytest.raises(ValueError, match="6 feature names"):
        ContributionModel.from_model(forest, feature_names=["a"])
    assert isinstance(contributions(forest, X[0]), Contributions)
    assert contributions(forest, X[0]).feature_names == tuple(f"x{j}" for j in range(6))


def test_treeshap_work_is_the_sum_of_leaf_depths():
    X, y = friedman()
    forest = RandomForestRegressor(3, max_depth=2, random_state=0).fit(X, y)
    built = ContributionModel.from_model(forest)
    assert built.treeshap_work == 3 * 4 * 2  # full trees of depth 2: 4 leaves at depth 2
    with pytest.raises(ValueError, match="class column"):
        contributions(RandomForestClassifier(3, random_state=0).fit(*classification()),
                      classification()[0][0]).table()
