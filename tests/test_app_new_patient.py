"""The Explain page's "New patient" form through Streamlit's AppTest, on the Home button's
real model: nothing is explained before the form is sent; then the card says what the model
itself predicts for the typed values, empty fields being missing values."""

import pandas as pd
import pytest

from tests.apptest_helpers import app, finish_jobs, metric

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
    assert at.subheader[0].value.endswith("new patient")
    # the typed values stay while another model or rerun comes
    at.run()
    assert metric(at, "P(Yes)") == f"{risk:.2f}"
