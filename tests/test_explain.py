"""explain() against the models' own outputs, brute force and hand computations."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import percentileofscore
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer

from forestviz.attention import AttentionForestClassifier, AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import explain
from forestviz.explain.row.summary import TrainingSummary
from forestviz.numbers import number_text
from forestviz.trees import DecisionMachine
from forestviz.trees.ensemble import as_ensemble

T = 16


def _regression():
    X, y = make_friedman1(240, n_features=5, noise=0.5, random_state=0)
    X[:40, 4] = np.round(X[:40, 4], 1)  # ties, for percentiles
    X[1] = X[0]  # an exact duplicate row, for neighbours
    return X, y


def _classification(classes):
    X, y = make_classification(240, n_features=5, n_informative=3, n_redundant=0,
                               n_classes=classes, random_state=classes)
    return X, np.array(["no", "yes", "maybe"])[y]


MODELS = {
    "abrf-regressor": (lambda: AttentionForestRegressor(T, random_state=0), _regression),
    "abrf2-regressor": (lambda: AttentionForestRegressor(T, mode="abrf2", eps=0.3, tau=2.0,
                                                         random_state=0), _regression),
    "abrf-binary": (lambda: AttentionForestClassifier(T, base="extra", random_state=0),
                    lambda: _classification(2)),
    "abrf-multiclass": (lambda: AttentionForestClassifier(T, random_state=0),
                        lambda: _classification(3)),
    "erf-binary": (lambda: EnhancedForestClassifier(T, n_iterations=2, random_state=0),
                   lambda: _classification(2)),
    "erf-multiclass": (lambda: EnhancedForestClassifier(T, n_iterations=2, random_state=0),
                       lambda: _classification(3)),
    "erf-unweighted": (lambda: EnhancedForestClassifier(T, n_iterations=1, model_weighting=False,
                                                        random_state=0),
                       lambda: _classification(2)),
    "agboost": (lambda: AttentionBoostingRegressor(T, random_state=0), _regression),
    "rf-regressor": (lambda: RandomForestRegressor(T, random_state=0), _regression),
    "rf-multiclass": (lambda: RandomForestClassifier(T, random_state=0),
                      lambda: _classification(3)),
    "et-regressor": (lambda: ExtraTreesRegressor(T, random_state=0), _regression),
    "et-binary": (lambda: ExtraTreesClassifier(T, max_depth=4, random_state=0),
                  lambda: _classification(2)),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def fitted(request):
    make_model, make_data = MODELS[request.param]
    X, y = make_data()
    model = make_model().fit(X, y)
    summary = TrainingSummary.from_data(model, X, y)
    rng = np.random.default_rng(1)
    rows = np.vstack([X[:3], X.mean(axis=0) + rng.normal(scale=X.std(axis=0), size=(3, 5))])
    return request.param, model, X, y, summary, rows


@pytest.mark.slow
def test_prediction_equals_the_models_own(fitted):
    _, model, _, _, summary, rows = fitted
    for x in rows:
        e = explain(model, x, summary=summary)
        if e.task == "classification":
            np.testing.assert_allclose(e.prediction, model.predict_proba(x[None])[0],
                                       rtol=1e-12, atol=1e-12)
            assert e.predicted_class == model.predict(x[None])[0]
            assert list(e.classes) == list(model.classes_)
        else:
            np.testing.assert_allclose(e.prediction, model.predict(x[None])[0], rtol=1e-12)
            assert e.predicted_class is None and e.threshold is None


def test_weights_parts_scores_and_tree_predictions(fitted):
    name, model, _, _, summary, rows = fitted
    x = rows[4]
    e = explain(model, x, summary=summary)
    assert e.tree_weights.shape == (T,) and np.all(e.tree_weights >= 0)
    assert e.tree_weights.sum() == pytest.approx(1.0, abs=1e-12)
    if name.startswith(("rf", "et")) or name == "erf-unweighted":
        np.testing.assert_array_equal(e.tree_weights, np.full(T, 1 / T))
    else:
        np.testing.assert_allclose(e.tree_weights, model.tree_weights(x[None])[0], atol=1e-15)
    eps, w = as_ensemble(model).contamination()
    if eps > 0:  # ABRF-1/3 and AGBoost: the model's own two parts, summing to α
        for ours, theirs in zip(e.weight_parts, model.tree_weight_parts(x[None]), strict=True):
            np.testing.assert_array_equal(ours, theirs[0])
        np.testing.assert_allclose(e.weight_parts[1], eps * w, rtol=1e-12)
        np.testing.assert_allclose(sum(e.weight_parts), e.tree_weights, rtol=1e-12)
    else:  # plain forests, ERF, ABRF-2 and Softmax: no ε·w part to show
        assert e.weight_parts is None
        assert not as_ensemble(model).tree_weight_parts(x[None])[1].any()
    if name.startswith("erf"):
        scores = model.tree_scores(x[None])
        for key in ("S", "S1", "S2"):
            np.testing.assert_array_equal(getattr(e.tree_scores, key), getattr(scores, key)[0])
    else:
        assert e.tree_scores is None
    if name.startswith(("rf", "et")):  # the trees' own predictions, in the model's classes
        per_tree = [t.predict_proba(x[None].astype(np.float32))[0] if e.task == "classification"
                    else t.predict(x[None])[0] for t in model.estimators_]
        np.testing.assert_allclose(e.tree_predictions, np.array(per_tree), rtol=1e-12)
    else:
        np.testing.assert_array_equal(e.tree_predictions, model.tree_predictions(x[None])[0])
    assert e.offset == (model.init_ if name == "agboost" else 0.0)


def test_top_trees_effective_number_and_top5_share(fitted):
    name, model, _, _, summary, rows = fitted
    for x in rows[::2]:
        e = explain(model, x, summary=summary, top_k=4)
        w = e.tree_weights
        assert e.top_trees.size == 4 and np.unique(e.top_trees).size == 4
        rest = np.setdiff1d(np.arange(T), e.top_trees)
        key = e.tree_scores.S if name.startswith("erf") else w
        assert np.all(np.diff(key[e.top_trees]) <= 0)  # best first
        assert key[e.top_trees].min() >= key[rest].max()
        rule = sorted(range(T), key=lambda k: (-key[k], -w[k], k))  # ties: weight, index
        assert e.top_trees.tolist() == rule[:4]
        assert e.effective_trees == pytest.approx(1 / sum(float(a) ** 2 for a in w))
        assert e.top5_share == pytest.approx(sum(sorted(map(float, w), reverse=True)[:5]))
    if name.startswith(("rf", "et")):
        assert e.effective_trees == pytest.approx(T) and e.top5_share == pytest.approx(5 / T)
        np.testing.assert_array_equal(e.top_trees, np.arange(4))  # all tied: by tree index


def test_paths_equal_the_decision_machine(fitted):
    _, model, _, _, summary, rows = fitted
    machine = DecisionMachine.from_estimator(model, feature_names=summary.feature_names,
                                             feature_scale=summary.scale)
    x = rows[3]
    e = explain(model, x, summary=summary, top_k=3)
    assert len(e.paths) == 3
    for k, steps in zip(e.top_trees, e.paths, strict=True):
        reference = machine.path(x, int(k))
        assert [s.sentence() for s in steps] == [s.sentence() for s in reference]
        assert [(s.tree, s.node, s.direction) for s in steps] == [
            (s.tree, s.node, s.direction) for s in reference]


def test_feature_table_against_numpy_and_scipy(fitted):
    _, model, X, _, summary, rows = fitted
    for x in (rows[0], rows[5]):
        table = explain(model, x, summary=summary).features
        assert list(table["feature"]) == [f"x{j}" for j in range(5)]
        assert list(table["value"]) == [number_text(v, s) for v, s in zip(x, X.std(axis=0),
                                                                           strict=True)]
        assert not table["missing"].any() and set(table["kind"]) == {"numeric"}
        np.testing.assert_array_equal(table["median"], np.median(X, axis=0))
        expected = [percentileofscore(X[:, j], x[j], kind="mean") for j in range(5)]
        np.testing.assert_allclose(table["percentile"], expected, rtol=1e-12)


def test_neighbors_against_brute_force(fitted):
    name, model, X, y, summary, rows = fitted
    for x in rows[[0, 1, 4]]:
        e = explain(model, x, summary=summary, n_neighbors=4)
        near = e.neighbors
        if name.startswith("erf"):
            theirs = model.neighbors(x[None])
            np.testing.assert_array_equal(near["row"], theirs.indices[0][:4])
            np.testing.assert_allclose(near["distance"], theirs.distances[0][:4])
        else:
            Z = (X - X.mean(axis=0)) / X.std(axis=0)
            z = (x - X.mean(axis=0)) / X.std(axis=0)
            distance = np.sqrt(((Z - z) ** 2).sum(axis=1))
            order = [i for i in np.argsort(distance, kind="stable") if distance[i] > 0][:4]
            np.testing.assert_allclose(near["distance"], distance[order], rtol=1e-9)
            np.testing.assert_array_equal(np.sort(near["row"]), np.sort(order))
        assert not np.any(np.all(X[near["row"]] == x, axis=1))  # never the row itself
        np.testing.assert_array_equal(near["outcome"], y[near["row"]])
        np.testing.assert_array_equal(near[["x0", "x4"]].to_numpy(), X[near["row"]][:, [0, 4]])


def test_ids_original_values_and_row_forms():
    X, y = _regression()
    model = RandomForestRegressor(8, max_depth=3, random_state=0).fit(X, y)
    ids = np.array([f"patient-{i}" for i in range(len(X))])
    original = pd.DataFrame({"age": np.arange(len(X)), "row": X[:, 0]})
    summary = TrainingSummary.from_data(model, X, y, ids=ids, original=original,
                                        feature_names=list("abcde"))
    e = explain(model, pd.Series(X[7]), summary=summary, row_id=7,
                original_row={"age": 7, "ward": "B"})
    assert e.row_id == "7" and e.feature_names == tuple("abcde")
    near = e.neighbors
    assert list(near.columns) == ["row", "id", "distance", "outcome", "age", "value: row"]
    np.testing.assert_array_equal(near["id"], ids[near["row"]])
    np.testing.assert_array_equal(near["age"], near["row"])
    assert e.original_row.to_dict() == {"age": 7, "ward": "B"}
    same = explain(model, X[7][None, :], X_train=X, y_train=y)
    assert same.prediction == e.prediction
    np.testing.assert_array_equal(same.neighbors["row"], near["row"])


def test_models_fitted_on_frames_get_frames():
    X, y = _classification(2)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(5)])
    model = AttentionForestClassifier(8, random_state=0).fit(frame, y)
    e = explain(model, X[3], X_train=frame, y_train=y)
    np.testing.assert_allclose(e.prediction, model.predict_proba(frame.iloc[[3]])[0])
    assert e.feature_names == tuple(frame.columns)


def test_clear_errors():
    X, y = _regression()
    forest = RandomForestRegressor(4, max_depth=2, random_state=0).fit(X, y)
    summary = TrainingSummary.from_data(forest, X, y)
    with pytest.raises(TypeError, match="GradientBoostingRegressor is not a weighted tree"):
        explain(GradientBoostingRegressor(n_estimators=3).fit(X, y), X[0], summary=summary)
    with pytest.raises(ValueError, match="one row of 5 features"):
        explain(forest, X[0, :4], summary=summary)
    with pytest.raises(ValueError, match="one row of 5 features"):
        explain(forest, X[:2], summary=summary)
    with pytest.raises(ValueError, match="infinite"):
        explain(forest, np.r_[X[0, :4], np.inf], summary=summary)
    with pytest.raises(ValueError, match="needs the training rows"):
        explain(forest, X[0])
    other = RandomForestRegressor(4, max_depth=2, random_state=1).fit(X, y)
    with pytest.raises(ValueError, match="another model"):
        explain(other, X[0], summary=summary)
    with pytest.raises(ValueError, match="expects 5 features"):
        TrainingSummary.from_data(forest, X[:, :4], y)


def test_row_machine_reuses_only_the_same_row():
    X, y = _regression()
    forest = RandomForestRegressor(6, random_state=0).fit(X, y)
    machine = TrainingSummary.from_data(forest, X, y).machine
    plain = DecisionMachine.from_estimator(forest)
    for x in (X[0], X[2], X[2], X[0], X[0] + 1e-12, X[3]):
        np.testing.assert_array_equal(machine.apply(x[None]), plain.apply(x[None]))
        assert [s.node for s in machine.path(x, 4)] == [s.node for s in plain.path(x, 4)]
    first = machine.apply(X[3][None])
    first[0, 0] = -1  # a caller changing its copy does not change the cache
    np.testing.assert_array_equal(machine.apply(X[3][None]), plain.apply(X[3][None]))
    np.testing.assert_array_equal(machine.apply(X[:5]), forest.apply(X[:5].astype(np.float32)))


def test_a_missing_value_is_imputed_with_the_training_median_and_said_so():
    """NaN in the row: the model sees the training median (as scikit-learn's SimpleImputer
    would give it), and the table, the paths and the flips say the value was missing."""
    X, y = _regression()
    forest = RandomForestRegressor(8, max_depth=4, random_state=0).fit(X, y)
    summary = TrainingSummary.from_data(forest, X, y)
    x = X[3].copy()
    x[1] = np.nan
    e = explain(forest, x, summary=summary, top_k=8, n_alternatives=2)
    filled = SimpleImputer(strategy="median").fit(X).transform(x[None, :])[0]
    np.testing.assert_array_equal(e.row, filled)
    assert e.prediction == pytest.approx(forest.predict(filled[None, :])[0], rel=1e-12)
    assert e.missing == frozenset({"x1"})
    row = e.features.set_index("feature").loc["x1"]
    assert row["missing"] and row["value"] == "missing" and np.isnan(row["percentile"])
    assert row["used as"] == (f"{number_text(np.median(X[:, 1]), X[:, 1].std())} "
                              "(the training median)")
    tests = [s for steps in e.paths for s in steps if s.feature == 1]
    assert tests, "no top tree tests x1: pick another row"
    for step in tests:
        assert e.step_sentence(step).startswith("x1 is missing (imputed as ")
    for step in (s for steps in e.paths for s in steps if s.feature != 1):
        assert e.step_sentence(step) == step.sentence()


def test_the_imputed_features_are_those_of_the_missing_columns():
    X, y = _regression()
    forest = RandomForestRegressor(8, max_depth=4, random_state=0).fit(X, y)
    summary = TrainingSummary.from_data(forest, X, y)
    x = X[3].copy()
    x[[1, 3]] = np.nan
    assert explain(forest, x, summary=summary).imputed_features() == frozenset({1, 3})
    assert explain(forest, X[3], summary=summary).imputed_features() == frozenset()
