"""The Train, Explain, Forest and Paper-lab pages (and Home's one-click button) through
Streamlit's AppTest, with real training on small settings.

Numbers shown on the pages are checked against the trained estimator itself (scikit-learn
metrics, ``predict_proba``, ``tree_weights``), never against values the page computed."""

import html
import io
import re

import numpy as np
import pandas as pd
import pytest
from scipy.stats import percentileofscore
from sklearn.metrics import accuracy_score, mean_absolute_error, r2_score, roc_auc_score
from streamlit.testing.v1 import AppTest

from forestviz.app import workflow
from forestviz.app.workbench import Workbench
from forestviz.explain.plots.alt import chart_text
from forestviz.explain.report.markup import SENTENCE_LIMIT, plain
from forestviz.explain.row.view import Chart, Tree
from forestviz.io.bundled import load_dataset
from forestviz.registry import FAMILIES
from forestviz.trees.ensemble import as_ensemble
from tests.apptest_helpers import (
    app,
    chart_titles,
    choose_bundled,
    finish_jobs,
    metric,
    shown_cells,
    train,
    upload_csv,
)
from ui.display import as_text

# every test drives the app through AppTest, most with real training: seconds each
pytestmark = pytest.mark.slow

HOSTILE = "<img src=x onerror=alert(1)>"


def ranked_picker(at):
    """The Explain page's box of held-out rows (its key names the model)."""
    (picker,) = [s for s in at.selectbox if s.label.startswith("Held-out row (ID")]
    return picker


def browser_text(before_id: str, before_text: str, after) -> str:
    """The text a browser shows in the selectbox ``after`` a rerun when it showed
    ``before_text`` in the box ``before_id``: a box it has already (the same element id)
    keeps its text unless the run sets a value (Streamlit 1.67); a new one shows its default
    option."""
    if after.proto.id == before_id:
        return after.proto.raw_value if after.proto.set_value else before_text
    return after.options[after.proto.default]


