"""Every uploader's cap enforced by the server before it keeps a byte (issue 36, item 6).

``st.file_uploader(max_upload_size=…)`` is a cap the browser enforces; the server checks only
the global ``server.maxUploadSize`` (200 MB): a 199 MB body sent by hand to the Explain
page's 10 MB uploader was kept. The server cannot tell which uploader a file is for until
after it has kept the bytes, so it bounds each session by the uploaders of the page it shows:

* :func:`file_uploader` (every uploader of the app) records its cap for this session's
  current page; ``app.py`` says which page a run shows (:func:`showing`);
* :class:`UploadCaps`, an ASGI middleware in front of Streamlit's upload route, refuses (413)
  a body longer than the largest cap of those uploaders plus :data:`MULTIPART_SLACK` (the
  form's framing): at once by its Content-Length, else as soon as the bytes received pass it,
  before Streamlit parses or stores anything. A session showing no uploader may send none.

A session's record lives in a session-scoped resource and goes with the session.

Why per page and not per widget (read in Streamlit 1.67's source, issue 36): an uploader asks
for upload URLs with a ``FileURLsRequest`` BackMsg holding a random request id (the browser's
``fetchFileURLs``), the files' names and the session id, nothing else;
``AppSession._handle_file_urls_request`` hands names and session to
``UploadedFileManager.get_upload_urls(session_id, file_names)``, which makes a fresh
``uuid4`` file id per name. The browser then PUTs a multipart form holding only the file to
``/_stcore/upload_file/{session_id}/{file_id}``, and the route keeps it at once
(``add_file(session_id, UploadedFileRec(file_id, name, type, data))``). The widget first names
the file id in its value (``FileUploaderState.uploaded_file_info``) in the widget states of the
rerun that follows, after the bytes are kept. So no message before or with the bytes says
which widget they are for, and no public hook could say it: ``st.App`` takes routes and
middleware but no file manager (it builds its own ``MemoryUploadedFileManager``), and a file
manager would be told the same session and names anyway. No page has two uploaders with
different caps today (Data and Train: ``server.maxUploadSize``, Explain: 10 MB), so the
page's bound is its one uploader's; a page that gets two would bound both by the larger.
"""

from __future__ import annotations

import re
import threading
import weakref

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

MULTIPART_SLACK = 64 * 2**10  # bytes of a multipart form around its one file (boundary, names)
UPLOAD_PATH = re.compile(r"/_stcore/upload_file/([^/]+)/[^/]+$")
TOO_LARGE = b"This file is larger than this uploader accepts.\n"


class _Shown:
    """A session's page and the caps (bytes) of the uploaders shown, by (page, widget key)."""

    def __init__(self):
        self.page: str | None = None
        self.caps: dict[tuple[str | None, str], int] = {}

    def allowance(self) -> int:
        """The largest cap of the uploaders of the page shown (0: none)."""
        return max((cap for (page, _), cap in self.caps.items() if page == self.page),
                   default=0)


_LOCK = threading.Lock()
_SESSIONS: weakref.WeakValueDictionary[str, _Shown] = weakref.WeakValueDictionary()


@st.cache_resource(scope="session", show_spinner=False)
def _shown(session_id: str) -> _Shown:
    """This session's record, registered by its id while the session holds it."""
    shown = _Shown()
    with _LOCK:
        _SESSIONS[session_id] = shown
    return shown


def _this_session() -> _Shown | None:
    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else _shown(ctx.session_id)


def showing(page: str) -> None:
    """This session's run shows ``page`` (its URL path): only its uploaders' caps count."""
    shown = _this_session()
    if shown is not None:
        shown.page = page


def file_uploader(label: str, *, key: str, max_mb: int | None = None, **options):
    """``st.file_uploader`` capped at ``max_mb`` (default: ``server.maxUploadSize``) in the
    browser and, through :class:`UploadCaps`, on the server."""
    shown = _this_session()
    if shown is not None:
        cap_mb = max_mb or int(st.get_option("server.maxUploadSize"))
        shown.caps[shown.page, key] = cap_mb * 2**20
    return st.file_uploader(label, key=key, max_upload_size=max_mb, **options)


def allowance(session_id: str) -> int:
    """Bytes a body sent to ``session_id``'s upload URL may hold (0: no uploader shown)."""
    with _LOCK:
        shown = _SESSIONS.get(session_id)
    cap = 0 if shown is None else shown.allowance()
    return cap + MULTIPART_SLACK if cap else 0


class _TooLarge(Exception):
    """Raised into the upload route when its body passes the session's allowance."""


class UploadCaps:
    """ASGI middleware: an upload (PUT to Streamlit's upload route) longer than its session's
    :func:`allowance` is answered with 413 before the route keeps any of it."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        found = UPLOAD_PATH.search(scope.get("path", "")) if scope["type"] == "http" else None
        if found is None or scope["method"] != "PUT":
            await self.app(scope, receive, send)
            return
        limit = allowance(found.group(1))
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > limit:
            await _refuse(send)
            return
        received, started = 0, False

        async def counted():
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                raise _TooLarge
            return message

        async def tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _TooLarge:
            if not started:
                await _refuse(send)


async def _refuse(send) -> None:
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(TOO_LARGE)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": TOO_LARGE})
