"""The model card in the app (Streamlit's AppTest, a real SQLite library in tmp_path): the
publish form refuses a blank intended use in one line and publishes nothing; with the intended
use, the out-of-scope use and a subgroup column it publishes the card, which the Models page
shows as text and tables (its SHA-256, the subgroup's groups) and offers as HTML and JSON."""

import hashlib

import pytest

from forestviz.card.card import canonical
from forestviz.store import StoreConfig, open_library
from forestviz.store.publishing import NO_USE
from tests.apptest_helpers import app, train
from tests.test_app_library import publish_current

pytestmark = pytest.mark.slow  # real training: seconds

AGE = "Age (years)"


def test_the_publish_form_asks_for_the_card_and_the_models_page_shows_it(tmp_path,
                                                                          monkeypatch):
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    at = app()
    train(at, "vanilla", trees=10)
    at = publish_current(at, "Pima risk", "Diabetes risk", use=" \n ")
    assert [e.value.replace("\\", "") for e in at.error] == [NO_USE] and not at.success
    assert open_library(StoreConfig(folder)).versions() == []
    at.text_area(key="publish_use").set_value("Screening <b>clinic</b>")
    at.text_area(key="publish_out_of_scope").set_value("Children")
    at.multiselect(key="publish_subgroups").set_value([AGE])
    at = at.button(key="publish_send").click().run()
    assert not at.exception and not at.error and at.success
    (info,) = open_library(StoreConfig(folder)).versions()
    assert info.card["use"] == {"intended": "Screening <b>clinic</b>", "out_of_scope": "Children"}
    assert [part["column"] for part in info.card["subgroups"]] == [AGE]

    at.switch_page("pages/models.py").run()
    assert not at.exception
    texts = [t.value for t in at.text]
    assert f"Card SHA-256: {info.card_sha256}" in texts
    assert "Intended use: Screening <b>clinic</b>" in texts  # as text, never markup
    tables = {d.value.columns[0]: d.value for d in at.dataframe}
    assert tables["group"]["n"].sum() == info.n_test
    metrics = tables["metric"]
    assert list(metrics["metric"]) == list(info.card["metrics"]["values"])
    labels = [b.proto.label for b in at.get("download_button")]
    assert {"Download the card (HTML)", "Download the card (JSON)"} <= set(labels)
    assert hashlib.sha256(canonical(info.card)).hexdigest() == info.card_sha256
