"""A click that changes page while the old page's timer ticks, in Debian Chromium against the
real server (``ui.stale_ticks``): Home follows the library with a one-second timer; its button
opens Explain from the server (``st.switch_page``). A tick of Home's timer that reached the
server while Explain ran left the page blank for good (a browser test, once, on a loaded
machine). Here the test sits between the page and the server's websocket
(``page.route_web_socket``) and makes that order happen every time: it keeps one of Home's
ticks, holds the server's messages to the page from the click on, and hands the kept tick to the
server as soon as the server announces Explain's run. Explain is then drawn and stays."""

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser_helpers import run_ended
from tests.test_browser_flows import TIMEOUT
from tests.test_browser_guesses import DEFAULT

pytestmark = pytest.mark.browser

FRAGMENT_DONE = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


def is_tick(data: bytes) -> bool:
    """Whether a page's message is a timer's rerun of a fragment."""
    message = BackMsg.FromString(data)
    return message.WhichOneof("type") == "rerun_script" and message.rerun_script.is_auto_rerun


class Relay:
    """The page's websocket to the server, passed through message by message, except that it
    can keep the page's next tick (``keep_tick``) and hold the server's messages (``hold``);
    the kept tick goes to the server as soon as a whole run names a page other than the tick's
    (its ``navigation`` message, at the top of ``app.py``), so that it arrives while that run
    goes on."""

    def __init__(self) -> None:
        self.keep_tick = self.hold = False
        self.kept: bytes | None = None
        self.tick_page: str | None = None
        self.held: list[bytes] = []
        self.pages: list[str] = []  # the page each whole run named (its navigation message)
        self.fragment_runs = 0  # fragment runs the server finished
        self.delivered_late = False

    def route(self, page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()

        def from_page(data) -> None:
            if self.keep_tick and self.kept is None and is_tick(data):
                self.kept, self.keep_tick = data, False
                self.tick_page = BackMsg.FromString(data).rerun_script.page_script_hash
                return
            server_side.send(data)

        def from_server(data) -> None:
            message = ForwardMsg.FromString(data)
            kind = message.WhichOneof("type")
            if kind == "script_finished" and message.script_finished == FRAGMENT_DONE:
                self.fragment_runs += 1
            if kind == "navigation":
                self.pages.append(message.navigation.page_script_hash)
                if self.kept is not None and self.pages[-1] != self.tick_page:
                    server_side.send(self.kept)  # while the new page runs
                    self.kept, self.delivered_late = None, True
            if self.hold:
                self.held.append(data)
            else:
                page_side.send(data)

        page_side.on_message(from_page)
        server_side.on_message(from_server)
        self.page_side = page_side

    def release(self) -> None:
        self.hold = False
        for data in self.held:
            self.page_side.send(data)
        self.held.clear()


def wait_until(page: Page, condition, seconds: float) -> None:
    for _ in range(int(seconds * 10)):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"not within {seconds} s")


def test_a_tick_of_the_page_left_never_blanks_the_page_opened(page: Page, dialogs):
    relay = Relay()
    page.route_web_socket("**/_stcore/stream", relay.route)
    page.goto("/")
    main = page.get_by_test_id("stMain")
    button = main.get_by_role("button", name=DEFAULT)
    expect(button).to_be_enabled(timeout=TIMEOUT)
    run_ended(page)
    wait_until(page, lambda: relay.fragment_runs > 0, 10)  # Home's timer ticks every second
    relay.keep_tick = True
    wait_until(page, lambda: relay.kept is not None, 10)
    home = relay.tick_page
    relay.hold = True
    clicked = len(relay.pages)
    button.click()
    wait_until(page, lambda: relay.delivered_late, 30)  # the tick went in as Explain ran
    page.wait_for_timeout(1500)  # the server has run Explain, and the tick if it took it
    relay.release()
    heading = main.get_by_role("heading", name="Explain", exact=True)
    expect(heading).to_be_visible(timeout=TIMEOUT)
    run_ended(page)
    page.wait_for_timeout(1500)
    expect(heading).to_be_visible()
    expect(main.get_by_text("Most fragile test").first).to_be_visible()
    # the click's run on Home (and more of Home's while the server's default model is still
    # loading: Home follows that training and opens Explain when it ends), then Explain's,
    # and Home's no more
    after = relay.pages[clicked:]
    left = next((k for k, name in enumerate(after) if name != home), len(after))
    assert 0 < left < len(after) and home not in after[left:], (home, after)
    assert dialogs == []
