"""The New-patient form refuses impossible values and names the patient (issue 35): glucose −5
and age 0 were explained with confidence, and every new-patient report of a day had the same
file name. Now a negative value where the training rows never hold one is refused, a value far
outside the training range needs the user's tick, and an identifier typed with the values —
untrusted text — names the row in the record, the report's title, its file name and the audit
trail."""

import json
import re
import unicodedata

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forestviz.app import new_rows
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.report.names import (
    NEW_PATIENT,
    new_patient_id,
    report_file_name,
    typed_identifier,
)
from forestviz.io.bundled import load_dataset
from forestviz.io.dataset import Dataset
from forestviz.store import StoreConfig, open_library
from tests.apptest_helpers import app, metric, new_patient_form
from tests.test_report_record import Document
from ui.display import as_text

GLUCOSE, AGE = "Glucose (mg/dL)", "Age (years)"


@pytest.fixture(scope="module")
def bench():
    frame = load_dataset("pima_diabetes").frame.drop(columns="Patient ID", errors="ignore")
    bench = Workbench(Dataset.from_frame(frame, target="Diabetes", name="pima"))
    bench.train(Settings(family="vanilla", n_estimators=10, random_state=0))
    return bench


@pytest.fixture(scope="module")
def form(bench):
    return {f.column: f for f in bench.new_row_fields()}


def test_a_negative_value_where_training_never_is_is_refused_even_when_confirmed(bench, form):
    assert form[GLUCOSE].low >= 0
    for confirmed in (False, True):
        with pytest.raises(ValueError) as refused:
            new_rows.typed_row(list(form.values()), {GLUCOSE: -5}, confirmed=confirmed)
        assert str(refused.value) == (f"{GLUCOSE}: −5 is impossible here (the training rows "
                                      f"hold {form[GLUCOSE].low:.4g}–{form[GLUCOSE].high:.4g}, "
                                      "none negative).")


def test_far_outside_the_training_range_needs_the_users_tick(form):
    age = form[AGE]
    assert age.low == 21 and age.high > 60  # Pima's ages: 0 is far below (by 21 > 10 % of 39)
    fields = list(form.values())
    with pytest.raises(ValueError, match=r"^Age \(years\): 0 lies far outside the training"):
        new_rows.typed_row(fields, {AGE: 0})
    with pytest.raises(ValueError, match=r"\(1 more values to check\)$"):
        new_rows.typed_row(fields, {AGE: 0, GLUCOSE: 10_000})
    row = new_rows.typed_row(fields, {AGE: 0}, confirmed=True)
    assert row[AGE] == 0.0 and new_rows.outside_range(fields, row) == [AGE]
    width = age.high - age.low  # the edge of "far": 10 % of the width beyond the range
    edge = age.high + new_rows.FAR * width
    assert new_rows.typed_row(fields, {AGE: edge})[AGE] == edge
    with pytest.raises(ValueError, match="far outside"):
        new_rows.typed_row(fields, {AGE: np.nextafter(edge, 1e9)})


@given(st.floats(-1e4, 1e4, allow_nan=False), st.booleans())
@example(0.0, False)
@example(-5.0, True)
@settings(max_examples=200, deadline=None)
def test_the_rule_is_what_the_docs_say(form, value, confirmed):
    field = form[AGE]
    width = field.high - field.low
    negative = value < 0
    far = value < field.low - 0.1 * width or value > field.high + 0.1 * width
    reason = field.refusal(value, confirmed=confirmed)
    assert (reason is not None) == (negative or (far and not confirmed))


def test_a_constant_column_is_far_by_its_own_size():
    field = new_rows.Field("dose", None, 50.0, 50.0, 50.0, 0.0)
    assert field.refusal(54.0, confirmed=False) is None
    assert field.refusal(56.0, confirmed=False) is not None


INVISIBLE = st.sampled_from(["\u200b", "\u2060", "\ufeff", "\u00ad", "\U000e0041", "\u202e",
                             "\u034f", "\ufe0f", "\x00", "\r", "\n", "\t"])


@pytest.mark.slow
@given(st.lists(st.one_of(st.text(max_size=4), INVISIBLE), max_size=12).map("".join))
@example("P\u200b-17")
@example("<b>P-17</b>")
@example("\u202eP-17")
@settings(max_examples=300, deadline=None)
def test_an_identifier_is_normal_plain_text(text):
    try:
        found = new_rows.patient_identifier(text)
    except ValueError as refused:
        assert "at most 40 characters" in str(refused)
        return
    assert len(found) <= new_rows.ID_CHARS
    assert found == found.strip() and "  " not in found
    assert unicodedata.normalize("NFKC", found) == found or not found
    assert not any(unicodedata.category(c) in ("Cc", "Cf") or c in new_rows._INVISIBLE
                   for c in found)
    assert new_rows.patient_identifier(found) == found


