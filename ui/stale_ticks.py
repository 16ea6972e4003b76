"""A timer's tick from a page the session has left is dropped (Streamlit 1.67's page-switch race).

A fragment with ``run_every`` is a timer in the browser: every period it asks the server to run
that fragment again, naming the page the browser shows (the library's follow on Home and Models,
:mod:`ui.catalog`; a training's progress in the sidebar, :mod:`ui.models`). When a click makes
the server change page (``st.switch_page``: Home's button, an Open button, the lesson's link to
Explain), the browser keeps the old page's timers until the new page's first message reaches it.
A tick sent meanwhile that reaches the server while the new page runs is queued with the old
page's name; Streamlit runs it after that run, tells the browser the old page is back, finds the
fragment gone and draws nothing: a blank page that stays blank (seen in a browser test on a
loaded machine; ``tests/test_browser_stale_ticks.py`` makes it happen every time by holding the
server's messages and delivering a tick while Explain runs).

This ASGI middleware, in front of the app's websocket (``app.py``), follows the page the server
says the session is on (each whole run names it as it starts) and drops a timer's rerun
(``is_auto_rerun``) that names another page, or that comes while a whole run has not named its
page yet: the browser, about to learn of the new page, clears those timers itself, and a whole
run redraws the fragments of its page anyway. Clicks, page changes and every other message pass
unchanged. Left open: a tick that reaches the server in the instant between the switch and the
new run's first message leaving it (before, the new page's whole run was the window). Reading
a message the server sends costs about 0.1 ms a megabyte (``ForwardMsg.FromString``: a 2 MB
chart's, 0.23 ms); the messages read are Streamlit's own protobuf classes, and the browser test
checks what they say against the real server.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

STREAM = "_stcore/stream"  # the app's websocket, under the server's base path
CHANGING = ""  # no page's hash: a whole run has started and not yet said its page


class PageOfRun:
    """The page a connection's session is on, as the server announced it: each whole run says
    its page in its ``navigation`` message (``st.navigation``, at the top of ``app.py``), after
    the ``new_session`` message that starts it; in between, the page is :data:`CHANGING`."""

    def __init__(self) -> None:
        self.page: str | None = None  # None: no run yet, nothing to compare with

    def announced(self, data: bytes) -> None:
        """Take in a message the server sends (a serialized ``ForwardMsg``)."""
        try:
            message = ForwardMsg.FromString(data)
        except DecodeError:
            return
        kind = message.WhichOneof("type")
        if kind == "new_session" and not message.metadata.run.fragment_ids:
            self.page = CHANGING
        elif kind == "navigation":
            self.page = message.navigation.page_script_hash

    def stale(self, data: bytes) -> bool:
        """Whether a message the browser sends is a timer's rerun of another page than the
        session's (any page, while a whole run has not said its own yet)."""
        if self.page is None:
            return False
        try:
            message = BackMsg.FromString(data)
        except DecodeError:
            return False
        if message.WhichOneof("type") != "rerun_script":
            return False
        rerun = message.rerun_script
        return rerun.is_auto_rerun and rerun.page_script_hash != self.page


class StaleTicks:
    """ASGI middleware: a timer's tick that names a page the session has left never reaches the
    session."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket" or not scope.get("path", "").endswith(STREAM):
            await self.app(scope, receive, send)
            return
        run = PageOfRun()

        async def receive_fresh():
            while True:
                message = await receive()
                data = message.get("bytes") if message["type"] == "websocket.receive" else None
                if not (data and run.stale(data)):
                    return message

        async def send_watched(message):
            if message["type"] == "websocket.send" and message.get("bytes"):
                run.announced(message["bytes"])
            await send(message)

        await self.app(scope, receive_fresh, send_watched)
