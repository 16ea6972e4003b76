"""Roles for the dashboard's pages (issue 28): a signed-in user's role comes from one claim of
the ID token (its name is configurable, default ``roles``); without an ``[auth]`` section the
app runs for one local user with the local role (:func:`forestviz.store.roles.local_role`).
What a role may do is the one table of :mod:`forestviz.store.roles`; a page is open to the roles
that may do its action."""

from collections.abc import Mapping

from forestviz.store.roles import ROLES, may

DEFAULT_ROLES_CLAIM = "roles"

# the action (forestviz.store.roles.MAY) that each page is for
PAGE_ACTIONS = {
    "home": "explain", "explain": "explain", "forest": "explain", "models": "open",
    "lab": "explain", "glossary": "explain", "data": "train", "train": "train",
    "audit": "view_trail",
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
    """Whether ``role`` may use ``page``: may do its action (unknown pages and a missing role:
    no)."""
    return page in PAGE_ACTIONS and may(role, PAGE_ACTIONS[page])


def allowed_pages(role: str | None) -> list[str]:
    """The pages ``role`` may use, in ``PAGE_ACTIONS`` order (the navigation shows only
    these)."""
    return [page for page in PAGE_ACTIONS if may_use(role, page)]
