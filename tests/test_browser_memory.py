"""The upload memory budget in Debian Chromium against a real server of its own (a 64 MB budget,
3 s session TTL): a closed tab's upload is given back once its TTL has passed even when no
other session comes or goes (``ui.session_end``), so the next large upload is parsed; uploads
from closed sessions are released, so the server's resident memory after they expire grows by
at most the budget plus a slack; an upload that would pass the budget while other sessions
hold theirs is refused with a message naming the budget, and the session keeps its previous
data set. The full measurement (5 x 100 MB) is ``bench/server_memory.py``."""

import re
import time

import pytest
from playwright.sync_api import expect

from bench.appserver import AppServer, status
from bench.server_memory import write_csv
from tests.browser_helpers import still_context
from tests.conftest import SERVER_START_TIMEOUT, running
from ui.session_end import FLUSH_WAIT, MARGIN

pytestmark = pytest.mark.browser

MB = 2**20
BUDGET_MB = 64
TTL = 3  # s: server.disconnectedSessionTTL
FILE_MB = 24  # a parsed file takes ~1.16x this, its data set as much again: 56 MB of the 64
# Growth allowed beyond the budget once the sessions have expired. Measured here (3 x 24 MB,
# 64 MB budget): 129-177 MB in eight runs while the budget had a reuse cache (28-56 MB of
# it), 118-132 MB without (issue 25 item 4: two runs after the quiet-server test, load
# 13-19): freed memory that glibc keeps (its mmap threshold rises to the size of freed
# multi-MB buffers, so later ones are carved from the heap and stay there; malloc_trim gives
# back only part). With mallopt(M_MMAP_THRESHOLD, 4 MiB) in the server the growth was 32 MB
# with 28 MB of reuse cache. Without the budget and the release of closed sessions (the
# issue), these uploads keep ~240 MB (upload bytes, parsed table and data set, ~3.3x each
# file) plus the same allocator residue: above the bound.
SLACK_MB = 192
TIMEOUT = 60_000  # ms


