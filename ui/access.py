"""Roles for the dashboard's pages (issue 28): a signed-in user's role comes from one claim of
the ID token (its name is configurable, default ``roles``); without an ``[auth]`` section the
app runs for one local user with the local role (:func:`forestviz.store.roles.local_role`).
What a role may do is the one table of :mod:`forestviz.store.roles`; a page is open to the roles
that may do its action; :data:`PAGES` is the one table of the pages (``app.py`` builds the
navigation from it)."""

from collections.abc import Mapping
from dataclasses import dataclass

from forestviz.store.roles import ROLES, may

DEFAULT_ROLES_CLAIM = "roles"


@dataclass(frozen=True)
class Page:
    """A page of the dashboard: its ``name`` (its file is ``pages/<name>.py``, its first line
    ``signin.guard("<name>")``), its title and icon in the navigation, and the action
    (:data:`forestviz.store.roles.MAY`) a role must be allowed to open it."""

    name: str
    title: str
    icon: str
    action: str

    @property
    def path(self) -> str:
        return f"pages/{self.name}.py"


PAGES = {page.name: page for page in (  # in the navigation's order
    Page("home", "Home", ":material/home:", "explain"),
    Page("data", "Data", ":material/table:", "train"),
    Page("train", "Train", ":material/model_training:", "train"),
    Page("explain", "Explain", ":material/search:", "explain"),
    Page("models", "Models", ":material/inventory_2:", "open"),
    Page("forest", "Forest", ":material/forest:", "explain"),
    Page("lab", "Paper lab", ":material/school:", "explain"),
    Page("glossary", "Glossary", ":material/menu_book:", "explain"),
    Page("audit", "Audit", ":material/policy:", "view_trail"),
)}


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
    return page in PAGES and may(role, PAGES[page].action)


def allowed_pages(role: str | None) -> list[str]:
    """The pages ``role`` may use, in :data:`PAGES` order (the navigation shows only
    these)."""
    return [page for page in PAGES if may_use(role, page)]
