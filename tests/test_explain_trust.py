"""What an explanation says about trust (issue 14): contributions that add up to the prediction
shown, a sentence of why that names only what the numbers hold, the trees' spread, the
calibrated interval and plain warnings."""

import re

import numpy as np
import pytest
import shap
from sklearn.base import is_classifier
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from forestviz.attention import AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import TrainingSummary, explain
from forestviz.explain.row.narrative import spread_text, target_column, tree_value_note
from forestviz.explain.row.uncertainty import MIN_EFFECTIVE_TREES, IntervalModel
from forestviz.trees.ensemble import as_ensemble
from tests.ensemble_models import MODELS


def _fit(kind):
    if kind == "regression":
        X, y = make_friedman1(400, n_features=6, random_state=0)
        return X, y, RandomForestRegressor(25, min_samples_leaf=3, random_state=0).fit(X, y)
    X, y = make_classification(400, 6, n_informative=4, random_state=0)
    return X, y, RandomForestClassifier(25, max_depth=5, random_state=0).fit(X, y)


@pytest.fixture(scope="module", params=["regression", "classification"])
def forest(request):
    X, y, model = _fit(request.param)
    return X, y, model, TrainingSummary.from_data(model, X[:300], y[:300])


def test_contributions_add_up_to_the_prediction_shown(forest):
    X, _, model, summary = forest
    for x in X[300:310]:
        e = explain(model, x, summary=summary)
        c = e.contributions
        np.testing.assert_allclose(c.base_value + c.total.sum(axis=0), e.prediction,
                                   rtol=0, atol=1e-9)
        # a plain forest: uniform weights, so shap's Saabas values of the forest itself
        saabas = np.asarray(shap.TreeExplainer(model).shap_values(x[None, :], approximate=True))
        np.testing.assert_allclose(c.total, saabas[0], rtol=0, atol=1e-9)  # (m,) or (m, C)


def test_the_sentence_names_the_column_that_moves_the_prediction_most(forest):
    X, _, model, summary = forest
    for x in X[300:320]:
        e = explain(model, x, summary=summary)
        column = target_column(e)
        total = e.contributions.total if column is None else e.contributions.total[:, column]
        move = total.sum()
        aligned = np.flatnonzero(np.sign(total) == np.sign(move))
        first = e.contributions.feature_names[aligned[np.argmax(np.abs(total[aligned]))]]
        value = e.features.set_index("feature").loc[first, "value"]
        assert f"mainly because {first} = {value}" in e.why
        tested = sum(any(s.feature_name == first for s in steps) for steps in e.paths)
        if tested:
            assert f"tested in {tested} of the {len(e.paths)} top trees" in e.why
        else:
            assert "tested in" not in e.why.split(first, 1)[1].split(" and ")[0]
        assert ("up" if move > 0 else "down") in e.why.rsplit(":", 1)[1]


def test_spread_is_the_weighted_trees_and_the_warning_says_few_trees():
    X, y = make_friedman1(300, n_features=5, random_state=2)
    sharp = AttentionForestRegressor(30, eps=0.0, tau=0.01, random_state=0).fit(X, y)
    summary = TrainingSummary.from_data(sharp, X, y)
    e = explain(sharp, X[0], summary=summary)
    assert e.effective_trees < MIN_EFFECTIVE_TREES
    assert any("fewer than" in w for w in e.warnings)
    order = np.argsort(e.tree_predictions)
    cumulative = np.cumsum(e.tree_weights[order])
    median = e.tree_predictions[order][np.searchsorted(cumulative, 0.5)]
    assert e.spread.quantiles[e.spread.levels.index(0.5)] == pytest.approx(median)
    flat = AttentionForestRegressor(30, eps=1.0, tau=1.0, random_state=0).fit(X, y)
    e = explain(flat, X[0], summary=TrainingSummary.from_data(flat, X, y))
    assert any("ε is 1" in w for w in e.warnings)