def test_home_button_trains_and_explains_the_riskiest_patient():
    at = app()
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    assert not at.exception and not at.error
    bundle = at.session_state["model"]
    assert bundle.settings == workflow.default_settings("classification")
    assert at.title[0].value == "Explain"
    proba = bundle.estimator.predict_proba(bundle.X_test)[:, 1]
    riskiest = bundle.test_rows[np.argmax(proba)]
    assert at.session_state["explain_row"] == riskiest
    assert metric(at, "P(Yes)") == f"{proba.max():.2f}"
    calibrated = bundle.intervals.calibrated_risk(proba.max())  # said next to the model's risk
    assert metric(at, "Calibrated") == f"{float(calibrated):.2f}"
    assert metric(at, "Decision threshold") == f"{bundle.estimator.threshold_:.3f}"
    weights = bundle.estimator.tree_weights(bundle.X_test[[np.argmax(proba)]])[0]
    assert metric(at, "Effective number of trees") == f"{1 / np.sum(weights**2):.1f}"
    specs = " ".join(chart_titles(at))
    assert "Reasons both ways" in specs and "tree score S" in specs  # ERF's scores
    if np.allclose(weights, 1 / weights.size):  # the default ERF kept its plain forest:
        # no chart of a hundred equal bars, no weight density, no simplex of equal weights
        for title in ("weight of each tree", "Where the weight sits", "ABRF Fig. 1"):
            assert title not in specs
        assert any("Every tree counts the same" in c.value for c in at.caption)
    assert len(at.get("image")) == 5  # the chosen trees' paths
    # each path's tests as a numbered list (it wraps; a table cut them at 1400 px, issue 26)
    lists = [m.value for m in at.markdown if m.value.startswith("**The path's tests**")]
    assert len(lists) == 5 and all("\n1. " in text for text in lists)
    # the row beside the training rows: text (no "None"), medians to each spread's digits;
    # the percentile a number (it sorts by size), that of the training rows below the value
    (features,) = [d.value for d in at.dataframe if "percentile" in d.value.columns]
    text = features.drop(columns="percentile")
    assert text.map(lambda cell: isinstance(cell, str) and cell != "None").all(axis=None)
    row = bundle.X_test[list(bundle.test_rows).index(at.session_state["explain_row"])]
    mid_rank = [percentileofscore(column, value, kind="mean")
                for column, value in zip(bundle.X_train.T, row, strict=True)]
    assert features["percentile"].dtype == float
    np.testing.assert_allclose(features["percentile"], mid_rank, atol=0.051)
    for j, name in enumerate(bundle.feature_names):
        column = bundle.X_train[:, j]
        places = max(0, 2 - int(f"{column.std():.2e}".split("e")[1]))  # 3rd digit of the spread
        expected = f"{np.median(column):.{places}f}"
        expected = expected.rstrip("0").rstrip(".") if "." in expected else expected
        assert features.set_index("feature").loc[name, "training median"] == expected

    # labels are accessible names, read as written: no Markdown escapes (issue 26)
    assert ranked_picker(at).label == "Held-out row (ID · predicted risk · recorded outcome)"
    assert "P(Yes)" in [m.label for m in at.metric]
    # another held-out row: the card follows the model
    position = int(bundle.test_rows[np.argmin(proba)])
    ranked_picker(at).set_value(position).run()
    assert not at.exception
    assert metric(at, "P(Yes)") == f"{proba.min():.2f}"

    # by ID: a training row is explained too, flagged as seen in training
    dataset = at.session_state["dataset"]
    trained = int(bundle.train_rows[0])
    at.radio(key="explain_picker").set_value("id").run()
    at.text_input(key="explain_id").input(dataset.ids.iloc[trained]).run()
    assert not at.exception and at.session_state["explain_row"] == trained
    assert any("used for training" in c.value for c in at.caption)
    x = bundle.preprocessor.transform(dataset.X.iloc[[trained]])
    assert metric(at, "P(Yes)") == f"{bundle.estimator.predict_proba(x)[0, 1]:.2f}"
    at.text_input(key="explain_id").input("3").run()  # a row label, not an ID
    assert at.session_state["explain_row"] == dataset.frame.index.get_loc(3)
    at.text_input(key="explain_id").input("nobody").run()
    assert any("No row has the ID" in w.value for w in at.warning)
    assert at.session_state["explain_row"] == dataset.frame.index.get_loc(3)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["HTML report"]  # the PDF is made on request, in a worker
    assert at.button(key="explain_report_pdf_make").label == "Make PDF report"
    appendix = at.checkbox(key="explain_report_appendix")  # the one-page record by default
    assert appendix.label == "With appendix" and appendix.value is False
    at.radio(key="explain_picker").set_value("ranked").run()
    ranked_picker(at).set_value(position).run()

    # what-if: a higher glucose value changes the prediction exactly as the model does
    at.radio(key="explain_picker").set_value("whatif").run()
    key = f"whatif@{position}@Glucose (mg/dL)"  # keys hold the raw column name
    # labels are accessible names, read as written: no Markdown escapes (issue 26)
    assert at.number_input(key=key).label == "Glucose (mg/dL)"
    at.number_input(key=key).set_value(199.0).run()
    assert not at.exception
    edited = at.session_state["dataset"].X.iloc[[position]].copy()
    edited["Glucose (mg/dL)"] = 199.0
    expected = bundle.estimator.predict_proba(bundle.preprocessor.transform(edited))[0, 1]
    assert metric(at, "P(Yes)") == f"{expected:.2f}"

def test_a_second_session_gets_the_same_training_at_once_as_its_own_model():
    first = app()
    first.button(key="home_explain").click().run()
    finish_jobs(first)
    second = app()
    second.button(key="home_explain").click().run()  # the server's model: no job, no wait
    assert "training" not in second.session_state and not second.exception
    assert second.title[0].value == "Explain"
    assert second.session_state["model"] is first.session_state["model"]
    assert second.session_state["models"] is not first.session_state["models"]
    train(second, "vanilla", trees=10)  # its own next model stays its own
    assert len(second.session_state["models"]) == 2
    assert len(first.session_state["models"]) == 1


