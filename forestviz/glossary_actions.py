"""The glossary's entries read off the app's own tables: one per model family
(:data:`forestviz.registry.FAMILIES`), per action a role may do
(:data:`forestviz.store.roles.MAY`, its own words) and per audit trail event
(:data:`forestviz.store.audit.ACTIONS`). A family or an event without a sentence here is a
KeyError when the glossary is built (a test builds it), so none goes undefined."""

from __future__ import annotations

from forestviz.glossary import ABRF, AGB, ERF, EVENT, FAMILY, RIGHT, Term

FAMILY_WORDS = {
    "vanilla": ("plain random forest", "every tree counts the same: the prediction is the "
                "average of the trees (scikit-learn's random forest or extra trees).",
                "Breiman, \"Random Forests\" (2001)"),
    "erf": ("Enhanced RF", "a forest retrained over rounds that give more weight to the "
            "training rows it misjudges, deciding by Youden's J; each row's tree scores S "
            "show which trees explain it.", ERF),
    "abrf1_qp": ("attention forest, ABRF-1", "the tree weights α = (1 − ε)·D + ε·w, with w "
                 "trained by a quadratic program (squared error).", f"{ABRF}, eqs 13–21"),
    "abrf1_lp": ("attention forest, ABRF-1 (LP)", "as ABRF-1, with w trained by a linear "
                 "program (absolute error).", f"{ABRF}, eq 22"),
    "abrf2": ("attention forest, ABRF-2", "Softmax attention with a trained temperature per "
              "tree and a trained weight per column (ε = 0).", f"{ABRF}, eq 23"),
    "abrf3": ("attention forest, ABRF-3", "ABRF-2's attention mixed with trained weights w by "
              "the contamination ε.", f"{ABRF}, eq 24"),
    "softmax": ("attention forest without training", "the Softmax weights D alone: nothing is "
                "trained (ε = 0).", f"{ABRF}, eq 14"),
    "agboost": ("attention over boosting", "gradient-boosted trees whose trees get per-row "
                "attention weights, discounted by γ for later trees (numbers only).", AGB),
}

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


def actions(sections) -> list[Term]:
    """The families', the roles' and the audit trail's entries, in that order, of those in
    ``sections`` (the store, and its database package, is imported only for its own)."""
    from forestviz.registry import FAMILIES

    families = [Term(family.label, FAMILY_WORDS[key][0], FAMILY_WORDS[key][1],
                     FAMILY_WORDS[key][2], FAMILY) for key, family in FAMILIES.items()]
    if RIGHT not in sections and EVENT not in sections:
        return families
    from forestviz.store.audit import ACTIONS
    from forestviz.store.roles import MAY, ROLES

    rights = [Term(action, action.replace("_", " "), f"the right to {words}; roles that "
                   f"have it: {', '.join(role for role in ROLES if role in roles)}.",
                   "forestviz/store/roles.py", RIGHT)
              for action, (words, roles) in MAY.items()]
    events = [Term(action, action.replace("_", " "), EVENT_WORDS[action],
                   "forestviz/store/audit.py", EVENT) for action in ACTIONS]
    return families + rights + events
