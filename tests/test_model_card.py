"""The model card's numbers (forestviz.card) against independent computations: its held-out
metrics equal scikit-learn's (and the Train page's table), its bootstrap intervals cover the
true value at about their nominal rate in a simulation, its calibration slope and intercept
are 1 and 0 for calibrated risks and move for miscalibrated ones (and equal a maximum
likelihood fit written here), its subgroups equal a pandas groupby with scikit-learn's
metrics, and a group below 30 rows gets the note instead of numbers."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit, logit
from scipy.stats import binom, norm
from sklearn.metrics import (
    accuracy_score,
    brier_score_loss,
    f1_score,
    mean_absolute_error,
    r2_score,
    recall_score,
    roc_auc_score,
)

from forestviz.card.calibration import calibration
from forestviz.card.card import build_card, canonical, date_ranges, digest, held_out
from forestviz.card.measures import Outcomes, bootstrap, measure
from forestviz.card.subgroups import FEW, MIN_ROWS, group_labels, subgroup_table
from forestviz.io.csv_input import DataError


def sklearn_binary(actual, risk, predicted) -> dict:
    positive = actual == 1
    return {"AUC": roc_auc_score(positive, risk), "F1": f1_score(actual, predicted),
            "accuracy": accuracy_score(actual, predicted),
            "sensitivity": recall_score(positive, predicted == 1),
            "specificity": recall_score(~positive, predicted != 1),
            "Brier score": brier_score_loss(positive, risk)}


def point(outcomes) -> dict:
    return {k: v[0] for k, v in measure(outcomes, np.arange(len(outcomes))[None]).items()}


def binary(n, rng, shift=1.0):
    actual = rng.integers(0, 2, n)
    risk = expit(rng.normal(shift * (actual - 0.5), 1.0))
    predicted = (risk > 0.4).astype(int)
    return Outcomes("classification", actual, predicted, np.column_stack([1 - risk, risk]))


def test_the_metrics_equal_scikit_learns():
    rng = np.random.default_rng(0)
    found = binary(300, rng)
    risk = found.proba[:, 1]
    risk[::7] = risk[3]  # ties, counted a half as scikit-learn's ROC area does
    expected = sklearn_binary(found.actual, risk, found.predicted)
    assert point(found) == pytest.approx(expected, rel=1e-12)
    proba = rng.dirichlet(np.ones(3), 200)
    actual, predicted = rng.integers(0, 3, 200), rng.integers(0, 3, 200)
    predicted[predicted == 2] = 0  # a class never predicted: macro F1 still counts it
    three = point(Outcomes("classification", actual, predicted, proba))
    assert three == pytest.approx({
        "AUC": roc_auc_score(actual, proba, multi_class="ovr"),
        "F1": f1_score(actual, predicted, average="macro"),
        "accuracy": accuracy_score(actual, predicted)}, rel=1e-12)
    values, guesses = rng.normal(size=150), rng.normal(size=150)
    assert point(Outcomes("regression", values, guesses)) == pytest.approx(
        {"R²": r2_score(values, guesses), "MAE": mean_absolute_error(values, guesses)},
        rel=1e-12)


@pytest.mark.slow
def test_a_trained_models_card_holds_the_train_pages_metrics(bench):
    card = build_card(bench, intended_use="Screening", subgroups=["Age (years)"])
    table = bench.model.results.set_index("model").loc[bench.model.name]
    values = card["metrics"]["values"]
    assert {k: v["value"] for k, v in values.items()} == pytest.approx(
        {k: table[k] for k in values}, rel=1e-12)
    model = bench.model
    risk = model.estimator.predict_proba(model.X_test)[:, 1]
    positive = model.y_test == model.class_names[1]
    (calibrated,) = card["calibration"]["rows"]
    assert calibrated["brier"] == pytest.approx(brier_score_loss(positive, risk))
    assert (card["calibration"]["kind"], calibrated["of"]) == ("logistic", "Yes")
    data = card["data"]
    assert (data["rows"], data["held_out_rows"]) == (len(bench.dataset.frame), len(positive))
    assert data["outcome"]["shares"]["Yes"] == pytest.approx(
        (bench.dataset.y == "Yes").mean())
    assert sum(g["n"] for g in card["subgroups"][0]["groups"]) == len(positive)
    # seeded: the same model gives the same card, digest and all
    assert digest(build_card(bench, intended_use="Screening",
                             subgroups=["Age (years)"])) == digest(card)
    assert canonical(json.loads(canonical(card))) == canonical(card)  # JSON round trip


def test_the_held_out_answers_are_the_estimators(bench):
    found = held_out(bench.model)
    classes = list(bench.model.estimator.classes_)
    assert [classes[k] for k in found.actual] == list(bench.model.y_test)
    assert [classes[k] for k in found.predicted] == list(
        bench.model.estimator.predict(bench.model.X_test))


@pytest.mark.slow
def test_the_intervals_cover_the_true_value_at_about_95_percent():
    """200 data sets drawn from a model whose AUC (scores N(d, 1) against N(0, 1): Φ(d/√2))
    and accuracy (each answer right with probability q) are known."""
    runs, n, d, q = 200, 200, 1.0, 0.8
    true_auc = norm.cdf(d / np.sqrt(2))
    rng = np.random.default_rng(7)
    covered = {"AUC": 0, "accuracy": 0}
    for run in range(runs):
        actual = rng.integers(0, 2, n)
        score = expit(rng.normal(d * actual, 1.0))
        right = rng.random(n) < q
        predicted = np.where(right, actual, 1 - actual)
        found = bootstrap(Outcomes("classification", actual, predicted,
                                   np.column_stack([1 - score, score])),
                          n_resamples=500, random_state=run)
        covered["AUC"] += found["AUC"].low <= true_auc <= found["AUC"].high
        covered["accuracy"] += found["accuracy"].low <= q <= found["accuracy"].high
    low, high = binom.ppf([0.001, 0.999], runs, 0.95)
    for name, count in covered.items():
        assert low <= count <= high, f"{name}: {count} of {runs} intervals covered"


def test_an_interval_is_the_percentile_of_the_seeded_resamples():
    outcomes = binary(80, np.random.default_rng(3))
    rng = np.random.default_rng(11)
    accuracy = [np.mean(outcomes.actual[rows] == outcomes.predicted[rows])
                for rows in rng.integers(0, 80, size=(200, 80))]
    found = bootstrap(outcomes, n_resamples=200, random_state=11)["accuracy"]
    assert (found.low, found.high) == pytest.approx(tuple(np.percentile(accuracy, [2.5, 97.5])))
    assert bootstrap(outcomes, n_resamples=200, random_state=11)["accuracy"] == found


def likelihood_fit(positive, risk):
    """The logistic recalibration by maximum likelihood, written here (scipy's optimiser)."""
    x = logit(risk)

    def loss(beta):
        z = beta[0] + beta[1] * x
        return np.sum(np.logaddexp(0, z) - positive * z)

    return minimize(loss, [0.0, 1.0], method="BFGS", options={"gtol": 1e-10}).x


def test_calibration_is_1_and_0_for_calibrated_risks_and_detects_miscalibration():
    rng = np.random.default_rng(5)
    risk = rng.uniform(0.02, 0.98, 20_000)
    positive = rng.random(risk.size) < risk
    fair = calibration(positive, risk)
    assert fair["slope"] == pytest.approx(1, abs=0.06)
    assert fair["intercept"] == pytest.approx(0, abs=0.06)
    assert fair["brier"] == pytest.approx(brier_score_loss(positive, risk))
    extreme = calibration(positive, expit(2 * logit(risk)))  # too sure: slope near 1/2
    assert extreme["slope"] == pytest.approx(0.5, abs=0.04)
    high = calibration(positive, expit(logit(risk) + 1))  # too high: intercept near -1
    assert high["intercept"] == pytest.approx(-1, abs=0.08)
    small = rng.uniform(0.05, 0.95, 300)
    outcome = rng.random(300) < small ** 1.5
    intercept, slope = likelihood_fit(outcome, small)
    found = calibration(outcome, small)
    assert (found["intercept"], found["slope"]) == pytest.approx((intercept, slope), abs=1e-4)
    assert calibration(np.ones(10, bool), small[:10]) is None
    apart = calibration(np.array([0, 0, 1, 1], bool), np.array([0.1, 0.2, 0.8, 0.9]))
    assert apart == {"slope": None, "intercept": None,  # no finite fit exists
                     "brier": pytest.approx(brier_score_loss([0, 0, 1, 1], [.1, .2, .8, .9]))}


tables = st.lists(st.tuples(st.sampled_from(["a", "b", "c", None]), st.booleans(),
                            st.floats(0.01, 0.99), st.booleans()),
                  min_size=1, max_size=150)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=tables)