def test_identifiers_look_alike_no_more():
    assert new_rows.patient_identifier("P\u200b-\u206017") == "P-17"
    assert new_rows.patient_identifier("\uff30\uff0d\uff11\uff17") == "P-17"  # full width
    assert new_rows.patient_identifier("  P  17\r\n") == "P 17"
    assert new_rows.patient_identifier(None) == ""
    with pytest.raises(ValueError, match="at most 40 characters; this one has 41"):
        new_rows.patient_identifier("x" * 41)
    with pytest.raises(ValueError, match="at most 40 characters; this one has 10,000,000"):
        new_rows.patient_identifier("x" * 10_000_000)  # refused before any work on it


def test_the_identifier_names_the_row_and_the_file():
    assert new_patient_id("") == NEW_PATIENT and typed_identifier(NEW_PATIENT) == ""
    assert new_patient_id("P-17") == "P-17 (new patient)"
    assert typed_identifier("P-17 (new patient)") == "P-17"
    assert typed_identifier("P-17") is None and typed_identifier(None) is None
    names = {report_file_name(new_patient_id(i), "ERF", "pdf") for i in ("P-17", "P-18", "")}
    assert len(names) == 3
    assert report_file_name(new_patient_id("P-17"), "ERF", "pdf").startswith(
        "forestviz-new-patient-P-17-ERF-")
    hostile = report_file_name(new_patient_id("../../etc/<passwd>"), "ERF", "pdf")
    assert hostile.startswith("forestviz-new-patient-etc_passwd-ERF-") and "/" not in hostile
    assert report_file_name(new_patient_id("%%%"), "ERF", "pdf").startswith(
        "forestviz-new-patient-ERF-")


def test_the_report_names_the_patient_as_text(bench):
    row_id = new_patient_id(new_rows.patient_identifier("<script>P-17</script>"))
    e = bench.explain(values=bench.dataset.X.iloc[0], row_id=row_id)
    html = bench.report(e)
    assert "<script>" not in html
    assert Document(html).record()["Row ID"] == "<script>P-17</script> (new patient)"
    assert "Explanation of new patient <script>P-17</script>" in Document(html).text
    assert bench.report_name(e, "pdf").startswith("forestviz-new-patient-script_P-17_script-")


@pytest.mark.slow
def test_the_form_refuses_confirms_and_names_the_patient(tmp_path, monkeypatch):
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    at = app()
    bundle, dataset, key = new_patient_form(at)
    at.text_input(key=f"{key}@id").set_value("P\u200b-17")
    for column, value in ((GLUCOSE, -5.0), (AGE, 52.0)):
        at.number_input(key=f"{key}@{column}").set_value(value)
    at.button(key=f"{key}_send").click().run()
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert error.startswith(as_text(f"{GLUCOSE}: −5 is impossible here"))
    assert not [m for m in at.metric if m.label == "P(Yes)"]  # nothing explained
    at.number_input(key=f"{key}@{GLUCOSE}").set_value(1e308)
    at.button(key=f"{key}_send").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == [as_text(
        f"'{GLUCOSE}' holds a number of 309 digits: forestviz reads numbers within ±10³⁰. "
        "Correct the value, or leave it empty for a missing value.")]
    at.number_input(key=f"{key}@{GLUCOSE}").set_value(150.0)
    at.number_input(key=f"{key}@{AGE}").set_value(0.0)
    at.button(key=f"{key}_send").click().run()
    (error,) = [e.value for e in at.error]
    assert error.startswith(as_text(f"{AGE}: 0 lies far outside"))
    at.checkbox(key=f"{key}@confirmed").check()
    at.button(key=f"{key}_send").click().run()
    assert not at.exception and not at.error
    typed = dataset.X.head(1).copy() * np.nan
    typed[GLUCOSE], typed[AGE] = 150.0, 0.0
    risk = bundle.estimator.predict_proba(bundle.preprocessor.transform(typed))[0, 1]
    assert metric(at, "P(Yes)") == f"{risk:.2f}"
    assert at.subheader[0].value.startswith(as_text("New patient P-17:"))
    (event,) = [json.loads(d) for a, d in open_library(StoreConfig(folder)).audit.query()[
        ["action", "detail"]].itertuples(index=False) if a == "row_explained"
        and "patient" in d]
    # a keyed digest; age 0, far below every training age, is flagged as unlike them
    assert re.fullmatch(r"hmac-sha256:[0-9a-f]{64}", event["input"])
    assert event["patient"] == "P-17" and event["unfamiliar"] is True
