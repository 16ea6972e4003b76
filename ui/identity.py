"""Who is using this session: the signed-in user's actor (for the audit trail) and role (for the
pages and the store), or the one local user of a server without an ``[auth]`` section (the role
of ``FORESTVIZ_LOCAL_ROLE``, default ``admin``: every right).

Sign-in is Streamlit's own (``st.login``: OpenID Connect through Authlib), configured as
Streamlit documents it in ``.streamlit/secrets.toml``::

    [auth]
    redirect_uri = "https://forestviz.example.org/oauth2callback"
    cookie_secret = "a long random string"
    client_id = "forestviz"
    client_secret = "…"
    server_metadata_url = "https://login.example.org/.well-known/openid-configuration"
    roles_claim = "roles"   # forestviz's own key: the ID-token claim naming the role

The role is the highest of ``ui.access.ROLES`` that the claim names by one strict rule (a
string or a list of strings, :func:`ui.access.claim_names`); a token naming none is refused.
The actor's subject is the token's ``sub`` namespaced by its issuer (``ISSUER#SUB``: an issuer
URL holds no ``#``), so no provider's user is the local user (``local``); its e-mail is kept
only when the provider says it verified it (``email_verified`` true). A sign-in ends when its
token expires (``exp``) or when it is signed out (:mod:`ui.signout`, checked by :func:`who`).

A secrets file that exists but cannot be read is an error, never
local mode: a broken file must not open the app to everybody as its admin.
"""

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import streamlit as st

from forestviz.store.actor import Actor, local_actor
from forestviz.store.config import StoreError
from ui.access import DEFAULT_ROLES_CLAIM, claim_names, role_from_claims
from ui.signout import revoked

ROLES_CLAIM_KEY = "roles_claim"  # in the [auth] section: the claim that names the role
NO_SUBJECT = "(no subject)"  # the actor of a token without its required "sub" or "iss" claim
SUBJECT_CHARS = 255  # the trail's subject column (forestviz.store.tables): longer is refused
# st.user's keys that Streamlit adds, not the ID token's (the rest identifies one sign-in)
NOT_CLAIMS = ("is_logged_in", "tokens", "origin", "provider")


class SignInSettingsError(RuntimeError):
    """A secrets file exists but cannot be read: sign-in cannot be set up (one line)."""


@dataclass(frozen=True)
class Identity:
    """The actor the audit trail names and the role the pages check (``ui.access.ROLES``, the
    actor's own, which the store checks; None: signed in, but the token names no known role,
    so the sign-in is refused, for the one-line ``refusal``). ``signin`` names this one
    sign-in (:func:`signin_key`; None in local mode)."""

    actor: Actor
    role: str | None
    signed_in: bool
    signin: str | None = None
    refusal: str | None = None


def local_user(environ: Mapping[str, str] | None = None) -> Identity:
    """The one user of a server without sign-in: the local actor, with the configured role
    (:func:`forestviz.store.actor.local_actor`); SignInSettingsError when it names no role."""
    try:
        actor = local_actor(environ)
    except StoreError as err:
        raise SignInSettingsError(f"The local role (FORESTVIZ_LOCAL_ROLE): {err}") from err
    return Identity(actor=actor, role=actor.role, signed_in=False)


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


def signin_key(user: Mapping) -> str:
    """The SHA-256 (hex) of one sign-in's ID-token claims as canonical JSON (its ``nonce``
    and ``iat`` tell two sign-ins of a user apart): what a sign-out revokes. Streamlit keeps
    the claims in its signed cookie, so a copy of the cookie has the same key."""
    claims = {key: value for key, value in user.items() if key not in NOT_CLAIMS}
    text = json.dumps(claims, sort_keys=True, default=str, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def expired(user: Mapping, now: float | None = None) -> bool:
    """Whether the ID token's ``exp`` (seconds since 1970) has passed, or it has none a
    number: its sign-in is over and the user is asked to sign in again."""
    ends = user.get("exp")
    if isinstance(ends, bool) or not isinstance(ends, int | float):
        return True
    return (time.time() if now is None else now) >= ends


def text_claim(user: Mapping, name: str) -> str | None:
    value = user.get(name)
    return value if isinstance(value, str) and value.strip() else None


def actor_of(user: Mapping) -> Actor | None:
    """The trail's actor of a token: ``ISSUER#SUB``, the e-mail only when verified; None
    without an issuer or subject, or with one too long to store whole."""
    issuer, subject, email = (text_claim(user, name) for name in ("iss", "sub", "email"))
    if issuer is None or subject is None or len(f"{issuer}#{subject}") > SUBJECT_CHARS:
        return None
    verified = user.get("email_verified") is True and email is not None
    return Actor(f"{issuer}#{subject}",
                 email if verified and len(email) <= SUBJECT_CHARS else None)


def refusal(user: Mapping, claim: str) -> str:
    """Why a token has no role, in one line (the trail's ``signin_refused`` detail)."""
    if claim in user and claim_names(user[claim]) is None:
        return f"the '{claim}' claim is not a string or a list of strings"
    return f"no known role in the '{claim}' claim"


def identity_from_user(user: Mapping, claim: str) -> Identity | None:
    """The identity of ``st.user``'s claims (the ID token's), or None when nobody is signed
    in. A token without an issuer or a subject gets no role."""
    if user.get("is_logged_in") is not True:
        return None
    actor = actor_of(user)
    if actor is None:
        return Identity(actor=Actor(NO_SUBJECT), role=None, signed_in=True,
                        signin=signin_key(user), refusal="no issuer or subject in the token")
    role = role_from_claims(user, claim)
    return Identity(actor=replace(actor, role=role), role=role, signed_in=True,
                    signin=signin_key(user),
                    refusal=None if role is not None else refusal(user, claim))


def who() -> Identity | None:
    """This session's identity: :func:`local_user` without sign-in settings; else the
    signed-in user's, or None while nobody is signed in, or once the sign-in has expired or
    been signed out (``app.py`` then shows only the sign-in page, so a page never sees
    None)."""
    settings = auth_settings()
    if settings is None:
        return local_user()
    user = st.user.to_dict()
    if user.get("is_logged_in") is not True or ended(user):
        return None
    return identity_from_user(user, roles_claim(settings))


def ended(user: Mapping) -> bool:
    """Whether the signed-in ``user``'s sign-in is over: expired, or signed out (in any
    session, on any server of the library: :func:`ui.signout.revoked`)."""
    actor = actor_of(user)
    return expired(user) or revoked(signin_key(user), (actor or Actor(NO_SUBJECT)).subject)
