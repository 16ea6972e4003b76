"""The Explain page's summary, first and alone on the screen: what the model predicts for the
row and how sure it is, the reasons both ways, whether a guessed value could change it, what
the most similar training rows turned out to have, and the report buttons. It lays out one
:class:`~forestviz.explain.row.glance.Glance`, the object the report's first page renders too."""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st

from forestviz.explain import Explanation
from forestviz.explain.row.glance import Glance
from forestviz.explain.row.imputed import WARNING
from forestviz.glossary import help_text, used_in
from forestviz.names import elide
from ui.charts import chart
from ui.display import as_label, as_text

# pixels the waterfall is laid out for: its column in a 700 px window (at 1400 px the column is
# 470 px and the figure stretches to it; laid out wider, its title was cut at 700 px); the
# glance's fixed height keeps the summary on the first screen (1400 × 900): its labels on one
# line, as many bars as that height holds; the record's waterfall takes the height its
# two-line labels need
WATERFALL_WIDTH = 290
WATERFALL_HEIGHT = 400


def tiles(e: Explanation, g: Glance) -> None:
    """The number and how sure: the risk (or value), its calibrated value and interval, the
    range over the guessed values when one could change the answer (the interval then says
    it assumes them), the predicted class and the decision threshold."""
    row = st.container(horizontal=True, gap="medium", key="explain_tiles")
    if e.task == "classification":
        shown = e.classes[-1] if e.classes.size == 2 else e.predicted_class
        row.metric("Predicted class", as_text(elide(e.predicted_class)), width="content")
        row.metric(as_label(f"P({elide(shown)})"), e.outcome_texts(g.value)[0], width="content",
                   help=as_text(f"The model's probability of {shown} for this row. "
                                + help_text("P(class)")))
        if e.calibrated_risk is not None:  # the same risk, as often as it came true
            row.metric("Calibrated", e.outcome_texts(e.calibrated_risk)[0], width="content",
                       help=as_text(help_text("calibrated risk")))
    else:
        row.metric("Predicted value", e.value_texts(e.prediction)[0], width="content")
    if e.interval is not None:
        low, high = e.outcome_texts(*e.interval)
        assumed = "" if g.guessed is None else ", guesses assumed"
        row.metric(as_label(e.interval_name[:1].upper() + e.interval_name[1:] + assumed),
                   f"{low}–{high}", width="content", help=as_text(
                       g.interval + " " + help_text("Venn-ABERS" if e.calibrated_risk is not None
                                                    else "split-conformal interval")))
    if g.guessed is not None:  # the wider range the missing values' guesses span
        row.metric("With other guesses", g.guessed, width="content",
                   help=as_text(g.guess_note))
    if e.threshold is not None:
        row.metric("Decision threshold", f"{e.threshold:.3f}", width="content",
                   help=as_text(help_text("Youden's J") + (
                       "" if e.decision_rule is None else f" Rule: {e.decision_rule}.")))


def summary(e: Explanation, g: Glance, *, title: str, notes: list[str],
            buttons: Callable[[st.delta_generator.DeltaGenerator], None],
            waterfall: go.Figure | None) -> None:
    """The summary block: ``title`` (the row) with what is predicted, the tiles (with the
    range the guessed values span, when one could change the answer), the alarms of those
    missing values, the warnings about the weights, then the sentence arguing both sides,
    the quiet notes about the other missing values, the similar rows, ``notes`` (short
    facts such as the stability line) and, through ``buttons``, the report buttons; the
    compact two-sided ``waterfall`` beside them (laid out for :data:`WATERFALL_WIDTH` ×
    :data:`WATERFALL_HEIGHT`: :meth:`~forestviz.app.workbench.Workbench.reasons_figure`), when
    there is one."""
    with st.container(border=True, key="explain_summary"):
        said = (f"predicted {elide(e.predicted_class)}" if e.task == "classification"
                else f"predicted {e.value_texts(e.prediction)[0]}")
        st.subheader(as_text(f"{title}: {said}"), anchor=False)  # no "#row-<id>" link
        tiles(e, g)
        for check in g.alarms:  # under the tiles, on the first screen
            st.warning(as_text(check.sentence), icon=":material/warning:")
        left, right = st.columns([11, 10], gap="medium")
        with left:
            if g.unfamiliar is not None:  # the row is unlike those the model learned from:
                # beside the waterfall, which a full-width line pushed off the first screen
                st.warning(as_text(f"{g.unfamiliar}."), icon=":material/explore_off:")
            for warning in g.warnings:  # how far to trust the weights (the record's too)
                st.warning(as_text(warning), icon=":material/warning:")
            st.info(as_text(g.argument), icon=":material/balance:")
            for check in g.checks:
                if check.level != WARNING:
                    st.caption(as_text(f"Missing value: {check.sentence}"))
            lines = " ".join(line for line in (g.similar and f"{g.similar}.", *notes) if line)
            st.caption(as_text(lines), help=as_text(" ".join(t.help for t in used_in(lines)))
                       or None)
            buttons(st.container(horizontal=True, key="explain_reports"))
        if waterfall is not None:
            chart(place=right, fig=waterfall, key="explain_reasons", width="stretch")
