"""The audit trail: who did what with which model, and when, appended to the library's database.

Each event names the actor (the ID token's subject and e-mail, or ``"local"`` for the command
line and a server without sign-in), the time (UTC), the action (:data:`ACTIONS`), the model
(name and version) and a detail: the row's ID when a row is explained, or for a patient typed
by hand the SHA-256 of the typed values (:func:`typed_values_digest`: the trail proves what was
asked without holding the values). There is no API to change or remove an event, and the
migration adds database triggers that refuse UPDATE and DELETE on the table.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime

import numpy as np
import pandas as pd
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from forestviz.io.export import csv_bytes
from forestviz.store.actor import Actor
from forestviz.store.config import StoreError
from forestviz.store.engine import reached
from forestviz.store.tables import SUBJECT_CHARS, AuditEvent

ACTIONS = ("model_opened", "row_explained", "report_downloaded", "model_published",
           "model_retired", "signin_refused", "signed_in", "signed_out")
DETAIL_CHARS = 500
COLUMNS = ["at", "subject", "email", "action", "model", "version", "detail"]




def typed_values_digest(values: Mapping) -> str:
    """The SHA-256 (hex) of a typed patient's values as canonical JSON: keys sorted, numbers as
    floats (1 and 1.0 alike), a missing value (None or NaN) as null, anything else as text;
    the same values, the same digest, whatever their order."""
    plain = {str(k): _canonical(v) for k, v in values.items()}
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode("utf-8")).hexdigest()


def _canonical(value):
    if value is None or (isinstance(value, float | np.floating) and math.isnan(value)):
        return None
    if isinstance(value, int | float | np.number) and not isinstance(value, bool):
        return float(value)
    return str(value)


def utc(moment: datetime | None) -> datetime | None:
    """``moment`` as an aware UTC time (SQLite hands back naive times, written as UTC)."""
    if moment is None or moment.tzinfo is not None:
        return None if moment is None else moment.astimezone(UTC)
    return moment.replace(tzinfo=UTC)


def event_row(actor: Actor, action: str, model: tuple[str, int] | None = None,
              detail: str | None = None, at: datetime | None = None) -> AuditEvent:
    """The row of one event (added to a session by :meth:`AuditTrail.record`, or by the
    library in the same transaction as a publish or a retirement)."""
    if action not in ACTIONS:
        raise StoreError(f"Unknown audit action '{action}'; one of {', '.join(ACTIONS)}.")
    name, version = model if model is not None else (None, None)
    return AuditEvent(at=at or datetime.now(UTC), subject=actor.subject[:SUBJECT_CHARS],
                      email=None if actor.email is None else actor.email[:SUBJECT_CHARS],
                      action=action, model_name=name, model_version=version,
                      detail=None if detail is None else str(detail)[:DETAIL_CHARS])


class AuditTrail:
    """Append and read the trail of one library database."""

    def __init__(self, engine: Engine):
        self.engine = engine

    def record(self, actor: Actor, action: str, *, model: tuple[str, int] | None = None,
               detail: str | None = None) -> None:
        """Append one event (its own transaction)."""
        with reached(), Session(self.engine) as session, session.begin():
            session.add(event_row(actor, action, model, detail))

    def query(self, *, since: datetime | None = None, until: datetime | None = None,
              action: str | None = None, who: str | None = None, model: str | None = None,
              limit: int | None = None) -> pd.DataFrame:
        """Events oldest first, filtered: from ``since`` (inclusive) to ``until``
        (exclusive), one ``action``, ``who`` (subject or e-mail), one model name; at most
        ``limit`` (the newest)."""
        statement = select(AuditEvent)
        if since is not None:
            statement = statement.where(AuditEvent.at >= utc(since))
        if until is not None:
            statement = statement.where(AuditEvent.at < utc(until))
        if action is not None:
            statement = statement.where(AuditEvent.action == action)
        if who is not None:
            statement = statement.where((AuditEvent.subject == who) | (AuditEvent.email == who))
        if model is not None:
            statement = statement.where(AuditEvent.model_name == model)
        statement = statement.order_by(AuditEvent.id.desc())
        if limit is not None:
            statement = statement.limit(limit)
        with reached(), Session(self.engine) as session:
            rows = session.scalars(statement).all()
        frame = pd.DataFrame(
            [[utc(r.at), r.subject, r.email, r.action, r.model_name, r.model_version, r.detail]
             for r in reversed(rows)], columns=COLUMNS)
        frame["version"] = frame["version"].astype("Int64")
        return frame

    def export_csv(self, **filters) -> bytes:
        """:meth:`query` as CSV (times in ISO 8601 UTC), safe to open in a spreadsheet
        (:func:`forestviz.io.export.csv_bytes`)."""
        frame = self.query(**filters)
        frame["at"] = [moment.isoformat() for moment in frame["at"]]
        return csv_bytes(frame)
