"""A closed tab's session is dropped on time, even on a quiet server (issue 25, item 4).

Streamlit keeps a disconnected session (its ``st.session_state``: the uploaded file's bytes,
its parsed table and data set, models) for ``server.disconnectedSessionTTL`` seconds so that a
tab whose connection blinked can resume it. Two things in Streamlit 1.67 keep it longer, and
with it every byte the upload budget (``forestviz.app.uploads``) counts for it:

* its session store (``MemorySessionStorage``, a TTL cache) removes an expired session only
  when the store is *written*, i.e. when another session disconnects;
* the runtime's message loop (``Runtime._loop_coroutine``) keeps the last session it sent
  messages to in a local variable of its ``for`` loop; once no session is connected the loop
  waits without iterating, so that session stays alive, dropped from the store or not, until
  some session connects again. Found with ``gc.get_referrers`` inside a real server: the only
  referrer of the closed session's ``AppSession`` was that coroutine's frame.

On a server with no other visitor both last for ever (the issue: two large uploads from closed
tabs refused every later upload until the server restarted). The app does, after the TTL, what
another visitor's short visit does. Streamlit has no public API to end a session or to wake its
message loop, so this module pins internals of Streamlit 1.67, each named below and checked by
``tests/test_streamlit_pins.py`` (which fails on any other Streamlit version, asking for them to
be re-checked): ``streamlit.runtime.get_instance`` and its ``Runtime.connect_session``,
``handle_backmsg``, ``disconnect_session`` and ``close_session``; the ``SessionClient``
protocol (``write_forward_msg``, ``client_context``); the ``BackMsg`` protobuf's
``file_urls_request``; ``get_script_run_ctx`` for the session's ID. The token below uses the
public ``st.cache_resource``:

* :func:`watch` puts a token in a session-scoped ``st.cache_resource`` on every run;
  Streamlit clears a session's session-scoped resources, calling ``on_release``, on the
  server's event loop as the session disconnects;
* ``on_release`` schedules, on that loop, one nudge for the TTL plus :data:`MARGIN` seconds
  later (one pending nudge for all sessions: a later disconnect postpones it, and that
  disconnect itself writes the store);
* the nudge connects a session with no browser (``Runtime.connect_session``) and asks it for
  upload URLs of no file (``Runtime.handle_backmsg``, a ``file_urls_request`` as a browser
  sends before an upload): its empty answer wakes the message loop, which passes over this
  session and so lets go of the last one; :data:`FLUSH_WAIT` seconds later the nudge
  disconnects it (storing it writes the store, which removes the expired sessions; each
  one's shutdown removes its uploaded files), closes it (``disconnect_session``,
  ``close_session``) and gives the memory back (``ui.memory.give_back``: the garbage
  collector, since a page run's namespace, which holds its tables, is a reference cycle;
  then pyarrow's pool and glibc's heap trimmed).

A session that reconnects within the TTL keeps everything. One that reconnects without a run
and then closes again (a connection that blinked twice with no click in between) has no token
and is dropped at the next visitor's disconnect, as before.
"""

from __future__ import annotations

import asyncio

import streamlit as st
from streamlit import runtime
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui import memory

MARGIN = 1.0  # s after a session's TTL before its expiry is acted on
FLUSH_WAIT = 1.0  # s the nudge's session stays connected (the loop answers within ms)


class _NoBrowser:
    """The SessionClient of the nudge's session: its one answer goes nowhere."""

    client_context = None

    def write_forward_msg(self, msg) -> None:
        """Drop ``msg`` (the empty answer to the nudge's request)."""


class _Nudge:
    """One pending nudge on the server's event loop, due at the latest disconnect's TTL."""

    def __init__(self):
        self.due = 0.0
        self.handle: asyncio.TimerHandle | None = None

    def session_released(self, _token: object) -> None:
        """``on_release`` of a session's token: called on the event loop as it disconnects."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a session shut down off the loop (garbage collected, AppTest)
            return
        self.due = loop.time() + float(st.get_option("server.disconnectedSessionTTL")) + MARGIN
        if self.handle is None:
            self.handle = loop.call_at(self.due, self._fire, loop)

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        if loop.time() < self.due:  # a later disconnect: its session expires later
            self.handle = loop.call_at(self.due, self._fire, loop)
            return
        self.handle = None
        if runtime.exists():
            server = runtime.get_instance()
            session_id = server.connect_session(_NoBrowser(), user_info={})
            request = BackMsg()
            request.file_urls_request.request_id = "session_end"
            server.handle_backmsg(session_id, request)
            loop.call_later(FLUSH_WAIT, _end, server, session_id)


def _end(server: runtime.Runtime, session_id: str) -> None:
    server.disconnect_session(session_id)  # writes the store: expired sessions are removed
    server.close_session(session_id)
    memory.give_back()  # gc, and the freed memory of their uploads back to the system


_NUDGE = _Nudge()


@st.cache_resource(scope="session", on_release=_NUDGE.session_released, show_spinner=False)
def watch() -> object:
    """This session's token, released (and the nudge scheduled) when the session
    disconnects. Called on every run: a session that reconnected gets a new one at its next
    run."""
    return object()


def watch_this_session() -> None:
    """:func:`watch` in a session's run; nothing in a process with no session (a process that
    runs ``app.py`` as its main module without a server, e.g. a spawned worker re-running the
    main module of a test process that ran the app)."""
    if get_script_run_ctx(suppress_warning=True) is not None:
        watch()
