"""Sign-in that means what it says (issue 36), the pure parts: a roles claim of every JSON shape
read by the one rule (a string or a list of strings, else no role), the e-mail kept only when
the provider verified it, subjects namespaced by their issuer (none is the local user), the
token's expiry and the key that names one sign-in (what a sign-out revokes)."""

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from forestviz.store.actor import LOCAL, Actor
from ui.access import ROLES, claim_names, role_from_claims
from ui.identity import (
    NO_SUBJECT,
    SUBJECT_CHARS,
    actor_of,
    expired,
    identity_from_user,
    signin_key,
)

ISSUER = "https://login.clinic.test"
CLAIM = "groups"

role_names = st.sampled_from([*ROLES, "nurse", "Admin", "admin ", ""])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | role_names
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(role_names | st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def expected_role(value) -> str | None:
    """The rule written out independently: one string, or a list whose every item is a
    string; the highest of ROLES named; anything else no role."""
    if isinstance(value, str):
        names = [value]
    elif type(value) is list and all(type(item) is str for item in value):
        names = value
    else:
        return None
    ranks = [rank for rank, role in enumerate(ROLES) if role in names]
    return ROLES[max(ranks)] if ranks else None


def token(**claims) -> dict:
    return {"is_logged_in": True, "iss": ISSUER, "sub": "s1", "exp": 2_000_000_000,
            "iat": 1_900_000_000, "nonce": "n1", **claims}


@given(json_values)
@example({"admin": False})  # read by its keys, it signed in as admin
@example({"viewer": True, "admin": True})
@example(1)  # a scalar raised TypeError in the sign-in check: every page run failed
@example(True)
@example(3.5)
@example(["admin", 1])  # a list holding anything but strings: no role, not "admin"
@example([["admin"]])
@example("admin")
@example(["viewer", "analyst"])
def test_a_roles_claim_of_any_json_shape_is_read_by_the_one_rule(value):
    value = json.loads(json.dumps(value))  # as the claim arrives: through JSON
    assert role_from_claims({CLAIM: value}, CLAIM) == expected_role(value)
    identity = identity_from_user(token(**{CLAIM: value}), CLAIM)
    assert identity.role == expected_role(value)
    assert (identity.refusal is None) == (identity.role is not None)
    if claim_names(value) is None:  # the refusal says in one line what is wrong with it
        assert identity.refusal == f"the '{CLAIM}' claim is not a string or a list of strings"
    elif identity.role is None:
        assert identity.refusal == f"no known role in the '{CLAIM}' claim"


def test_a_missing_claim_is_no_known_role():
    identity = identity_from_user(token(), CLAIM)
    assert (identity.role, identity.refusal) == (None, f"no known role in the '{CLAIM}' claim")


@pytest.mark.parametrize("verified, email", [
    (True, "vera@clinic.test"),
    (False, None), ("true", None), (1, None), (None, None),  # only a JSON true verifies
])
def test_the_email_is_kept_only_when_the_provider_verified_it(verified, email):
    claims = {"email": "vera@clinic.test", **({} if verified is None else
                                               {"email_verified": verified})}
    assert actor_of(token(**claims)) == Actor(f"{ISSUER}#s1", email)


@given(st.text(min_size=1, max_size=40), st.sampled_from(
    [ISSUER, "http://localhost:9400", "https://idp.example.org/realms/a"]))
@example("local", ISSUER)  # a provider's subject "local" was the local user
def test_no_signed_in_subject_is_the_local_user_and_issuers_are_kept_apart(sub, issuer):
    found = actor_of(token(sub=sub, iss=issuer))
    if not sub.strip():
        assert found is None
        return
    assert found.subject == f"{issuer}#{sub}" != LOCAL.subject
    other = "https://other.example.org"
    assert actor_of(token(sub=sub, iss=other)).subject != found.subject


def test_a_token_without_an_issuer_or_with_a_subject_too_long_to_store_gets_no_role():
    for claims in ({"iss": None}, {"iss": " "}, {"sub": "x" * SUBJECT_CHARS}):
        identity = identity_from_user(token(**claims, groups="admin"), CLAIM)
        assert (identity.actor.subject, identity.role) == (NO_SUBJECT, None), claims


@pytest.mark.parametrize("exp, now, over", [
    (1000, 999.9, False), (1000, 1000, True), (1000.5, 1000.2, False),
    (None, 0, True), ("2000", 0, True), (True, 0, True),  # no numeric expiry: over
])
def test_a_sign_in_is_over_once_its_token_expires(exp, now, over):
    assert expired(token(exp=exp), now=now) is over


def test_a_sign_in_key_names_one_sign_in_whatever_streamlit_adds():
    first = token(groups="admin")
    copied = {**first, "tokens": {}, "origin": "http://127.0.0.1:8501", "provider": "default"}
    assert signin_key(first) == signin_key(dict(reversed(copied.items())))
    assert signin_key(first) != signin_key({**first, "nonce": "n2"})  # signed in again
    assert signin_key(first) != signin_key({**first, "iat": first["iat"] + 1})
    assert len(signin_key(first)) == 64
