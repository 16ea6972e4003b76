"""forestviz.explain.row.uncertainty: the trees' weighted spread against repeated values, the
conformal interval against its order-statistic formula and its coverage on fresh rows, the
Venn-ABERS range against isotonic regression by hand and its calibration on fresh rows, the
warnings, and the interval a trained Bundle carries (forestviz.app.workflow)."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.isotonic import IsotonicRegression

from forestviz.app import model_file, workflow
from forestviz.explain.row.uncertainty import (
    INTERVAL_CONFIDENCE,
    MIN_EFFECTIVE_TREES,
    IntervalModel,
    interval_model,
    min_calibration_rows,
    spread_warnings,
    tree_spread,
)
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.persistence.model_file import ModelFile

# levels q with q·Σm never a whole number for Σm < 1000: at a whole number the weighted
# cumulative sum of the floats m/Σm may fall either side of q
LEVELS = (0.0, 0.051, 0.249, 0.499, 0.751, 0.949, 1.0)


def integer_weights(T, seed):
    """Integer multiplicities m_k ≥ 0 (some 0) and α = m/Σm."""
    m = np.random.default_rng(seed).integers(0, 6, size=T)
    m[0] = max(m[0], 1)
    return m, m / m.sum()


# ----------------------------------------------------------------------- the trees' spread
@pytest.mark.parametrize("seed", range(5))
def test_regression_spread_equals_the_values_repeated_by_integer_weights(seed):
    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 40))
    m, alpha = integer_weights(T, seed)
    f = np.round(rng.normal(size=T), 1)  # ties among the trees too
    spread = tree_spread(f, alpha, offset=3.0, levels=LEVELS)
    repeated = np.repeat(f + 3.0, m)
    np.testing.assert_allclose(spread.quantiles,
                               np.quantile(repeated, LEVELS, method="inverted_cdf"))
    assert spread.mean == pytest.approx(repeated.mean())
    assert spread.std == pytest.approx(repeated.std())
    assert spread.effective_trees == pytest.approx(m.sum() ** 2 / (m**2).sum())
    assert spread.vote_shares is None
    assert spread.quantiles[0] == repeated.min() and spread.quantiles[-1] == repeated.max()


@pytest.mark.parametrize("seed", range(5))
def test_class_spread_votes_and_quantiles_equal_the_trees_repeated(seed):
    rng = np.random.default_rng(seed)
    T, C = int(rng.integers(2, 30)), 3
    m, alpha = integer_weights(T, seed)
    P = rng.dirichlet(np.ones(C), size=T)
    spread = tree_spread(P, alpha, levels=LEVELS)
    repeated = np.repeat(P, m, axis=0)
    np.testing.assert_allclose(spread.vote_shares,
                               np.bincount(repeated.argmax(axis=1), minlength=C) / m.sum())
    np.testing.assert_allclose(spread.quantiles,
                               np.quantile(repeated, LEVELS, axis=0, method="inverted_cdf"))
    np.testing.assert_allclose(spread.mean, repeated.mean(axis=0))
    np.testing.assert_allclose(spread.std, repeated.std(axis=0))
    assert spread.quantiles.shape == (len(LEVELS), C)


def test_a_tree_tied_between_classes_splits_its_vote():
    P = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    spread = tree_spread(P, [0.5, 0.2, 0.3])
    np.testing.assert_allclose(spread.vote_shares, [0.25 + 0.1, 0.25 + 0.1, 0.2 + 0.1])
    assert spread.vote_shares.sum() == pytest.approx(1.0)


def test_one_tree_with_all_the_weight_is_the_whole_spread():
    f = np.array([1.0, 7.0, -2.0])
    spread = tree_spread(f, [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(spread.quantiles, np.full(len(spread.levels), 7.0))
    assert spread.std == 0.0 and spread.effective_trees == 1.0


def test_spread_refuses_weights_that_are_no_distribution_or_shapes_that_differ():
    for weights in ([0.5, 0.6], [1.5, -0.5], [np.nan, 1.0]):
        with pytest.raises(ValueError):
            tree_spread([1.0, 2.0], weights)
    with pytest.raises(ValueError, match="expected"):
        tree_spread([1.0, 2.0, 3.0], [0.5, 0.5])
    with pytest.raises(ValueError, match="levels"):
        tree_spread([1.0, 2.0], [0.5, 0.5], levels=(1.5,))


# ------------------------------------------------------------------------------ warnings
def test_warnings_below_the_effective_tree_threshold_and_at_eps_one_only():
    assert MIN_EFFECTIVE_TREES == 5
    assert spread_warnings(5.0, 0.5, 100) == []
    (few,) = spread_warnings(4.9, 0.5, 100)
    assert "4.9 of the 100 trees" in few and "fewer than 5" in few
    (same,) = spread_warnings(80.0, 1.0, 100)
    assert "ε is 1" in same and "same weights" in same
    assert len(spread_warnings(1.0, 1.0, 100)) == 2
    assert spread_warnings(0.9 * 10, 0.999, 10) == []
    assert spread_warnings(9.0, 0.2, 100, min_effective=10)


# --------------------------------------------------------------- conformal interval (values)
def test_conformal_interval_is_the_prediction_plus_minus_the_order_statistic():
    rng = np.random.default_rng(0)
    n = 57
    predicted, y = rng.normal(size=n), rng.normal(size=n)
    model = IntervalModel.from_outputs(predicted, y, task="regression", confidence=0.8)
    q = np.sort(np.abs(y - predicted))[int(np.ceil((n + 1) * 0.8)) - 1]
    new = rng.normal(size=6)
    low, high = model.interval(new)
    np.testing.assert_allclose(low, new - q)
    np.testing.assert_allclose(high, new + q)
    one = model.interval(float(new[0]))
    assert isinstance(one[0], float) and one == pytest.approx((low[0], high[0]))
    assert model.kind == "conformal" and model.n_calibration == n
    assert model.label == ("split-conformal, fitted on 57 held-out rows: on new rows it holds "
                           "the outcome at least 80% of the time")


def test_the_fewest_calibration_rows_give_a_finite_interval_and_fewer_are_refused():
    assert [min_calibration_rows(c) for c in (0.5, 0.8, 0.9, 0.95)] == [2, 5, 10, 20]
    residuals = np.arange(1.0, 11.0)
    model = IntervalModel.from_outputs(np.zeros(10), residuals, task="regression")
    assert model.interval(0.0) == (-10.0, 10.0)  # ⌈11 · 0.9⌉ = 10: the largest residual
    with pytest.raises(ValueError, match="at least 10 calibration rows"):
        IntervalModel.from_outputs(np.zeros(9), residuals[:9], task="regression")
    model = IntervalModel.from_outputs(np.zeros(20), np.arange(1.0, 21.0), task="regression",
                                       confidence=0.95)
    assert model.interval(0.0) == (-20.0, 20.0)
    with pytest.raises(ValueError, match="confidence"):
        IntervalModel.from_outputs(np.zeros(10), residuals, task="regression", confidence=1.0)


def test_conformal_coverage_on_fresh_rows_is_the_nominal_level_within_noise():
    """Split conformal (Lei et al. 2018, Theorem 2.2): given n calibration rows, a fresh row's
    coverage is Beta(k, n + 1 − k) with k = ⌈(n+1)·c⌉, mean k/(n+1); 20 calibration sets,
    each checked on 1,000 fresh rows."""
    X, y = make_friedman1(400, noise=1.0, random_state=0)
    forest = RandomForestRegressor(30, min_samples_leaf=3, random_state=0).fit(X, y)
    rng = np.random.default_rng(1)
    n, n_fresh, repeats = 199, 1000, 20
    for confidence in (0.5, 0.9):
        k = np.ceil((n + 1) * confidence)
        expected = k / (n + 1)
        beta_var = expected * (1 - expected) / (n + 2)
        sd = np.sqrt((beta_var + expected * (1 - expected) / n_fresh) / repeats)
        covered, widths = [], []
        for _ in range(repeats):
            Xc, yc = make_friedman1(n + n_fresh, noise=1.0, random_state=rng.integers(2**31))
            model = IntervalModel.fit(forest, Xc[:n], yc[:n], confidence=confidence)
            low, high = model.interval(forest.predict(Xc[n:]))
            covered.append(np.mean((yc[n:] >= low) & (yc[n:] <= high)))
            widths.append(np.mean(high - low))
        assert abs(np.mean(covered) - expected) < 4 * sd, (confidence, np.mean(covered))
    assert np.mean(widths) > 0


def test_interval_models_survive_pickling_and_refuse_what_they_cannot_do():
    rng = np.random.default_rng(0)
    model = IntervalModel.from_outputs(rng.normal(size=30), rng.normal(size=30),
                                       task="regression")
    again = pickle.loads(pickle.dumps(model))
    assert again.interval([0.0, 1.0])[1].tolist() == model.interval([0.0, 1.0])[1].tolist()
    with pytest.raises(ValueError, match="binary classifier"):
        model.calibrated_risk(0.5)
    with pytest.raises(ValueError, match="outcomes"):
        IntervalModel.from_outputs(np.zeros(10), np.zeros(9), task="regression")
    with pytest.raises(ValueError, match="task"):
        IntervalModel.from_outputs(np.zeros(10), np.zeros(10), task="ranking")
    X, y = make_classification(60, n_classes=3, n_informative=3, random_state=0)
    three = RandomForestClassifier(5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="3 classes"):
        IntervalModel.fit(three, X, y)
    with pytest.raises(ValueError, match="both outcomes"):
        IntervalModel.from_outputs(np.full(10, 0.3), ["no"] * 10, task="classification",
                                   positive="yes")
    risks = IntervalModel.from_outputs([0.2, 0.8], ["no", "yes"], task="classification",
                                       positive="yes")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        risks.interval(1.2)
    assert risks.interval(1 + 2.2e-16) == risks.interval(1.0)  # a weighted sum's rounding


# --------------------------------------------------------------- Venn-ABERS range (risks)
def by_hand(scores, labels, s, label):
    """The isotonic calibration of the score s with the row labelled ``label`` (Vovk, Petej &
    Fedorova 2015, Sec. 4), by scikit-learn's isotonic regression on the augmented rows."""
    augmented = IsotonicRegression(y_min=0, y_max=1)
    return augmented.fit(np.r_[scores, s], np.r_[labels, label]).predict([s])[0]


