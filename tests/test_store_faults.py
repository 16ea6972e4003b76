"""The library's own faults, each made for real, become one line (StoreUnavailable or
StoreError) and the library stays usable where it can: a database file overwritten with
garbage, a lock held by another process (waited for briefly, once), an in-memory database URL,
a signing key that is empty or a directory, and a full disk (a small tmpfs) while publishing."""

import os
import sqlite3
import subprocess
import sys
import time

import pytest

from forestviz.store import LOCAL, StoreConfig, StoreError, StoreUnavailable, engine
from forestviz.store.library import open_library
from forestviz.store.signing import signing_key
from tests.store_helpers import library_at

LOCK_HANG_GUARD = 20.0  # s: ten times the 2 s a page run may wait for a lock (it was 30.7 s)
HOLD_LOCK = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()  # until the test closes our standard input
"""


def one_line(err: Exception) -> str:
    message = str(err)
    assert "\n" not in message and message.strip() == message, message
    return message


def corrupt(folder):
    """Overwrite the database file of ``folder`` past its header with garbage (its WAL folded
    in first, so the garbage is what SQLite reads)."""
    path = folder / "forestviz.db"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    path.write_bytes(data[:100] + os.urandom(len(data) - 100))


def test_a_corrupt_database_file_is_one_line_and_nothing_escapes(tmp_path):
    folder = tmp_path / "var"
    library = library_at(folder)
    for i in range(40):  # pages enough that the garbage lands on the tables
        library.audit.record(LOCAL, "row_explained", detail=f"P{i:04d}" + "x" * 300)
    library.engine.dispose()
    corrupt(folder)
    for attempt in (lambda: library.audit.record(LOCAL, "row_explained", detail="P1"),
                    library.versions, lambda: library.audit.query(),
                    lambda: library.show("Pima risk")):
        with pytest.raises(StoreUnavailable) as refused:
            attempt()
        assert "malformed" in one_line(refused.value)
        assert "working in memory only" in str(refused.value)
    with pytest.raises(StoreUnavailable, match="malformed"):
        open_library(StoreConfig(folder))


@pytest.mark.slow
def test_a_lock_held_by_another_process_is_waited_for_briefly_and_once(tmp_path, monkeypatch):
    folder = tmp_path / "var"
    library = library_at(folder)
    library.audit.record(LOCAL, "row_explained", detail="before")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(folder / "forestviz.db")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        # one page run: an event, the list of models, another event
        for attempt in (lambda: library.audit.record(LOCAL, "row_explained", detail="P1"),
                        library.versions,
                        lambda: library.audit.record(LOCAL, "report_downloaded", detail="P1")):
            with pytest.raises(StoreUnavailable) as refused:
                attempt()
            assert "database is locked" in one_line(refused.value)
        waited = time.monotonic() - started
        assert waited < LOCK_HANG_GUARD, f"a page run waited {waited:.1f} s for the lock"
        print(f"three store calls under another process's lock: {waited:.2f} s")
    finally:
        holder.communicate("")
    monkeypatch.setattr(engine, "LOCK_PAUSE_SECONDS", 0.0)
    time.sleep(0.01)  # the pause that followed the wait has run out: the lock is free again
    deadline = time.monotonic() + engine.LOCK_PAUSE_SECONDS + LOCK_HANG_GUARD
    while True:
        try:
            library.audit.record(LOCAL, "row_explained", detail="after")
            break
        except StoreUnavailable:
            assert time.monotonic() < deadline
            time.sleep(0.5)
    assert list(library.audit.query()["detail"]) == ["before", "after"]


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "sqlite+pysqlite://",
                                 "sqlite:///file:shared?mode=memory&cache=shared&uri=true"])
def test_an_in_memory_database_url_is_refused_in_one_line(tmp_path, url):
    with pytest.raises(StoreUnavailable) as refused:
        open_library(StoreConfig(tmp_path / "var", url))
    assert "in-memory SQLite database" in one_line(refused.value)


@pytest.mark.slow
def test_a_signing_key_that_cannot_be_used_is_one_line(bench, tmp_path):
    folder = tmp_path / "var"
    library = library_at(folder)
    key = folder / "signing.key"
    key.write_text("")  # empty: a key file cut short
    problem = library.signing_problem()
    assert "is empty or too short" in one_line(StoreError(problem))
    with pytest.raises(StoreError, match="empty or too short"):
        library.verify_file(bench.save())
    key.unlink()
    key.mkdir()  # a directory where the key should be
    with pytest.raises(StoreError) as refused:
        signing_key(StoreConfig(folder))
    assert "cannot be read (Is a directory)" in one_line(refused.value)
    assert "Is a directory" in library.signing_problem()
    with pytest.raises(StoreError, match="Is a directory"):
        library.sign_download(bench.save())
    key.rmdir()
    assert library.signing_problem() is None  # a new key is made on first use
    assert library.verify_file(library.sign_download(bench.save())).status == "signed"


@pytest.fixture
def small_disk(tmp_path):
    """A 512 KiB tmpfs (root only: mounting is how a disk fills up for real here)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", str(mount)],
                   check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(mount, leave: int) -> os.PathLike:
    """Fill the file system of ``mount`` up to ``leave`` free bytes; the filler's path."""
    filler = mount / "filler"
    free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
    with open(filler, "wb") as out:
        out.write(b"\0" * max(free - leave, 0))
    return filler


def test_publishing_on_a_full_disk_is_one_line_and_leaves_nothing_behind(bench, small_disk):
    folder = small_disk / "var"
    library = library_at(folder)
    library.audit.record(LOCAL, "row_explained", detail="before")  # the WAL has grown
    filler = fill(small_disk, leave=64 * 1024)  # less than the model's blob
    with pytest.raises(StoreError) as refused:
        library.publish(bench, name="Pima risk", intended_use="Screening")
    assert "No space left on device" in one_line(refused.value)
    assert "nothing was published" in str(refused.value)
    assert library.versions(include_retired=True) == []
    assert [p.name for p in (folder / "blobs").iterdir()] == []  # no partial file left
    filler.unlink()  # space again: the same library publishes
    assert library.publish(bench, name="Pima risk", intended_use="Screening").ref == "Pima risk@1"
    fill(small_disk, leave=0)  # now the database itself cannot grow
    with pytest.raises(StoreError) as refused:
        for i in range(200):
            library.audit.record(LOCAL, "row_explained", detail=f"P{i}" + "x" * 400)
    assert "disk is full" in one_line(refused.value)
