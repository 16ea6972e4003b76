"""Sign-in for the pages (issue 28): who may use them, the page shown to everybody else, and
the sidebar line saying who is signed in (or that the server runs in local mode).

A session whose identity (:func:`ui.identity.who`) has no role sees one page only: the
sign-in button while nobody is signed in, or once the sign-in has expired or been signed out
(said in one line); a one-line refusal and a sign-out button for a token naming no known role
(recorded once per sign-in as ``signin_refused`` in the audit trail); a one-line error when the
sign-in settings cannot be read. Signing out ends the sign-in on the server too
(:mod:`ui.signout`). ``app.py``'s navigation lists only
the pages of the session's role, and each page's first call, :func:`guard`, stops a run that
Streamlit starts on a page file directly, past ``app.py`` (see there).
"""

from pathlib import Path

import streamlit as st

from forestviz.store import waits
from forestviz.store.config import StoreError
from ui.access import may_use
from ui.display import as_text
from ui.identity import Identity, SignInSettingsError, who
from ui.library import required
from ui.signout import revoke

LOCAL_MODE = "local mode: no sign-in"
NOT_AVAILABLE = "This page is not available: sign in on the app's first page."
ENDED = "Your sign-in has ended (it expired, or it was signed out): sign in again."
RECORDED = "signin_recorded"  # session keys RECORDED:action:sign-in: the event is in the trail


def admitted() -> Identity | None:
    """This session's identity if it may use the pages (it has a role), else None."""
    try:
        identity = who()
    except SignInSettingsError:
        return None
    return identity if identity is not None and identity.role is not None else None


def gate() -> None:
    """The only page of a session :func:`admitted` lets in nowhere."""
    st.title("forestviz", anchor=False)
    try:
        identity = who()
    except SignInSettingsError as err:
        st.error(str(err), icon=":material/error:")  # the app's own words
        return
    if identity is None:
        if st.user.get("is_logged_in") is True:  # a sign-in that who() no longer accepts
            st.info(ENDED, icon=":material/lock_clock:")
        else:
            st.write("Sign in to use forestviz.")
        if st.button("Sign in", type="primary", icon=":material/login:", key="sign_in"):
            st.login()
        return
    record_once(identity, "signin_refused", identity.refusal)
    st.error(f"Sign-in refused: {as_text(shown_name(identity))} has no forestviz role "
             f"(viewer, analyst or admin): {as_text(identity.refusal)}.",
             icon=":material/block:")
    sign_out_button(identity)


def record_once(identity: Identity, action: str, detail: str | None = None) -> None:
    """Append ``action`` (``signed_in`` or ``signin_refused``) by ``identity`` to the audit
    trail once per sign-in; a library that cannot be used is said in one line (the session
    goes on, a refusal stands)."""
    key = f"{RECORDED}:{action}:{identity.signin}"
    if st.session_state.get(key):
        return
    try:
        required().audit.record(identity.actor, action, detail=detail)
    except StoreError as err:
        st.warning(as_text(err), icon=":material/warning:")
        return
    st.session_state[key] = True


def show_identity(identity: Identity) -> None:
    """The sidebar's line: who is signed in, with which role, and a sign-out button (the
    session's ``signed_in`` event recorded once); or that this server has no sign-in."""
    with st.sidebar:
        if not identity.signed_in:
            st.caption(LOCAL_MODE)
            return
        st.caption(f"Signed in: {as_text(shown_name(identity))} ({identity.role})")
        sign_out_button(identity)
    record_once(identity, "signed_in", f"role {identity.role}")


def shown_name(identity: Identity) -> str:
    """The token's e-mail when the provider verified it, else its (issuer's) subject."""
    return identity.actor.email or identity.actor.subject


def guard(page: str) -> None:
    """A page's first call: stop its run unless this session's role may use ``page`` (its
    ``ui.access.PAGES`` name). The navigation leaves such a page out already, but
    Streamlit runs a page file directly, past ``app.py``, while no run of the process has
    called ``st.navigation`` yet (its multipage mode of a ``pages/`` folder: a fresh server's
    first visit by a page's URL), so the run's budget of lock waits on the library begins here
    too unless ``app.py`` began it (:func:`forestviz.store.waits.page_run`)."""
    waits.page_run(renew=False)
    identity = admitted()
    if identity is None or not may_use(identity.role, page):
        st.error(NOT_AVAILABLE, icon=":material/block:")
        st.stop()


def page_link(path: str, label: str, icon: str) -> None:
    """``st.page_link`` to ``path`` (``pages/NAME.py``, NAME as in ``ui.access.PAGES``)
    if this session's role may use that page: a page the navigation leaves out has no link."""
    identity = admitted()
    if identity is not None and may_use(identity.role, Path(path).stem):
        st.page_link(path, label=label, icon=icon)


def sign_out_button(identity: Identity) -> None:
    """Sign out: the sign-in ends on the server (:func:`ui.signout.revoke`), then in the
    browser and at the provider (``st.logout``)."""
    if st.button("Sign out", icon=":material/logout:", key="sign_out"):
        revoke(identity.actor, identity.signin)
        st.logout()
