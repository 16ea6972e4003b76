"""The audit trail's hash chain: each event holds the SHA-256 of the event before it, so that
an event deleted, edited or put in afterwards, by whoever holds the database, shows.

An event's hash is SHA-256 over the previous event's hash (64 hex digits; the first event's
"previous" is :data:`GENESIS`) followed by the event's canonical content (:func:`content`:
its chain number and fields as compact JSON, keys sorted, empty fields left out, the time in
ISO 8601 UTC to the microsecond). Empty fields are left out so that a column added to the
trail later joins :data:`CONTENT` without changing the hash of any event written before it.

:func:`append` numbers and links events in the transaction that writes them, after taking the
chain's turn: SQLite's ``BEGIN IMMEDIATE`` (:mod:`.engine`) already gives one writer at a time;
on PostgreSQL a transaction-scoped advisory lock (:data:`CHAIN_LOCK`) is held from reading the
newest hash to the commit, so concurrent writers on several replicas append in turn. A unique
index on the number refuses a fork on any other database.

:func:`verify` reads the trail in order of arrival, a piece at a time, and names each broken
link: an event **edited** (its content no longer gives its hash, or it was given a new hash
that the next event does not name), events **deleted** (a gap in the numbers), an event
**inserted** (a row with no place in the chain). Events written before the chain began (by a
version without it) have no number and are counted, not checked. What the chain cannot show
(the newest events removed, the whole chain rewritten) is caught by comparing the head hash
with one noted before (``noted``); ``docs/security.md`` says it plainly. After a purge of the
oldest events (:mod:`.purge`), the chain starts from the newest ``audit_purged`` event's
:class:`Anchor` (:func:`anchor`): the number and hash of the last event it deleted, which the
first kept event must follow; a deletion no purge names is named as before.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from forestviz.store.config import MIN_RETENTION_DAYS, StoreError
from forestviz.store.engine import reached
from forestviz.store.tables import AuditEvent, utc

GENESIS = "0" * 64
CHAIN_LOCK = 2029  # PostgreSQL advisory lock of the chain (migrations hold 2028)
# the fields an event's hash covers, in its canonical JSON
CONTENT = ("seq", "at", "subject", "email", "action", "model_name", "model_version", "detail")
PURGED = "audit_purged"  # the action of a purge (:mod:`.purge`), whose facts anchor the chain
VERIFY_ROWS = 10_000  # events read at a time by :func:`verify`
SHOWN_BREAKS = 20  # broken links named one per line; the rest counted


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content(values) -> bytes:
    """The canonical bytes an event's hash covers; ``values``: its :data:`CONTENT` fields in
    order (:func:`fields`)."""
    found = {name: value for name, value in zip(CONTENT, values, strict=True) if value is not None}
    if "at" in found:
        found["at"] = utc(found["at"]).isoformat(timespec="microseconds")
    return _CANONICAL.encode(found).encode("utf-8")


def fields(event: AuditEvent) -> tuple:
    """The :data:`CONTENT` fields of a mapped event, in order."""
    return tuple(getattr(event, name) for name in CONTENT)


def link(previous: str, values) -> str:
    """The hash of the event of ``values`` following the event whose hash is ``previous``."""
    return hashlib.sha256(previous.encode("utf-8") + content(values)).hexdigest()


def append(session: Session, events: list[AuditEvent]) -> None:
    """Number, link and add ``events`` (in order) after the newest chained event, in
    ``session``'s transaction."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CHAIN_LOCK})
    head = session.execute(select(AuditEvent.seq, AuditEvent.sha256)
                           .where(AuditEvent.seq.is_not(None))
                           .order_by(AuditEvent.seq.desc()).limit(1)).first()
    number, previous = (head.seq, head.sha256) if head is not None else (0, GENESIS)
    for event in events:
        number += 1
        event.seq, event.prev_sha256 = number, previous
        event.sha256 = previous = link(previous, fields(event))
        session.add(event)


@dataclass
class Verdict:
    """What :func:`verify` found: each broken link as one line, the events checked and
    before the chain, and the head (newest chained event) to note."""

    breaks: list[str] = field(default_factory=list)
    checked: int = 0
    before_chain: int = 0
    head: tuple[int, str] | None = None  # (number, hash)
    broken: int = 0  # all the broken links (:attr:`breaks` names the first ones)
    purged: int | None = None  # the chain starts after this number, purged (:mod:`.purge`)

    @property
    def intact(self) -> bool:
        return self.broken == 0

    def lines(self) -> list[str]:
        """The report, one line each: every named break, or that the trail is intact."""
        before = (f"; {self.before_chain:,} earlier events were written before the chain "
                  "began (not checked)") if self.before_chain else ""
        head = ("" if self.head is None else
                f"; head #{self.head[0]:,} {self.head[1]} (note it: `audit verify --noted "
                "HASH` later shows whether it is still there)")
        purged = "" if self.purged is None else (
            f"; events #1 to #{self.purged:,} were purged (the audit_purged event names the "
            "last one's hash)")
        if self.intact:
            return [f"The audit trail is intact: {self.checked:,} chained events checked"
                    f"{purged}{before}{head}."]
        more = self.broken - len(self.breaks)
        return [*self.breaks, *([f"… and {more:,} more."] if more else []),
                f"The audit trail is BROKEN: {_links(self.broken)} in {self.checked:,} "
                f"chained events{before}."]

    def _break(self, line: str) -> None:
        self.broken += 1
        if len(self.breaks) < SHOWN_BREAKS:
            self.breaks.append(line)


