"""Signing out ends a sign-in on the server, not only in the browser (issue 36): Streamlit's
sign-in cookie is signed but lives on (30 days) wherever it was copied, so a sign-out adds the
sign-in's key (:func:`ui.identity.signin_key`, the same for every copy of the cookie) to this
server's list and records it as a ``signed_out`` event in the audit trail, which every server
of the library reads. :func:`ui.identity.who` asks :func:`revoked` on every page run.

A library that cannot be used (memory-only mode, a database that stops answering) leaves this
server's own list: a sign-out is then not seen by the other servers until the library is back
(``docs/security.md``)."""

from __future__ import annotations

import contextlib
import time

import streamlit as st

from forestviz.store.actor import Actor
from forestviz.store.config import StoreError
from ui.library import library

SIGNED_OUT = "sign-in "  # a signed_out event's detail: this, then the sign-in's key
RECHECK_SECONDS = 1.0  # a session asks the trail again after this long (a page run's calls: once)
CHECKED = "signout_checked"  # session key: {sign-in key: when the trail last said "not revoked"}


@st.cache_resource(show_spinner=False)
def _revoked_here() -> set[str]:
    """The sign-ins signed out on this server (kept for the server's life)."""
    return set()


def revoke(actor: Actor, key: str) -> None:
    """End the sign-in ``key`` of ``actor`` on this server and, when the library can be used,
    in the trail (the browser is on its way to the provider's sign-out: nothing to show)."""
    _revoked_here().add(key)
    found = library()
    if found is not None:
        with contextlib.suppress(StoreError):
            found.audit.record(actor, "signed_out", detail=SIGNED_OUT + key)


def revoked(key: str, subject: str) -> bool:
    """Whether the sign-in ``key`` of the actor ``subject`` was signed out, here or on
    another server of the library (asked at most every :data:`RECHECK_SECONDS` per session)."""
    if key in _revoked_here():
        return True
    checked = st.session_state.setdefault(CHECKED, {})
    if time.monotonic() - checked.get(key, -RECHECK_SECONDS) < RECHECK_SECONDS:
        return False
    found = library()
    if found is None:
        return False
    try:
        events = found.audit.query(action="signed_out", who=subject)
    except StoreError:
        return False  # the page says the library is unavailable; this server's list holds
    if (events["detail"] == SIGNED_OUT + key).any():
        _revoked_here().add(key)
        return True
    checked[key] = time.monotonic()
    return False