@example(rows=[("a", True, 0.5, True)] * 29 + [("a", False, 0.4, False)])  # exactly 30
@example(rows=[("a", True, 0.5, True)] * 28 + [("a", False, 0.4, False)])  # 29: the note
def test_subgroups_equal_a_groupby(rows):
    frame = pd.DataFrame(rows, columns=["group", "actual", "risk", "said"])
    actual, said = frame["actual"].to_numpy(int), frame["said"].to_numpy(int)
    outcomes = Outcomes("classification", actual, said,
                        np.column_stack([1 - frame["risk"], frame["risk"]]))
    found = {g["group"]: g for g in subgroup_table(
        outcomes, group_labels(frame["group"]), n_resamples=20, random_state=0)}
    expected = frame.assign(group=frame["group"].fillna("(missing)")).groupby("group")
    assert set(found) == set(expected.groups)
    for name, part in expected:
        group = found[name]
        assert group["n"] == len(part)
        assert group["outcome"] == pytest.approx(part["actual"].mean())
        if len(part) < MIN_ROWS:
            assert group["metrics"] is None and group["note"] == FEW
            continue
        assert group["note"] is None
        right = sklearn_binary(part["actual"].to_numpy(int), part["risk"].to_numpy(),
                               part["said"].to_numpy(int)) if part["actual"].nunique() == 2 \
            else {"accuracy": accuracy_score(part["actual"], part["said"])}
        for metric, value in right.items():
            assert group["metrics"][metric]["value"] == pytest.approx(value, rel=1e-12)
    assert [g["n"] for g in found.values()] == sorted((g["n"] for g in found.values()),
                                                      reverse=True)


