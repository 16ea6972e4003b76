"""Two replicas, one database (issue 38, item 2), in Debian Chromium: two app servers on two
ports share one throwaway PostgreSQL (:mod:`tests.postgres_server`), one data directory for
the model files, one signing key, one audit key and one sign-in cookie secret, behind a sticky
proxy (:mod:`tests.replica_proxy`: one origin, each session kept on its replica). Sign-in goes
through the real OpenID Connect provider mock of ``tests/test_browser_signin.py``.

A model published on A shows on B's open Models page with no reload or click (how soon is
printed), is opened and explained there with no upload, with A's prediction; retired on B, it
leaves a viewer's open Models page on A, again with no reload (an Open clicked before that is
refused in one line: ``tests/test_app_open_retired.py``); a sign-in made on A is read by B
from the same cookie; every event of both replicas is in the one trail, whose hash chain
holds."""

import re
import secrets
import time

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from bench.appserver import AppServer
from forestviz.store import StoreConfig, open_library
from tests.browser_helpers import open_expander, still_context
from tests.conftest import SERVER_START_TIMEOUT, running
from tests.replica_proxy import StickyProxy
from tests.test_browser_flows import TIMEOUT, TRAIN_TIMEOUT, expect_explanation, go_to
from tests.test_browser_library import shown_row
from tests.test_browser_signin import CLAIM, expect_signed_in, oidc_provider, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

USERS = {"adam": ("adam@clinic.test", ["admin"]), "vera": ("vera@clinic.test", ["viewer"])}
NAME = "Pima risk"
FOLLOW_TIMEOUT = 30_000  # ms: a hang guard; an open page asks the library every second


def shared_settings(folder, database: str) -> tuple[dict, StoreConfig]:
    """What every replica is given alike (docker-compose.yml's ``x-replica``): the database,
    the data directory of the model files (a shared volume), the signing and audit keys."""
    env = {"FORESTVIZ_DATABASE_URL": database, "FORESTVIZ_DATA_DIR": str(folder / "var"),
           "FORESTVIZ_SIGNING_KEY": secrets.token_hex(32),
           "FORESTVIZ_AUDIT_KEY": secrets.token_hex(32)}
    return env, StoreConfig(folder / "var", database, env["FORESTVIZ_SIGNING_KEY"],
                            env["FORESTVIZ_AUDIT_KEY"])


def auth_section(public_url: str, provider: str) -> str:
    """The one ``[auth]`` section of every replica: the proxy's callback, one cookie secret."""
    return f"""
[auth]
redirect_uri = "{public_url}/oauth2callback"
cookie_secret = "{secrets.token_hex(32)}"
client_id = "forestviz"
client_secret = "{secrets.token_hex(16)}"
server_metadata_url = "{provider}/.well-known/openid-configuration"
roles_claim = "{CLAIM}"
"""


@pytest.fixture
def replicas(postgres, tmp_path):
    """Replicas A and B on one new PostgreSQL database behind one sticky proxy: the proxy,
    the store's configuration and the two servers."""
    env, config = shared_settings(tmp_path, postgres.new_database())
    servers = {}
    for name in ("A", "B"):
        (tmp_path / name).mkdir()
        servers[name] = AppServer(tmp_path / name, env=env, start_timeout=SERVER_START_TIMEOUT,
                                  options=["--secrets.files", str(tmp_path / "secrets.toml")])
    proxy = StickyProxy({name: int(server.url.rsplit(":", 1)[1])
                         for name, server in servers.items()})
    with oidc_provider(USERS) as provider, proxy:
        (tmp_path / "secrets.toml").write_text(auth_section(proxy.url, provider))
        with running(servers["A"]), running(servers["B"]):
            yield {"proxy": proxy, "config": config, "provider": provider}


def open_button(page: Page, version: int, name: str = NAME):
    return page.get_by_test_id("stMain").get_by_role(
        "button", name=re.compile(rf"^Open {re.escape(name)}@\u2060?{version}$"))


def seconds_until_shown(page: Page, published: float, name: str = NAME) -> float:
    """Wait for the open Models page of ``page`` to offer ``name``@1 (the only version:
    chosen in its box), with no reload and no click: the page asks the library every second
    and runs again when it changed (:mod:`ui.catalog`); the seconds since ``published``."""
    expect(open_button(page, 1, name)).to_be_visible(timeout=FOLLOW_TIMEOUT)
    return time.monotonic() - published


def train_default(page: Page) -> None:
    """Train the default model from Home (the server has it ready) and explain a row."""
    page.get_by_test_id("stMain").get_by_role(
        "button", name="Train the default model and explain a row").click()
    shown_row(page, TRAIN_TIMEOUT)


