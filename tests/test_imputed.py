"""The alarm for a guessed value (issue 26, item 3): each missing column tried at its training
deciles or levels, against explanations of the same rows written out by hand."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestRegressor

from forestviz.attention import AttentionForestClassifier
from forestviz.explain import TrainingSummary, explain
from forestviz.explain.row.columns import ColumnMap
from forestviz.explain.row.imputed import LEVELS, NOTE, WARNING, missing_value_checks
from forestviz.explain.row.uncertainty import IntervalModel
from forestviz.io.preprocessing import TablePreprocessor

N = 400


def _table(seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"size": rng.normal(size=N),
                          "colour": rng.choice(["red", "green", "blue"], N),
                          "noise": rng.normal(size=N),
                          "weight": rng.normal(size=N)})
    score = frame["size"] + 1.5 * (frame["colour"] == "red") + 0.3 * frame["weight"]
    return frame, score + rng.normal(scale=0.2, size=N)


def _fitted(model, frame, y):
    pre = TablePreprocessor().fit(frame[:300])
    Z = pre.transform(frame[:300])
    model.fit(Z, y[:300])
    columns = ColumnMap.from_preprocessor(pre, frame[:300])
    return pre, model, TrainingSummary.from_data(model, Z, y[:300], columns=columns)


@pytest.fixture(scope="module")
def classifier():
    frame, score = _table()
    y = np.where(score > 0.4, "sick", "well")
    return (*_fitted(AttentionForestClassifier(20, random_state=0), frame, y), frame)


def _explain(pre, model, summary, row, **options):
    x = pre.transform(pd.DataFrame([row]))[0]
    return explain(model, x, summary=summary, original_row=row, **options)


def test_each_missing_value_is_tried_as_a_hand_made_row_would_be(classifier):
    pre, model, summary, frame = classifier
    row = frame.iloc[310].copy()
    row[["size", "colour", "noise"]] = [np.nan, np.nan, np.nan]
    row["weight"] = 0.0
    e = _explain(pre, model, summary, row)
    checks = missing_value_checks(model, e, summary)
    assert [c.column for c in checks] == ["size", "colour", "noise"]
    for check in checks:
        if check.kind == "numeric":
            j = summary.columns.columns[summary.columns.names.index(check.column)].features[0]
            expected = np.unique(np.quantile(summary.X_train[:, j], LEVELS))
            np.testing.assert_allclose(sorted(check.tried), expected, rtol=0, atol=0)
            assert check.used == pytest.approx(np.median(frame[check.column][:300]))
        else:
            assert sorted(check.tried) == ["blue", "green", "red"] and check.used is None
        outputs, classes = [], []
        for value in check.tried:  # the row written out with that value, the others missing
            written = row.copy()
            written[check.column] = value
            other = _explain(pre, model, summary, written)
            outputs.append(other.prediction[1])
            classes.append(other.predicted_class)
        np.testing.assert_allclose(check.outputs, outputs, rtol=0, atol=1e-12)
        assert list(check.classes) == classes
        assert check.low == pytest.approx(min([*outputs, e.prediction[1]]), abs=1e-12)
        assert check.high == pytest.approx(max([*outputs, e.prediction[1]]), abs=1e-12)
        assert check.changes == any(c != e.predicted_class for c in classes)
        assert check.level == (WARNING if check.changes else NOTE)
        assert check.sentence.startswith(f"{check.column} is missing (")
        assert f"the risk would be {check.low:.2f}–{check.high:.2f}" in check.sentence or (
            f"the risk would be {check.low:.2f}" in check.sentence)
    by_name = {c.column: c for c in checks}
    # the size decides this case: p10 lies far on one side of the boundary, p90 on the other
    assert by_name["size"].level == WARNING
    assert "the predicted class could change to" in by_name["size"].sentence
    assert set(by_name["size"].classes) == {"sick", "well"}


def test_all_variants_go_to_the_model_in_one_call(classifier, monkeypatch):
    pre, model, summary, frame = classifier
    row = frame.iloc[320].copy()
    row[["size", "noise"]] = [np.nan, np.nan]
    e = _explain(pre, model, summary, row)
    calls = []
    own = model.predict_proba
    monkeypatch.setattr(model, "predict_proba", lambda X: calls.append(len(X)) or own(X))
    checks = missing_value_checks(model, e, summary)
    assert calls == [sum(len(c.tried) for c in checks)]


def test_a_row_without_missing_values_has_no_checks(classifier):
    pre, model, summary, frame = classifier
    e = _explain(pre, model, summary, frame.iloc[330])
    assert missing_value_checks(model, e, summary) == ()


def test_regression_warns_when_the_value_moves_past_the_intervals_half_width():
    frame, score = _table(1)
    pre, model, summary = _fitted(RandomForestRegressor(30, random_state=0), frame,
                                  score.to_numpy())
    intervals = IntervalModel.fit(model, pre.transform(frame[300:]), score[300:].to_numpy())
    for missing in (["size"], ["noise"]):
        row = frame.iloc[305].copy()
        row[missing] = np.nan
        e = _explain(pre, model, summary, row, intervals=intervals)
        (check,) = missing_value_checks(model, e, summary)
        half = (e.interval[1] - e.interval[0]) / 2
        moved = np.abs(np.asarray(check.outputs) - e.prediction).max()
        assert check.classes is None and check.changes == (moved > half)
        said = "more than" if check.changes else "within"
        assert f"{said} the 90% interval's half-width" in check.sentence
        assert check.low <= e.prediction <= check.high
    e = _explain(pre, model, summary, row)  # no interval: the range, and nothing to weigh it
    (check,) = missing_value_checks(model, e, summary)
    assert not check.changes and "no calibrated interval" in check.sentence
