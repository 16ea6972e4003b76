"""Sign-in in Debian Chromium against a real OpenID Connect provider: ``oidc-provider-mock``
(real discovery, authorization, token and JWKS endpoints, RS256-signed ID tokens) started by
the test, and the app started with a ``secrets.toml`` of its own whose ``[auth]`` section
points at it, as an operator would write it. Each user signs in through the provider's
form, in a browser context of its own; the audit trail is read from the app's real SQLite
file in its ``FORESTVIZ_DATA_DIR``."""

import contextlib
import json
import os
import re
import secrets
import urllib.request
from pathlib import Path

import pandas as pd
import pytest
from oidc_provider_mock import User, run_server_in_thread
from playwright.sync_api import Page, expect

from bench.appserver import AppServer
from forestviz.store import StoreConfig, open_library
from tests.conftest import SERVER_START_TIMEOUT
from ui.audit_view import matching

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT = 60_000  # ms: a first run imports the app's packages on two busy cores
CLAIM = "forestviz_roles"  # not the default "roles": the configured claim is the one read
USERS = {  # sub → (e-mail, the claim's value)
    "vera": ("vera@clinic.test", ["viewer"]),
    "anna": ("anna@clinic.test", "analyst"),
    "adam": ("adam@clinic.test", ["viewer", "admin"]),
    "nina": ("nina@clinic.test", ["nurse"]),  # no forestviz role: refused
}
VIEWER_PAGES = ["Home", "Explain", "Models", "Forest", "Paper lab", "Glossary"]
HOME_TEXT = "Data set in use"  # a heading of the Home page


@contextlib.contextmanager
def oidc_provider(users: dict, **options):
    """The OIDC provider on a free port of localhost (the app is served on 127.0.0.1: the
    browser keeps the two sites' cookies apart) with ``users`` (sub → (e-mail, the claim's
    value)), their e-mails verified; its base URL, which is also its tokens' issuer."""
    claims = [User(sub=sub, claims={"email": email, "email_verified": True, CLAIM: roles})
              for sub, (email, roles) in users.items()]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # the provider's token endpoint on http
        with run_server_in_thread(user_claims=claims, **options) as server:
            url = f"http://localhost:{server.server_port}"
            with urllib.request.urlopen(f"{url}/.well-known/openid-configuration",
                                        timeout=10) as answer:
                assert json.load(answer)["jwks_uri"].startswith(url)
            yield url


@pytest.fixture(scope="module")
def provider():
    """The provider of :data:`USERS` that the tests of this module share."""
    with oidc_provider(USERS) as url:
        yield url


@contextlib.contextmanager
def serve_with_signin(provider: str, folder: Path):
    """The app with a secrets.toml of its own that points at ``provider``: its URL and data
    directory."""
    data_dir = folder / "var"
    server = AppServer(folder, options=["--secrets.files", str(folder / "secrets.toml")],
                       env={"FORESTVIZ_DATA_DIR": str(data_dir)},
                       start_timeout=SERVER_START_TIMEOUT)
    (folder / "secrets.toml").write_text(f"""
[auth]
redirect_uri = "{server.url}/oauth2callback"
cookie_secret = "{secrets.token_hex(32)}"
client_id = "forestviz"
client_secret = "{secrets.token_hex(16)}"
server_metadata_url = "{provider}/.well-known/openid-configuration"
roles_claim = "{CLAIM}"
""")
    with server:
        yield {"url": server.url, "data_dir": data_dir, "provider": provider}


@pytest.fixture(scope="module")
def signin_app(provider, tmp_path_factory):
    """The app with sign-in that the tests of this module share."""
    with serve_with_signin(provider, tmp_path_factory.mktemp("signin")) as app:
        yield app


def trail(signin_app) -> pd.DataFrame:
    return open_library(StoreConfig(signin_app["data_dir"])).audit.query()


