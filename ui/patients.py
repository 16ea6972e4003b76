"""Streamlit pieces of the Explain page for rows that are not in the data set: a new patient
typed into a form, and several new patients from a CSV (:mod:`forestviz.app.new_rows`)."""

from __future__ import annotations

import hashlib
import io

import pandas as pd
import streamlit as st

from forestviz.app import new_rows
from forestviz.app.workbench import Workbench
from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.export import csv_bytes
from forestviz.names import elide, elide_cells
from ui import upload_caps
from ui.display import as_label, as_text, show_error
from ui.explain_view import MISSING

SEVERAL = "explain_several"  # session key: (file digest, model label, Several)


def new_patient(bench: Workbench, key: str) -> pd.Series | None:
    """A form with one empty field per column (a new patient is no training row), each with
    the training range or levels; the typed row once "Explain this patient" was pressed (kept
    in the session until the form is sent again), else None."""
    form = bench.new_row_fields()
    with st.form(key, border=True):
        st.caption("Type the patient's values. A field left empty is a missing value: the model "
                   "then uses the training median (or no level), and the explanation says "
                   "whether that guess could change the prediction.")
        grid = st.columns(4)
        values = {}
        for i, field in enumerate(form):
            cell = grid[i % 4]
            label, note = as_label(field.column), as_text(field.range_text())
            if field.numeric:
                values[field.column] = cell.number_input(
                    label, value=None, format="%g", placeholder="missing",
                    key=f"{key}@{field.column}", help=note)
                cell.caption(note)
            else:
                values[field.column] = cell.selectbox(
                    label, (MISSING, *field.levels), key=f"{key}@{field.column}", help=note)
        sent = st.form_submit_button("Explain this patient", type="primary",
                                     icon=":material/person_search:", key=f"{key}_send")
    if sent:
        typed = {c: None if v == MISSING else v for c, v in values.items()}
        try:
            st.session_state[f"{key}@typed"] = new_rows.typed_row(form, typed)
        except ValueError as error:
            st.error(as_text(error), icon=":material/error:")
    row = st.session_state.get(f"{key}@typed")
    if row is not None:
        outside = new_rows.outside_range(form, row)
        if outside:
            st.warning(as_text("Outside the training range: " + ", ".join(map(elide, outside))
                               + ". The trees have seen no such value; they treat it as the "
                               "nearest value they have seen."), icon=":material/warning:")
    return row


def several_patients(bench: Workbench, key: str) -> tuple[pd.Series, str] | None:
    """Upload a CSV of new rows with the training table's columns: a summary line per row,
    the command line's ``explain`` output to download, and the row picked in the table (its
    values and ID) for the full explanation; None before a row is picked."""
    uploaded = upload_caps.file_uploader(
        f"CSV of new patients with the training table's columns (up to "
        f"{new_rows.MAX_ROWS:,} rows, {new_rows.MAX_BYTES // 2**20} MB)", type=["csv"],
        key=f"{key}@file", max_mb=new_rows.MAX_BYTES // 2**20)
    if uploaded is None:
        st.session_state.pop(SEVERAL, None)
        return None
    data = uploaded.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    held = st.session_state.get(SEVERAL)
    if held is None or held[:2] != (digest, bench.label):
        try:
            frame = load_csv(data, max_bytes=new_rows.MAX_BYTES)
            found = new_rows.several(bench.model, frame)
        except DataError as err:
            st.session_state.pop(SEVERAL, None)
            show_error(err)
            return None
        held = st.session_state[SEVERAL] = (digest, bench.label, found)
    found = held[2]
    if found.ignored:
        st.caption(as_text("Not read by the model, so ignored: "
                           + ", ".join(map(elide, found.ignored)) + "."))
    st.caption("One line per row; select a line for its full explanation below. The numbers are "
               "the model's, as for one row; the downloads hold every output and contribution.")
    picked = st.dataframe(elide_cells(found.summary), hide_index=True, key=f"{key}@table",
                          on_select="rerun", selection_mode="single-row")
    buttons = st.container(horizontal=True)
    buttons.download_button("Download the explanations (CSV)", csv_bytes(found.outputs),
                            file_name="forestviz-explanations.csv", mime="text/csv",
                            on_click="ignore", icon=":material/download:")
    parquet = io.BytesIO()
    found.outputs.to_parquet(parquet, index=False)
    buttons.download_button("Download the explanations (Parquet)", parquet.getvalue(),
                            file_name="forestviz-explanations.parquet",
                            mime="application/vnd.apache.parquet", on_click="ignore",
                            icon=":material/download:")
    rows = picked.selection.rows
    if not rows:
        return None
    i = int(rows[0])
    return found.rows.iloc[i], str(found.summary["ID"].iloc[i])