@pytest.mark.slow
def test_a_model_that_kept_its_plain_base_says_so_once():
    """AGBoost that keeps its GBM (ε = 1, equal weights; here on a pure-noise target, where
    it does on most draws: an overfitting GBM can also be honestly beaten by discounted
    attention) names it so, and the ε = 1 warning, which would say it again in other words,
    is not given."""
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 4)), rng.normal(size=300)
    model = AttentionBoostingRegressor(30, random_state=0).fit(X, y)
    assert model.selected_base_ and model.eps_ == 1.0
    e = explain(model, X[0], summary=TrainingSummary.from_data(model, X, y))
    assert "kept its plain gradient boosting machine" in e.model_name
    assert not any("ε" in w for w in e.warnings)


@pytest.mark.slow
def test_the_interval_is_the_calibrated_one_and_the_sentence_quotes_it():
    X, y = make_classification(600, 6, n_informative=4, random_state=3)
    model = EnhancedForestClassifier(20, n_iterations=2, random_state=0).fit(X[:300], y[:300])
    intervals = IntervalModel.fit(model, X[300:500], y[300:500])
    summary = TrainingSummary.from_data(model, X[:300], y[:300])
    e = explain(model, X[550], summary=summary, intervals=intervals)
    low, high = intervals.interval(model.predict_proba(X[550:551])[0, 1])
    assert e.interval == (pytest.approx(low), pytest.approx(high))
    assert e.interval_name == "calibrated range" and "200 held-out rows" in e.interval_note
    risk = intervals.calibrated_risk(e.prediction[1])
    assert e.calibrated_risk == pytest.approx(risk)
    assert f"calibrated {risk:.2f}, calibrated range {low:.2f}–{high:.2f}" in e.why
    assert e.why.startswith(f"Predicted {e.predicted_class} (risk {e.prediction[1]:.2f}")


def test_the_spread_sentence_quotes_the_weighted_quantiles_and_votes(forest):
    X, _, model, summary = forest
    e = explain(model, X[305], summary=summary)
    said = spread_text(e)
    if e.task == "regression":
        f = np.sort(e.tree_predictions)  # equal weights: the inverted-CDF quantiles by count
        low, high = f[int(np.ceil(0.05 * f.size)) - 1], f[int(np.ceil(0.95 * f.size)) - 1]
        low, high = e.value_texts(low, high)
        assert f"range from {low} to {high}" in said
    else:
        votes = np.zeros(2)
        for p in e.tree_predictions:  # a tree tied between the classes gives each half
            top = np.flatnonzero(p == p.max())
            votes[top] += 1.0 / top.size / e.n_trees
        shown = re.search(r"of this row's tree weight, (.*?) \(", said).group(1).split(", ")
        sides = [(c, v) for c, v in zip(e.classes, votes, strict=True) if v > 0]
        assert [s.partition(" on trees favouring ")[2] for s in shown] == [str(c) for c, _ in sides]
        percents = [int(s.partition("%")[0]) for s in shown]
        # whole percentages within one point of the votes, adding up to 100 (never 99 % + 2 %)
        assert all(abs(p - 100 * v) < 1 for p, (_, v) in zip(percents, sides, strict=True))
        assert sum(percents) == 100


