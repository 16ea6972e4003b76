"""Who acts in the audit trail (:mod:`forestviz.store.audit`), in a module of its own that
imports no database package: the app's first page names the session's actor
(:mod:`ui.identity`) long before it writes an event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from forestviz.store.config import StoreError
from forestviz.store.roles import DEFAULT_LOCAL_ROLE, known_role, local_role


@dataclass(frozen=True)
class Actor:
    """Who acts: the sign-in's subject and e-mail, or :data:`LOCAL`, and the role the store
    checks (:func:`forestviz.store.roles.may`; None: no right)."""

    subject: str
    email: str | None = None
    role: str | None = None

    def __post_init__(self):
        if not isinstance(self.subject, str) or not self.subject.strip():
            raise StoreError("An actor needs a subject (the sign-in's ID) or 'local'.")
        known_role(self.role)


LOCAL = Actor("local", role=DEFAULT_LOCAL_ROLE)  # the library's default: every right


def local_actor(environ: Mapping[str, str] | None = None) -> Actor:
    """The command line's and the sign-in-less app's actor: ``local`` with the configured
    role (:func:`forestviz.store.roles.local_role`)."""
    return Actor("local", role=local_role(environ))
