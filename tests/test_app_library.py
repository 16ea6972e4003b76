"""The model library in the app through Streamlit's AppTest, on a real SQLite file in tmp_path:
the Train page publishes, another session opens the model from the Models page straight into
Explain (held-out rows, a new patient, several patients) and explains the same numbers; each
step lands in the audit trail once; names stay plain text; an admin retires behind a
confirmation and a viewer no longer sees it; an unsigned model file warns on every page and in
its report; a library that cannot be used leaves the app working in memory only."""

import hashlib
import hmac
import json

import numpy as np
import pandas as pd
import pytest

from forestviz.app.workbench import Workbench
from forestviz.io.csv_input import load_csv
from forestviz.io.export import csv_bytes
from forestviz.persistence.model_file import ModelFile
from forestviz.store import Actor, StoreConfig, open_library
from forestviz.store.audit import facts
from forestviz.store.digests import PREFIX, canonical
from forestviz.store.signing import WARNING
from tests.apptest_helpers import app, finish_jobs, metric, train
from tests.store_helpers import trained
from ui import library as app_library
from ui import patients, publish
from ui.display import as_text
from ui.identity import Identity

pytestmark = pytest.mark.slow  # real training: seconds each

PAGES = ("pages/home.py", "pages/data.py", "pages/train.py", "pages/explain.py",
         "pages/forest.py", "pages/models.py")


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    return folder


def events(folder) -> list[tuple]:
    """The audit trail as (action, model, version, detail), oldest first."""
    frame = open_library(StoreConfig(folder)).audit.query()
    return [(action, model, None if pd.isna(version) else int(version),
             None if pd.isna(detail) else detail)
            for action, model, version, detail
            in frame[["action", "model", "version", "detail"]].itertuples(index=False)]


def keyed(folder, data: bytes) -> str:
    """HMAC-SHA256 of ``data`` under the audit key in ``folder``, computed here."""
    key = (folder / "audit.key").read_text().strip().encode("ascii")
    return PREFIX + hmac.new(key, data, hashlib.sha256).hexdigest()


def publish_current(at, name: str, description: str = "", use: str = "Screening"):
    at.switch_page("pages/train.py").run()
    at.text_input(key="publish_name").set_value(name)
    at.text_area(key="publish_description").set_value(description)
    at.text_area(key="publish_use").set_value(use)
    return at.button(key="publish_send").click().run()


def open_from_models(at, ref: str):
    at.switch_page("pages/models.py").run()
    at.selectbox(key="models_choice").set_value(ref).run()
    at.button(key="models_open").click().run()
    assert not at.exception, at.exception
    return at


