"""A clinician's "I disagree / acted otherwise" with one explanation (issue 38, item 3; the EU AI
Act's human oversight asks that users can disregard or override an output).

A disagreement is an ``explanation_disputed`` event holding the explanation's facts
(:func:`forestviz.store.explained.explanation_facts`: the model's blob, the keyed digest of the
row's values, the answer and the warnings shown), which of :data:`KINDS` it is (``disputed``)
and the ``reason`` typed: required, one line in the names' normal form (controls, line breaks
and bidirectional overrides out: :func:`forestviz.names.normal_form`), at most
:data:`REASON_CHARS` characters, text everywhere it is shown (a table cell on the Audit page,
escaped in the record). Only a role that may dispute (:mod:`forestviz.store.roles`: whoever
may explain) records one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from forestviz.names import normal_form
from forestviz.store.actor import Actor
from forestviz.store.config import StoreError
from forestviz.store.roles import require

ACTION = "explanation_disputed"
REASON_CHARS = 200
KINDS = {"disagree": "I disagree with the model's answer",
         "acted_otherwise": "I acted otherwise than the model's answer suggests"}


@dataclass(frozen=True)
class Dispute:
    """One recorded disagreement: its kind (:data:`KINDS`), reason, who and when (UTC)."""

    kind: str
    reason: str
    by: str
    at: datetime

    def sentence(self) -> str:
        """"I disagree with the model's answer: <reason> (ann@clinic.test, 2026-11-29 10:02
        UTC)": the record's line (the record escapes it)."""
        return f"{KINDS[self.kind]}: {self.reason} ({self.by}, {self.at:%Y-%m-%d %H:%M} UTC)"


def reason_text(typed) -> str:
    """The reason as kept: checked for length before any work, in the names' normal form;
    StoreError (one line) when it is empty or too long."""
    raw = str(typed or "")
    if len(raw) > 4 * REASON_CHARS:  # refused before any work
        raise StoreError(f"A reason has at most {REASON_CHARS} characters.")
    reason = normal_form(raw)
    if not reason:
        raise StoreError("Say why: a disagreement needs a reason.")
    if len(reason) > REASON_CHARS:
        raise StoreError(f"A reason has at most {REASON_CHARS} characters; this one has "
                         f"{len(reason):,}.")
    return reason


def dispute_facts(actor: Actor, items: dict, kind: str, reason) -> tuple[dict, Dispute]:
    """The event's facts (the explanation's ``items``, the kind and the reason) and the
    :class:`Dispute`, for a role that may dispute (else
    :class:`~forestviz.store.roles.NotAllowed`); StoreError for an unknown kind or a reason
    that is missing or too long."""
    require(actor.role, "dispute")
    if kind not in KINDS:
        raise StoreError(f"Unknown kind of disagreement '{str(kind)[:40]}'; one of "
                         f"{', '.join(KINDS)}.")
    reason = reason_text(reason)
    found = Dispute(kind, reason, actor.email or actor.subject, datetime.now(UTC))
    return {**items, "disputed": kind, "reason": reason}, found