def publish(page: Page, name: str = NAME) -> None:
    """Publish the session's model from the Train page as ``name``@1."""
    go_to(page, "Train")
    main = page.get_by_test_id("stMain")
    idle = page.get_by_test_id("stStatusWidgetRunningIcon")
    expect(idle).to_have_count(0, timeout=TIMEOUT)  # no run to drop the form's click
    open_expander(main, "Publish this model")
    main.get_by_role("textbox", name="Name").fill(name)
    main.get_by_role("textbox", name="Intended use").fill("Screening")
    page.get_by_test_id("stFormSubmitButton").get_by_role("button").click()
    expect(main.get_by_text(re.compile(rf"Published as {re.escape(name)}@\u2060?1\."))
           ).to_be_visible(timeout=TIMEOUT)


def retire(page: Page) -> None:
    go_to(page, "Models")
    main = page.get_by_test_id("stMain")
    main.get_by_text(re.compile(rf"^Yes, retire {NAME}@\u2060?1")).click()
    main.get_by_role("button", name=re.compile(rf"^Retire {NAME}@\u2060?1$")).click()
    expect(main.get_by_text(re.compile(rf"^{NAME}@\u2060?1 is retired\."))).to_be_visible(
        timeout=TIMEOUT)


def test_two_replicas_share_the_library_the_trail_and_the_signin(replicas, browser):
    proxy, provider = replicas["proxy"], replicas["provider"]
    admin = still_context(browser, viewport={"width": 1400, "height": 2000})
    on_a = admin.new_page()
    sign_in(on_a, proxy.url, "adam")  # through the proxy to A: its callback sets the cookie
    expect_signed_in(on_a, "adam", "admin")
    assert proxy.streams("A") >= 1 and proxy.streams("B") == 0

    proxy.route("B")  # the same browser, a new session: B reads A's cookie
    on_b = admin.new_page()
    on_b.goto(proxy.url)
    expect_signed_in(on_b, "adam", "admin")
    assert proxy.streams("B") == 1
    assert not [line for replica, line in proxy.requests
                if replica == "B" and "/oauth2callback" in line]  # no sign-in on B itself
    go_to(on_b, "Models")
    expect(on_b.get_by_text("No model has been published yet")).to_be_visible(timeout=TIMEOUT)

    train_default(on_a)
    publish(on_a)
    published = time.monotonic()
    print(f"published on A, offered on B's open Models page (no reload) after "
          f"{seconds_until_shown(on_b, published):.2f} s")
    go_to(on_a, "Explain")
    on_a_row = shown_row(on_a)

    proxy.route("A")  # a viewer's session on A, the version on its Models page
    viewer = still_context(browser, viewport={"width": 1400, "height": 2000})
    on_a_viewer = viewer.new_page()
    sign_in(on_a_viewer, proxy.url, "vera")
    expect_signed_in(on_a_viewer, "vera", "viewer")
    go_to(on_a_viewer, "Models")
    expect(open_button(on_a_viewer, 1)).to_be_visible(timeout=TIMEOUT)
    streams = (proxy.streams("A"), proxy.streams("B"))

    open_button(on_b, 1).click()  # on B: no upload, no training
    expect_explanation(on_b, "P(Yes)")
    assert shown_row(on_b) == on_a_row  # the riskiest held-out row, A's prediction
    retire(on_b)
    retired = time.monotonic()
    expect(on_a_viewer.get_by_text("No model has been published yet")).to_be_visible(
        timeout=FOLLOW_TIMEOUT)  # gone from A's open page, no reload
    print(f"retired on B, gone from a viewer's open Models page on A after "
          f"{time.monotonic() - retired:.2f} s")
    expect(open_button(on_a_viewer, 1)).to_have_count(0)
    assert (proxy.streams("A"), proxy.streams("B")) == streams == (streams[0], 1)  # none moved

    library = open_library(replicas["config"])
    trail = library.audit.query()
    who = {f"{provider}#{sub}": sub for sub in USERS}
    done = [(who[subject], action, model)
            for subject, action, model in trail[["subject", "action", "model"]].itertuples(
                index=False) if pd.notna(model)]
    assert done == [("adam", "model_published", NAME), ("adam", "model_opened", NAME),
                    ("adam", "row_explained", NAME), ("adam", "model_retired", NAME)]
    signins = trail.query("action == 'signed_in'")["subject"].map(who).tolist()
    assert sorted(signins) == ["adam", "adam", "vera"]  # one per session: A, B, A
    assert library.audit.verify().intact  # both replicas appended to one chain, in turn
    admin.close()
    viewer.close()