def test_published_on_train_and_opened_in_another_session_explains_the_same(data_dir):
    at = app()
    bundle = train(at, "abrf1_qp", trees=10)
    at = publish_current(at, "Pima risk", "Diabetes risk", "Screening")
    assert publish.ROWS_NOTE in [w.value for w in at.warning]  # the form says what it shares
    assert [s.value for s in at.success] == [  # the reference copies without a word joiner
        "Published as Pima risk\\@1. It is on the Models page for everyone who may open "
        "published models."]
    assert events(data_dir) == [("model_published", "Pima risk", 1, None)]
    at.switch_page("pages/explain.py").run()
    heading, risk = at.subheader[0].value, metric(at, "P(Yes)")
    row_id = str(at.session_state["dataset"].ids.iloc[at.session_state["explain_row"]])

    other = open_from_models(app(), "Pima risk@1")  # another session: no upload, no training
    assert "training" not in other.session_state
    opened = other.session_state["model"]
    assert opened is not bundle
    np.testing.assert_array_equal(opened.estimator.predict_proba(bundle.X_test),
                                  bundle.estimator.predict_proba(bundle.X_test))
    assert other.subheader[0].value == heading and metric(other, "P(Yes)") == risk
    # the session's model is the published version: its reports name "Pima risk@1"
    assert other.session_state[app_library.OPENED][0] is opened
    assert other.session_state[app_library.OPENED][1].ref == "Pima risk@1"
    row = bundle.preprocessor.transform(
        at.session_state["dataset"].X.iloc[[at.session_state["explain_row"]]])[0]
    opened_events = events(data_dir)[-2:]
    assert [e[:3] for e in opened_events] == [("model_opened", "Pima risk", 1),
                                              ("row_explained", "Pima risk", 1)]
    said = json.loads(opened_events[1][3])  # the row, the blob that answered, the flag
    assert said["row"] == row_id and "unpublished_sha256" not in said
    assert said["blob_sha256"] == other.session_state[app_library.OPENED][1].blob_sha256
    assert said.get("unfamiliar", False) is bundle.familiar.assess(row).flagged
    other.switch_page("pages/explain.py").run()  # the same row again: no other event
    assert other.subheader[0].value == heading
    assert events(data_dir)[-2:] == opened_events

    key = "explain_new@pima_diabetes"  # a new patient: the digest of the typed values
    other.radio(key="explain_picker").set_value("new").run()
    other.number_input(key=f"{key}@Glucose (mg/dL)").set_value(180.0)
    other.button(key=f"{key}_send").click().run()
    assert not other.exception
    typed = other.session_state[f"{key}@typed"]  # its values under the server's key
    *explained, said = events(data_dir)[-1]
    assert explained == ["row_explained", "Pima risk", 1] and "row" not in json.loads(said)
    assert json.loads(said)["input"] == keyed(data_dir, canonical(typed.to_dict()))

    other.radio(key="explain_picker").set_value("several").run()  # several new patients
    dataset = other.session_state["dataset"]
    rows = dataset.frame.iloc[bundle.test_rows[:3]].drop(columns=dataset.target)
    uploaded = rows.to_csv(index=False).encode()
    other.file_uploader(key="explain_several@file").set_value(
        ("patients.csv", uploaded, "text/csv"))
    other.run()
    assert not other.exception and not other.error
    (table,) = [d.value for d in other.dataframe if "pushes up most" in d.value.columns]
    encoded = bundle.preprocessor.transform(rows.reindex(columns=dataset.X.columns))
    assert table["P(Yes)"].to_numpy() == pytest.approx(
        bundle.estimator.predict_proba(encoded)[:, 1], abs=1e-12)
    # the batch is in the trail: its rows' count and keyed digest, once (issue 36)
    lines = b"".join(canonical(row) + b"\n" for row in load_csv(uploaded).to_dict("records"))
    blob = other.session_state[app_library.OPENED][1].blob_sha256  # the blob that answered
    batch = {"blob_sha256": blob, "rows": 3, "rows_digest": keyed(data_dir, lines),  # unusual
             "unfamiliar": sum(f.flagged for f in bundle.familiar.assess_rows(encoded))}
    assert events(data_dir)[-1] == ("rows_explained", "Pima risk", 1, facts(**batch))
    other.run()
    assert [e[0] for e in events(data_dir)].count("rows_explained") == 1
    # and each download of its explanations: the file's name and keyed digest
    outputs = other.session_state[patients.SEVERAL][2].outputs
    other.get("download_button")[0].click().run()
    assert events(data_dir)[-1] == ("explanations_downloaded", "Pima risk", 1, facts(
        **batch, file=patients.CSV_NAME, file_digest=keyed(data_dir, csv_bytes(outputs))))
    other.get("download_button")[1].click().run()
    parquet = events(data_dir)[-1]
    assert json.loads(parquet[3])["file"] == patients.PARQUET_NAME


def test_home_offers_the_published_models(data_dir):
    bench = trained()
    open_library(StoreConfig(data_dir)).publish(bench, name="Pima risk", intended_use="Screening")
    at = app()
    assert at.selectbox(key="home_published").value == "Pima risk@1"
    at.button(key="home_open").click().run()
    assert not at.exception and not at.error
    expected = bench.explain(bench.highest_risk_row())
    assert at.subheader[0].value == as_text(f"Row {expected.row_id}: predicted "
                                            f"{expected.predicted_class}")
    assert [e[0] for e in events(data_dir)] == ["model_published", "model_opened",
                                                "row_explained"]