def download_csv(page: Page, main) -> pd.DataFrame:
    """The Audit page's CSV: made on request (one button), then downloaded (the next)."""
    main.get_by_role("button", name=re.compile("^Prepare the CSV")).click()
    with page.expect_download(timeout=TIMEOUT) as download:
        main.get_by_role("button", name="Download the matching events (CSV)").click(
            timeout=TIMEOUT)
    return pd.read_csv(download.value.path(), dtype=str, keep_default_na=False)


def sidebar_text(page: Page) -> str:
    return page.get_by_test_id("stSidebar").inner_text().replace("\u2060", "")


def navigation(page: Page) -> list[str]:
    """The titles of the navigation's links (each link's text starts with its icon's name)."""
    links = page.get_by_test_id("stSidebarNav").get_by_role("link")
    return [text.strip().splitlines()[-1] for text in links.all_inner_texts()]


def sign_in(page: Page, url: str, sub: str) -> None:
    """Open the app, press Sign in, choose ``sub`` on the provider's form, back to the app."""
    page.goto(url)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="forestviz")).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_test_id("stSidebarNav")).to_have_count(0)  # no page but sign-in
    main.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name=sub, exact=True).click(timeout=TIMEOUT)  # its form
    page.wait_for_url(f"{url}/**", timeout=TIMEOUT)


def expect_signed_in(page: Page, sub: str, role: str) -> None:
    email = USERS[sub][0]
    expect(page.get_by_test_id("stSidebar").get_by_text("Signed in:")).to_be_visible(
        timeout=TIMEOUT)
    assert f"Signed in: {email} ({role})" in sidebar_text(page)
    expect(page.get_by_test_id("stSidebar").get_by_role("button", name="Sign out")
           ).to_be_visible(timeout=TIMEOUT)


def expect_refused_by_url(page: Page, url: str, path: str, shown: str) -> None:
    """Opening ``path`` by its URL runs no such page: Streamlit says the page is not found and
    runs the default page, whose text ``shown`` appears (and the page's title does not)."""
    page.goto(f"{url}/{path}")
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Page not found")).to_be_visible(timeout=TIMEOUT)
    dialog.get_by_role("button", name="Close").click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text(shown)).to_be_visible(timeout=TIMEOUT)
    expect(main.get_by_role("heading", name=path.capitalize(), exact=True)).to_have_count(0)


def test_the_first_visit_of_a_fresh_server_by_url_shows_no_page(provider, tmp_path, page):
    """A fresh server's first run, before app.py ever called st.navigation, is Streamlit's
    multipage mode of a pages/ folder: asked for /audit it ran pages/audit.py directly, past
    app.py's sign-in, and showed the trail to nobody signed in. The page's own guard stops it.
    Only a server's first run takes that way, so each page asked for needs a server of its own
    (about 9 CPU-s): the test asks for Audit, the page that shows the most; that every page's
    first statement is its guard is checked in ``tests/test_app_signin.py``."""
    with serve_with_signin(provider, tmp_path) as app:
        page.goto(f"{app['url']}/audit")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("This page is not available")).to_be_visible(timeout=TIMEOUT)
        expect(main.get_by_role("heading", name="Audit", exact=True)).to_have_count(0)
        assert not main.get_by_role("button").all()


def test_a_viewer_sees_no_data_or_train_page_and_cannot_open_them(signin_app, page):
    url = signin_app["url"]
    sign_in(page, url, "vera")
    expect_signed_in(page, "vera", "viewer")
    assert navigation(page) == VIEWER_PAGES
    main = page.get_by_test_id("stMain")
    # Home runs past its link to the Data page (a link to a page left out of the navigation
    # raised StreamlitPageNotFoundError there): the link is not drawn
    expect(main.get_by_role("heading", name="See an explanation now")).to_be_visible(
        timeout=TIMEOUT)
    expect(main.get_by_role("link", name="Choose or upload data")).to_have_count(0)
    for path in ("train", "data", "audit"):
        expect_refused_by_url(page, url, path, HOME_TEXT)
        assert navigation(page) == VIEWER_PAGES
    events = trail(signin_app)
    assert ((events["subject"] == f"{signin_app['provider']}#vera")
            & (events["action"] == "signed_in")).any()


