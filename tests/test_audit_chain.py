"""The audit trail's hash chain (issue 38, item 3), on SQLite and PostgreSQL: each event's hash
recomputed here with hashlib over the previous hash and the event's JSON; every kind of
tampering, done directly in the database with the append-only triggers dropped, named by
`forestviz audit verify` (one line each, exit status 1); events written before the chain
(a database migrated from the first schema) counted, not checked; writers in several processes
at once leave one unbroken chain."""

import hashlib
import json
import time
from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.config import Config
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text

from forestviz.cli.main import main
from forestviz.store import LOCAL, Actor
from forestviz.store.chain import GENESIS, SHOWN_BREAKS
from forestviz.store.engine import MIGRATIONS
from tests.store_helpers import HANG_GUARD, database_env, library_at, run_script

WHO = [Actor("sub-ann", "ann@example.org"), LOCAL, Actor("=bob", None)]
DROP_TRIGGERS = {
    "sqlite": ["DROP TRIGGER IF EXISTS audit_events_no_update",
               "DROP TRIGGER IF EXISTS audit_events_no_delete"],
    "postgresql": ["DROP TRIGGER IF EXISTS audit_events_append_only ON audit_events"],
}


def recorded(library, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        library.audit.record(WHO[i % 3], "row_explained" if i % 2 else "model_opened",
                             model=("Pima risk", 1 + i % 2) if i % 5 else None,
                             detail=f"P{i:04d} ünïcode" if i % 4 else None)


def rows(library) -> list[dict]:
    with library.engine.connect() as connection:
        found = connection.execute(text("SELECT * FROM audit_events ORDER BY id"))
        return [dict(row._mapping) for row in found]


def tamper(library, *statements, **values) -> None:
    """``statements`` run directly on the database, its append-only triggers dropped."""
    with library.engine.begin() as connection:
        for statement in [*DROP_TRIGGERS[library.engine.dialect.name], *statements]:
            connection.execute(text(statement), values)


def verify(library, capsys, *arguments) -> tuple[int, list[str]]:
    """``forestviz audit verify ARGUMENTS`` on ``library``: exit status and output lines."""
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FORESTVIZ_DATA_DIR", str(library.config.data_dir))
        patch.setenv("FORESTVIZ_DATABASE_URL", library.config.url)
        status = main(["audit", "verify", *arguments])
    return status, capsys.readouterr().out.splitlines()


def test_each_event_holds_the_hash_of_the_one_before(library, capsys):
    recorded(library, 7)
    library.audit.record(LOCAL, "signin_refused", detail='"quoted", 1\n2')
    previous = GENESIS
    found = rows(library)
    assert [row["seq"] for row in found] == list(range(1, 9))
    for row in found:
        at = row["at"] if isinstance(row["at"], datetime) else datetime.fromisoformat(row["at"])
        at = at if at.tzinfo is None else at.astimezone(UTC).replace(tzinfo=None)
        at = at.isoformat(timespec="microseconds") + "+00:00"  # SQLite: written as UTC
        fields = {"seq": row["seq"], "at": at, "subject": row["subject"],
                  "email": row["email"], "action": row["action"],
                  "model_name": row["model_name"], "model_version": row["model_version"],
                  "detail": row["detail"]}
        canonical = json.dumps({k: v for k, v in fields.items() if v is not None},
                               sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert row["prev_sha256"] == previous
        previous = hashlib.sha256(previous.encode() + canonical.encode()).hexdigest()
        assert row["sha256"] == previous
    status, lines = verify(library, capsys)
    assert status == 0 and len(lines) == 1 and "intact: 8 chained events" in lines[0]
    assert f"head #8 {previous}" in lines[0]


def test_each_kind_of_tampering_is_named_by_verify(library, capsys):
    recorded(library, 8)
    head = rows(library)[-1]["sha256"]
    ids = {row["seq"]: row["id"] for row in rows(library)}
    tamper(library, "DELETE FROM audit_events WHERE seq IN (3, 4)",
           "UPDATE audit_events SET detail = 'P9999' WHERE seq = 6",
           "UPDATE audit_events SET sha256 = :forged WHERE seq = 7",
           "INSERT INTO audit_events (at, subject, action) VALUES (:at, 'mallory', 'signed_in')",
           forged="f" * 64, at=rows(library)[0]["at"])
    status, lines = verify(library, capsys)
    inserted = max(row["id"] for row in rows(library))
    assert status == 1
    assert lines == [
        f"deleted: event #3 to #4, before event #5 (id {ids[5]})",
        f"edited: the event with id {ids[6]} no longer matches its hash",
        f"edited: the event with id {ids[7]} no longer matches its hash",
        f"edited: event #7 was given a new hash, which event #8 (id {ids[8]}) does not name",
        f"inserted: the event with id {inserted} has no place in the chain",
        "The audit trail is BROKEN: 5 broken links in 6 chained events."]
    # the newest events removed: only a head noted elsewhere shows it
    assert verify(library, capsys, "--noted", head)[0] == 1


def test_the_newest_events_removed_show_against_the_noted_head(library, capsys):
    recorded(library, 4)
    head = rows(library)[-1]["sha256"]
    assert verify(library, capsys, "--noted", head)[0] == 0
    recorded(library, 2, start=4)
    assert verify(library, capsys, "--noted", head)[0] == 0  # still in the chain, events after it
    tamper(library, "DELETE FROM audit_events WHERE seq >= 4")
    status, lines = verify(library, capsys, "--noted", head)
    assert status == 1 and lines[0].startswith(f"deleted or rewritten: no event has the noted "
                                               f"hash {head}")
    assert verify(library, capsys)[0] == 0  # without the noted head nothing shows: said in the docs


def test_events_before_the_chain_began_are_counted_not_checked(tmp_path, database, capsys):
    """A database made by the first schema, with events, migrated at its next open."""
    folder = tmp_path / "var"
    folder.mkdir()
    url = database or f"sqlite:///{folder / 'forestviz.db'}"
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        for i in range(3):
            connection.execute(text("INSERT INTO audit_events (at, subject, action, detail) "
                                    "VALUES (:at, 'old', 'model_opened', :detail)"),
                               {"at": f"2026-01-0{i + 1} 10:00:00", "detail": f"old {i}"})
        connection.commit()
    engine.dispose()
    library = library_at(folder, database)
    recorded(library, 3)
    assert [row["seq"] for row in rows(library)] == [None] * 3 + [1, 2, 3]
    status, lines = verify(library, capsys)
    assert status == 0 and "3 chained events checked; 3 earlier events were written before " \
        "the chain began" in lines[0]
    assert len(library.audit.query()) == 6


RECORDER = """
    import json, os, time
    from pathlib import Path
    from forestviz.store import Actor, open_library

    library = open_library()
    Path(os.environ["READY"]).touch()
    while not all(Path(p).exists() for p in os.environ["ALL"].split(":")):
        time.sleep(0.005)
    for i in range(int(os.environ["EVENTS"])):
        library.audit.record(Actor(os.environ["READY"]), "row_explained", detail=str(i))
    print(json.dumps(True))
"""


@pytest.mark.slow  # three fresh processes
def test_writers_in_several_processes_at_once_make_one_chain(tmp_path, database, capsys):
    folder, writers, events = tmp_path / "var", 3, 25
    library = library_at(folder, database)
    ready = [tmp_path / f"ready-{i}" for i in range(writers)]
    children = [run_script(RECORDER, folder, wait=False, READY=str(mine), EVENTS=str(events),
                           ALL=":".join(map(str, ready)),
                           **database_env(database)) for mine in ready]
    started = time.monotonic()
    for child in children:
        _, err = child.communicate(timeout=HANG_GUARD)
        assert child.returncode == 0, err
    assert time.monotonic() - started < HANG_GUARD
    found = rows(library)
    assert [row["seq"] for row in found] == list(range(1, writers * events + 1))
    assert {row["subject"] for row in found} == set(map(str, ready))  # they interleaved
    status, lines = verify(library, capsys)
    assert status == 0 and f"intact: {writers * events:,} chained" in lines[0]


def test_many_breaks_are_named_up_to_twenty_and_counted(tmp_path, capsys):
    library = library_at(tmp_path / "var")
    recorded(library, 50)
    tamper(library, "DELETE FROM audit_events WHERE seq % 2 = 0 AND seq < 50")  # 24 gaps
    status, lines = verify(library, capsys)
    assert status == 1 and len(lines) == SHOWN_BREAKS + 2
    assert lines[0] == "deleted: event #2, before event #3 (id 3)"
    assert lines[-2:] == ["… and 4 more.",
                          "The audit trail is BROKEN: 24 broken links in 26 chained events."]
    tamper(library, "DELETE FROM audit_events WHERE seq > 3")
    assert verify(library, capsys)[1][-1] == ("The audit trail is BROKEN: 1 broken link in 2 "
                                              "chained events.")


@given(st.integers(4, 12), st.sampled_from(["deleted", "edited", "inserted"]), st.data())
@example(4, "deleted", None)
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # capsys: read each time
def test_one_change_anywhere_is_named_at_its_place(tmp_path_factory, capsys, count, kind, data):
    """On SQLite (a new file each example): one event deleted, edited or inserted at a place
    drawn by Hypothesis is the one line verify names."""
    library = library_at(tmp_path_factory.mktemp("chain") / "var")
    recorded(library, count)
    place = 2 if data is None else data.draw(st.integers(1, count - 1), label="place")
    target = {row["seq"]: row["id"] for row in rows(library)}[place]
    statement = {"deleted": "DELETE FROM audit_events WHERE seq = :place",
                 "edited": "UPDATE audit_events SET subject = 'x' WHERE seq = :place",
                 "inserted": "INSERT INTO audit_events (at, subject, action) "
                             "SELECT at, subject, action FROM audit_events WHERE seq = :place"}
    tamper(library, statement[kind], place=place)
    expected = {"deleted": f"deleted: event #{place}, before event #{place + 1}",
                "edited": f"edited: the event with id {target} no longer matches its hash",
                "inserted": f"inserted: the event with id {count + 1} has no "
                            "place in the chain"}[kind]
    status, lines = verify(library, capsys)
    assert status == 1 and len(lines) == 2 and lines[0].startswith(expected)
