"""The product's workflow as a plain object (forestviz.app.workbench), without Streamlit: the
numbers it shows against independent computations, and the save/load round trip."""

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import mean_absolute_error, r2_score, roc_auc_score

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.plots.tree_weights import weight_order
from forestviz.explain.row.figures import figures
from forestviz.io.bundled import load_dataset
from forestviz.io.dataset import Dataset
from forestviz.persistence import ModelFileError
from forestviz.trees.ensemble import as_ensemble


@pytest.fixture(scope="module")
def pima():
    return load_dataset("pima_diabetes")


@pytest.fixture(scope="module")
def erf_bench(pima):
    bench = Workbench(pima)
    bench.train(Settings(family="erf", n_estimators=30, n_iterations=3))
    return bench


@pytest.fixture(scope="module")
def abrf_bench():
    bench = Workbench(load_dataset("friedman1", n_samples=300))
    bench.train(Settings(family="abrf1_qp", n_estimators=30))
    return bench


def test_training_and_the_comparison_against_scikit_learn(erf_bench):
    model = erf_bench.model
    comparison = erf_bench.comparison()
    assert list(comparison.table.index) == [model.name, "Vanilla RF (baseline)",
                                            "Gradient boosting (baseline)"]
    proba = model.estimator.predict_proba(model.X_test)[:, 1]
    positive = model.estimator.classes_[1]
    assert comparison.table.loc[model.name, "AUC"] == pytest.approx(
        roc_auc_score(model.y_test == positive, proba))
    baseline = RandomForestClassifier(30, random_state=0).fit(model.X_train, model.y_train)
    assert comparison.table.loc["Vanilla RF (baseline)", "AUC"] == pytest.approx(
        roc_auc_score(model.y_test == positive, baseline.predict_proba(model.X_test)[:, 1]))
    assert set(comparison.higher_is_better) == {"AUC", "F1", "accuracy", "sensitivity",
                                                "specificity"}
    assert comparison.figure is not None  # ROC curves of a binary target
    titles = [view.title for view in comparison.training]
    assert titles == ["Enhanced RF: the reweighting rounds"]
    rounds = comparison.training[0].figure.data[0]
    np.testing.assert_allclose(rounds.y, [r["validation_auc"] for r in model.estimator.history_])


def test_ranked_rows_are_the_held_out_rows_by_predicted_risk(erf_bench):
    model = erf_bench.model
    ranked = erf_bench.ranked_rows()
    assert sorted(ranked["position"]) == sorted(model.test_rows)
    risk = ranked.iloc[:, 2].to_numpy()
    assert np.all(np.diff(risk) <= 0)
    by_position = dict(zip(model.test_rows, model.estimator.predict_proba(model.X_test)[:, 1],
                           strict=True))
    np.testing.assert_allclose(risk, [by_position[p] for p in ranked["position"]])
    assert erf_bench.highest_risk_row() == ranked["position"].iloc[0]


def test_explaining_a_row_by_position_or_by_values(erf_bench, pima):
    model = erf_bench.model
    position = erf_bench.highest_risk_row()
    e = erf_bench.explain(position)
    x = model.X_test[np.flatnonzero(model.test_rows == position)[0]]
    np.testing.assert_allclose(e.row, x)
    np.testing.assert_allclose(e.prediction, model.estimator.predict_proba(x[None])[0],
                               rtol=1e-12)
    assert e.row_id == str(pima.ids.iloc[position])
    again = erf_bench.explain(values=pima.X.iloc[position], row_id="edited")
    np.testing.assert_allclose(again.tree_weights, e.tree_weights)
    assert again.row_id == "edited"
    assert not erf_bench.is_training_row(position)
    assert erf_bench.is_training_row(int(model.train_rows[0]))
    # what-if: one number changed, the rest as recorded; missing columns are missing values
    edited = pima.X.iloc[position].copy()
    column = next(c for c, median, _ in erf_bench.editable_columns() if median is not None)
    edited[column] = edited[column] + 50
    changed = erf_bench.explain(values=edited)
    frame = pd.DataFrame([edited.to_dict()])
    expected = model.estimator.predict_proba(model.preprocessor.transform(frame))[0]
    np.testing.assert_allclose(changed.prediction, expected, rtol=1e-12)
    partial = erf_bench.explain(values=edited.drop(column))
    frame[column] = np.nan
    np.testing.assert_allclose(partial.row, model.preprocessor.transform(frame)[0])
    with pytest.raises(ValueError, match="choose a row"):
        erf_bench.explain(len(pima.frame))


