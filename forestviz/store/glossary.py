"""The glossary's entries of the model library (:mod:`forestviz.glossary`, the terms below it):
one per action a role may do (:data:`forestviz.store.roles.MAY`, its own words) and per audit
trail event (:data:`forestviz.store.audit.ACTIONS`), read off their tables. An event without a
sentence here is a KeyError when the glossary is built (a test builds it), so none goes
undefined. The glossary itself sits under every package; these entries sit with the tables
they read, and :func:`entries` gives the whole glossary (the Glossary page's)."""

from __future__ import annotations

from forestviz import glossary
from forestviz.glossary import EVENT, RIGHT, SECTIONS, Term
from forestviz.store.audit import ACTIONS
from forestviz.store.roles import MAY, ROLES

EVENT_WORDS = {
    "model_opened": "a published model was opened.",
    "row_explained": "one row, or values typed by hand, was explained; the event holds what "
                     "answered, the answer and the warnings shown.",
    "report_downloaded": "an explanation's record (HTML or PDF) was downloaded.",
    "model_published": "a trained model was published to the library with its model card.",
    "model_retired": "a published model version was retired: no longer offered.",
    "signin_refused": "a sign-in was refused (no known role, or a bad token).",
    "signed_in": "a user signed in.",
    "signed_out": "a user signed out.",
    "rows_explained": "a batch of rows (a CSV of several patients) was explained.",
    "explanations_downloaded": "the explanations of a batch of rows were downloaded.",
    "report_written": "the command line wrote an explanation's record to a file.",
    "audit_viewed": "the audit trail was viewed, with its filters.",
    "audit_exported": "the audit trail was exported as CSV, with its filters.",
    "explanation_disputed": "someone recorded a disagreement with an answer: its kind and "
                            "reason.",
    "audit_purged": "an admin purged the events older than the trail's retention.",
}


def library_terms() -> list[Term]:
    """The roles' rights, then the audit trail's events."""
    rights = [Term(action, action.replace("_", " "), f"the right to {words}; roles that "
                   f"have it: {', '.join(role for role in ROLES if role in roles)}.",
                   "forestviz/store/roles.py", RIGHT)
              for action, (words, roles) in MAY.items()]
    events = [Term(action, action.replace("_", " "), EVENT_WORDS[action],
                   "forestviz/store/audit.py", EVENT) for action in ACTIONS]
    return rights + events


def entries(sections: tuple[str, ...] = SECTIONS) -> list[Term]:
    """Every term the app uses in ``sections`` (:func:`forestviz.glossary.entries` and the
    library's), in :data:`~forestviz.glossary.SECTIONS` order."""
    found = [*glossary.entries(sections), *library_terms()]
    return [t for section in SECTIONS if section in sections for t in found
            if t.section == section]