@pytest.mark.parametrize(
    ("dataset", "family", "auto"),
    [
        ("pima_diabetes", "vanilla", True),
        ("pima_diabetes", "erf", True),
        ("breast_cancer", "erf", True),  # 30 features: the block neighbour search
        ("pima_diabetes", "abrf1_qp", True),
        ("pima_diabetes", "abrf1_lp", False),
        ("pima_diabetes", "abrf2", True),
        ("pima_diabetes", "abrf3", True),
        ("pima_diabetes", "softmax", True),
        ("diabetes", "agboost", True),
        ("diabetes", "abrf1_qp", False),
    ],
)
def test_each_model_family_trains_and_scores_on_held_out_rows(dataset, family, auto):
    at = app()
    if dataset != "pima_diabetes":
        choose_bundled(at, dataset)
    bundle = train(at, family, trees=20, auto=auto)
    assert bundle.settings.family == family and bundle.n_trees == 20
    results = at.dataframe[0].value
    assert list(results.index) == [f"{FAMILIES[family].label} · 20 trees",
                                   "Vanilla RF (baseline)", "Gradient boosting (baseline)"]
    model_row = results.iloc[0]
    X, y = bundle.X_test, bundle.y_test
    positive = bundle.estimator.classes_[-1] if bundle.task == "classification" else None
    if bundle.task == "classification":
        proba = bundle.estimator.predict_proba(X)[:, 1]
        assert model_row["AUC"] == pytest.approx(roc_auc_score(y == positive, proba))
        assert model_row["accuracy"] == pytest.approx(
            accuracy_score(y, bundle.estimator.predict(X)))
        # stratified held-out split of 25 %
        assert len(y) == int(np.ceil(0.25 * (len(y) + len(bundle.y_train))))
        assert np.mean(y == positive) == pytest.approx(np.mean(bundle.y_train == positive),
                                                       abs=0.01)
    else:
        predicted = bundle.estimator.predict(X)
        assert model_row["R²"] == pytest.approx(r2_score(y, predicted))
        assert model_row["MAE"] == pytest.approx(mean_absolute_error(y, predicted))
    np.testing.assert_allclose(bundle.test_weights.sum(axis=1), 1.0)
    csv = pd.read_csv(io.BytesIO(workflow.predictions_csv(bundle)))
    weights = csv.filter(like="weight tree").to_numpy()
    np.testing.assert_allclose(weights, as_ensemble(bundle.estimator).tree_weights(X), rtol=1e-6)
    assert csv["id"].astype(str).tolist() == list(bundle.ids_test)
    captions = " ".join(c.value for c in at.caption)
    assert ("Sensitivity and specificity" in captions) == (bundle.task == "classification")
    specs = " ".join(chart_titles(at))
    if family == "erf":
        assert "Enhanced Random Forest" in specs
    if family in ("abrf1_qp", "agboost") and auto:
        assert "ABRF Fig. 2" in specs

    at.switch_page("pages/explain.py").run()  # every family can be explained
    assert not at.exception and not at.error
    ranked = at.radio(key="explain_picker").options[0]
    word = "risk" if bundle.task == "classification" else "value"
    assert ranked == f"Held-out rows, highest predicted {word} first"
    notes = [c.value.replace("\\", "") for c in at.caption]
    assert any("A boosting tree's number is not a prediction" in n for n in notes) == (
        family == "agboost")
    position = at.session_state["explain_row"]
    row = bundle.X_test[list(bundle.test_rows).index(position)][None, :]
    if bundle.task == "classification":
        shown = metric(at, f"P({positive})")
        assert shown == f"{bundle.estimator.predict_proba(row)[0, 1]:.2f}"
    else:
        predicted, shown = bundle.estimator.predict(row)[0], metric(at, "Predicted value")
        places = len(shown.partition(".")[2])
        assert float(shown) == pytest.approx(predicted, abs=0.51 * 10.0 ** -places)
        # the interval beside it prints with the same decimals
        (interval,) = [c.value.replace("\\", "") for c in at.caption if "% interval" in c.value]
        ends = re.search(r"interval (-?[\d.]+)–(-?[\d.]+)", interval).groups()
        assert [len(end.partition(".")[2]) for end in ends] == [places, places]
    assert len(at.get("image")) == 5
    page_and_record_agree(at, bundle, position)


