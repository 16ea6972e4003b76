"""A clinician's glance (issue 26, items 1 and 7): every number the summary shows is the
Explanation's own, and its sentences are the ones its parts write."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestRegressor

from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import TrainingSummary, explain
from forestviz.explain.row.glance import glance, interval_sentence, similar_rows, spread_sentence
from forestviz.explain.row.imputed import missing_value_checks
from forestviz.explain.row.narrative import headline, interval_note, interval_text, spread_text
from forestviz.explain.row.reasons import argument
from forestviz.explain.row.uncertainty import IntervalModel


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(500, 5, n_informative=3, n_redundant=0, random_state=4)
    y = np.array(["benign", "malignant"])[y]
    model = EnhancedForestClassifier(16, n_iterations=2, random_state=0).fit(X[:300], y[:300])
    intervals = IntervalModel.fit(model, X[300:450], y[300:450])
    return model, X, y, TrainingSummary.from_data(model, X[:300], y[:300]), intervals


def test_the_glance_shows_the_explanations_own_numbers(binary):
    model, X, _, summary, intervals = binary
    x = X[460].copy()
    x[[0, 2]] = np.nan
    e = explain(model, x, summary=summary, intervals=intervals, n_neighbors=10)
    g = glance(model, e, summary)
    assert g.value == e.prediction[1] and g.target == "the risk"
    assert g.predicted_class == e.predicted_class
    assert g.reasons.prediction == pytest.approx(e.prediction[1], abs=1e-12)
    assert g.headline == headline(e) and g.argument == argument(e)
    assert g.argument.startswith(g.headline + ": ")
    assert [c.sentence for c in g.checks] == [
        c.sentence for c in missing_value_checks(model, e, summary)]
    assert [c.column for c in g.checks] == ["x0", "x2"]
    assert g.alarms == tuple(c for c in g.checks if c.changes)
    assert g.warnings == e.warnings
    text = interval_text(e)
    assert g.interval == f"{text[0].upper()}{text[1:]}: {interval_note(e)}."
    spread = spread_text(e)
    assert g.spread == f"{spread[0].upper()}{spread[1:]}."
    counts = e.neighbors["outcome"].value_counts()
    many, first = int(counts.iloc[0]), counts.index[0]
    said = (f"All 10 most similar training rows were {first}" if many == 10 else
            f"{many} of the 10 most similar training rows were {first} "
            f"({10 - many} {counts.index[1]})")
    assert g.similar == said


def test_a_value_glance_gives_the_similar_rows_range_and_median():
    X, y = make_friedman1(300, n_features=5, random_state=0)
    model = RandomForestRegressor(20, random_state=0).fit(X, y)
    e = explain(model, X[0], summary=TrainingSummary.from_data(model, X, y))
    g = glance(model, e, TrainingSummary.from_data(model, X, y))
    assert g.value == e.prediction and g.target == "the prediction" and g.checks == ()
    assert g.interval is None and interval_sentence(e) is None
    outcomes = e.neighbors["outcome"].to_numpy()
    low, high, middle = e.value_texts(outcomes.min(), outcomes.max(), np.median(outcomes))
    assert g.similar == (f"The {len(outcomes)} most similar training rows had outcomes "
                         f"{low}–{high} (median {middle})")
    assert g.spread == spread_sentence(e) and g.spread.startswith("The trees, weighted")
    assert similar_rows(e, str.upper).startswith("The ")
