"""The model card's calibration beyond two classes: a value's linear recalibration (least
squares of the outcome on the prediction) against numpy's own fit, 1 and 0 for predictions
that mean what they say, and its detection of predictions too spread out; a model of more
classes, each class's risk against the rest, equal to the two-class calibration of that split;
a regression model's card and a three-class model's card, trained; a format-1 card (a plain
dict) shown as it was."""

import numpy as np
import pytest
from scipy.special import expit
from sklearn.metrics import brier_score_loss

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.card.calibration import calibration, card_calibration, linear_calibration
from forestviz.card.card import build_card, finished, held_out
from forestviz.card.measures import Outcomes
from forestviz.card.views import CALIBRATION, calibration_note, calibration_table, card_html
from forestviz.io.bundled import load_dataset
from forestviz.io.dataset import Dataset


def test_a_values_calibration_is_numpys_least_squares_fit_and_detects_spread():
    rng = np.random.default_rng(3)
    truth = rng.normal(100, 15, 5_000)
    fair = truth + rng.normal(0, 5, truth.size)  # the outcome scattered around the prediction
    found = linear_calibration(fair, truth)
    assert found["slope"] == pytest.approx(1, abs=0.02)
    assert found["intercept"] == pytest.approx(0, abs=2.5) and found["brier"] is None
    spread = 100 + 2 * (truth - 100)  # predictions twice as far from the mean: slope 1/2
    assert linear_calibration(fair, spread)["slope"] == pytest.approx(0.5, abs=0.01)
    few = rng.normal(size=(2, 30))
    slope, intercept = np.polyfit(few[0], few[1], 1)
    assert (linear_calibration(few[1], few[0])["slope"],
            linear_calibration(few[1], few[0])["intercept"]) == pytest.approx((slope, intercept))
    assert linear_calibration(few[1], np.full(30, 4.0)) == {
        "slope": None, "intercept": None, "brier": None}  # no slope without spread
    assert linear_calibration([1.0], [2.0]) is None


def three_classes(n=3_000, seed=4):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, 3))
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    actual = np.array([rng.choice(3, p=p) for p in proba])
    return Outcomes("classification", actual, proba.argmax(axis=1), proba)


def test_each_class_is_calibrated_against_the_rest():
    outcomes = three_classes()
    found = card_calibration(outcomes, np.array(["a", "b", "c"]))
    assert found["kind"] == "logistic" and [r["of"] for r in found["rows"]] == ["a", "b", "c"]
    for k, row in enumerate(found["rows"]):
        alone = calibration(outcomes.actual == k, outcomes.proba[:, k])
        assert {k2: v for k2, v in row.items() if k2 != "of"} == alone
        assert row["brier"] == pytest.approx(
            brier_score_loss(outcomes.actual == k, outcomes.proba[:, k]))
        assert row["slope"] == pytest.approx(1, abs=0.15)  # the risks are the truth's
    table = calibration_table({"calibration": found})
    assert list(table.columns) == ["risk of", "calibration slope", "calibration intercept",
                                   "Brier score"]
    assert table["risk of"].tolist() == ["a", "b", "c"]


def test_one_outcome_only_has_no_calibration():
    risk = expit(np.linspace(-2, 2, 20))
    alone = Outcomes("classification", np.ones(20, int), np.ones(20, int),
                     np.column_stack([1 - risk, risk]))
    assert card_calibration(alone, np.array(["No", "Yes"])) is None
    assert calibration_note({"calibration": None}).startswith("No calibration")


@pytest.mark.slow  # two models trained
@pytest.mark.parametrize("table, task", [("diabetes", "regression"), ("iris", "three")])
def test_a_trained_models_card_has_its_calibration(table, task):
    if task == "three":
        from sklearn.datasets import load_iris

        frame = load_iris(as_frame=True).frame
        frame["target"] = frame["target"].map(dict(enumerate(["setosa", "versicolor",
                                                               "virginica"])))
        dataset = Dataset.from_frame(frame, "target", name="iris.csv")
    else:
        dataset = load_dataset(table)
    bench = Workbench(dataset)
    bench.train(Settings(family="vanilla", n_estimators=10, random_state=1))
    card = build_card(bench, intended_use="Teaching")
    outcomes = held_out(bench.model)
    rows = card["calibration"]["rows"]
    if task == "regression":
        slope, intercept = np.polyfit(outcomes.predicted, outcomes.actual, 1)
        assert card["calibration"]["kind"] == "linear" and len(rows) == 1
        assert (rows[0]["slope"], rows[0]["intercept"]) == pytest.approx((slope, intercept))
        assert "Brier score" not in calibration_table(card)
    else:
        assert [r["of"] for r in rows] == list(bench.model.estimator.classes_)
    shown = card_html(finished(card, name="Teaching", version=1, blob_sha256="0" * 64), "0")
    assert CALIBRATION[card["calibration"]["kind"]] in shown


def test_a_format_1_card_shows_its_one_row_as_before():
    old = {"calibration": {"slope": 0.91, "intercept": -0.12, "brier": 0.17}}
    table = calibration_table(old)
    assert table.to_dict("records") == [{"calibration slope": "0.910",
                                         "calibration intercept": "−0.120",
                                         "Brier score": "0.170"}]
    assert calibration_note(old) == CALIBRATION["logistic"]
