"""Purging the audit trail's events older than its retention, the chain kept verifiable.

The retention is :attr:`~forestviz.store.config.StoreConfig.retention_days` (default and
minimum six months). :func:`purge`, for a role that may purge the trail (admins), deletes in
one transaction the oldest events up to the first one at or after the cut-off (now minus the
retention): a prefix of the trail in order of arrival, so the chain loses its start and nothing
in its middle. It writes first, in the chain, an ``audit_purged`` event whose facts name what
goes: ``count``, ``cutoff``, ``kept_days``, ``through_id`` (the last id deleted),
``through`` (the last chain number deleted) and ``last_sha256`` (that event's hash). The
database's guard (migration 0003) lets a DELETE through only for events such an event names;
:func:`forestviz.store.chain.verify` starts the chain from the newest purge's ``through`` and
``last_sha256`` instead of the genesis (:func:`~forestviz.store.chain.anchor`). A deletion not
made by a purge is named as before; ``docs/security.md`` says what a forged purge event could hide.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, func, select, text
from sqlalchemy.orm import Session

from forestviz.store.actor import Actor
from forestviz.store.chain import CHAIN_LOCK, PURGED, append
from forestviz.store.config import MIN_RETENTION_DAYS
from forestviz.store.engine import reached
from forestviz.store.roles import require
from forestviz.store.tables import AuditEvent


@dataclass(frozen=True)
class Purged:
    """What one purge did: ``count`` events deleted, those before ``cutoff``, through the
    chain number ``through`` (None: none of them was chained)."""

    count: int
    cutoff: datetime
    through: int | None

    def line(self) -> str:
        kept = f"before {self.cutoff:%Y-%m-%d %H:%M} UTC"
        if not self.count:
            return f"No audit event is older than the retention ({kept}); nothing was purged."
        chained = "" if self.through is None else (
            f"; the chain now starts after event #{self.through:,}, whose hash the "
            "audit_purged event names")
        return f"Purged {self.count:,} audit event{'' if self.count == 1 else 's'} {kept}{chained}."


def purge(engine: Engine, actor: Actor, days: int) -> Purged:
    """Delete the events older than ``days`` (the trail's retention, at least the minimum)
    and record the purge (module docstring); :class:`~forestviz.store.roles.NotAllowed` for
    a role that may not purge (:meth:`forestviz.store.audit.AuditTrail.purge`)."""
    from forestviz.store.audit import event_row, facts  # the trail's module builds on this one

    require(actor.role, "purge_trail")
    if days < MIN_RETENTION_DAYS:
        raise ValueError(f"a retention of {days} days is below the minimum")
    now = datetime.now(UTC)
    cutoff = now - timedelta(days=days)
    with reached(), Session(engine) as session, session.begin():
        if session.get_bind().dialect.name == "postgresql":  # no append meanwhile
            session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CHAIN_LOCK})
        kept = session.scalar(select(func.min(AuditEvent.id)).where(AuditEvent.at >= cutoff))
        old = select(AuditEvent.id) if kept is None else select(AuditEvent.id).where(
            AuditEvent.id < kept)
        old = old.subquery()
        count, through_id = session.execute(
            select(func.count(), func.max(old.c.id)).select_from(old)).one()
        last = session.execute(select(AuditEvent.seq, AuditEvent.sha256)
                               .where(AuditEvent.id <= (through_id or 0),
                                      AuditEvent.seq.is_not(None))
                               .order_by(AuditEvent.seq.desc()).limit(1)).first()
        append(session, [event_row(actor, PURGED, at=now, detail=facts(
            count=count, cutoff=cutoff.isoformat(), kept_days=days, through_id=through_id,
            through=None if last is None else last.seq,
            last_sha256=None if last is None else last.sha256))])
        session.flush()  # the purge event first: the guard lets through what it names
        if count:
            session.execute(delete(AuditEvent).where(AuditEvent.id <= through_id),
                            execution_options={"synchronize_session": False})
    return Purged(count, cutoff, None if last is None else last.seq)