def test_the_trees_sides_are_not_said_as_a_second_risk(forest):
    """"Weighted votes of the trees: Yes 94 %" beside P(Yes) = 0.89 read as two answers: the
    sentence says the count is no probability and quotes the model's own risk beside it."""
    X, _, model, summary = forest
    if not is_classifier(model):
        pytest.skip("votes are a classifier's")
    for x in X[300:340]:
        e = explain(model, x, summary=summary)
        said = spread_text(e)
        assert "votes" not in said and "not a probability" in said
        assert f"the model's risk, {e.prediction[1]:.2f}," in said
        assert (f"% on trees favouring {e.classes[1]}" in said) == (e.spread.vote_shares[1] > 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_nearest_other_leaf_says_what_the_model_s_tree_says_there(name):
    """"If …, this tree would say v": v is what the model itself makes that tree say for the
    row moved into the other leaf (AGBoost's V_k, an attention forest's leaf mean), as the
    drawing's "this tree says" is for the row's own leaf."""
    make_model, make_data = MODELS[name]
    X, y = make_data()
    model = make_model().fit(X[:200], y[:200])
    summary = TrainingSummary.from_data(model, X[:200], y[:200])
    ensemble, checked = as_ensemble(model), 0
    for x in X[200:206]:
        e = explain(model, x, summary=summary, top_k=4, n_alternatives=2)
        for others in e.alternatives:
            for other in others:
                said = ensemble.tree_predictions(other.row[None, :])[0, other.tree]
                np.testing.assert_allclose(other.prediction, said, rtol=0, atol=1e-12)
                checked += 1
    assert checked >= 10


def test_a_value_its_interval_and_the_trees_range_print_with_the_same_decimals():
    """"Predicted 4.735 (90 % interval 4.600–4.879)", not "4.735 (… 4.6–4.879)": every value
    of the outcome beside the prediction has its decimals, each rounded from its own number."""
    X, y, model = _fit("regression")
    summary = TrainingSummary.from_data(model, X[:300], y[:300])
    intervals = IntervalModel.fit(model, X[300:380], y[300:380])
    for x in X[380:400]:
        e = explain(model, x, summary=summary, intervals=intervals)
        f = np.sort(e.tree_predictions)
        low, high = e.interval
        truth = [e.prediction, low, high, f[int(np.ceil(0.05 * f.size)) - 1],
                 f[int(np.ceil(0.95 * f.size)) - 1]]
        said = re.findall(r"-?\d+\.\d+", e.why.split(" mainly because")[0] + spread_text(e))
        said = [s for s in said if s not in ("5", "95")]
        assert len(said) == 5
        places = {len(s.partition(".")[2]) for s in said}
        assert len(places) == 1
        (place,) = places
        assert place == max(0, 3 - int(np.floor(np.log10(max(map(abs, truth))))))
        for text, number in zip(said, truth, strict=True):
            assert abs(float(text) - number) <= 0.5 * 10.0 ** -place + 1e-12


def test_an_interval_past_the_training_outcomes_says_so():
    """Issue 26: a 214–422 interval where the largest outcome in the data is 346, unremarked.
    The interval stays as calibrated; the note names the training rows' largest (smallest)
    outcome it goes past, and says nothing when it stays within them."""
    X, y, model = _fit("regression")
    summary = TrainingSummary.from_data(model, X[:300], y[:300])
    noisy = y[300:] + np.random.default_rng(0).normal(0, 4, 100)  # wider than the forest's
    intervals = IntervalModel.fit(model, X[300:], noisy)
    top = int(np.argmax(model.predict(X[:300])))
    wide = explain(model, X[top], summary=summary, intervals=intervals)
    low, high = intervals.interval(wide.prediction)
    assert wide.interval == (pytest.approx(low), pytest.approx(high))  # not cut
    assert high > y[:300].max() and low > y[:300].min()
    assert (f"it reaches above the largest outcome of the training rows, "
            f"{y[:300].max():.4g}") in wide.interval_note
    assert "smallest" not in wide.interval_note
    middle = int(np.argmin(np.abs(model.predict(X[:300]) - np.median(y))))
    inside = explain(model, X[middle], summary=summary, intervals=intervals)
    assert y[:300].min() <= inside.interval[0] <= inside.interval[1] <= y[:300].max()
    assert inside.interval_note == intervals.label


def test_a_boosting_tree_says_what_its_number_is():
    """Issue 26: an AGBoost tree "says 708.3" beside a prediction of 318.2. Its number is its
    term V_k (T·ν·h_k): the note gives F_0 + Σ α_k·V_k = the prediction with the model's own
    numbers; a forest's tree says an outcome and gets no note."""
    X, y = make_friedman1(300, n_features=5, random_state=4)
    model = AttentionBoostingRegressor(20, random_state=0).fit(X, y)
    e = explain(model, X[0], summary=TrainingSummary.from_data(model, X, y))
    assert e.offset == pytest.approx(y.mean())  # squared loss: F_0 is the training mean
    terms = float(e.tree_weights @ e.tree_predictions)
    start, mean, predicted = e.value_texts(y.mean(), terms, model.predict(X[:1])[0])
    note = tree_value_note(e)
    assert f"{start} + {mean} = {predicted}" in note and "T = 20" in note
    assert "not a prediction" in note
    forest = _fit("regression")
    plain = explain(forest[2], forest[0][0], summary=TrainingSummary.from_data(
        forest[2], forest[0], forest[1]))
    assert tree_value_note(plain) is None
