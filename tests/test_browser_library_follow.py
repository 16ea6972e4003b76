"""An open page follows the model library (issue 38: a model published on one replica is
visible on another within 2 s), in Debian Chromium against a real server on a real SQLite
library: a version published or retired by another process (as by another replica) shows on
the open Home and Models pages with no reload and no click (how soon is printed). The page
keeps the focus where the user left it and the user's choices (the version chosen, a
confirmation ticked), and an idle page is not drawn again: its poll draws nothing."""

import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, WebSocket, expect
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser_helpers import settled
from tests.store_helpers import library_at, trained
from tests.test_browser_flows import TIMEOUT, go_to
from tests.test_browser_library import new_page, server_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FOLLOW_TIMEOUT = 30_000  # ms: a hang guard (the page asks every second and runs in seconds)
IDLE_MS = 3_000  # an idle page watched for this long: three polls or so
# count the changes to the page's main area from now on (a page run marks its elements stale
# and draws them again; a poll that draws nothing changes nothing): the whole document is
# watched, so that a main area drawn anew in place of the one there now counts too
WATCH = """() => { window.forestvizChanges = 0;
  new MutationObserver(found => {
      const main = document.querySelector('[data-testid="stMain"]');
      window.forestvizChanges += found.filter(change => main?.contains(change.target)).length;
  })
    .observe(document.body, {subtree: true, childList: true, attributes: true,
                             characterData: true}); }"""


@pytest.fixture(scope="module")
def bench():
    return trained()


class Wire:
    """What passes on the page's websocket, a line each, for a failure's message: the page's
    timer ticks and clicks, the server's runs (whole or a fragment's), pages and timers."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.started = time.monotonic()

    def watch(self, socket: WebSocket) -> None:
        socket.on("framesent", lambda data: self.sent(data))
        socket.on("framereceived", lambda data: self.received(data))

    def note(self, line: str) -> None:
        self.lines.append(f"{time.monotonic() - self.started:7.2f} {line}")

    def sent(self, data) -> None:
        if isinstance(data, bytes):
            message = BackMsg.FromString(data)
            if message.WhichOneof("type") == "rerun_script":
                rerun = message.rerun_script
                self.note(f"page: {'tick' if rerun.is_auto_rerun else 'rerun'} "
                          f"{rerun.fragment_id or 'whole'}")

    def received(self, data) -> None:
        if not isinstance(data, bytes):
            return
        message = ForwardMsg.FromString(data)
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self.note(f"server: run {list(message.metadata.run.fragment_ids) or 'whole'}")
        elif kind in ("navigation", "script_finished", "auto_rerun", "stop_auto_rerun"):
            self.note(f"server: {kind} {str(getattr(message, kind)).strip()[:60]!r}")

    def since(self, moment: float) -> str:
        return "\n".join(line for line in self.lines
                         if float(line.split()[0]) >= moment - self.started - 5)


def changes(page: Page) -> int:
    return page.evaluate("() => window.forestvizChanges")


def idle_page_is_not_drawn_again(page: Page) -> None:
    """Watch the page from now on; over :data:`IDLE_MS` with nothing published, nothing in
    its main area changes."""
    page.evaluate(WATCH)
    page.wait_for_timeout(IDLE_MS)
    assert changes(page) == 0


def drawn(page: Page) -> None:
    """Wait until the page's run has drawn every element anew (none left stale)."""
    expect(page.get_by_test_id("stMain").locator('[data-stale="true"]')).to_have_count(
        0, timeout=TIMEOUT)


def table_cells(page: Page, column: int) -> list[str]:
    """The versions table's cells of ``column`` (1: name), top to bottom (the grid's text
    for assistive technology, under its canvas)."""
    return page.locator(f'[data-testid="stDataFrame"] td[aria-colindex="{column}"]'
                        ).all_inner_texts()


def test_open_pages_follow_publishes_and_retirements_and_keep_the_users_place(
        browser, tmp_path, bench):
    """One server on an empty library and one session: the open Home page follows the first
    publish, then the Models page the next publishes and retirements (both pages on one
    server: a server's start costs about 9 CPU-s)."""
    data_dir, dialogs, wire = tmp_path / "var", [], Wire()
    library = library_at(data_dir)  # another process's connection to the server's library
    with server_on(data_dir, tmp_path) as url:
        context, page = new_page(browser, url, dialogs, on_websocket=wire.watch)
        home_follows_a_publish_and_keeps_the_focus(page, library, bench)
        library.publish(bench, name="Pima risk", description="second", intended_use="Screening")
        models_page_follows_and_keeps_the_choices(page, library, bench, wire)
        assert page.get_by_test_id("stException").count() == 0
        context.close()
    assert dialogs == []


