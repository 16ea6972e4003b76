"""The New-patient form's fields and rows (forestviz.app.new_rows), on a real training."""

import numpy as np
import pandas as pd
import pytest

from forestviz.app import new_rows
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.io.bundled import load_dataset
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import Dataset
from forestviz.numbers import signed_number


@pytest.fixture(scope="module")
def bench():
    frame = load_dataset("pima_diabetes").frame.drop(columns="Patient ID", errors="ignore")
    rng = np.random.default_rng(0)
    frame.loc[rng.random(len(frame)) < 0.1, "Glucose (mg/dL)"] = np.nan
    frame["Clinic"] = np.where(np.arange(len(frame)) % 3 == 0, "north", "south")
    dataset = Dataset.from_frame(frame, target="Diabetes", name="pima with a clinic")
    bench = Workbench(dataset)
    bench.train(Settings(family="vanilla", n_estimators=10, random_state=0))
    return bench


def test_fields_say_the_training_range_median_and_levels(bench):
    form = {f.column: f for f in bench.new_row_fields()}
    model = bench.model
    train = bench.dataset.X.iloc[model.train_rows]
    glucose = form["Glucose (mg/dL)"]
    assert glucose.numeric
    assert glucose.low == train["Glucose (mg/dL)"].min()
    assert glucose.high == train["Glucose (mg/dL)"].max()
    assert glucose.median == pytest.approx(np.nanmedian(train["Glucose (mg/dL)"]))
    assert glucose.missing_share == pytest.approx(train["Glucose (mg/dL)"].isna().mean())
    assert glucose.range_text() == (f"training {glucose.low:.4g}–{glucose.high:.4g}, "
                                    f"median {glucose.median:.4g}")
    clinic = form["Clinic"]
    assert not clinic.numeric and set(clinic.levels) == {"north", "south"}
    assert clinic.range_text().startswith("levels: ")
    assert list(form) == [c for c in bench.dataset.X.columns if c in form]


def test_a_typed_row_is_explained_as_the_model_predicts_it(bench):
    form = bench.new_row_fields()
    row = new_rows.typed_row(form, {"Glucose (mg/dL)": 150, "Clinic": "north",
                                    "Age (years)": ""})
    assert row["Age (years)"] is None and row["Glucose (mg/dL)"] == 150.0
    explanation = bench.explain(values=row, row_id="new patient")
    frame = pd.DataFrame([row.to_dict()]).reindex(columns=bench.dataset.X.columns)
    expected = bench.model.estimator.predict_proba(bench.model.preprocessor.transform(frame))
    np.testing.assert_allclose(explanation.prediction, expected[0], rtol=0, atol=1e-12)
    assert "Age (years)" in explanation.missing


def test_typed_values_are_checked(bench):
    form = bench.new_row_fields()
    with pytest.raises(ValueError, match="Glucose"):
        new_rows.typed_row(form, {"Glucose (mg/dL)": float("inf")})
    with pytest.raises(ValueError, match="not one of the training levels"):
        new_rows.typed_row(form, {"Clinic": "east"})
    high = {f.column: f.high for f in form}["Glucose (mg/dL)"]  # just outside: a warning
    row = new_rows.typed_row(form, {"Glucose (mg/dL)": high + 1, "Age (years)": 30})
    assert new_rows.outside_range(form, row) == ["Glucose (mg/dL)"]
    row = new_rows.typed_row(form, {"Glucose (mg/dL)": 10_000.0}, confirmed=True)  # far
    assert new_rows.outside_range(form, row) == ["Glucose (mg/dL)"]


def test_several_rows_are_explained_as_each_alone(bench):
    rows = bench.dataset.X.iloc[bench.model.test_rows[:6]].reset_index(drop=True)
    rows.loc[2, "Glucose (mg/dL)"] = np.nan
    rows["Comment"] = "seen at the clinic"
    found = new_rows.several(bench.model, rows)
    assert found.ignored == ("Comment",)
    assert list(found.summary["ID"]) == [f"new {i}" for i in range(1, 7)]
    assert found.summary["missing"].iloc[2] == "Glucose (mg/dL)"
    assert (found.summary["missing"].drop(index=2) == "").all()
    for i in range(len(rows)):
        alone = bench.explain(values=rows.iloc[i].drop("Comment"), row_id="x")
        risk = alone.prediction[1]
        assert found.summary["P(Yes)"].iloc[i] == pytest.approx(risk, abs=1e-12)
        assert found.outputs["predicted_class"].iloc[i] == alone.predicted_class
        totals = alone.contributions.total[:, 1]
        names = alone.contributions.feature_names
        up, down = int(np.argmax(totals)), int(np.argmin(totals))
        expected_up = f"{names[up]} ({signed_number(totals[up], 3)})" if totals[up] > 0 else "—"
        expected_down = (f"{names[down]} ({signed_number(totals[down], 3)})"
                         if totals[down] < 0 else "—")
        assert found.summary["pushes up most"].iloc[i] == expected_up
        assert found.summary["pushes down most"].iloc[i] == expected_down
        base = found.outputs["base_value"].iloc[i]
        parts = found.outputs.filter(like="contribution[").iloc[i].sum()
        assert base + parts == pytest.approx(risk, abs=1e-12)


def test_several_rows_need_the_models_columns(bench):
    rows = bench.dataset.X.iloc[:3].drop(columns=["Glucose (mg/dL)", "Age (years)"])
    with pytest.raises(DataError, match=r"no column 'Glucose \(mg/dL\)' \(and 1 more\)"):
        new_rows.several(bench.model, rows)
