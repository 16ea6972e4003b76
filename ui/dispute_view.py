"""The glance's "I disagree / acted otherwise": a button beside the report buttons opening a
small form (what happened, the reason: required, at most
:data:`~forestviz.store.disputes.REASON_CHARS` characters, kept as plain text), recorded in the
audit trail with the explanation's facts once they are known (:func:`record`, after the
summary is on screen) and listed in the row's record (:func:`ui.library.disputes`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from forestviz.store.config import StoreError
from forestviz.store.disputes import KINDS, REASON_CHARS
from ui import library
from ui.display import as_text, show_error

if TYPE_CHECKING:
    from forestviz.app.workbench import Workbench

LABEL = "I disagree / acted otherwise"


@dataclass
class Asked:
    """The form laid out: its container (for what :func:`record` says) and what was sent
    in this run (kind and reason), if anything."""

    box: st.delta_generator.DeltaGenerator
    sent: tuple[str, str] | None


def form(place, key: str) -> Asked:
    """The button and its form in ``place`` (the row of report buttons)."""
    box = place.popover(LABEL, icon=":material/rate_review:")
    with box.form(key=key, clear_on_submit=True, border=False):
        kind = st.radio("What happened", list(KINDS), format_func=KINDS.get, key=f"{key}_kind")
        reason = st.text_input("Reason (required)", max_chars=REASON_CHARS, key=f"{key}_reason",
                               placeholder="e.g. the guessed value is known: 120 mg/dL")
        sent = st.form_submit_button("Record in the audit trail", key=f"{key}_send")
    return Asked(box, (kind, reason) if sent else None)


def record(asked: Asked | None, bench: Workbench, items: dict | None) -> None:
    """Record what ``asked`` sent for the explanation of ``items`` (its facts, None when
    nothing can be recorded), and say so (or why not, in one line) in the form's box."""
    if asked is None or asked.sent is None:
        return
    with asked.box:
        if items is None:
            st.warning(as_text(f"Not recorded: {library.why_not_usable()}"),
                       icon=":material/cloud_off:")
            return
        try:
            made = library.disputed(bench, items, *asked.sent)
        except StoreError as err:
            show_error(err)
            return
        st.success(as_text(f"Recorded: {made.sentence()}"), icon=":material/check:")
    st.toast(as_text("Your disagreement is in the audit trail and in this row's record."))
