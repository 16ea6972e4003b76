"""The audit trail's retention (issue 38, item 3), on SQLite and PostgreSQL: a retention below
six months refused in one line; a purge only by an admin; the events older than the retention
deleted by the purge alone (the database's guard refuses every other DELETE), the purge an
event naming the last deleted event's hash, and `forestviz audit verify` passing after it;
an event deleted directly after a purge (triggers dropped), or a purge event forged to hide
recent events, still named as broken."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from forestviz.cli.main import main
from forestviz.store import LOCAL, Actor, NotAllowed, StoreConfig, StoreError
from forestviz.store.audit import event_row, facts
from forestviz.store.chain import append
from forestviz.store.config import MIN_RETENTION_DAYS
from tests.apptest_helpers import app
from tests.store_helpers import library_at
from tests.test_audit_chain import recorded, rows, tamper, verify

OLD_DAYS = 400  # the old events' age: beyond the six months kept


@pytest.fixture
def library(tmp_path, database):
    return library_at(tmp_path / "var", database)


def aged(library, count: int, days: float) -> None:
    """``count`` chained events ``days`` old (a minute apart), as if written then."""
    then = datetime.now(UTC) - timedelta(days=days)
    with Session(library.engine) as session, session.begin():
        append(session, [event_row(LOCAL, "model_opened", ("Pima risk", 1), f"old {i}",
                                   at=then + timedelta(minutes=i)) for i in range(count)])


@pytest.mark.parametrize("days, allowed", [("", MIN_RETENTION_DAYS), ("365", 365),
                                           (" 183 ", 183), ("182", None), ("30", None),
                                           ("0", None), ("-400", None), ("six months", None),
                                           ("1e3", None), ("٣٦٥", None)])
def test_the_retention_is_at_least_six_months(days, allowed):
    config = StoreConfig.from_env({"FORESTVIZ_AUDIT_RETENTION_DAYS": days})
    if allowed is not None:
        assert config.retention_days == allowed
        return
    with pytest.raises(StoreError) as refused:
        config.retention_days  # noqa: B018 (the property refuses)
    message = str(refused.value)
    assert "\n" not in message and f"at least {MIN_RETENTION_DAYS} days" in message


def test_a_retention_below_the_minimum_purges_nothing(library, capsys, monkeypatch):
    aged(library, 3, OLD_DAYS)
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(library.config.data_dir))
    monkeypatch.setenv("FORESTVIZ_DATABASE_URL", library.config.url)
    monkeypatch.setenv("FORESTVIZ_AUDIT_RETENTION_DAYS", "30")
    assert main(["audit", "purge"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "at least 183 days" in error
    assert len(rows(library)) == 3


@pytest.mark.parametrize("role", ["viewer", "analyst", None])
def test_only_an_admin_purges(library, role):
    aged(library, 3, OLD_DAYS)
    with pytest.raises(NotAllowed, match="purge the audit trail"):
        library.audit.purge(actor=Actor("sub-x", role=role))
    assert len(rows(library)) == 3


def test_the_command_line_purges_as_its_local_role(library, capsys, monkeypatch):
    aged(library, 3, OLD_DAYS)
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(library.config.data_dir))
    monkeypatch.setenv("FORESTVIZ_DATABASE_URL", library.config.url)
    monkeypatch.setenv("FORESTVIZ_LOCAL_ROLE", "analyst")
    assert main(["audit", "purge"]) == 2
    assert "may not purge the audit trail" in capsys.readouterr().err
    assert len(rows(library)) == 3
    monkeypatch.setenv("FORESTVIZ_LOCAL_ROLE", "admin")
    assert main(["audit", "purge"]) == 0
    assert capsys.readouterr().out.startswith("Purged 3 audit events before ")
    assert [row["action"] for row in rows(library)] == ["audit_purged"]


def test_old_events_purged_and_the_chain_still_verifies(library, capsys):
    aged(library, 5, OLD_DAYS)
    aged(library, 2, MIN_RETENTION_DAYS - 1)  # younger than the retention: kept
    recorded(library, 3)
    before = rows(library)
    # the guard refuses a DELETE that no purge names, old or not
    with library.engine.begin() as connection, pytest.raises(DBAPIError, match="append-only"):
        connection.execute(text("DELETE FROM audit_events WHERE seq = 1"))
    purged = library.audit.purge(actor=LOCAL)
    assert (purged.count, purged.through) == (5, 5)
    after = rows(library)
    assert [row["seq"] for row in after] == list(range(6, 12))
    assert after[:5] == before[5:]  # nothing else changed
    said = json.loads(after[-1]["detail"])
    assert after[-1]["action"] == "audit_purged" and after[-1]["subject"] == "local"
    assert said["count"] == 5 and said["through"] == 5 and said["kept_days"] == 183
    assert said["last_sha256"] == before[4]["sha256"] == after[0]["prev_sha256"]
    assert said["through_id"] == before[4]["id"]
    cutoff = datetime.fromisoformat(said["cutoff"])
    assert max(row_time(row) for row in before[:5]) < cutoff <= row_time(after[0])
    status, lines = verify(library, capsys)
    assert status == 0 and "events #1 to #5 were purged" in lines[0], lines
    # the guard still refuses to delete a kept event
    with library.engine.begin() as connection, pytest.raises(DBAPIError, match="append-only"):
        connection.execute(text("DELETE FROM audit_events WHERE seq = 6"))
    again = library.audit.purge(actor=LOCAL)  # nothing older is left: the purge says so
    assert again.count == 0 and "nothing was purged" in again.line()
    assert verify(library, capsys)[0] == 0


def row_time(row) -> datetime:
    at = row["at"] if isinstance(row["at"], datetime) else datetime.fromisoformat(row["at"])
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at


def test_a_deletion_after_a_purge_is_still_named(library, capsys):
    aged(library, 4, OLD_DAYS)
    recorded(library, 4)
    library.audit.purge(actor=LOCAL)
    ids = {row["seq"]: row["id"] for row in rows(library)}
    tamper(library, "DELETE FROM audit_events WHERE seq = 5")  # the first kept event
    status, lines = verify(library, capsys)
    assert status == 1 and lines[0] == f"deleted: event #5, before event #6 (id {ids[6]})"
    tamper(library, "DELETE FROM audit_events WHERE action = 'audit_purged'")  # its anchor
    status, lines = verify(library, capsys)
    assert status == 1 and lines[0] == f"deleted: event #1 to #5, before event #6 (id {ids[6]})"


def test_a_purge_event_forged_to_hide_recent_events_is_named(library, capsys):
    recorded(library, 4)  # today's events
    last = rows(library)[1]
    forged = facts(count=2, cutoff=datetime.now(UTC).isoformat(), kept_days=183,
                   through_id=last["id"], through=2, last_sha256=last["sha256"])
    with Session(library.engine) as session, session.begin():
        append(session, [event_row(LOCAL, "audit_purged", detail=forged)])
    tamper(library, "DELETE FROM audit_events WHERE seq <= 2")
    status, lines = verify(library, capsys)
    assert status == 1 and lines[0].startswith("deleted: events #1 to #2 were purged with a "
                                               "cut-off")
    assert "within the minimum retention of 183 days" in lines[0]


@pytest.mark.slow  # the app's first run imports its packages: seconds
def test_the_audit_page_offers_the_purge_to_admins_behind_a_confirmation(tmp_path, monkeypatch,
                                                                         capsys):
    library = library_at(tmp_path / "var")
    aged(library, 4, OLD_DAYS)
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("FORESTVIZ_LOCAL_ROLE", "admin")  # the page is the admins' alone
    at = app().switch_page("pages/audit.py").run()
    assert not at.exception and not at.error
    assert at.button(key="audit_purge").disabled  # until confirmed
    at.checkbox(key="audit_purge_sure").check().run()
    at.button(key="audit_purge").click().run()
    assert not at.exception and not at.error
    assert at.success[0].value.startswith("Purged 4 audit events before ")
    assert "audit_purged" in [row["action"] for row in rows(library)]
    assert "model_opened" not in [row["action"] for row in rows(library)]
    assert verify(library, capsys)[0] == 0
