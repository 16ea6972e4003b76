"""The audit trail: who did what with which model, and when, appended to the library's database.

Each event names the actor (the ID token's subject and e-mail, or ``"local"`` for the command
line and a server without sign-in), the time (UTC), the action (:data:`ACTIONS`), the model
(name and version) and a detail: the row's ID when a row of the data set is explained; for
values typed or uploaded by hand, their keyed digest (:mod:`forestviz.store.digests`: the
trail proves what was asked without holding the values, and without the server's key nobody
can match or brute-force them); for a batch of rows, a download, a report written or the
trail itself viewed or exported, the facts as compact JSON (:func:`facts`: rows' count and
digest, file name and digest, the trail's filters); for an explanation, what answered, what it
answered and the warnings shown (:mod:`forestviz.store.explained`), and for a disagreement
with it, also its kind and reason (:mod:`forestviz.store.disputes`). Events older than the
retention are purged by an admin alone (:meth:`AuditTrail.purge`, :mod:`forestviz.store.purge`).
There is no other API to change or remove an event, and the migrations add database triggers
that refuse UPDATE, and DELETE but of what a purge names, on the table;
whoever holds the database can still change it, which the hash chain linking each event to the
one before (:mod:`forestviz.store.chain`, :meth:`AuditTrail.verify`) shows.

Reading never builds more than it is asked for: :meth:`AuditTrail.query` one page of the
newest events (SQL ``LIMIT``/``OFFSET``), :meth:`AuditTrail.count` their number, and
:meth:`AuditTrail.export` the CSV a piece at a time, each piece its own short read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pandas as pd
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from forestviz.io.export import csv_bytes
from forestviz.store.actor import LOCAL, Actor
from forestviz.store.chain import Verdict, append, verify
from forestviz.store.config import StoreConfig, StoreError
from forestviz.store.digests import Digests
from forestviz.store.disputes import ACTION as DISPUTED
from forestviz.store.disputes import MATCHED, Dispute, dispute_facts, read_dispute
from forestviz.store.engine import reached
from forestviz.store.purge import Purged, purge
from forestviz.store.roles import require
from forestviz.store.tables import SUBJECT_CHARS, AuditEvent, utc

ACTIONS = ("model_opened", "row_explained", "report_downloaded", "model_published",
           "model_retired", "signin_refused", "signed_in", "signed_out", "rows_explained",
           "explanations_downloaded", "report_written", "audit_viewed", "audit_exported",
           "explanation_disputed", "audit_purged")
DETAIL_CHARS = 1_000  # an explanation's facts and a disagreement's reason fit (Text column)
FILE_NAME_CHARS = 120  # of a file's name in an event (the digest names the file exactly)
COLUMNS = ["at", "subject", "email", "action", "model", "version", "detail"]
EXPORT_ROWS = 5_000  # events read and written at a time by :meth:`AuditTrail.export`
_SELECTED = (AuditEvent.id, AuditEvent.at, AuditEvent.subject, AuditEvent.email,
             AuditEvent.action, AuditEvent.model_name, AuditEvent.model_version,
             AuditEvent.detail)


def facts(**items) -> str:
    """An event's detail as compact JSON (keys sorted; None items left out; a ``file`` name
    cut to :data:`FILE_NAME_CHARS`), within :data:`DETAIL_CHARS`."""
    found = {k: v for k, v in items.items() if v is not None}
    if "file" in found:
        found["file"] = str(found["file"])[:FILE_NAME_CHARS]
    return json.dumps(found, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str)


def event_row(actor: Actor, action: str, model: tuple[str, int] | None = None,
              detail: str | None = None, at: datetime | None = None) -> AuditEvent:
    """The row of one event (appended to the chain by :meth:`AuditTrail.record`, or by the
    library in the same transaction as a publish or a retirement: :func:`.chain.append`)."""
    if action not in ACTIONS:
        raise StoreError(f"Unknown audit action '{action}'; one of {', '.join(ACTIONS)}.")
    name, version = model if model is not None else (None, None)
    return AuditEvent(at=utc(at) or datetime.now(UTC), subject=actor.subject[:SUBJECT_CHARS],
                      email=None if actor.email is None else actor.email[:SUBJECT_CHARS],
                      action=action, model_name=name, model_version=version,
                      detail=None if detail is None else str(detail)[:DETAIL_CHARS])


class AuditTrail:
    """Append and read the trail of one library database; :attr:`digests` names values
    typed or uploaded by hand under the server's key."""

    def __init__(self, engine: Engine, config: StoreConfig):
        self.engine, self.config = engine, config
        self.digests = Digests(config)

    def record(self, actor: Actor, action: str, *, model: tuple[str, int] | None = None,
               detail: str | None = None, at: datetime | None = None) -> None:
        """Append one event (its own transaction), made ``at`` (default: now)."""
        with reached(), Session(self.engine) as session, session.begin():
            append(session, [event_row(actor, action, model, detail, at)])

    def dispute(self, actor: Actor, items: dict, kind: str, reason, *,
                model: tuple[str, int] | None = None) -> Dispute:
        """Record that ``actor`` disagrees with the explanation of ``items`` (its facts:
        :func:`forestviz.store.explained.explanation_facts`) or acted otherwise
        (:mod:`forestviz.store.disputes`: ``kind`` and the required ``reason``); only for a
        role that may dispute (else :class:`~forestviz.store.roles.NotAllowed`)."""
        detail, found = dispute_facts(actor, items, kind, reason)
        self.record(actor, DISPUTED, model=model, detail=facts(**detail), at=found.at)
        return found

    def disputes(self, items: dict, *, actor: Actor = LOCAL) -> list[Dispute]:
        """The disagreements recorded, by anyone on any replica, with the explanation of
        ``items`` (its facts: the same model blob and the same keyed digest of the row's
        values), oldest first: what the row's record lists. Read back from each event's
        detail, which is parsed, never trusted (an event that does not parse as a
        disagreement is left out). For a role that may explain (else
        :class:`~forestviz.store.roles.NotAllowed`)."""
        require(actor.role, "explain")
        same = {k: items.get(k) for k in MATCHED}
        statement = select(AuditEvent.at, AuditEvent.subject, AuditEvent.email,
                           AuditEvent.detail).where(
            AuditEvent.action == DISPUTED,
            AuditEvent.detail.contains(f'"input":{json.dumps(items["input"])}',
                                       autoescape=True)).order_by(AuditEvent.at, AuditEvent.id)
        found = []
        for row in self._rows(statement):
            said = read_dispute(row.detail, row.email or row.subject, utc(row.at))
            if said is not None and {k: said[0].get(k) for k in MATCHED} == same:
                found.append(said[1])
        return found

    def verify(self, noted: str | None = None, *, actor: Actor = LOCAL) -> Verdict:
        """The hash chain checked (:func:`forestviz.store.chain.verify`), for a role that may
        verify the trail (else :class:`~forestviz.store.roles.NotAllowed`)."""
        require(actor.role, "verify_trail")
        return verify(self.engine, noted)

    def purge(self, *, actor: Actor = LOCAL) -> Purged:
        """Delete the events older than the trail's retention
        (:attr:`~forestviz.store.config.StoreConfig.retention_days`: StoreError, one line, when
        it is set below six months), recorded as an ``audit_purged`` event that keeps the chain
        verifiable (:mod:`forestviz.store.purge`); only for a role that may purge the trail
        (else :class:`~forestviz.store.roles.NotAllowed`)."""
        require(actor.role, "purge_trail")
        return purge(self.engine, actor, self.config.retention_days)

    def query(self, *, limit: int | None = None, offset: int = 0, actor: Actor = LOCAL,
              **filters) -> pd.DataFrame:
        """Events oldest first, filtered (:meth:`_where`): at most ``limit``, the newest
        after skipping the ``offset`` newest (page ``p`` of ``n`` events: ``offset=p * n``).
        Newest by time, then by order of arrival: the time's index serves the order, so a
        page does not sort every match (0.005 s instead of 0.24 s of CPU at 100,000). Only
        for a role that may view the trail (else :class:`~forestviz.store.roles.NotAllowed`)."""
        require(actor.role, "view_trail")
        statement = self._where(select(*_SELECTED), **filters).order_by(
            AuditEvent.at.desc(), AuditEvent.id.desc())
        if limit is not None:
            statement = statement.limit(limit)
        if offset:
            statement = statement.offset(offset)
        return _frame(list(reversed(self._rows(statement))))

    def count(self, *, actor: Actor = LOCAL, **filters) -> int:
        """How many events match ``filters`` (:meth:`_where`), for a role that may view the
        trail."""
        require(actor.role, "view_trail")
        statement = self._where(select(func.count(AuditEvent.id)), **filters)
        with reached(), Session(self.engine) as session:
            return int(session.scalar(statement))

    def export(self, *, actor: Actor = LOCAL, **filters) -> Iterator[bytes]:
        """The matching events as CSV, oldest first, a piece of :data:`EXPORT_ROWS` events at
        a time (times in ISO 8601 UTC), safe to open in a spreadsheet
        (:func:`forestviz.io.export.csv_bytes`). Each piece is its own short read, so a long
        export holds no lock; it ends at the newest event there was when it began. Only for a
        role that may export the trail (else :class:`~forestviz.store.roles.NotAllowed`, at
        once)."""
        require(actor.role, "export_trail")
        return self._pieces(filters)

    def _pieces(self, filters: dict) -> Iterator[bytes]:
        with reached(), Session(self.engine) as session:
            newest = session.scalar(select(func.max(AuditEvent.id))) or 0
        after, header = 0, True
        while True:
            statement = (self._where(select(*_SELECTED), **filters)
                         .where(AuditEvent.id > after, AuditEvent.id <= newest)
                         .order_by(AuditEvent.id).limit(EXPORT_ROWS))
            rows = self._rows(statement)
            frame = _frame(rows)
            frame["at"] = [moment.isoformat() for moment in frame["at"]]
            if rows or header:
                yield csv_bytes(frame, header=header)
            if len(rows) < EXPORT_ROWS:
                return
            after, header = rows[-1].id, False

    def export_csv(self, *, actor: Actor = LOCAL, **filters) -> bytes:
        """:meth:`export` in one piece."""
        return b"".join(self.export(actor=actor, **filters))

    @staticmethod
    def _where(statement, *, since: datetime | None = None, until: datetime | None = None,
               action: str | None = None, who: str | None = None, model: str | None = None):
        """``statement`` filtered: from ``since`` (inclusive) to ``until`` (exclusive), one
        ``action``, ``who`` (subject or e-mail), one model name."""
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
        return statement

    def _rows(self, statement) -> list:
        with reached(), Session(self.engine) as session:
            return list(session.execute(statement))


def _frame(rows) -> pd.DataFrame:
    frame = pd.DataFrame([[utc(r.at), r.subject, r.email, r.action, r.model_name,
                           r.model_version, r.detail] for r in rows], columns=COLUMNS)
    frame["version"] = frame["version"].astype("Int64")
    return frame
