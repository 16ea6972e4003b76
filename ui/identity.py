"""Who is using this session: the signed-in user's actor (for the audit trail) and role (for the
pages), or the one local user of a server without an ``[auth]`` section (every right).

Sign-in is Streamlit's own (``st.login``: OpenID Connect through Authlib), configured as
Streamlit documents it in ``.streamlit/secrets.toml``::

    [auth]
    redirect_uri = "https://forestviz.example.org/oauth2callback"
    cookie_secret = "a long random string"
    client_id = "forestviz"
    client_secret = "…"
    server_metadata_url = "https://login.example.org/.well-known/openid-configuration"
    roles_claim = "roles"   # forestviz's own key: the ID-token claim naming the role

The role is the highest of ``ui.access.ROLES`` that the claim names (a string or a list); a
token naming none is refused. A secrets file that exists but cannot be read is an error, never
local mode: a broken file must not open the app to everybody as its admin.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from forestviz.store.actor import LOCAL, Actor
from ui.access import DEFAULT_ROLES_CLAIM, role_from_claims

ROLES_CLAIM_KEY = "roles_claim"  # in the [auth] section: the claim that names the role
NO_SUBJECT = "(no subject)"  # the actor of a token without its required "sub" claim


class SignInSettingsError(RuntimeError):
    """A secrets file exists but cannot be read: sign-in cannot be set up (one line)."""


@dataclass(frozen=True)
class Identity:
    """The actor the audit trail names and the role the pages check (``ui.access.ROLES``;
    None: signed in, but the token names no known role, so the sign-in is refused)."""

    actor: Actor
    role: str | None
    signed_in: bool


LOCAL_USER = Identity(actor=LOCAL, role="admin", signed_in=False)


def auth_settings() -> Mapping | None:
    """The ``[auth]`` section of the server's secrets, or None (local mode: no secrets file,
    or one without the section); SignInSettingsError for a secrets file that cannot be read."""
    try:
        section = st.secrets.get("auth")
    except FileNotFoundError as err:  # Streamlit's: no file, or one it could not parse
        if any(Path(path).exists() for path in st.get_option("secrets.files")):
            raise SignInSettingsError("The sign-in settings (secrets.toml) cannot be read; "
                                      "no page is shown until they are fixed.") from err
        return None
    return section if isinstance(section, Mapping) and section else None


def roles_claim(settings: Mapping) -> str:
    """The ID-token claim that names the role (``roles_claim`` in ``[auth]``)."""
    claim = settings.get(ROLES_CLAIM_KEY)
    return claim if isinstance(claim, str) and claim.strip() else DEFAULT_ROLES_CLAIM


def identity_from_user(user: Mapping, claim: str) -> Identity | None:
    """The identity of ``st.user``'s claims (the ID token's), or None when nobody is signed
    in. A token without a subject gets no role."""
    if user.get("is_logged_in") is not True:
        return None
    subject, email = user.get("sub"), user.get("email")
    has_subject = isinstance(subject, str) and bool(subject.strip())
    actor = Actor(subject if has_subject else NO_SUBJECT,
                  email if isinstance(email, str) and email.strip() else None)
    role = role_from_claims(user, claim) if has_subject else None
    return Identity(actor=actor, role=role, signed_in=True)


def who() -> Identity | None:
    """This session's identity: :data:`LOCAL_USER` without sign-in settings; else the
    signed-in user's, or None while nobody is signed in (``app.py`` then shows only the
    sign-in page, so a page never sees None)."""
    settings = auth_settings()
    if settings is None:
        return LOCAL_USER
    return identity_from_user(st.user.to_dict(), roles_claim(settings))
