"""One decision rule for every classification family (issue 35): Youden's J on rows held out
while training (forestviz.trees.decision), so that a table with 5 % positives never gets a
model that predicts no positive. The thresholds are checked against scikit-learn's ROC curve
computed here on the documented held-out rows, and the predictions on fresh rows of the same
table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.metrics import roc_curve
from sklearn.utils.estimator_checks import check_classifiers_train

from forestviz.app.workflow import Settings, baselines, make_estimator
from forestviz.attention import AttentionForestClassifier
from forestviz.registry import families_for
from forestviz.trees.decision import VALIDATION_FRACTION, decide, youden_threshold
from forestviz.trees.loaded import DamagedState
from forestviz.trees.plain import DecidedRandomForestClassifier
from forestviz.trees.rows import split_rows


def youden_by_hand(positive, scores, weight=None):
    """The largest J = TPR − FPR over every cut "score ≥ t" at the rows' own scores."""
    positive = np.asarray(positive, bool)
    weight = np.ones(positive.size) if weight is None else np.asarray(weight, float)
    best = -np.inf
    for t in np.unique(scores):
        said = scores >= t
        j = (weight[said & positive].sum() / weight[positive].sum()
             - weight[said & ~positive].sum() / weight[~positive].sum())
        best = max(best, j)
    return best


@given(st.integers(0, 2**31 - 1), st.integers(20, 200), st.booleans())
@example(22761, 20, False)  # the best cut, 1.05, was clipped to 1.0 (found in CI)
@settings(max_examples=40, deadline=None)
def test_youden_threshold_has_the_largest_j(seed, n, weighted):
    rng = np.random.RandomState(seed)
    positive = rng.rand(n) < 0.2
    positive[:2] = True, False
    scores = np.round(rng.rand(n) + 0.3 * positive, 2)
    weight = rng.rand(n) + 0.1 if weighted else None
    t = youden_threshold(positive, scores, weight)
    w = np.ones(n) if weight is None else weight
    best = youden_by_hand(positive, scores, weight)
    if best <= 1e-12:  # no cut beats chance: the cut is the rows' share of positives
        assert t == pytest.approx(np.average(positive, weights=w))
        return
    said = scores >= t
    j = w[said & positive].sum() / w[positive].sum() - w[said & ~positive].sum() / w[
        ~positive].sum()
    assert j == pytest.approx(best)


def test_decide_uses_the_threshold_for_two_classes_and_argmax_otherwise():
    proba = np.array([[0.9, 0.1], [0.7, 0.3], [0.2, 0.8]])
    assert decide(proba, np.array(["no", "yes"]), 0.3).tolist() == ["no", "yes", "yes"]
    assert decide(proba, np.array(["no", "yes"]), None).tolist() == ["no", "no", "yes"]
    three = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    assert decide(three, np.array([0, 1, 2]), None).tolist() == [1, 0]


def imbalanced(rng, n, share, signal):
    """n rows, about ``share`` positives ("yes"), a weak signal in two of four columns."""
    y = rng.rand(n) < share
    y[:3] = True  # at least three positives
    X = rng.normal(size=(n, 4))
    X[:, 0] += signal * y
    X[:, 1] += 0.5 * signal * y
    return X, np.where(y, "yes", "no")


def models(seed):
    """Every classification family (small and untuned: the rule is what is tested) and the
    baselines shown beside them."""
    found = {}
    for key in families_for("classification"):
        for base in ("random", "extra") if key == "vanilla" else ("random",):
            found[f"{key}/{base}"] = make_estimator(
                Settings(family=key, base=base, n_estimators=10, auto_tune=False,
                         n_iterations=2, random_state=seed), "classification")
    found.update(baselines("classification", Settings(n_estimators=10, random_state=seed)))
    return found


def held_out_rule(model, X, y):
    """Youden's J on the documented held-out rows, computed here: the Enhanced RF's own
    validation rows and probabilities; for the others a model of the same settings fitted
    on the stratified split of the rows seeded by its random_state, scored on the rest."""
    _, y_enc = np.unique(y, return_inverse=True)
    if hasattr(model, "validation_proba_"):
        rows, proba = model.validation_indices_, model.validation_proba_[:, 1]
    else:
        seed = np.random.RandomState(model.random_state).randint(2**31 - 1)
        train, rows = split_rows(y_enc, VALIDATION_FRACTION, seed)
        proba = clone(model).fit(X[train], y[train]).predict_proba(X[rows])[:, 1]
    fpr, tpr, cuts = roc_curve(y_enc[rows] == 1, proba)
    if np.max(tpr - fpr) <= 0:  # nothing beats chance: the held-out rows' share of positives
        return np.mean(y_enc[rows] == 1)
    return min(cuts[np.argmax(tpr - fpr)], 1.0)


@pytest.mark.slow
@given(st.integers(0, 2**16), st.integers(150, 400), st.sampled_from([0.03, 0.05, 0.08]),
       st.floats(0.8, 2.0))
@example(seed=0, n=300, share=0.05, signal=1.0)  # the table: 5 % positives
# found in CI: the Enhanced RF's three validation positives all got P ≈ 0, J's best was the
# +∞ cut (a tie with "all positive") and the model named no positive
@example(seed=0, n=335, share=0.03, signal=1.0)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_family_decides_by_youden_on_held_out_rows(seed, n, share, signal):
    rng = np.random.RandomState(seed)
    X, y = imbalanced(rng, n, share, signal)
    X_new, _ = imbalanced(rng, 1000, share, signal)
    for name, model in models(seed).items():
        model.fit(X, y)
        assert model.threshold_ == pytest.approx(held_out_rule(model, X, y)), name
        predicted = model.predict(X_new)
        proba = model.predict_proba(X_new)
        assert predicted.tolist() == np.where(proba[:, 1] >= model.threshold_, "yes",
                                              "no").tolist(), name
        assert (predicted == "yes").any(), f"{name} predicts no positive"


@pytest.mark.parametrize("bad", ["0.5", float("nan"), 1.5, -0.1, True])
def test_a_loaded_threshold_must_be_a_probability(bad):
    X, y = imbalanced(np.random.RandomState(0), 120, 0.2, 2.0)
    model = DecidedRandomForestClassifier(5, random_state=0).fit(X, y)
    state = model.__getstate__()
    fresh = DecidedRandomForestClassifier.__new__(DecidedRandomForestClassifier)
    fresh.__setstate__(dict(state))
    assert fresh.threshold_ == model.threshold_
    with pytest.raises(DamagedState, match="threshold"):
        fresh.__setstate__({**state, "threshold_": bad})


class _ArgmaxAttentionForest(AttentionForestClassifier):
    """An attention classifier whose decision is the argmax after fitting."""

    def fit(self, X, y, sample_weight=None, progress=None):
        super().fit(X, y, sample_weight=sample_weight, progress=progress)
        self.threshold_ = None
        return self


@pytest.mark.slow
@pytest.mark.parametrize("readonly_memmap", [False, True])
def test_the_only_failure_of_check_classifiers_train_is_the_youden_threshold(readonly_memmap):
    check_classifiers_train("AttentionForestClassifier",
                            _ArgmaxAttentionForest(n_estimators=8, min_samples_leaf=2,
                                                   random_state=0),
                            readonly_memmap=readonly_memmap)