def home_follows_a_publish_and_keeps_the_focus(page: Page, library, bench) -> None:
    """Home with nothing published, the focus on a button: a publish elsewhere shows with no
    reload and no click, and the focus stays."""
    main = page.get_by_test_id("stMain")
    attention = main.get_by_role("button", name="See attention at work")
    expect(attention).to_be_visible(timeout=TIMEOUT)
    settled(page)
    attention.focus()
    idle_page_is_not_drawn_again(page)

    library.publish(bench, name="Pima risk", intended_use="Screening")
    published = time.monotonic()
    expect(main.get_by_role("heading", name="Open a published model")).to_be_visible(
        timeout=FOLLOW_TIMEOUT)
    print(f"published by another process, shown on the open Home page after "
          f"{time.monotonic() - published:.2f} s (no reload)")
    expect(main.get_by_role("button", name=re.compile(r"^Open Pima risk@\u2060?1$"))
           ).to_be_visible(timeout=TIMEOUT)
    assert changes(page) > 0  # the page was drawn again, the new part above the button
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=TIMEOUT)
    expect(attention).to_be_focused()
    assert page.get_by_test_id("stException").count() == 0


def models_page_follows_and_keeps_the_choices(page: Page, library, bench, wire: Wire) -> None:
    """The Models page with two versions of one model, a version chosen and its retirement's
    confirmation ticked: a publish and a retirement elsewhere show with the user's choices and
    focus as they were; this session's own retirement is said once."""
    go_to(page, "Models")
    main = page.get_by_test_id("stMain")
    choice = main.get_by_role("combobox", name="Published model")
    choice.click()
    page.get_by_role("option", name=re.compile(r"^Pima risk@\u2060?1$")).click()
    sure = main.get_by_text(re.compile(r"^Yes, retire Pima risk@\u2060?1"))
    sure.click()  # the confirmation ticked, the Retire button not clicked yet
    retire = main.get_by_role("button", name=re.compile(r"^Retire Pima risk@\u2060?1$"))
    expect(retire).to_be_enabled(timeout=TIMEOUT)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(
        0, timeout=TIMEOUT)
    ticked = main.get_by_role("checkbox", name=re.compile(r"^Yes, retire Pima risk"))
    expect(ticked).to_be_focused()
    assert table_cells(page, 1) == ["Pima risk", "Pima risk"]
    idle_page_is_not_drawn_again(page)

    library.publish(bench, name="Other", intended_use="Screening")
    published = time.monotonic()
    expect(page.locator('[data-testid="stDataFrame"] td[aria-colindex="1"]',
                        has_text="Other")).to_have_count(1, timeout=FOLLOW_TIMEOUT)
    print(f"published by another process, listed on the open Models page after "
          f"{time.monotonic() - published:.2f} s (no reload)")
    assert table_cells(page, 1) == ["Other", "Pima risk", "Pima risk"]
    drawn(page)
    # what the user was doing is as they left it
    expect(choice).to_have_value(re.compile(r"^Pima risk@\u2060?1$"))
    expect(retire).to_be_enabled()
    expect(ticked).to_be_checked()
    expect(ticked).to_be_focused()

    page.evaluate(WATCH)
    library.retire("Other", 1)  # by an admin elsewhere: this admin sees it marked
    retired = time.monotonic()
    try:
        page.wait_for_function("() => window.forestvizChanges > 0", timeout=FOLLOW_TIMEOUT)
    except PlaywrightError as error:  # what the page and the server said meanwhile
        raise AssertionError(f"not followed: {error}\n{wire.since(retired)}") from error
    print(f"retired by another process, the open Models page drawn again after "
          f"{time.monotonic() - retired:.2f} s (no reload)")
    drawn(page)
    retire.click()  # this session's own retirement: said once, the list as it now is
    expect(main.get_by_text(re.compile(r"^Pima risk@\u2060?1 is retired\."))).to_be_visible(
        timeout=TIMEOUT)
    drawn(page)
    choice.click()
    expect(page.get_by_role("option")).to_have_text(
        [re.compile(rf"^{name}@\u2060?{version}{marked}$") for name, version, marked in (
            ("Other", 1, " \\(retired\\)"), ("Pima risk", 2, ""),
            ("Pima risk", 1, " \\(retired\\)"))])
    assert [v.ref for v in library.versions()] == ["Pima risk@2"]
