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

import json
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
MATCHED = ("blob_sha256", "unpublished_sha256", "input")
"""The facts that make two explanations the same for a disagreement: the model that answered
and the keyed digest of the row's values."""


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


def read_dispute(detail, by: str, at: datetime) -> tuple[dict, Dispute] | None:
    """A disagreement event's facts and its :class:`Dispute` read back from the event's
    ``detail`` (``by`` and ``at`` from its row), or None when the detail is not one (it does
    not parse, or its kind or reason is not one a disagreement could have recorded)."""
    try:
        found = json.loads(detail)
    except (TypeError, ValueError):
        return None
    kind = found.get("disputed") if isinstance(found, dict) else None
    reason = found.get("reason") if isinstance(found, dict) else None
    if not (isinstance(kind, str) and kind in KINDS and isinstance(reason, str)):
        return None
    try:
        kept = reason_text(reason)
    except StoreError:
        return None
    return (found, Dispute(kind, reason, by, at)) if kept == reason else None
