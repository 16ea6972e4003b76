"""``ui.stale_ticks`` on the messages themselves (Streamlit's own protobuf classes): a timer's tick
naming a page other than the one the server last named, or coming while a whole run has not
named its page, never reaches the app; everything else does, in order. The race it closes, in
the browser: ``tests/test_browser_stale_ticks.py``."""

import asyncio

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from ui.stale_ticks import PageOfRun, StaleTicks


def navigation(page: str) -> bytes:
    message = ForwardMsg()
    message.navigation.page_script_hash = page
    return message.SerializeToString()


def run_started(page: str, fragment: str | None = None) -> bytes:
    message = ForwardMsg()
    message.new_session.page_script_hash = page
    if fragment is not None:
        message.metadata.run.fragment_ids.append(fragment)
    return message.SerializeToString()


def rerun(page: str, *, tick: bool, fragment: str = "") -> bytes:
    message = BackMsg()
    message.rerun_script.page_script_hash = page
    message.rerun_script.is_auto_rerun = tick
    message.rerun_script.fragment_id = fragment
    return message.SerializeToString()


def heartbeat() -> bytes:
    message = BackMsg()
    message.app_heartbeat = True
    return message.SerializeToString()


def test_a_tick_passes_only_for_the_page_the_server_named_last():
    run = PageOfRun()
    assert not run.stale(rerun("home", tick=True, fragment="f"))  # nothing named yet
    run.announced(run_started("main"))
    assert run.stale(rerun("home", tick=True, fragment="f"))  # a whole run, its page unnamed
    run.announced(navigation("home"))
    assert not run.stale(rerun("home", tick=True, fragment="f"))
    run.announced(run_started("home", fragment="f"))  # a fragment's run changes no page
    assert not run.stale(rerun("home", tick=True, fragment="f"))
    run.announced(run_started("home"))
    run.announced(navigation("explain"))  # the click's run switched to Explain
    assert run.stale(rerun("home", tick=True, fragment="f"))
    assert not run.stale(rerun("explain", tick=True, fragment="g"))
    assert not run.stale(rerun("home", tick=False))  # a click or a page change: never dropped
    assert not run.stale(heartbeat())
    assert not run.stale(b"\xff\xff not a message")
    run.announced(b"\xff\xff not a message")  # ignored: the page stays
    assert run.stale(rerun("home", tick=True, fragment="f"))


def through(scope: dict, browser: list[bytes], server: list[bytes]) -> tuple[list, list]:
    """What an app behind :class:`StaleTicks` receives of ``browser``'s messages while it sends
    ``server``'s, one after the other, and what the browser receives."""
    received, sent = [], []
    incoming = [{"type": "websocket.receive", "bytes": data} for data in browser]
    incoming.append({"type": "websocket.disconnect"})

    async def app(scope, receive, send):
        for data in server:
            await send({"type": "websocket.send", "bytes": data})
        while (message := await receive())["type"] != "websocket.disconnect":
            received.append(message["bytes"])

    async def receive():
        return incoming.pop(0)

    async def send(message):
        sent.append(message["bytes"])

    asyncio.run(StaleTicks(app)(scope, receive, send))
    return received, sent


WEBSOCKET = {"type": "websocket", "path": "/_stcore/stream"}


@pytest.mark.parametrize("path", ["/_stcore/stream", "/base/_stcore/stream"])
def test_the_websocket_loses_only_the_stale_ticks(path):
    server = [run_started("home"), navigation("explain")]
    browser = [rerun("home", tick=True, fragment="f"), rerun("explain", tick=False),
               heartbeat(), rerun("explain", tick=True, fragment="g")]
    received, sent = through({**WEBSOCKET, "path": path}, browser, server)
    assert received == browser[1:]
    assert sent == server


def test_other_routes_pass_untouched():
    server = [run_started("home"), navigation("explain")]
    browser = [rerun("home", tick=True, fragment="f")]
    for scope in ({"type": "websocket", "path": "/other"}, {"type": "http", "path": "/"}):
        assert through(scope, browser, server) == (browser, server)
