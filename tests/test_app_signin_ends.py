"""Sign-in that means what it says (issue 36), in the app through Streamlit's AppTest and a real
SQLite library: a roles claim of the wrong shape refused in one line and recorded, never a
crash; an expired token and a signed-out sign-in (its cookie copied before "Sign out") asked to
sign in again, also on a server that did not see the sign-out; the e-mail shown and recorded
only when verified. The same in Chromium against a real provider:
``tests/test_browser_signin_ends.py``."""

import pytest
import streamlit as st

from forestviz.store import StoreConfig, open_library
from tests.signin_helpers import ALL_PAGES, actor, runs, signed_in_app, use_data_dir, user
from tests.test_display import shown
from ui.identity import signin_key
from ui.signin import ENDED

pytestmark = pytest.mark.slow


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    return use_data_dir(tmp_path, monkeypatch)


def trail(data_dir) -> list[list]:
    events = open_library(StoreConfig(data_dir)).audit.query()
    return events[["subject", "email", "action", "detail"]].values.tolist()


def plain(text: str) -> str:
    """Shown Markdown as it reads (``as_text``'s escapes and code spans undone)."""
    return shown(text)


@pytest.mark.parametrize("groups", [{"admin": False}, 1, True, 3.5, ["admin", 1]])
def test_a_roles_claim_of_another_shape_is_refused_in_one_line_and_recorded(groups, data_dir):
    """``{"admin": false}`` signed in as admin (read by its keys); 1, true and 3.5 raised a
    TypeError in the sign-in check, on every page run."""
    at = signed_in_app(user("adam", groups))
    (refusal,) = at.error
    assert plain(refusal.value) == (
        "Sign-in refused: adam@clinic.test has no forestviz role (viewer, analyst or admin): "
        "the 'groups' claim is not a string or a list of strings.")
    assert not [page for page in ALL_PAGES if runs(at, page)]
    assert trail(data_dir) == [[actor("adam"), "adam@clinic.test", "signin_refused",
                                "the 'groups' claim is not a string or a list of strings"]]


def test_an_expired_token_is_asked_to_sign_in_again(data_dir):
    at = signed_in_app(user("adam", "admin", exp=1_700_000_000))
    assert [info.value for info in at.info] == [ENDED]
    assert [button.label for button in at.main.button] == ["Sign in"]
    assert not at.sidebar.caption
    assert not [page for page in ALL_PAGES if runs(at, page)]
    assert trail(data_dir) == []


def test_a_sign_in_ends_on_the_server_when_it_is_signed_out(data_dir):
    """A copy of the sign-in's cookie (the same claims) went on after "Sign out" (the admin's
    case, through the sidebar's button: ``tests/test_browser_signin_ends.py``); on another
    server of the library too (this server's own list cleared: the trail holds it). AppTest
    runs the sidebar of a page of the navigation only once: the gate's button is clicked."""
    nina = user("nina", ["nurse"])
    at = signed_in_app(dict(nina))
    at.button(key="sign_out").click().run()
    assert at.user == {"is_logged_in": False}
    for server in ("this", "another"):
        if server == "another":
            st.cache_resource.clear()  # a server that did not see the sign-out
        copy = signed_in_app(dict(nina))
        assert [info.value for info in copy.info] == [ENDED], server
        assert not copy.error and not [page for page in ALL_PAGES if runs(copy, page)], server
    again = signed_in_app(user("nina", ["nurse"], nonce="another sign-in"))
    assert again.error and not again.info
    assert [event[2:] for event in trail(data_dir)] == [
        ["signin_refused", "no known role in the 'groups' claim"],
        ["signed_out", f"sign-in {signin_key(nina)}"],
        ["signin_refused", "no known role in the 'groups' claim"]]


@pytest.mark.parametrize("verified", [False, "true", None])
def test_an_email_the_provider_did_not_verify_is_neither_shown_nor_recorded(verified,
                                                                            data_dir):
    claims = {"email_verified": verified} if verified is not None else {}
    who = user("vera", "viewer", email="adam@clinic.test", **claims)
    if verified is None:
        del who["email_verified"]
    at = signed_in_app(who)
    assert plain(at.sidebar.caption[0].value) == f"Signed in: {actor('vera')} (viewer)"
    assert trail(data_dir) == [[actor("vera"), None, "signed_in", "role viewer"]]


def test_a_provider_subject_named_local_is_not_the_local_user(data_dir):
    at = signed_in_app(user("local", "viewer"))
    assert plain(at.sidebar.caption[0].value) == "Signed in: local@clinic.test (viewer)"
    assert trail(data_dir)[0][0] == actor("local") != "local"
