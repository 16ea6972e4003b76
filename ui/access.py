"""Roles for the dashboard's pages (issue 28): a signed-in user's role comes from one claim of
the ID token (its name is configurable, default ``roles``); without an ``[auth]`` section the
app runs for one local user with every right."""

from collections.abc import Mapping

ROLES = ("viewer", "analyst", "admin")  # each role may do everything the previous ones may
DEFAULT_ROLES_CLAIM = "roles"

# the least role that may use each page
PAGE_ROLES = {
    "home": "viewer", "explain": "viewer", "forest": "viewer", "models": "viewer",
    "lab": "viewer", "data": "analyst", "train": "analyst", "audit": "admin",
}


def claim_names(value) -> list[str] | None:
    """The role names of a roles claim's ``value`` by the one rule: one string, or a list of
    strings. Anything else (an object, whose keys are no roles, a number, a boolean, null, a
    list holding anything but strings) is None: no role."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        return value
    return None


def role_from_claims(claims: Mapping, claim: str = DEFAULT_ROLES_CLAIM) -> str | None:
    """The highest known role named in ``claims[claim]`` (:func:`claim_names`), or None when
    the token names no known role (sign-in refused)."""
    known = [ROLES.index(name) for name in claim_names(claims.get(claim)) or ()
             if name in ROLES]
    return ROLES[max(known)] if known else None


def may_use(role: str | None, page: str) -> bool:
    """Whether ``role`` may use ``page`` (unknown pages and a missing role: no)."""
    needed = PAGE_ROLES.get(page)
    return role in ROLES and needed is not None and ROLES.index(role) >= ROLES.index(needed)


def allowed_pages(role: str | None) -> list[str]:
    """The pages ``role`` may use, in ``PAGE_ROLES`` order (the navigation shows only these)."""
    return [page for page in PAGE_ROLES if may_use(role, page)]