def test_explanations_carry_what_the_page_showed_from_the_model(abrf_bench):
    model = abrf_bench.model
    e = abrf_bench.explain(int(model.test_rows[0]))
    eps, w = as_ensemble(model.estimator).contamination()
    assert e.eps == eps > 0
    np.testing.assert_array_equal(e.w, w)
    np.testing.assert_allclose(e.weight_parts[1], eps * w, rtol=1e-12)
    assert e.prediction == pytest.approx(model.estimator.predict(e.row[None])[0], rel=1e-12)
    assert len(e.alternatives) == len(e.top_trees)
    machine = model.summary.machine
    for tree, others in zip(e.top_trees, e.alternatives, strict=True):
        assert [a.leaf for a in others] == [
            a.leaf for a in machine.alternatives(e.row, int(tree), max_flips=1)[:3]]
    simplex = figures(e)["simplex"]
    assert {trace.name for trace in simplex.data} >= {"learned tree weights w"}


def test_regression_views(abrf_bench):
    model = abrf_bench.model
    comparison = abrf_bench.comparison()
    predicted = model.estimator.predict(model.X_test)
    assert comparison.table.loc[model.name, "R²"] == pytest.approx(r2_score(model.y_test,
                                                                           predicted))
    assert comparison.table.loc[model.name, "MAE"] == pytest.approx(
        mean_absolute_error(model.y_test, predicted))
    assert [v.title for v in comparison.training] == ["The ε–τ search (ABRF Fig. 2)"]
    views = abrf_bench.global_views()
    assert views.hardest is None and views.sample_weights is None
    assert abrf_bench.cleaning(3) is None  # cleaning rounds need an Enhanced RF


def test_global_views_against_the_model(erf_bench, pima):
    model = erf_bench.model
    views = erf_bench.global_views()
    importance = model.estimator.sample_importance_
    top = np.sort(importance)[::-1][:len(views.hardest)] * importance.size
    np.testing.assert_allclose(views.hardest["weight (1 = average row)"], top)
    positions = model.train_rows[model.estimator.train_indices_[np.argsort(-importance,
                                                                           kind="stable")]]
    assert views.hardest["ID"].tolist() == pima.ids.iloc[positions[:len(views.hardest)]].tolist()
    bars = views.importance.data[0]
    np.testing.assert_allclose(sorted(bars.x), sorted(model.estimator.feature_importances_))
    np.testing.assert_allclose(np.sum(bars.x), 1.0)
    effective = views.effective.data[0].x
    np.testing.assert_allclose(effective, 1 / np.sum(model.test_weights**2, axis=1))
    n_test = len(model.test_rows)  # 158 held-out rows: 150 of them, evenly spaced
    assert views.heatmap_note == f"150 of the {n_test} held-out rows are shown, evenly spaced."
    keep = np.linspace(0, n_test - 1, 150).astype(int)
    heat = np.asarray(views.heatmap.data[0].z, dtype=float).T  # trees down, rows across
    assert heat.shape == (150, model.n_trees)
    np.testing.assert_allclose(heat, model.test_weights[keep])
    task, args = erf_bench.cleaning(2)
    result = task(*args)
    assert [r["round"] for r in result.records()] == [1, 2]


def test_save_and_load_round_trip(erf_bench, pima):
    data = erf_bench.save()
    loaded = Workbench(pima).load(data)
    model = erf_bench.model
    np.testing.assert_allclose(loaded.estimator.predict_proba(loaded.X_test),
                               model.estimator.predict_proba(model.X_test))
    np.testing.assert_array_equal(loaded.test_rows, model.test_rows)
    other = Workbench(load_dataset("breast_cancer"))
    with pytest.raises(ModelFileError, match="not on the data set in use"):
        other.load(data)
    with pytest.raises(ValueError, match="another data set"):
        other.adopt(model)
    with pytest.raises(ValueError, match="no model has been trained"):
        Workbench(pima).comparison()