def _links(count: int) -> str:
    return f"{count:,} broken link{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class Anchor:
    """Where the chain starts after a purge: the last chain number purged and its hash, the
    purge's time and cut-off."""

    through: int
    last_sha256: str
    at: datetime
    cutoff: datetime

    @property
    def within_retention(self) -> bool:
        """Whether the purge deleted events younger than the minimum retention before it (a
        purge never does: such an anchor was forged)."""
        return self.cutoff > self.at - timedelta(days=MIN_RETENTION_DAYS)


def anchor(engine: Engine) -> Anchor | None:
    """The newest purge's :class:`Anchor` (the largest chain number purged), None when no
    chained event was purged; a purge event whose facts cannot be read is no anchor (its hash
    names it as edited)."""
    with reached(), engine.connect() as connection:
        found = connection.execute(select(AuditEvent.at, AuditEvent.detail).where(
            AuditEvent.action == PURGED, AuditEvent.seq.is_not(None))).all()
    best = None
    for at, detail in found:
        try:
            said = json.loads(detail)
            candidate = Anchor(int(said["through"]), str(said["last_sha256"]), utc(at),
                               utc(datetime.fromisoformat(said["cutoff"])))
        except (TypeError, ValueError, KeyError):
            continue
        if best is None or candidate.through > best.through:
            best = candidate
    return best


# what verify reads of each event: its id, :data:`CONTENT`, the previous hash and its own
CHAIN_COLUMNS = (AuditEvent.id, *(getattr(AuditEvent, name) for name in CONTENT),
                 AuditEvent.prev_sha256, AuditEvent.sha256)


def verify(engine: Engine, noted: str | None = None) -> Verdict:
    """Check the whole chain of ``engine``'s trail, oldest first; ``noted``: a head hash
    noted before, which must still be an event of the chain."""
    verdict, last, after, seen = Verdict(), None, 0, noted is None
    start = anchor(engine)
    while True:
        rows = _read(engine, after)
        for ident, *values, previous, sha in rows:
            if values[0] is None:  # no chain number
                if last is None:
                    verdict.before_chain += 1
                else:
                    verdict._break(f"inserted: the event with id {ident} has no place in "
                                   "the chain")
                continue
            if last is None and start is not None and _after(values[0], start):
                last, verdict.purged = (start.through, start.last_sha256), start.through
                seen = seen or start.last_sha256 == noted
                if start.within_retention:
                    verdict._break(f"deleted: events #1 to #{start.through} were purged "
                                   f"with a cut-off ({start.cutoff:%Y-%m-%d}) within the "
                                   f"minimum retention of {MIN_RETENTION_DAYS} days before "
                                   f"the purge ({start.at:%Y-%m-%d})")
            verdict.checked += 1
            _check(verdict, last, ident, values, previous, sha)
            seen = seen or sha == noted
            last = (values[0], sha) if isinstance(values[0], int) else last
        if len(rows) < VERIFY_ROWS:
            break
        after = rows[-1][0]
    verdict.head = last
    if not seen:
        verdict._break(f"deleted or rewritten: no event has the noted hash {noted} (the "
                       "events since it was noted were removed, or the chain rewritten)")
    return verdict


def _after(seq, start: Anchor) -> bool:
    """Whether the first chained event, numbered ``seq``, comes after the purged events."""
    return isinstance(seq, int) and seq > start.through


def _read(engine: Engine, after: int) -> list:
    """The next :data:`VERIFY_ROWS` events after id ``after``; an event whose time is no
    time (SQLite keeps any text) is a StoreError naming the trail as edited."""
    try:
        with reached(), engine.connect() as connection:
            return connection.execute(select(*CHAIN_COLUMNS).where(AuditEvent.id > after)
                                      .order_by(AuditEvent.id).limit(VERIFY_ROWS)).all()
    except StoreError:
        raise
    except ValueError as err:
        raise StoreError(f"The audit trail was edited: an event after id {after} cannot be "
                         f"read ({' '.join(str(err).split())}).") from err


def _check(verdict: Verdict, last: tuple[int, str] | None, ident: int, values: list,
           previous: str | None, sha: str | None) -> None:
    """The link from ``last`` (number and hash; None: the chain's start) to the event with id
    ``ident``, :data:`CONTENT` ``values``, previous hash and own hash ``sha``."""
    number, expected = (0, GENESIS) if last is None else last
    seq = values[0]
    if not isinstance(seq, int) or link(str(previous), values) != sha:
        verdict._break(f"edited: the event with id {ident} no longer matches its hash")
    elif seq > number + 1 and previous != expected:
        missing = f"#{number + 1}" if seq == number + 2 else f"#{number + 1} to #{seq - 1}"
        verdict._break(f"deleted: event {missing}, before event #{seq} (id {ident})")
    elif seq != number + 1:
        verdict._break(f"inserted: event #{seq} (id {ident}) is out of place after event "
                       f"#{number}")
    elif previous != expected:
        verdict._break(f"edited: event #{number} was given a new hash, which event #{seq} "
                       f"(id {ident}) does not name")