@pytest.mark.parametrize("ties", [False, True])
def test_venn_abers_range_is_isotonic_regression_with_the_row_labelled_0_and_1(ties):
    rng = np.random.default_rng(3)
    scores = rng.uniform(size=80)
    if ties:
        scores = np.round(scores, 1)
    labels = np.where(rng.uniform(size=80) < scores, "yes", "no")
    model = IntervalModel.from_outputs(scores, labels, task="classification", positive="yes")
    new = np.r_[rng.uniform(size=20), 0.0, 1.0, scores[:5]]
    low, high = model.interval(new)
    positive = labels == "yes"
    np.testing.assert_allclose(low, [by_hand(scores, positive, s, 0) for s in new])
    np.testing.assert_allclose(high, [by_hand(scores, positive, s, 1) for s in new])
    calibrated = model.calibrated_risk(new)
    np.testing.assert_allclose(calibrated, high / (1 - low + high))
    assert np.all(low <= calibrated) and np.all(calibrated <= high)
    assert model.confidence is None and model.positive == "yes"
    assert model.label.startswith("Venn-ABERS, fitted on 80 held-out rows")


def test_venn_abers_is_calibrated_on_fresh_rows_where_the_model_is_not():
    """The model says s where the true risk is s²: Venn-ABERS's member picked by the outcome
    (p1 for a positive row, p0 otherwise) is perfectly calibrated, as every Venn predictor
    (Vovk & Petej, "Venn-Abers predictors", UAI 2014), over 40 calibration sets of 200 rows,
    each checked on
    2,000 fresh rows; its merged risk is close to the truth."""
    gaps, raw, errors = [], [], []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        s = rng.uniform(size=200)
        model = IntervalModel.from_outputs(s, rng.uniform(size=200) < s**2,
                                           task="classification", positive=True)
        fresh = rng.uniform(size=2000)
        y = rng.uniform(size=2000) < fresh**2
        low, high = model.interval(fresh)
        gaps.append(np.mean(y - np.where(y, high, low)))
        raw.append(np.mean(y - fresh))
        errors.append(np.mean(np.abs(model.calibrated_risk(fresh) - fresh**2)))
    assert abs(np.mean(gaps)) < 4 * np.std(gaps) / np.sqrt(len(gaps))
    assert np.mean(raw) < -0.15  # the test can tell: the model itself over-states the risk
    assert np.mean(errors) < 0.06