def test_the_train_page_says_why_in_numbers_of_the_search_table(abrf_bench, erf_bench):
    """The verdict sentence quotes the search's own table: the base model's and the best
    candidate's held-out scores (R² = 1 − loss / Var(y) for squared loss, AUC = 1 − loss for
    ERF) and, when attention won, the paired difference and its standard error."""
    for bench in (abrf_bench, erf_bench):
        model = bench.model
        table = model.estimator.search_results_
        sentence = bench.comparison().selection
        methods = table[table["candidate"].isin(("attention", "enhanced"))]
        base, best = table.iloc[0], methods.loc[methods["validation_loss"].idxmin()]
        if model.task == "regression":
            variance = np.var(model.y_train)
            shown = [f"R² {1 - base['validation_loss'] / variance:.3f}",
                     f"R² {1 - best['validation_loss'] / variance:.3f}"]
        else:
            shown = [f"AUC {1 - base['validation_loss']:.3f}",
                     f"AUC {1 - best['validation_loss']:.3f}"]
        assert all(text in sentence for text in shown), (sentence, shown)
        assert f"{int(base['n_rows']):,} training rows" in sentence
        if model.estimator.selected_base_:
            assert "did not beat" in sentence and "equal weights" in sentence
        else:
            assert "improved on" in sentence
            assert f"{base['difference_se']:.3g}" in sentence
            if "confirmed_se" in base:  # attention kept on rows it was not chosen on
                assert base["confirmed_difference"] + 2 * base["confirmed_se"] < 0
                scale = np.var(model.y_train) if model.task == "regression" else 1.0
                assert (f"by {-base['confirmed_difference'] / scale:.3g} ± "
                        f"{base['confirmed_se'] / scale:.3g}") in sentence


def test_the_reliability_curve_is_scikit_learns_on_the_held_out_rows(erf_bench, pima):
    model = erf_bench.model
    view = erf_bench.comparison().calibration
    positive = pima.classes[1]
    risk = model.test_predictions[model.name]
    share, mean = calibration_curve(model.y_test == positive, risk, n_bins=10,
                                    strategy="quantile")
    curve = next(trace for trace in view.figure.data if trace.name == "held-out rows")
    np.testing.assert_allclose(curve.x, mean, rtol=1e-12)
    np.testing.assert_allclose(curve.y, share, rtol=1e-12)
    assert f"{model.intervals.n_calibration} held-out rows" in view.note
    assert model.intervals.n_calibration == len(model.test_rows)


@pytest.mark.slow
def test_the_train_page_says_when_the_confirmation_kept_the_machine():
    """Pure noise: the best of AGBoost's 462 settings beats its machine on the held-out rows by
    more than the paired standard error (the winner's curse), and the confirmation on rows the
    choice was not made on keeps the machine; the sentence quotes that confirmation."""
    rng = np.random.RandomState(0)
    frame = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    frame["y"] = rng.normal(size=200)
    bench = Workbench(Dataset.from_frame(frame, "y", task="regression"))
    bench.train(Settings(family="agboost", n_estimators=30, random_state=0))
    base = bench.model.estimator.search_results_.iloc[0]
    assert bench.model.estimator.selected_base_
    assert base["difference_to_best"] > base["difference_se"]
    assert base["confirmed_difference"] + 2 * base["confirmed_se"] >= 0
    sentence = bench.comparison().selection
    variance = np.var(bench.model.y_train)  # the sentence speaks R², so the gain is in R²
    gain = f"{-base['confirmed_difference'] / variance:+.3g}".replace("-", "−")  # a true minus
    assert (f"its gain in R² was {gain} ± {base['confirmed_se'] / variance:.3g}, not above "
            "zero") in sentence
    assert "did not beat the plain gradient boosting machine" in sentence


def test_an_explanations_figures_name_its_top_trees(erf_bench):
    """The bars name the heaviest trees, ties broken by the explanation's own top trees, and the
    simplex's corners are the two first of them."""
    e = erf_bench.explain(int(erf_bench.model.test_rows[0]))
    figs = figures(e)
    k = len(e.top_trees)
    order = weight_order(e.tree_weights, e.top_trees)
    assert list(figs["weights"].layout.xaxis.ticktext)[:k] == [f"Tree {t + 1}" for t in order[:k]]
    corners = [figs["simplex"].layout.ternary[axis].title.text for axis in ("aaxis", "baxis")]
    assert corners == [f"Tree {order[0] + 1}", f"Tree {order[1] + 1}"]
