"""The Audit page through Streamlit's AppTest on a real SQLite library (issue 36): it shows one
page of the matching events (the slice of the whole trail it claims, newest page first),
records each page seen once per session and each export with the file's keyed digest, and
builds the CSV only when asked for."""

import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session

from forestviz.io.export import csv_bytes
from forestviz.store import LOCAL, Actor, StoreConfig, open_library
from forestviz.store.audit import event_row
from forestviz.store.digests import PREFIX
from forestviz.store.readable import detail_text
from tests.apptest_helpers import app
from ui.audit_view import CSV_NAME, PAGE_EVENTS

pytestmark = pytest.mark.slow  # the app's first run imports its packages: seconds

EVENTS = 2 * PAGE_EVENTS + 345


@pytest.fixture
def trail(tmp_path, monkeypatch):
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    library = open_library(StoreConfig(folder))
    now = datetime.now(UTC)
    with Session(library.engine) as session, session.begin():
        session.add_all(event_row(Actor(f"user {i % 5}"), "row_explained", ("Pima risk", 1),
                                  detail=f"P{i:05d}", at=now - timedelta(seconds=EVENTS - i))
                        for i in range(EVENTS))
    return folder, library.audit


def viewed(audit) -> list[dict]:
    return [json.loads(d) for d in audit.query(action="audit_viewed")["detail"]]


def test_the_audit_page_shows_a_page_and_records_what_was_seen(trail):
    folder, audit = trail
    at = app().switch_page("pages/audit.py").run()
    assert not at.exception and not at.error
    whole = audit.query()  # oldest first; its last event is this page's viewing
    assert whole["action"].iloc[-1] == "audit_viewed" and len(whole) == EVENTS + 1
    shown = at.dataframe[0].value
    assert shown["detail"].tolist() == whole["detail"].iloc[-PAGE_EVENTS:].map(
        detail_text).tolist()  # the page's own viewing: its facts readable, not JSON
    first = viewed(audit)
    assert len(first) == 1 and first[0]["page"] == 1 and "action" not in first[0]
    assert datetime.fromisoformat(first[0]["until"]) > datetime.now(UTC)  # the default days
    assert not at.get("download_button")  # no CSV built before it is asked for
    at.run()
    assert len(viewed(audit)) == 1  # a rerun of the same page: nothing more

    (page,) = at.number_input
    page.set_value(3).run()  # the oldest events
    whole = audit.query()
    shown = at.dataframe[0].value
    assert shown["detail"].tolist() == whole["detail"].iloc[:len(whole) - 2 * PAGE_EVENTS
                                                          ].tolist()
    assert [v["page"] for v in viewed(audit)] == [1, 3]
    assert set(whole.loc[whole["action"] == "audit_viewed", "subject"]) == {LOCAL.subject}

    at.button(key="audit_csv_make").click().run()
    assert not at.exception
    (download,) = at.get("download_button")
    assert download.proto.label == "Download the matching events (CSV)"
    whole = audit.query()
    assert whole["action"].iloc[-1] == "audit_exported"
    exported = whole.iloc[:-1].copy()  # the CSV holds every event before its own record
    exported["at"] = [moment.isoformat() for moment in exported["at"]]
    key = (folder / "audit.key").read_text().strip().encode("ascii")
    facts = json.loads(whole["detail"].iloc[-1])
    assert facts["file"] == CSV_NAME and facts["file_digest"] == PREFIX + hmac.new(
        key, csv_bytes(exported), hashlib.sha256).hexdigest()