def test_names_are_plain_text_and_bad_names_are_refused_in_one_line(data_dir):
    at = app()
    train(at, "vanilla", trees=10)
    at = publish_current(at, "a@b")
    assert not at.exception
    assert [e.value for e in at.error] == [as_text(
        "A model's name cannot contain '@' (it separates NAME@VERSION).")]
    markup = "<b>Risk</b> [click](http://example.com)"
    described = "<script>alert(1)</script>\n**not bold**"
    at = publish_current(at, markup, described)
    assert not at.error
    at.switch_page("pages/models.py").run()
    table = at.dataframe[0].value
    assert list(table["name"]) == [markup]  # a table cell: text, never markup
    # st.text: escaped, kept as typed (the description, the intended use, then the card's)
    assert [t.value for t in at.text][:2] == [described, "Screening"]
    assert not [m for m in at.markdown if "<b>" in m.value or "example.com" in m.value]


def test_an_admin_retires_behind_a_confirmation_and_viewers_no_longer_see_it(
        data_dir, monkeypatch):
    library = open_library(StoreConfig(data_dir))
    bench = trained()
    library.publish(bench, name="Pima risk", intended_use="Screening")
    library.publish(bench, name="Pima risk", description="second", intended_use="Screening")
    at = app().switch_page("pages/models.py").run()
    at.selectbox(key="models_choice").set_value("Pima risk@1").run()
    assert at.button(key="models_retire").disabled  # not before it is confirmed
    at.checkbox(key="models_retire_sure").check().run()
    at.button(key="models_retire").click().run()
    assert not at.exception and not at.error
    assert [v.ref for v in library.versions()] == ["Pima risk@2"]
    assert events(data_dir)[-1] == ("model_retired", "Pima risk", 1, None)
    at.run()  # the admin still sees it, marked
    assert list(at.dataframe[0].value["status"].str[:7]) == ["in use", "retired"]
    viewer = Identity(actor=Actor("viewer-1", "viewer@example.org", "viewer"), role="viewer",
                      signed_in=True)
    monkeypatch.setattr(app_library, "identity", lambda: viewer)
    seen = app().switch_page("pages/models.py").run()
    assert list(seen.dataframe[0].value["version"]) == [2]
    assert not [b for b in seen.button if b.key == "models_retire"]


def test_an_unsigned_model_file_warns_on_every_page_and_in_its_report(data_dir):
    at = app()
    bundle = train(at, "vanilla", trees=10)
    data = ModelFile.of(bundle).dumps()  # written outside this server
    other = app().switch_page("pages/train.py").run()
    other.file_uploader(key="model_file").set_value(("model.skops", data, "application/zip"))
    finish_jobs(other.run())
    loaded = other.session_state["model"]
    assert loaded.origin_warning == WARNING
    shown = as_text(f"The current model: {WARNING}.")
    for page in PAGES:
        other.switch_page(page).run()
        assert not other.exception, page
        assert shown in [w.value for w in other.warning], page
    bench = Workbench(other.session_state["dataset"], loaded.choice, model=loaded)
    report = bench.report(bench.explain(bench.highest_risk_row()))
    assert f'<p class="warning" role="alert">{WARNING}</p>' in report
    other.switch_page("pages/train.py").run()
    assert not [t for t in other.text_input if t.key == "publish_name"]  # not published
    # the same file signed by this server loads without a word
    signed = open_library(StoreConfig(data_dir)).sign_download(data)
    third = app().switch_page("pages/train.py").run()
    third.file_uploader(key="model_file").set_value(("model.skops", signed, "application/zip"))
    finish_jobs(third.run())
    assert third.session_state["model"].origin_warning is None
    assert shown not in [w.value for w in third.warning]


def test_a_library_that_cannot_be_used_leaves_the_app_working_in_memory(tmp_path,
                                                                       monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(blocker / "var"))
    at = app()
    said = [w.value for w in at.sidebar.warning]
    assert len(said) == 1 and "The model library is unavailable" in said[0]
    assert "working in memory only" in said[0]
    train(at, "vanilla", trees=10)  # training works
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, page
        assert [w.value for w in at.sidebar.warning] == said, page
    at.switch_page("pages/train.py").run()
    assert any(i.value.startswith(as_text("Publishing is off. The model library is "
                                          "unavailable")) for i in at.info)
    assert not [t for t in at.text_input if t.key == "publish_name"]
    at.switch_page("pages/explain.py").run()  # explaining works
    assert at.subheader[0].value.startswith("Row ")
