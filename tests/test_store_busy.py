"""A page run waits for another process's lock on the library at most 2 s in all
(:mod:`forestviz.store.waits`), a publish's waits included (they were 30 s each): a lock held
longer is one line, "The model library is busy …; try again", and the same publish succeeds
once the lock is free. The lock is real: another process holds ``BEGIN IMMEDIATE``."""

import contextlib
import contextvars
import functools
import subprocess
import sys
import time

import pytest

from forestviz.store import LOCAL, StoreBusy, waits
from tests.store_helpers import library_at
from tests.test_store_faults import HOLD_LOCK, LOCK_HANG_GUARD, one_line


@contextlib.contextmanager
def held_lock(database):
    """Another process holding the write lock of the SQLite file ``database``."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(database)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.communicate("")


def own_context(test):
    """``test`` run in a copy of the context, so the page-run budget it sets ends with it."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        return contextvars.copy_context().run(test, *args, **kwargs)
    return run


@own_context
def test_a_budget_cuts_every_wait_to_what_is_left_and_only_in_a_page_run():
    assert waits.allowed(30.0) == 30.0  # no page run in this context: as the caller asks
    waits.page_run(2.0)
    assert waits.allowed(30.0) == 2.0 and waits.allowed(0.5) == 0.5
    with waits.Spent():
        time.sleep(0.3)
    assert 0.0 < waits.allowed(30.0) <= 1.7
    waits.page_run(0.0)
    assert waits.allowed(1.5) == 0.0


def test_a_test_leaves_no_budget_behind():
    assert waits.allowed(30.0) == 30.0


@pytest.mark.slow
@own_context
def test_a_publish_in_a_page_run_waits_its_budget_then_says_busy_and_succeeds_later(
        bench, tmp_path, monkeypatch):
    folder = tmp_path / "var"
    library = library_at(folder)
    with held_lock(folder / "forestviz.db"):
        waits.page_run()  # one page run: an event, then a publish
        started = time.monotonic()
        for attempt in (lambda: library.audit.record(LOCAL, "row_explained", detail="P1"),
                        lambda: library.publish(bench, name="Pima risk", intended_use="Screening")):
            with pytest.raises(StoreBusy) as refused:
                attempt()
            said = one_line(refused.value)
            assert said.startswith("The model library is busy (database is locked")
            assert "try again" in said
        waited = time.monotonic() - started
        assert waited < LOCK_HANG_GUARD, f"a page run waited {waited:.1f} s for the lock"
        assert waits.allowed(waits.PAGE_RUN_SECONDS) == 0.0  # the run's budget is spent
        print(f"an event and a publish under another process's lock: {waited:.2f} s")
    waits.page_run()  # the next page run, the lock free: the same publish goes through
    info = library.publish(bench, name="Pima risk", intended_use="Screening")
    assert info.ref == "Pima risk@1"
    assert [v.ref for v in library.versions()] == ["Pima risk@1"]


@pytest.mark.slow
@own_context
def test_a_page_runs_waits_together_stay_within_its_budget(tmp_path, monkeypatch):
    """Without the pause after a wait ran out, each call would wait its 1.5 s again: the
    budget still ends the run's waiting after 2 s in all."""
    from forestviz.store import engine

    monkeypatch.setattr(engine, "LOCK_PAUSE_SECONDS", 0.0)
    folder = tmp_path / "var"
    library = library_at(folder)
    with held_lock(folder / "forestviz.db"):
        waits.page_run()
        started = time.monotonic()
        for _ in range(4):
            with pytest.raises(StoreBusy):
                library.audit.record(LOCAL, "row_explained", detail="P1")
            assert time.monotonic() - started < LOCK_HANG_GUARD
        assert waits.allowed(engine.LOCK_WAIT_SECONDS) == 0.0