@pytest.fixture(scope="module")
def memory_server(tmp_path_factory):
    """The app with a 64 MB upload budget and a 3 s session TTL; yields its url and pid."""
    server = AppServer(tmp_path_factory.mktemp("memory-server"),
                       options=["--server.disconnectedSessionTTL", str(TTL)],
                       env={"FORESTVIZ_UPLOAD_BUDGET_MB": str(BUDGET_MB)},
                       start_timeout=SERVER_START_TIMEOUT)
    with running(server):
        yield {"url": server.url, "pid": server.pid}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Five distinct CSVs of FILE_MB and a small one, with their row counts."""
    folder = tmp_path_factory.mktemp("memory-files")
    made = []
    for i in range(5):
        path = folder / f"big-{i + 1}.csv"
        made.append((path, write_csv(path, FILE_MB, seed=201 + i)))
    small = folder / "small.csv"
    made.append((small, write_csv(small, 0.07, seed=300)))
    return made


def data_page(browser, url):
    """A new browser session on the Data page, its run finished."""
    context = still_context(browser, viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.goto(url)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data", exact=True).click()
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=TIMEOUT)
    idle(page)
    return context, page


def explained(browser, url):
    """A session that opens the default model's explanation from the Home page, then goes: what
    a server holds once it is in use, before any upload."""
    context = still_context(browser, viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.goto(url)
    page.get_by_test_id("stMain").get_by_role(
        "button", name="Train the default model and explain a row").click()
    expect(page.locator(".st-key-explain_summary")).to_contain_text(
        "most similar training rows", timeout=TIMEOUT)
    idle(page)
    context.close()


def idle(page):
    """Until the page's run has ended: Streamlit shows its running icon (which has no text)
    once a run has lasted 500 ms."""
    page.wait_for_timeout(600)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=TIMEOUT)


def upload(page, path):
    main = page.get_by_test_id("stMain")
    if not main.get_by_test_id("stFileUploader").count():
        main.get_by_text("Upload a CSV").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(path)


def in_use(page, rows: int):
    """The "Rows" figure of the data set in use is ``rows`` (the page's last element)."""
    rows_metric = page.get_by_test_id("stMain").get_by_test_id("stMetric").filter(
        has_text="Rows")
    expect(rows_metric).to_contain_text(f"{rows:,}", timeout=TIMEOUT)
    idle(page)


def expire_closed_sessions(closed: float):
    """Wait, with no other session coming or going, until a session closed at ``closed`` is
    dropped: the app acts MARGIN s after its TTL and lets go FLUSH_WAIT s later; a few
    seconds more for a busy machine."""
    time.sleep(max(0.0, closed + TTL + MARGIN + FLUSH_WAIT + 3.0 - time.monotonic()))


@pytest.mark.slow
def test_a_closed_tabs_upload_is_given_back_on_a_quiet_server(browser, memory_server, files):
    url, pid = memory_server["url"], memory_server["pid"]
    (first, first_rows), (second, second_rows) = files[0], files[1]
    context, page = data_page(browser, url)
    upload(page, first)
    in_use(page, first_rows)  # ~56 MB of the 64 held: another such file cannot come in
    held = status(pid, "VmRSS")
    context.close()
    expire_closed_sessions(time.monotonic())
    dropped = status(pid, "VmRSS")
    context, page = data_page(browser, url)
    upload(page, second)
    main = page.get_by_test_id("stMain")
    error = main.get_by_test_id("stAlertContentError")  # before the fix: "Try again later"
    parsed = main.get_by_test_id("stMetric").filter(has_text=f"{second_rows:,}")
    expect(parsed.or_(error).first).to_be_visible(timeout=TIMEOUT)
    assert not error.count(), error.first.inner_text()
    in_use(page, second_rows)  # the closed tab's tables were counted back
    context.close()
    print(f"\nRSS with the first upload held {held / MB:.0f} MB, after its tab closed and "
          f"its TTL passed {dropped / MB:.0f} MB")
    expire_closed_sessions(time.monotonic())


@pytest.mark.slow
def test_uploads_are_released_and_the_budget_refuses_with_its_figure(
        browser, memory_server, files):
    url, pid = memory_server["url"], memory_server["pid"]
    started = time.monotonic()
    explained(browser, url)  # the server's imports, its default model and the drawings' cache
    context, _ = data_page(browser, url)  # and the bundled data set
    context.close()
    time.sleep(1.0)
    baseline = status(pid, "VmRSS")

    context, page = data_page(browser, url)
    for i, (path, rows) in enumerate(files[:3]):  # one session each, closed after its upload
        upload(page, path)
        in_use(page, rows)
        context.close()
        closed = time.monotonic()
        if i < 2:  # the next session opens while this one's TTL runs out
            context, page = data_page(browser, url)
        expire_closed_sessions(closed)
    growth = status(pid, "VmRSS") - baseline
    print(f"\nRSS growth after 3 x {FILE_MB} MB uploads from closed, expired sessions: "
          f"{growth / MB:.0f} MB (bound {BUDGET_MB} + {SLACK_MB} MB)")
    assert growth <= (BUDGET_MB + SLACK_MB) * MB, f"{growth / MB:.0f} MB"

    holder, held = data_page(browser, url)  # holds ~56 MB of the 64 while open
    upload(held, files[3][0])
    in_use(held, files[3][1])
    context, page = data_page(browser, url)
    small, small_rows = files[5]
    upload(page, small)
    in_use(page, small_rows)
    upload(page, files[4][0])  # would pass the budget
    main = page.get_by_test_id("stMain")
    error = main.get_by_test_id("stAlertContentError")
    expect(error).to_contain_text("MB allowed", timeout=TIMEOUT)
    text = " ".join(error.inner_text().split())
    assert re.search(rf"already hold [\d,]+ MB of the {BUDGET_MB} MB allowed", text), text
    idle(page)
    in_use(page, small_rows)  # the previous data set stays in use
    expect(main.get_by_text(small.name).first).to_be_visible()
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Train", exact=True).click()
    expect(page.get_by_role("heading", name="Train", exact=True)).to_be_visible(timeout=TIMEOUT)
    in_use(held, files[3][1])  # the session holding its upload is unaffected
    context.close()
    holder.close()
    print(f"test time {time.monotonic() - started:.1f} s")