def test_a_column_of_many_numbers_is_cut_at_its_quartiles_and_of_many_words_refused():
    ages = pd.Series(np.arange(100, dtype=float), name="age")
    labels = group_labels(ages)
    assert list(labels.value_counts()) == [25, 25, 25, 25]
    assert labels.iloc[0] == "0 to 24" and labels.iloc[-1] == "75 to 99"
    with pytest.raises(DataError, match="'name' has 100 different values"):
        group_labels(pd.Series([f"p{i}" for i in range(100)], name="name"))


def test_a_subgroup_column_must_be_a_column_other_than_the_outcome(bench):
    for columns, said in ((["Nope"], "no column 'Nope'"), (["Diabetes"], "is the outcome")):
        with pytest.raises(DataError, match=said):
            build_card(bench, intended_use="Screening", subgroups=columns)


def test_the_date_range_of_each_column_of_dates():
    frame = pd.DataFrame({
        "seen": ["2024-03-01", None, "2023-12-31", "2024-02-29T10:30:00"],  # text, as CSV
        "born": pd.to_datetime(["1950-01-02", "1990-06-30", None, "1970-01-01"]),
        "code": ["2024-03-01", "x", "2023-12-31", "2024-01-01"],  # not all dates
        "bad": ["2024-13-01", "2024-01-01", None, None],  # no 13th month
        "number": [1.0, 2.0, 3.0, 4.0]})
    assert date_ranges(frame) == [
        {"column": "seen", "first": "2023-12-31", "last": "2024-03-01"},
        {"column": "born", "first": "1950-01-02", "last": "1990-06-30"}]
