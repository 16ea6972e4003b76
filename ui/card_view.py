"""The model card of a published version on the Models page, laid out from
:mod:`forestviz.card.views` (the tables ``forestviz models card`` writes): its facts as text,
its metrics, calibration and subgroup tables, and the card to download as HTML or as its
canonical JSON (whose SHA-256 is the card's, named in every record made with the model).
The publisher's words and the table's values are shown as text and table cells, never as
markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from forestviz.card import views
from forestviz.card.card import canonical
from ui.display import as_text

if TYPE_CHECKING:
    from forestviz.store import ModelVersion

NO_CARD = "This version was published before model cards: it has none."


def show_card(info: ModelVersion, key: str) -> None:
    """The card of ``info`` in an expander, with its downloads."""
    with st.expander("Model card", icon=":material/badge:"):
        card = info.card
        if card is None:
            st.info(NO_CARD, icon=":material/info:")
            return
        for label, text in views.facts(card, info.card_sha256):
            st.text(f"{label}: {text}")
        st.markdown("**Held-out performance**")
        st.dataframe(views.metrics_table(card), hide_index=True, key=f"{key}_metrics")
        st.caption(as_text(views.interval_note(card)))
        st.markdown("**Calibration**")
        calibration = views.calibration_table(card)
        if calibration is None:
            st.caption(views.NO_CALIBRATION)
        else:
            st.dataframe(calibration, hide_index=True, key=f"{key}_calibration")
            st.caption(views.calibration_note(card))
        for i, (column, table) in enumerate(views.subgroup_tables(card)):
            st.markdown("**By subgroup**")
            st.text(column)
            st.dataframe(table, hide_index=True, key=f"{key}_subgroup_{i}")
        left, right = st.columns(2)
        stem = f"model card {info.name}@{info.version}"
        left.download_button("Download the card (HTML)",
                             views.card_html(card, info.card_sha256).encode("utf-8"),
                             file_name=f"{stem}.html", mime="text/html", key=f"{key}_html",
                             on_click="ignore", icon=":material/download:")
        right.download_button("Download the card (JSON)", canonical(card),
                              file_name=f"{stem}.json", mime="application/json",
                              key=f"{key}_json", on_click="ignore", icon=":material/download:")
