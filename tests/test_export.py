"""Downloads cannot attack the next program: text cells from an uploaded file that a
spreadsheet would run as a formula are prefixed with ' (OWASP CSV injection), numbers are not."""

import io

import numpy as np
import pandas as pd
import pytest

from forestviz.app import workflow
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.io.export import csv_bytes, neutralise

DANGEROUS = ["=cmd|' /C calc'!A0", "+SUM(1,2)", "-2+3+cmd|' /C calc'!A0", "@SUM(1)",
             "\tTAB", "\rCR", "=HYPERLINK(\"http://evil.example\",\"x\")"]


@pytest.mark.parametrize("text", DANGEROUS)
def test_formula_text_is_prefixed(text):
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize("value", ["-1.5", "+3", "-7", "1e-3", "plain", "a=b", "", 3.5, -2,
                                   None])
def test_numbers_and_harmless_values_are_unchanged(value):
    assert neutralise(value) == value


def test_csv_bytes_neutralises_text_and_names_but_not_numbers():
    frame = pd.DataFrame({"=id": ["=1+1", "P-7", "@x"], "value": [-1.0, 2.5, -3.0],
                          "label": ["-x", "-4", None]})
    back = pd.read_csv(io.BytesIO(csv_bytes(frame)), keep_default_na=False, dtype=str)
    assert list(back.columns) == ["'=id", "value", "label"]
    assert back["'=id"].tolist() == ["'=1+1", "P-7", "'@x"]
    assert back["value"].tolist() == ["-1.0", "2.5", "-3.0"]
    assert back["label"].tolist() == ["'-x", "-4", ""]


def test_predictions_csv_from_a_hostile_upload():
    rng = np.random.default_rng(0)
    n = 60
    x = rng.normal(size=n)
    frame = pd.DataFrame({"id": [f"=HYPERLINK(\"http://e.x\",\"{i}\")" for i in range(n)],
                          "x": x, "z": rng.normal(size=n),
                          "y": np.where(x > 0, "+yes", "@no")})
    dataset = Dataset.from_frame(frame, "y", id_column="id", name="hostile.csv")
    choice = DataChoice("upload:test", "y", "id", (), "auto")
    settings = workflow.Settings(family="vanilla", n_estimators=10)
    bundle = workflow.train_bundle(dataset, choice, settings, lambda stage, fraction: None)
    table = pd.read_csv(io.BytesIO(workflow.predictions_csv(bundle)), dtype=str,
                        keep_default_na=False)
    assert table["id"].str.startswith("'=HYPERLINK").all()
    assert set(table["actual"]) <= {"'+yes", "'@no"}
    assert set(table["predicted"]) <= {"'+yes", "'@no"}
    assert {"P(+yes)", "P(@no)"} <= set(table.columns)
    for column in table.columns[table.columns.str.startswith("weight tree")]:
        assert not table[column].str.startswith("'").any()
    probabilities = table["P(+yes)"].astype(float)
    np.testing.assert_allclose(probabilities,
                               bundle.estimator.predict_proba(bundle.X_test)[:, 0], rtol=1e-12)