def page_and_record_agree(at: AppTest, bundle: workflow.Bundle, position: int) -> None:
    """Below the summary, the Explain page and the record's appendix list the same sections
    under the same titles, the same charts and the same trees, in the same words (issue 40:
    the record drew the weights' charts the page hid, and said "This tree says" where the
    page said what a boosting tree's number is)."""
    bench = Workbench(at.session_state["dataset"], bundle.choice, model=bundle)
    dataset = bench.dataset
    e = bench.explain(values=dataset.X.iloc[position], row_id=str(dataset.ids.iloc[position]))
    view = bench.explain_view(e, bench.glance(e))
    record = bench.report(e, appendix=True)
    printed = [html.unescape(t) for t in re.findall(r'<h2 class="view">(.*?)</h2>', record)]
    assert [h.value.replace("\\", "") for h in at.header] == printed == list(view.titles)
    charts = [c for s in view for c in s.parts if isinstance(c, Chart)]
    assert [plain(chart_text(c.figure), SENTENCE_LIMIT) for c in charts] == [
        html.unescape(alt) for alt in re.findall(
        r'<img class="chart" alt="([^"]*)"', record)]
    assert len(at.get("plotly_chart")) == len(charts) + (bench.glance(e).reasons is not None)
    trees = [t.sentence for s in view for t in s.parts if isinstance(t, Tree)]
    assert [m.value.replace("\\", "") for m in at.markdown if m.value.startswith("Tree ")] == trees
    assert [html.unescape(t) for t in re.findall(r"<h3>(Tree \d+: [^<]*)</h3>", record)] == trees
    assert all(("its term V is" in t) == e.boosting for t in trees)
    weights = {"weights", "kde", "simplex"} & {c.name for c in charts}
    assert (not weights) == bench.tree_choice(e).equal_weights


def test_upload_with_hostile_names_trains_and_explains_as_text():
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame({
        "id": [f"R{i:02d}" for i in range(n)],
        HOSTILE: rng.normal(size=n).round(2),
        "a&b": rng.integers(0, 9, n),
        "ward": rng.choice(["north", "south", "east"], n),
        "outcome": np.where(np.arange(n) % 3 == 0, "bad", "good"),
    })
    at = upload_csv(app(), "hostile.csv", frame.to_csv(index=False).encode())
    assert not at.error and at.session_state["dataset"].name == "hostile.csv"
    bundle = train(at, "erf", trees=10)
    assert HOSTILE in bundle.feature_names and "ward=north" in bundle.feature_names
    at.switch_page("pages/explain.py").run()
    assert not at.exception and not at.error
    assert len(at.get("image")) >= 1
    elements = [*at.markdown, *at.caption]
    assert not any(element.proto.allow_html for element in elements)
    sentences = " ".join(element.value for element in elements)
    assert "img" not in sentences.replace(as_text(HOSTILE), "")  # the name only escaped
    features = next(df.value for df in at.dataframe if "feature" in df.value.columns)
    assert HOSTILE in features["feature"].tolist() and "a&b" in features["feature"].tolist()


def test_a_malformed_upload_keeps_the_model_and_a_new_upload_replaces_it():
    at = app()
    bundle = train(at, "vanilla", trees=10)
    upload_csv(at, "broken.csv", b"\x89PNG\r\n\x1a\n\x00\x00garbage")
    assert not at.exception and len(at.error) == 1
    at.switch_page("pages/explain.py").run()
    assert not at.exception and not at.error
    assert at.session_state["model"] is bundle  # nothing lost
    good = pd.DataFrame({"x": np.arange(40.0), "z": np.arange(40.0) % 7,
                         "y": np.where(np.arange(40) % 2 == 0, "a", "b")})
    upload_csv(at, "good.csv", good.to_csv(index=False).encode())
    assert not at.error
    at.switch_page("pages/explain.py").run()  # the old model belongs to other data
    assert "model" not in at.session_state
    assert any("Train a model" in info.value for info in at.info)
    bundle = train(at, "softmax", trees=10)
    assert bundle.dataset_name == "good.csv"


def test_forest_page_views_and_cleaning_rounds():
    at = app()
    bundle = train(at, "erf", trees=20)
    at.switch_page("pages/forest.py").run()
    assert not at.exception and not at.error
    (hardest,) = [d.value for d in at.dataframe if "weight (1 = average row)" in d.value]
    importance = bundle.estimator.sample_importance_
    assert hardest["weight (1 = average row)"].iloc[0] == pytest.approx(
        importance.max() * importance.size)
    specs = chart_titles(at)
    effective = [s for s in specs if "Effective number of trees per held-out row" in s]
    assert len(effective) == 1
    at.slider(key="forest_rounds").set_value(2)
    at.button(key="forest_clean").click().run()
    finish_jobs(at)
    assert not at.exception
    rounds = at.session_state["cleaning"][1].rounds
    assert 1 <= len(rounds) <= 2
    assert rounds[0].rows.size == int(0.8 * len(bundle.train_rows))


