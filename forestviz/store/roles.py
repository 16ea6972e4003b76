"""What each role may do: the one table (:data:`MAY`) that the pages, the store and the command
line all ask through :func:`may` (issue 38). A signed-in user's role comes from the ID token
(:mod:`ui.access`); the app without sign-in and the command line act as the local role,
``FORESTVIZ_LOCAL_ROLE`` (default ``admin``: every right, as before)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from forestviz.store.config import StoreError

ROLES = ("viewer", "analyst", "admin")  # each role may do everything the previous ones may
LOCAL_ROLE_VARIABLE = "FORESTVIZ_LOCAL_ROLE"
DEFAULT_LOCAL_ROLE = "admin"

# action: (what it does, as a refusal names it; the roles that may)
MAY = {
    "explain": ("explain a model's answers", {"viewer", "analyst", "admin"}),
    # whoever may explain may say they disagree with an answer or acted otherwise
    "dispute": ("record a disagreement with a model's answer", {"viewer", "analyst", "admin"}),
    "open": ("open published models", {"viewer", "analyst", "admin"}),
    "train": ("load data and train models", {"analyst", "admin"}),
    "publish": ("publish models", {"analyst", "admin"}),
    "open_retired": ("see or open retired models", {"admin"}),
    "retire": ("retire models", {"admin"}),
    "view_trail": ("view the audit trail", {"admin"}),
    "export_trail": ("export the audit trail", {"admin"}),
    "verify_trail": ("verify the audit trail", {"admin"}),
    "purge_trail": ("purge the audit trail's events older than its retention", {"admin"}),
}


class NotAllowed(StoreError):
    """A role asked for an action the table does not give it (one line)."""


def may(role: str | None, action: str) -> bool:
    """Whether ``role`` may do ``action`` (a missing or unknown role may do nothing);
    KeyError for an action not in :data:`MAY` (a typo in the code, not a refusal)."""
    return role in MAY[action][1]


def require(role: str | None, action: str) -> None:
    """:class:`NotAllowed`, in one line, unless ``role`` may do ``action``."""
    if not may(role, action):
        who = "No role" if role is None else f"The role '{role}'"
        raise NotAllowed(f"{who} may not {MAY[action][0]}.")


def known_role(role) -> str | None:
    """``role`` when it is one of :data:`ROLES` or None; StoreError otherwise."""
    if role is not None and role not in ROLES:
        raise StoreError(f"Unknown role {role!r}; one of {', '.join(ROLES)}.")
    return role


def local_role(environ: Mapping[str, str] | None = None) -> str:
    """The role of the command line and of the app without sign-in: ``FORESTVIZ_LOCAL_ROLE``
    (default ``admin``); StoreError when it names no role."""
    environ = os.environ if environ is None else environ
    return known_role(environ.get(LOCAL_ROLE_VARIABLE, "").strip() or DEFAULT_LOCAL_ROLE)