def test_a_binary_classifier_is_calibrated_on_its_positive_class():
    X, y = make_classification(300, random_state=0)
    labels = np.where(y == 1, "malignant", "benign")
    forest = RandomForestClassifier(20, random_state=0).fit(X[:150], labels[:150])
    model = IntervalModel.fit(forest, X[150:], labels[150:])
    assert model.positive == "malignant" and model.n_calibration == 150
    risk = forest.predict_proba(X[150:])[:, 1]
    same = IntervalModel.from_outputs(risk, labels[150:], task="classification",
                                      positive="malignant")
    np.testing.assert_array_equal(model.interval(risk)[0], same.interval(risk)[0])


# ------------------------------------------------------------------ the Bundle's interval
def dataset(task):
    if task == "regression":
        X, y = make_friedman1(120, noise=1.0, random_state=0)
    else:
        X, y = make_classification(160, n_classes=2 if task == "binary" else 3,
                                   n_informative=3, random_state=0)
        y = np.array(["a", "b", "c"])[y]
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
    data = Dataset.from_frame(frame, "y", task="regression" if task == "regression"
                              else "classification", name="x")
    return data, DataChoice("upload:x", "y", None, (), "auto")


@pytest.mark.slow
@pytest.mark.parametrize("task", ["regression", "binary"])
def test_a_trained_bundle_calibrates_on_its_held_out_rows_and_a_restored_one_alike(task):
    data, choice = dataset(task)
    settings = workflow.Settings(family="vanilla", n_estimators=20)
    bundle = workflow.train_bundle(data, choice, settings, lambda *_: None)
    outputs = bundle.test_predictions[bundle.name]
    model = bundle.intervals
    assert model.n_calibration == len(bundle.y_test) == len(bundle.test_rows)
    if task == "regression":
        assert model.kind == "conformal" and model.confidence == INTERVAL_CONFIDENCE
        q = np.sort(np.abs(bundle.y_test - outputs))[
            int(np.ceil((len(outputs) + 1) * 0.9)) - 1]
        np.testing.assert_allclose(model.interval(outputs)[1], outputs + q)
    else:
        assert model.kind == "venn-abers" and model.positive == "b"
        np.testing.assert_allclose(outputs, bundle.estimator.predict_proba(bundle.X_test)[:, 1])
    restored = model_file.restore(ModelFile.of(bundle), data, choice, lambda *_: None)
    grid = np.linspace(0, 1, 11) if task == "binary" else outputs
    np.testing.assert_array_equal(restored.intervals.interval(grid)[0], model.interval(grid)[0])


def test_more_than_two_classes_carry_no_interval():
    data, choice = dataset("three")
    settings = workflow.Settings(family="vanilla", n_estimators=10)
    assert workflow.train_bundle(data, choice, settings, lambda *_: None).intervals is None
    assert interval_model("regression", None, np.zeros(9), np.zeros(9)) is None


def test_one_risk_computed_two_ways_gets_one_calibration():
    """A calibration row's own risk, as predict_proba gives it and as the explainer's weighted
    sum gives it (2e-16 apart), is calibrated alike: Venn-ABERS steps at that very risk."""
    rng = np.random.default_rng(3)
    risks = rng.uniform(size=200)
    labels = np.where(rng.uniform(size=200) < risks, "yes", "no")
    model = IntervalModel.from_outputs(risks, labels, task="classification", positive="yes")
    for risk in risks:
        for other in (np.nextafter(risk, 0.0), np.nextafter(risk, 1.0)):
            assert model.calibrated_risk(other) == model.calibrated_risk(risk)
            assert model.interval(other) == model.interval(risk)
