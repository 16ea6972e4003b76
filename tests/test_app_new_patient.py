"""The Explain page's "New patient" form through Streamlit's AppTest, on the Home button's
real model: nothing is explained before the form is sent; then the card says what the model
itself predicts for the typed values, empty fields being missing values."""

import pandas as pd
import pytest

from tests.apptest_helpers import app, finish_jobs, metric
from ui.display import as_text

pytestmark = pytest.mark.slow


def test_a_typed_patient_is_explained_with_the_models_own_prediction():
    at = app()
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    bundle, dataset = at.session_state["model"], at.session_state["dataset"]
    at.radio(key="explain_picker").set_value("new").run()
    assert not at.exception
    key = f"explain_new@{dataset.name}"
    assert not [m for m in at.metric if m.label == "P(Yes)"]  # nothing typed: no prediction
    fields = [n for n in at.number_input if n.key.startswith(key)]
    assert len(fields) == dataset.X.shape[1]
    assert all(n.value is None for n in fields)  # a new patient is no training row
    glucose = dataset.X["Glucose (mg/dL)"].iloc[bundle.train_rows]
    assert any(f"training {glucose.min():.4g}–{glucose.max():.4g}" in c.value
               for c in at.caption)
    at.number_input(key=f"{key}@Glucose (mg/dL)").set_value(180.0)
    at.number_input(key=f"{key}@Age (years)").set_value(52.0)
    at.button(key=f"{key}_send").click().run()
    assert not at.exception
    typed = pd.DataFrame([{"Glucose (mg/dL)": 180.0, "Age (years)": 52.0}]).reindex(
        columns=dataset.X.columns)
    risk = bundle.estimator.predict_proba(bundle.preprocessor.transform(typed))[0, 1]
    assert metric(at, "P(Yes)") == f"{risk:.2f}"
    assert at.subheader[0].value.startswith("New patient")
    # the typed values stay while another model or rerun comes
    at.run()
    assert metric(at, "P(Yes)") == f"{risk:.2f}"


def test_several_new_patients_from_a_csv():
    at = app()
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    bundle, dataset = at.session_state["model"], at.session_state["dataset"]
    at.radio(key="explain_picker").set_value("several").run()
    rows = dataset.frame.iloc[bundle.test_rows[:4]].drop(columns=dataset.target)
    at.file_uploader(key="explain_several@file").set_value(
        ("patients.csv", rows.to_csv(index=False).encode(), "text/csv"))
    at.run()
    assert not at.exception and not at.error
    (table,) = [d.value for d in at.dataframe if "pushes up most" in d.value.columns]
    assert list(table["ID"]) == list(rows[dataset.id_column].astype(str))
    encoded = bundle.preprocessor.transform(rows.reindex(columns=dataset.X.columns))
    risk = bundle.estimator.predict_proba(encoded)[:, 1]
    assert table["P(Yes)"].to_numpy() == pytest.approx(risk, abs=1e-12)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Download the explanations (CSV)", "Download the explanations (Parquet)"]
    # a file without a column the model reads: one message naming it; the model stays
    short = rows.drop(columns="Glucose (mg/dL)")
    at.file_uploader(key="explain_several@file").set_value(
        ("short.csv", short.to_csv(index=False).encode(), "text/csv"))
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [as_text(
        "The file has no column 'Glucose (mg/dL)', which the model was trained on. Give a "
        "table with the training table's columns.")]
    assert at.session_state["model"] is bundle
