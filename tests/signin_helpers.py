"""Sign-in through Streamlit's AppTest: the ``[auth]`` section the tests give ``at.secrets``,
the ``st.user`` of a sign-in, the app run for it, and which pages run."""

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import REPO

AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "s" * 32,
        "client_id": "forestviz", "client_secret": "secret",
        "server_metadata_url": "http://localhost:9400/.well-known/openid-configuration",
        "roles_claim": "groups"}
TITLES = {"home": "forestviz", "data": "Data", "train": "Train", "explain": "Explain",
          "forest": "Forest", "lab": "Paper lab", "glossary": "Glossary",
          "audit": "Audit"}
ALL_PAGES = list(TITLES)
ISSUER = "http://localhost:9400"  # the provider of AUTH's server_metadata_url


def use_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The library's data directory of this test (a real SQLite file in it)."""
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    return folder


def user(sub: str, groups, email: str | None = None, **claims) -> dict:
    """``st.user`` of a sign-in by ``sub`` (its e-mail verified) valid for an hour."""
    return {"is_logged_in": True, "iss": ISSUER, "sub": sub,
            "email": email or f"{sub}@clinic.test", "email_verified": True,
            "iat": int(time.time()), "exp": int(time.time()) + 3600, "nonce": f"n-{sub}",
            "groups": groups, **claims}


def actor(sub: str) -> str:
    """The trail's subject of ``sub`` signed in at :data:`ISSUER`."""
    return f"{ISSUER}#{sub}"


def signed_in_app(who: dict | None) -> AppTest:
    """The app with sign-in settings, ``who`` signed in (None: nobody), after its first run."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.secrets["auth"] = AUTH
    at.user = who if who is not None else {"is_logged_in": False}
    at.run()
    assert not at.exception, at.exception
    return at


def runs(at: AppTest, page: str) -> bool:
    """Whether ``pages/PAGE.py`` runs (without error) when asked for. A page left out of the
    session's navigation is unknown to AppTest (ValueError), or, when it knows the path from
    another session, not run: Streamlit runs the default page instead."""
    try:
        at.switch_page(f"pages/{page}.py")
    except ValueError as err:
        assert "Could not find a navigation page" in str(err)
        return False
    at.run()
    assert not at.exception, (page, at.exception)
    return bool(at.title) and at.title[0].value == TITLES[page]
