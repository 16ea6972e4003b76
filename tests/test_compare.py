"""Several models on one data set (forestviz.app.compare through the Workbench): one table on
the same held-out rows against scikit-learn's metrics, the confusion matrix at each model's own
threshold, one row under every model, the parameters in words, and the bound on kept models."""

from dataclasses import replace

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, confusion_matrix, recall_score, roc_auc_score

from forestviz.app.workbench import MAX_MODELS, Workbench
from forestviz.app.workflow import Settings
from forestviz.io.bundled import load_dataset


@pytest.fixture(scope="module")
def bench():
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family="vanilla", n_estimators=20))
    bench.train(Settings(family="erf", n_estimators=20, n_iterations=2))
    return bench


@pytest.mark.slow
def test_one_table_of_every_model_on_the_same_rows(bench):
    table = bench.models_table()
    labels = list(bench.trained)
    assert list(table.index) == [*labels, "Vanilla RF (baseline)", "Gradient boosting (baseline)"]
    assert (table["held-out rows"] == "same").all()
    positive = bench.dataset.classes[1]
    for label, model in bench.trained.items():
        estimator = model.estimator
        proba = estimator.predict_proba(model.X_test)[:, 1]
        said = estimator.predict(model.X_test) == positive
        truth = model.y_test == positive
        row = table.loc[label]
        assert row["AUC"] == pytest.approx(roc_auc_score(truth, proba))
        assert row["sensitivity"] == pytest.approx(recall_score(truth, said))
        assert row["specificity"] == pytest.approx(recall_score(~truth, ~said))
        assert row["Brier score"] == pytest.approx(brier_score_loss(truth, proba))
    erf = bench.trained[labels[1]].estimator
    assert f"threshold {erf.threshold_:.3f} (Youden's J)" in table.loc[labels[1], "parameters"]
    # the round as the rounds chart numbers it (from 1; "round 0 of 2" before)
    kept = erf.history_[erf.best_iteration_]["iteration"]
    assert kept == erf.best_iteration_ + 1
    assert f"reweighting round {kept} of 2" in table.loc[labels[1], "parameters"]
    vanilla = bench.trained[labels[0]].estimator  # the one decision rule (issue 35)
    assert table.loc[labels[0], "parameters"] == (
        f"20 trees; threshold {vanilla.threshold_:.3f} (Youden's J)")


def test_the_confusion_matrix_is_at_the_models_own_threshold(bench):
    model = bench.model
    matrix = bench.confusion()
    classes = list(model.estimator.classes_)
    expected = confusion_matrix(model.y_test, model.estimator.predict(model.X_test),
                                labels=classes)
    np.testing.assert_array_equal(matrix.to_numpy(), expected)
    tp, fn = matrix.iloc[1, 1], matrix.iloc[1, 0]
    assert bench.models_table().loc[bench.label, "sensitivity"] == pytest.approx(tp / (tp + fn))


def test_one_row_under_every_model(bench):
    position = int(bench.model.test_rows[0])
    current = bench.label
    table = bench.row_across_models(position)
    assert bench.label == current  # the current model is unchanged
    x = bench.model.X_test[:1]
    for label, model in bench.trained.items():
        p = model.estimator.predict_proba(x)[0, 1]
        assert f"(P = {p:.2f})" in table.loc[label, "prediction"]
        bench.use(label)
        assert table.loc[label, "why"] == bench.explain(position).why
    bench.use(current)


@pytest.mark.slow
def test_a_model_on_another_split_is_listed_apart_and_the_oldest_goes_first():
    bench = Workbench(load_dataset("breast_cancer"))
    first = bench.train(Settings(family="vanilla", n_estimators=5))
    other = bench.train(Settings(family="vanilla", n_estimators=5, random_state=1))
    table = bench.models_table()
    assert table.loc[bench.label, "held-out rows"] == "same"
    assert table.loc[next(iter(bench.trained)), "held-out rows"] == "another split"
    assert list(table.index)[-1] == next(iter(bench.trained))  # after the comparable ones
    for _ in range(MAX_MODELS):
        bench.adopt(replace(first))  # a new bundle object each time: kept as a new model
    assert len(bench.trained) == MAX_MODELS and bench.model is not other
    assert other not in bench.trained.values()
    assert bench.trained[bench.label] is bench.model
    assert first not in bench.trained.values()