def test_an_analyst_sees_train_and_data_but_not_audit(signin_app, page):
    url = signin_app["url"]
    sign_in(page, url, "anna")
    expect_signed_in(page, "anna", "analyst")
    assert navigation(page) == ["Home", "Data", "Train", *VIEWER_PAGES[1:]]
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Train").click()
    expect(page.get_by_role("heading", name="Train", exact=True)).to_be_visible(timeout=TIMEOUT)
    expect_refused_by_url(page, url, "audit", HOME_TEXT)


def test_a_user_with_no_role_is_refused_and_that_is_in_the_audit_trail(signin_app, page):
    url = signin_app["url"]
    sign_in(page, url, "nina")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Sign-in refused:")).to_be_visible(timeout=TIMEOUT)
    assert "nina@clinic.test has no forestviz role" in main.inner_text().replace("\u2060", "")
    expect(page.get_by_test_id("stSidebarNav")).to_have_count(0)
    expect_refused_by_url(page, url, "explain", "Sign-in refused:")
    refusals = trail(signin_app).query("action == 'signin_refused'")
    assert refusals[["subject", "email"]].values.tolist()[:1] == [
        [f"{signin_app['provider']}#nina", "nina@clinic.test"]]
    assert refusals["detail"].iloc[0] == f"no known role in the '{CLAIM}' claim"
    main.get_by_role("button", name="Sign out").click()  # ends the provider's session too
    page.get_by_role("button", name="End session").click()
    expect(main.get_by_role("button", name="Sign in")).to_be_visible(timeout=TIMEOUT)


def test_an_admin_reads_the_sign_ins_and_refusals_and_downloads_them(signin_app, page):
    url = signin_app["url"]
    sign_in(page, url, "nina")  # a refusal of its own: this test does not rely on the others
    expect(page.get_by_text("Sign-in refused:")).to_be_visible(timeout=TIMEOUT)
    page.context.clear_cookies()
    sign_in(page, url, "adam")
    expect_signed_in(page, "adam", "admin")
    assert navigation(page) == ["Home", "Data", "Train", *VIEWER_PAGES[1:], "Audit"]
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Audit").click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Audit", exact=True)).to_be_visible(timeout=TIMEOUT)
    # the count holds this page's own viewing, recorded before it (issue 36); the trail is read
    # once the count is shown: the heading is drawn before the viewing is recorded, and a trail
    # read at the heading missed it (seen once: 2 events read, "3 matching events" shown)
    count = main.get_by_text(re.compile(r"^\d+ matching events?$"))
    expect(count).to_be_visible(timeout=TIMEOUT)
    assert count.inner_text() == matching(len(trail(signin_app)))
    shown = download_csv(page, main)
    stored = trail(signin_app)
    assert stored["action"].iloc[-1] == "audit_exported"  # the export is recorded after it
    stored = stored.iloc[:-1]
    assert len(shown) == len(stored)
    issuer = signin_app["provider"]
    assert set(zip(shown["subject"], shown["action"], strict=True)) >= {
        (f"{issuer}#nina", "signin_refused"), (f"{issuer}#adam", "signed_in")}
    assert shown["at"].tolist() == [moment.isoformat() for moment in stored["at"]]

    # the refusals alone
    main.get_by_role("combobox", name="Action").click()
    page.get_by_role("option", name="signin refused").click()
    refusals = (trail(signin_app)["action"] == "signin_refused").sum()
    expect(main.get_by_text(matching(refusals), exact=True)).to_be_visible(timeout=TIMEOUT)
    expect(main.locator('[data-stale="true"]')).to_have_count(0, timeout=TIMEOUT)
    refused = download_csv(page, main)
    assert set(refused["action"]) == {"signin_refused"}
    assert f"{issuer}#nina" in set(refused["subject"])
    assert os.stat(signin_app["data_dir"] / "forestviz.db").st_mode & 0o077 == 0
