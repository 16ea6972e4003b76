"""The model library in Debian Chromium against real servers on one real data directory: a
model trained from Home is published from the Train page (its model file downloads signed),
the server is stopped and started anew, and a new session opens the model from the Models page
straight into Explain, reading the same prediction; the audit trail is checked after each
step."""

import json
import re
import time
from contextlib import contextmanager

import pandas as pd
import pytest
from playwright.sync_api import expect

from bench.appserver import AppServer
from forestviz.store import StoreConfig, open_library
from tests.browser_helpers import open_expander, still_context
from tests.conftest import SERVER_START_TIMEOUT, running
from tests.test_browser_flows import (
    TIMEOUT,
    TRAIN_TIMEOUT,
    download_report,
    expect_explanation,
    go_to,
    metric,
)

pytestmark = pytest.mark.browser


@contextmanager
def server_on(data_dir, log_dir):
    """The app served with its model library in ``data_dir``; yields its URL."""
    server = AppServer(log_dir, env={"FORESTVIZ_DATA_DIR": str(data_dir)},
                       start_timeout=SERVER_START_TIMEOUT)
    with running(server):
        yield server.url


def events(data_dir) -> list[tuple]:
    """The audit trail as (action, model, version, detail), oldest first."""
    frame = open_library(StoreConfig(data_dir)).audit.query()
    return [(action, model, None if pd.isna(version) else int(version),
             None if pd.isna(detail) else detail)
            for action, model, version, detail
            in frame[["action", "model", "version", "detail"]].itertuples(index=False)]


def shown_row(page, timeout: float = TIMEOUT) -> tuple[str, str]:
    """The explained row's ID (from the summary's heading) and its P(Yes) tile."""
    heading = page.get_by_test_id("stHeading").filter(has_text=re.compile(r"^Row \S+: "))
    expect(heading.first).to_be_visible(timeout=timeout)
    return re.match(r"Row (\S+?):", heading.first.inner_text())[1], metric(page, "P(Yes)")


def new_page(browser, url: str, dialogs: list, on_websocket=None):
    """A page of a new browser context on ``url``; its JavaScript dialogs go to ``dialogs``,
    its websockets to ``on_websocket`` (when given) as they open."""
    context = still_context(browser, base_url=url, viewport={"width": 1400, "height": 2000})
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    if on_websocket is not None:
        page.on("websocket", on_websocket)
    page.goto("/")
    return context, page


def test_published_before_a_restart_opens_with_the_same_prediction(browser, tmp_path):
    data_dir, dialogs = tmp_path / "var", []
    with server_on(data_dir, tmp_path) as url:
        context, page = new_page(browser, url, dialogs)
        main = page.get_by_test_id("stMain")
        main.get_by_role("button", name="Train the default model and explain a row").click()
        shown_row(page, TRAIN_TIMEOUT)  # the server's default model: trained on a busy machine
        expect_explanation(page, "P(Yes)")
        row, risk = shown_row(page)
        (explained,) = events(data_dir)  # a session's model: its content digest
        assert explained[:3] == ("row_explained", None, None)
        assert json.loads(explained[3])["row"] == row
        assert "unpublished_sha256" in json.loads(explained[3])
        download_report(page)
        downloaded = events(data_dir)[-1]  # the explanation's facts, the file's name and digest
        assert downloaded[:3] == ("report_downloaded", None, None)
        said, facts = json.loads(downloaded[3]), json.loads(explained[3])
        assert {k: said[k] for k in facts} == facts and said["row"] == row
        assert said["file"].startswith(f"forestviz-{row}-") and said["file"].endswith(".html")
        assert re.fullmatch(r"hmac-sha256:[0-9a-f]{64}", said["file_digest"])

        go_to(page, "Train")
        open_expander(main, "Publish this model")
        expect(main.get_by_text("the training rows that every explanation shows as the most "
                                "similar patients")).to_be_visible(timeout=TIMEOUT)
        main.get_by_role("textbox", name="Name").fill("Pima risk")
        main.get_by_role("textbox", name="Description").fill("Diabetes risk, <b>plain</b>")
        main.get_by_role("textbox", name="Intended use").fill("Screening")
        page.get_by_test_id("stFormSubmitButton").get_by_role("button").click()
        # the name as text: a word joiner after "@" keeps it from turning into a link
        expect(main.get_by_text(re.compile(r"Published as Pima risk@\u2060?1\."))
               ).to_be_visible(timeout=TIMEOUT)
        assert events(data_dir)[-1] == ("model_published", "Pima risk", 1, None)
        with page.expect_download(timeout=TIMEOUT) as saved:  # the model file, signed
            main.get_by_role("button", name="Save the model (.skops)").click()
        library = open_library(StoreConfig(data_dir))
        assert library.verify_file(saved.value.path().read_bytes()).status == "signed"
        context.close()

    with server_on(data_dir, tmp_path) as url:  # the same data directory, a new server
        context, page = new_page(browser, url, dialogs)
        go_to(page, "Models")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("Diabetes risk, <b>plain</b>")).to_be_visible(timeout=TIMEOUT)
        clicked = time.monotonic()
        main.get_by_role("button", name=re.compile(r"^Open Pima risk@\u2060?1$")).click()
        expect_explanation(page, "P(Yes)")
        print(f"published default model: Open click → explanation "
              f"{time.monotonic() - clicked:.1f} s")
        assert shown_row(page) == (row, risk)  # the same row, the same prediction
        opened, explained = events(data_dir)[-2:]
        assert opened == ("model_opened", "Pima risk", 1, None)
        assert explained[:3] == ("row_explained", "Pima risk", 1)
        assert json.loads(explained[3])["row"] == row
        assert json.loads(explained[3])["blob_sha256"] == library.show("Pima risk", 1).blob_sha256
        assert page.get_by_test_id("stSidebar").get_by_text("unavailable").count() == 0
        assert page.get_by_test_id("stException").count() == 0
        context.close()
    assert dialogs == []
