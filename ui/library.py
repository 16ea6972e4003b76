"""The model library in the app (:mod:`forestviz.store`): the server's connection to it, the
session's opened model, the audit trail's events and the signatures of files.

The library is opened once per server and configuration (:func:`library`). When it cannot be
used (:class:`~forestviz.store.StoreUnavailable`: a database that does not answer, a data
directory that cannot be written) the app works in memory only: every page says so in one
sidebar line (:func:`notices`), uploading, training and explaining work as before, publishing
and opening are off, and the library is tried again every :data:`RETRY_SECONDS`. It is
opened in a thread of its own, from the server's start (:mod:`ui.launch`), which then loads the
newest published models into its cache (:meth:`forestviz.store.ModelLibrary.warm`), so the
first session after a restart opens them at once and the first page imports no database
package.

Every event names :func:`ui.identity.who`'s actor (:func:`identity`). A row explained is
recorded once per distinct row, model and warnings shown in a session (a rerun of the same row
adds nothing), with what :mod:`forestviz.store.explained` says of it: the model's blob, the
row's ID and the keyed digest of its values (:mod:`forestviz.store.digests`: HMAC-SHA256 under
the server's audit key), the answer and the warnings shown.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from forestviz.store.config import StoreConfig, StoreError, StoreUnavailable
from forestviz.store.signing import WARNING
from ui.display import as_text

if TYPE_CHECKING:
    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Bundle
    from forestviz.explain import Explanation
    from forestviz.explain.row.glance import Glance
    from forestviz.store import ModelLibrary, ModelVersion
    from forestviz.store.actor import Actor
    from forestviz.store.digests import Digests
    from forestviz.store.disputes import Dispute
    from ui.identity import Identity

RETRY_SECONDS = 30.0  # an unavailable library is tried again after this long
OPEN_WAIT = 20.0  # s a page waits for the library's first opening (a database server's answer)
OPENED = "library_opened"  # (Bundle, ModelVersion): the published model opened in this session
EXPLAINED = "library_explained"  # {(model, detail)} recorded as row_explained in this session
STILL_OPENING = "The model library is still opening (its database answers slowly); try again."


class _Connection:
    """The library of one configuration, or why it cannot be used, opened in a thread of its
    own (its database packages and migrations stay off the first page's run: :mod:`ui.launch`
    starts it with the server) and tried again after :data:`RETRY_SECONDS` when it could not
    be; once open, the same thread loads the newest published models into its cache
    (:meth:`forestviz.store.ModelLibrary.warm`). One per server, shared by its sessions."""

    def __init__(self, config: StoreConfig):
        self.config = config
        self._lock = threading.Lock()
        self._library, self._error, self._tried = None, None, -math.inf
        self._attempt = threading.Event()
        self._attempt.set()
        self._start()

    def _start(self) -> None:
        """Begin an attempt unless one is running or the last failed less than
        :data:`RETRY_SECONDS` ago (from the constructor, or under :meth:`get`'s lock)."""
        if self._library is not None or not self._attempt.is_set():
            return
        if time.monotonic() - self._tried < RETRY_SECONDS:
            return
        self._tried = time.monotonic()
        self._attempt = threading.Event()
        threading.Thread(target=self._open, args=(self._attempt,), daemon=True,
                         name="forestviz-library").start()

    def _open(self, done: threading.Event) -> None:
        from forestviz.store import open_library

        try:
            found, error = open_library(self.config), None
        except StoreUnavailable as err:
            found, error = None, str(err)
        with self._lock:
            self._library, self._error = found, error
        done.set()
        if found is not None:
            with contextlib.suppress(StoreError):  # a database gone meanwhile: on demand
                found.warm()

    def get(self, wait: float) -> tuple[ModelLibrary | None, str | None]:
        """(library, None), (None, why) or, while an attempt is still running after ``wait``
        seconds, (None, None)."""
        with self._lock:
            self._start()
            attempt = self._attempt
        attempt.wait(wait)
        with self._lock:
            return self._library, self._error


@st.cache_resource(show_spinner=False)
def _connection(config: StoreConfig) -> _Connection:
    return _Connection(config)


def start() -> None:
    """Begin opening the library of this server's configuration (:mod:`ui.launch`)."""
    _connection(StoreConfig.from_env())


def library() -> ModelLibrary | None:
    """The server's model library, or None in memory-only mode."""
    return _connection(StoreConfig.from_env()).get(OPEN_WAIT)[0]


def required() -> ModelLibrary:
    """The server's model library for what cannot go on without it (the audit trail's page, a
    sign-in's record): :class:`~forestviz.store.StoreError` with the one-line reason in
    memory-only mode or while it is still opening."""
    found, why = _connection(StoreConfig.from_env()).get(OPEN_WAIT)
    if found is None:
        raise StoreError(why or STILL_OPENING)
    return found


def unavailable() -> str | None:
    """Why the library cannot be used (one line), or None when it can (or is still
    opening)."""
    return _connection(StoreConfig.from_env()).get(OPEN_WAIT)[1]


def why_not_usable() -> str:
    """The line to show where :func:`library` is None."""
    return unavailable() or STILL_OPENING


def notices(bundle: Bundle | None) -> None:
    """What every page says first (:func:`ui.models.follow_jobs`): memory-only mode (in the
    sidebar) and, above the page, the origin warning of the session's current model
    ``bundle``."""
    message = unavailable()
    if message is not None:
        st.sidebar.warning(as_text(message), icon=":material/cloud_off:")
    if bundle is not None and bundle.origin_warning is not None:
        st.warning(as_text(f"The current model: {bundle.origin_warning}."),
                   icon=":material/gpp_maybe:")


def identity() -> Identity:
    """:func:`ui.identity.who`, imported on first use: its actor's module (the audit trail's,
    with SQLAlchemy) stays off the first page's imports."""
    from ui.identity import who

    return who()


# ---------------------------------------------------------------------- the opened model
def published_ref(bundle: Bundle | None) -> ModelVersion | None:
    """The published version ``bundle`` was opened from in this session, or None."""
    held = st.session_state.get(OPENED)
    return held[1] if held is not None and bundle is not None and held[0] is bundle else None


def model_key(bundle: Bundle) -> tuple[str, int] | None:
    """The (name, version) the audit trail records for ``bundle``: its published version, or
    None for a model trained or loaded in this session."""
    info = published_ref(bundle)
    return None if info is None else (info.name, info.version)


# ---------------------------------------------------------------------- the audit trail
def record(action: str, *, model: tuple[str, int] | None = None,
           detail: str | None = None, actor: Actor | None = None) -> None:
    """Append one event by ``actor`` (default: this session's); nothing in memory-only mode; a
    database that stops answering is said in one line and the page goes on."""
    found = library()
    if found is None:
        return
    try:
        found.audit.record(actor or identity().actor, action, model=model, detail=detail)
    except StoreError as err:
        _not_recorded(err)


def _not_recorded(err: StoreError) -> None:
    st.warning(as_text(f"Not recorded in the audit trail: {err}"), icon=":material/warning:")


def digest(make: Callable[[Digests], str]) -> str | None:
    """``make(digests)``, a keyed digest of values for the trail
    (:class:`forestviz.store.digests.Digests`); None in memory-only mode (nothing is
    recorded) or, said in one line, when the server's audit key cannot be used."""
    found = library()
    if found is None:
        return None
    try:
        return make(found.audit.digests)
    except StoreError as err:
        _not_recorded(err)
        return None


def batch_explained(bench: Workbench, rows: pd.DataFrame, *, unfamiliar: int = 0) -> dict:
    """Record that this session explained the uploaded ``rows`` with the current model (its
    blob, or a session model's digest: :func:`forestviz.store.explained.model_facts`), by
    their count and keyed digest, and how many of them were flagged as unlike the training
    rows (:mod:`forestviz.explain.row.familiar`); those facts, for the downloads' events."""
    from forestviz.store.audit import facts
    from forestviz.store.explained import model_facts

    info = published_ref(bench.model)
    batch = {**model_facts(bench, None if info is None else info.blob_sha256),
             "rows": len(rows), "rows_digest": digest(lambda found: found.rows(rows)
                                                      .hexdigest()),
             "unfamiliar": unfamiliar}
    record("rows_explained", model=model_key(bench.model), detail=facts(**batch))
    return batch


def downloaded(model: tuple[str, int] | None, batch: dict, file_name: str,
               data: bytes) -> None:
    """Record that this session downloaded ``data`` as ``file_name``, the explanations of
    the ``batch`` (:func:`batch_explained`): the file's name and keyed digest (a download
    button's ``on_click``, which runs in the session)."""
    from forestviz.store.audit import facts

    record("explanations_downloaded", model=model, detail=facts(
        **batch, file=file_name, file_digest=digest(lambda found: found.data(data))))


def row_explained(bench: Workbench, explanation: Explanation, glance: Glance, *,
                  row: str | None = None, patient: str | None = None,
                  counterfactual: bool = False) -> dict | None:
    """Record that this session explained a row with the current model, once per distinct
    row, model and warnings shown in the session: the facts of
    :func:`forestviz.store.explained.explanation_facts` (the published blob or the session
    model's digest, the row's ``row`` ID or typed ``patient`` identifier and the keyed digest
    of its values, the answer, the warnings shown, ``counterfactual`` when a confirmed change
    that would change the answer was shown: :mod:`ui.counterfactual_view`). Those facts (for
    a disagreement: :func:`disputed`), or None when nothing can be recorded (memory-only mode,
    or said in one line)."""
    from forestviz.store.audit import facts
    from forestviz.store.explained import explanation_facts

    found = library()
    if found is None:
        return None
    info = published_ref(bench.model)
    try:
        items = explanation_facts(bench, explanation, glance, digests=found.audit.digests,
                                  blob_sha256=None if info is None else info.blob_sha256,
                                  row=row, patient=patient, counterfactual=counterfactual)
    except StoreError as err:
        _not_recorded(err)
        return None
    detail = facts(**items)
    seen = st.session_state.setdefault(EXPLAINED, set())
    key = (id(bench.model), detail)
    if key not in seen:
        seen.add(key)
        record("row_explained", model=model_key(bench.model), detail=detail)
    return items


def disputed(bench: Workbench, items: dict, kind: str, reason: str) -> Dispute:
    """Record that this session's actor disagrees with the explanation of ``items`` (its
    facts: :func:`row_explained`) or acted otherwise, with a ``reason``
    (:meth:`forestviz.store.audit.AuditTrail.dispute`); StoreError (one line) when it cannot
    be recorded or is refused."""
    return required().audit.dispute(identity().actor, items, kind, reason,
                                    model=model_key(bench.model))


def disputes(items: dict | None) -> list[Dispute]:
    """The disagreements recorded with the explanation of ``items`` (its facts:
    :func:`row_explained`), by anyone on any replica, oldest first: the row's record lists
    them (:meth:`forestviz.store.audit.AuditTrail.disputes`); none when nothing is recorded
    (memory-only mode) or the trail cannot be read (said in one line)."""
    found = library()
    if items is None or found is None:
        return []
    try:
        return found.audit.disputes(items, actor=identity().actor)
    except StoreError as err:
        st.warning(as_text(f"The disagreements recorded with this row could not be read: {err}"),
                   icon=":material/warning:")
        return []


def audited_report(make: Callable, bench: Workbench, items: dict,
                   file_names: dict[str, str]) -> Callable:
    """``make`` (a report maker, ``pdf=True`` for the PDF) that records, once it has made
    the report, that this session's actor downloaded it: the explanation's ``items`` (its facts,
    :func:`row_explained`: filled in by the page once they are known, before any click), the
    file's name (``file_names``: by "html" and "pdf") and the keyed digest of its bytes, as
    ``forestviz report`` records a report it writes. The actor is read now, in the page's run:
    a download button's maker runs outside it, where nobody is signed in (``st.user`` is
    empty)."""
    from forestviz.store.audit import facts

    model, actor = model_key(bench.model), identity().actor

    def report(**options):
        made = make(**options)
        data = made.encode("utf-8") if isinstance(made, str) else made
        name = file_names["pdf" if options.get("pdf") else "html"]
        record("report_downloaded", model=model, actor=actor, detail=facts(
            **items, file=name, file_digest=digest(lambda found: found.data(data))))
        return made

    return report


# ---------------------------------------------------------------------- signed files
def signed(make: Callable[[], bytes]) -> Callable[[], bytes]:
    """A download maker whose model file carries this server's signature (unsigned in
    memory-only mode, where there is no key to sign with); a key that cannot be used (too
    short, empty, unreadable) is said in one line where the download is laid out, and the
    file goes out unsigned."""
    found = library()
    problem = None if found is None else found.signing_problem()
    if problem is not None:
        st.warning(as_text(f"Model files download unsigned: {problem} This server will not "
                           "know them as its own."), icon=":material/gpp_maybe:")

    def data() -> bytes:
        made = make()
        try:
            return made if found is None or problem is not None else found.sign_download(made)
        except StoreError:  # the key went bad since the page run: said on the next one
            return made

    return data


def file_warning(data: bytes) -> str | None:
    """The origin warning of an uploaded model file: None when this server signed it, else
    the unsigned (or changed) file's line; in memory-only mode nothing can be verified."""
    found = library()
    try:
        return WARNING if found is None else found.verify_file(data).warning
    except StoreError:  # no usable key: nothing can be verified
        return WARNING
