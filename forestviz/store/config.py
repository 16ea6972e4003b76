"""Where the model library lives, read from the environment, and its two kinds of failure.

``FORESTVIZ_DATA_DIR`` (default ``./var``) holds the blobs, the signing key and, unless
``FORESTVIZ_DATABASE_URL`` names another database (any SQLAlchemy URL, e.g.
``postgresql+psycopg://forestviz@db/forestviz`` for several app replicas), the SQLite file
``forestviz.db``. ``FORESTVIZ_SIGNING_KEY`` sets the key that signs downloaded model files
(:mod:`forestviz.store.signing`) instead of ``DATA_DIR/signing.key``, ``FORESTVIZ_AUDIT_KEY``
the key of the audit trail's digests of patients' values (:mod:`forestviz.store.digests`)
instead of ``DATA_DIR/audit.key``. ``FORESTVIZ_AUDIT_RETENTION_DAYS`` says how long audit
events are kept before an admin may purge them (default and minimum :data:`MIN_RETENTION_DAYS`,
six months; a smaller or unreadable value is refused in one line when it is used:
:attr:`StoreConfig.retention_days`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DATA_DIR_VARIABLE = "FORESTVIZ_DATA_DIR"
DATABASE_URL_VARIABLE = "FORESTVIZ_DATABASE_URL"
SIGNING_KEY_VARIABLE = "FORESTVIZ_SIGNING_KEY"
AUDIT_KEY_VARIABLE = "FORESTVIZ_AUDIT_KEY"
RETENTION_VARIABLE = "FORESTVIZ_AUDIT_RETENTION_DAYS"
MIN_RETENTION_DAYS = 183  # six months: the least the EU AI Act's logging articles ask for
DEFAULT_DATA_DIR = "var"
DATABASE_FILE = "forestviz.db"


class StoreError(ValueError):
    """A request the library refuses (an unknown or retired model, a name too long, a blob
    changed on disk); the message is one plain line naming the model."""


class StoreUnavailable(StoreError):
    """The library cannot be used at all (database unreachable, data directory not
    writable): the app says so and keeps working in memory only."""

    def __init__(self, reason: str):
        super().__init__(f"The model library is unavailable ({' '.join(reason.split())}); "
                         "working in memory only: models cannot be published or opened.")


class StoreBusy(StoreUnavailable):
    """Another process held the database's lock longer than this call, or its page run, may
    wait (:mod:`forestviz.store.waits`): nothing was written, and the same call may be tried
    again in a moment; the app goes on in memory meanwhile."""

    def __init__(self, reason: str):
        StoreError.__init__(self, f"The model library is busy ({' '.join(reason.split())}: "
                            "another process is writing to it); nothing was saved, try again "
                            "in a moment.")


@dataclass(frozen=True)
class StoreConfig:
    """The data directory and the database URL (None: SQLite in the data directory)."""

    data_dir: Path
    database_url: str | None = None
    signing_key: str | None = None
    audit_key: str | None = field(default=None, repr=False)  # a secret: never in a message
    audit_retention: str | None = None  # days, as set (:attr:`retention_days` checks it)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> StoreConfig:
        environ = os.environ if environ is None else environ
        return cls(data_dir=Path(environ.get(DATA_DIR_VARIABLE) or DEFAULT_DATA_DIR),
                   database_url=environ.get(DATABASE_URL_VARIABLE) or None,
                   signing_key=environ.get(SIGNING_KEY_VARIABLE) or None,
                   audit_key=environ.get(AUDIT_KEY_VARIABLE) or None,
                   audit_retention=environ.get(RETENTION_VARIABLE) or None)

    @property
    def retention_days(self) -> int:
        """How many days audit events are kept: :data:`RETENTION_VARIABLE`, default and
        minimum :data:`MIN_RETENTION_DAYS`; StoreError (one line) for less or no number."""
        text = (self.audit_retention or "").strip()
        if not text:
            return MIN_RETENTION_DAYS
        days = int(text) if text.isascii() and text.isdigit() else None
        if days is None or days < MIN_RETENTION_DAYS:
            raise StoreError(f"{RETENTION_VARIABLE} is '{text[:20]}': audit events are kept "
                             f"at least {MIN_RETENTION_DAYS} days (six months); set a whole "
                             "number of days of at least that, or leave it unset.")
        return days

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite file the library creates, or None when a URL names the database."""
        return self.data_dir / DATABASE_FILE if self.database_url is None else None

    @property
    def url(self) -> str:
        if self.database_url is not None:
            return self.database_url
        return f"sqlite:///{self.sqlite_path.resolve()}"
