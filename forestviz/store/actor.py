"""Who acts in the audit trail (:mod:`forestviz.store.audit`), in a module of its own that
imports no database package: the app's first page names the session's actor
(:mod:`ui.identity`) long before it writes an event."""

from __future__ import annotations

from dataclasses import dataclass

from forestviz.store.config import StoreError


@dataclass(frozen=True)
class Actor:
    """Who acts: the sign-in's subject and e-mail, or :data:`LOCAL`."""

    subject: str
    email: str | None = None

    def __post_init__(self):
        if not isinstance(self.subject, str) or not self.subject.strip():
            raise StoreError("An actor needs a subject (the sign-in's ID) or 'local'.")


LOCAL = Actor("local")