def test_paper_lab_figures():
    at = app()
    at.switch_page("pages/lab.py").run()
    assert not at.exception and not at.error
    at.slider(key="lab_eps").set_value(0.6).run()
    assert not at.exception
    specs = " ".join(chart_titles(at))
    assert "ε = 0.60" in specs and "ABRF Fig. 1" in specs
    table = next(df.value for df in at.dataframe if "B·h" in df.value.columns)
    assert table["this row's leaf"].sum() == 1  # exactly one exit leaf
    assert (table["B·h"] <= table["depth"]).all()
    assert len(at.get("image")) == 1


def test_two_models_side_by_side_and_the_explain_page_switches_between_them():
    at = app()
    first = train(at, "vanilla", trees=10)
    second = train(at, "erf", trees=10)
    table = next(df.value for df in at.dataframe if "AUC" in df.value.columns)
    labels = [f"{first.name} · 10 trees", f"{second.name} · 10 trees"]
    assert list(table.index) == [*labels, "Vanilla RF (baseline)",
                                 "Gradient boosting (baseline)"]
    # the parameters in words below the table, one line a model (a cell cut them, issue 26)
    assert "parameters" not in table.columns
    (said,) = [text for text in (m.value.replace("\\", "") for m in at.markdown)
               if "scikit-learn's" in text]
    assert said.count("\n* ") == 3 and f"* {labels[1]}: 10 trees;" in said
    assert "reweighting round" in said
    assert at.session_state["model"] is second
    at.switch_page("pages/explain.py").run()
    assert at.selectbox(key="explain_model").value == labels[1]
    picker = ranked_picker(at)
    before = (picker.proto.id, picker.options[picker.index])
    at.selectbox(key="explain_model").set_value(labels[0]).run()
    assert not at.exception
    assert at.session_state["model"] is first
    (shown,) = [m.value for m in at.metric if "Yes" in m.label]
    x = first.X_test[list(first.test_rows).index(at.session_state["explain_row"])]
    risk = first.estimator.predict_proba(x[None, :])[0, 1]
    assert float(shown) == pytest.approx(risk, abs=0.005)
    # the row box shows the new model's number for the row, as the card does (issue 26: the
    # browser kept the box's text, with the other model's number, until the next rerun)
    text = browser_text(*before, ranked_picker(at))
    assert text.split(" · ")[1] == f"{risk:.2f}"  # as the P(...) tile prints it


def feature_table_page():
    """The Explain page's section of a row with a missing value beside the training rows
    (AppTest script)."""
    from dataclasses import replace

    from forestviz.app.workbench import Workbench
    from forestviz.explain.row.view import ExplainView
    from forestviz.io.bundled import load_dataset
    from ui.explain_view import sections

    bench = Workbench(load_dataset("pima_diabetes"))
    settings = replace(bench.default_settings(), family="vanilla", n_estimators=10)
    bench.train(settings)
    values = bench.dataset.X.iloc[0].copy()
    values["Glucose (mg/dL)"] = None
    e = bench.explain(values=values, row_id="edited")
    view = bench.explain_view(e, bench.glance(e))
    sections(bench, e, ExplainView(tuple(s for s in view if s.key == "row")), lambda s: None)


def test_the_feature_table_shows_a_dash_where_a_measure_does_not_apply():
    """Issue 26: the note promises "—" where a measure does not apply; the percentile of a
    missing value showed "None". The column stays numbers (it sorts by size)."""
    at = AppTest.from_function(feature_table_page, default_timeout=120).run()
    assert not at.exception
    element = at.dataframe[0]  # the row beside the training rows (then the row as entered)
    cells = shown_cells(element).set_index("feature")
    assert cells.loc["Glucose (mg/dL)", "percentile"] == "—"
    assert not (cells == "None").any(axis=None)
    assert element.value["percentile"].dtype == float
    assert any("does not apply" in c.value for c in at.caption)
    # the row as entered: text throughout, each value as the record says it (a column of
    # numbers and text made Streamlit log that Arrow could not convert it)
    entered = at.dataframe[1].value.set_index("column")["value"]
    row = load_dataset("pima_diabetes").X.iloc[0]
    assert entered.to_dict() == {c: "—" if c == "Glucose (mg/dL)" else plain(v)
                                 for c, v in row.items()}
