"""Publishing on the Train page while another process holds the library's database lock
(a real SQLite lock, through Streamlit's AppTest): the page run waits at most its 2 s budget,
not the 30 s a publish used to wait for each of its transactions, says "The model library is
busy …; try again" in one line and keeps the model current; the same publish succeeds once the
lock is free."""

import time

import pytest

from forestviz.store import StoreConfig, open_library
from tests.apptest_helpers import app, train
from tests.test_app_library import publish_current
from tests.test_store_busy import held_lock
from tests.test_store_faults import LOCK_HANG_GUARD

pytestmark = pytest.mark.slow  # real training: seconds


def test_a_publish_under_a_held_lock_says_busy_and_goes_through_once_it_is_free(
        tmp_path, monkeypatch):
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    at = app()
    bundle = train(at, "vanilla", trees=10)
    at.switch_page("pages/train.py").run()
    with held_lock(folder / "forestviz.db"):
        started = time.monotonic()
        at = publish_current(at, "House prices", "Prices")
        took = time.monotonic() - started
    assert took < LOCK_HANG_GUARD, f"the publishing page run took {took:.1f} s"
    assert not at.exception and not at.success
    (said,) = [e.value.replace("\\", "") for e in at.error]
    assert said.startswith("The model library is busy (database is locked") and \
        "try again" in said and "\n" not in said, said
    assert at.session_state["model"] is bundle  # nothing lost: the model is still current
    assert open_library(StoreConfig(folder)).versions() == []
    at = at.button(key="publish_send").click().run()  # the lock is free: the same publish
    assert not at.exception and not at.error
    assert [s.value.replace("\\", "") for s in at.success] == [
        "Published as House prices@1. It is on the Models page for everyone who may open "
        "published models."]
    assert [v.ref for v in open_library(StoreConfig(folder)).versions()] == ["House prices@1"]
    print(f"the publishing page run under another process's lock: {took:.2f} s")
