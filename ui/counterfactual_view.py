"""The Explain page's "What would change the answer" under the summary: the sentence and the
small before/after table of :mod:`forestviz.explain.counterfactual.wording`, the record's too.

It is asked for with a toggle, not computed for every row shown: the search takes from a
fraction of a second to seconds, its answer depends on which columns cannot change (to be
marked first: none are by default, see :mod:`forestviz.app.counterfactuals`), and a clinician
who asked once sees it follow the row, model and marks (the toggle stays on). The page lays it
out last, into a place kept under the summary, so nothing else on the page waits for it; the
spinner shows once it has taken 0.5 s (Streamlit's ``st.spinner`` delay). Each answer is kept
for the session (the last :data:`KEPT`), so a rerun does not search again. Only changes the
model itself confirmed are shown; without one, the line says so.
"""

from __future__ import annotations

import streamlit as st

from forestviz.app.workbench import Workbench
from forestviz.explain import Explanation
from forestviz.explain.counterfactual.asked import requested_change
from forestviz.explain.counterfactual.wording import before_after, summary
from forestviz.io.errors import DataError
from forestviz.names import elide, elide_cells
from forestviz.numbers import input_format
from ui.display import as_text, show_error

TOGGLE = "explain_counterfactual"
FOUND = "explain_counterfactuals"  # (model, row, fixed, change) → WhatWouldChange
KEPT = 8  # answers kept per session
ANSWER = "explain_counterfactual_answer"  # the line and the table's container


def what_would_change(bench: Workbench, explanation: Explanation):
    """The toggle, the columns that cannot change (a regression: the change to look for) and,
    once asked, the answer (the one returned, for the record and the audit trail; None when
    it was not asked for)."""
    if not st.toggle("What would change the answer?", key=TOGGLE,
                     help="The nearest change to the columns that may change that makes the "
                          "model answer otherwise, each checked on the model itself. What "
                          "the model would need to see, not advice."):
        return None
    model = bench.model
    fixed = st.multiselect(
        "Columns that cannot change", list(model.summary.columns.names),
        default=list(bench.fixed_columns()), key=f"explain_fixed@{bench.label}",
        format_func=elide, placeholder="none",
        help="Kept at the row's values (age, sex…). Remembered for this model in this "
             "session, and published with it.")
    fixed = bench.fix_columns(fixed)
    change = None
    if model.task == "regression":
        change = st.number_input(f"Change of the predicted {elide(model.target)} to look for",
                                 value=None, format=input_format(explanation.prediction),
                                 key=f"explain_change@{bench.label}",
                                 placeholder="e.g. -10", help="Added to the prediction: the "
                                 "nearest change that moves it at least this far.")
        if change is None:
            st.caption("Enter the change of the prediction to look for.")
            return None
        try:
            change = requested_change(change)
        except DataError as err:
            show_error(err)
            return None
    found = _answer(bench, explanation, fixed, change)
    with st.container(key=ANSWER):
        st.info(as_text(summary(found)), icon=":material/alt_route:")
        if found.best is not None:
            st.dataframe(elide_cells(before_after(found)), hide_index=True)
    return found


def _answer(bench: Workbench, explanation: Explanation, fixed, change):
    """The session's kept answer for the row, model, ``fixed`` and ``change``, else the
    search's (with its spinner)."""
    memory = st.session_state.setdefault(FOUND, {})
    key = (bench.model, explanation.row.tobytes(), fixed, change)
    found = memory.get(key)
    if found is None:
        with st.spinner("Looking for the nearest change the model itself confirms…",
                        show_time=True):
            found = bench.counterfactual(explanation, change=change)
        memory[key] = found
        while len(memory) > KEPT:
            memory.pop(next(iter(memory)))
    return found
