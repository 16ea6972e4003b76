"""Streamlit pieces of the Explain page for rows that are not in the data set: a new patient
typed into a form, and several new patients from a CSV (:mod:`forestviz.app.new_rows`)."""

from __future__ import annotations

import hashlib
import io

import pandas as pd
import streamlit as st

from forestviz.app import new_rows
from forestviz.app.workbench import Workbench
from forestviz.explain.report.names import new_patient_id
from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.export import csv_bytes
from forestviz.names import elide, elide_cells
from forestviz.numbers import input_format
from ui import library, upload_caps
from ui.display import as_label, as_text, show_error
from ui.explain_view import MISSING

SEVERAL = "explain_several"  # session key: (file digest, model label, Several, batch facts)
CSV_NAME, PARQUET_NAME = "forestviz-explanations.csv", "forestviz-explanations.parquet"


def new_patient(bench: Workbench, key: str) -> tuple[pd.Series, str] | None:
    """A form with the patient's identifier and one empty field per column (a new patient is
    no training row), each with the training range or levels; once "Explain this patient" was
    pressed with values the form accepts, the typed row and its row ID
    (:func:`~forestviz.explain.report.names.new_patient_id`), kept in the session until the
    form is sent again; else None (a refusal is said in one line)."""
    form = bench.new_row_fields()
    with st.form(key, border=True):
        st.caption("Type the patient's values. A field left empty is a missing value: the model "
                   "then uses the training median (or no level), and the explanation says "
                   "whether that guess could change the prediction.")
        identifier = st.text_input(
            "Patient identifier (optional)", max_chars=new_rows.ID_CHARS, key=f"{key}@id",
            help="Names the patient in the report, its file name and the audit trail.")
        grid = st.columns(4)
        values = {}
        for i, field in enumerate(form):
            cell = grid[i % 4]
            label, note = as_label(field.column), as_text(field.range_text())
            if field.numeric:
                values[field.column] = cell.number_input(
                    label, value=None, format=input_format(field.median), placeholder="missing",
                    key=f"{key}@{field.column}", help=note)
                cell.caption(note)
            else:
                values[field.column] = cell.selectbox(
                    label, (MISSING, *field.levels), key=f"{key}@{field.column}", help=note)
        confirmed = st.checkbox(new_rows.CONFIRM, key=f"{key}@confirmed",
                                help=f"A value beyond the training range by more than "
                                     f"{new_rows.FAR:.0%} of its width is refused unless "
                                     "you tick this.")
        sent = st.form_submit_button("Explain this patient", type="primary",
                                     icon=":material/person_search:", key=f"{key}_send")
    if sent:
        typed = {c: None if v == MISSING else v for c, v in values.items()}
        st.session_state.pop(f"{key}@typed", None)  # no earlier patient under a refusal
        try:
            row_id = new_patient_id(new_rows.patient_identifier(identifier))
            st.session_state[f"{key}@typed"] = new_rows.typed_row(form, typed,
                                                                  confirmed=confirmed)
            st.session_state[f"{key}@row_id"] = row_id
        except ValueError as error:
            st.error(as_text(error), icon=":material/error:")
    row = st.session_state.get(f"{key}@typed")
    if row is None:
        return None
    outside = new_rows.outside_range(form, row)
    if outside:
        st.warning(as_text("Outside the training range: " + ", ".join(map(elide, outside))
                           + ". The trees have seen no such value; they treat it as the "
                           "nearest value they have seen."), icon=":material/warning:")
    return row, st.session_state[f"{key}@row_id"]


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
            frame = load_csv(data, max_bytes=new_rows.MAX_BYTES, min_columns=1)
            found = new_rows.several(bench.model, frame)
        except DataError as err:
            st.session_state.pop(SEVERAL, None)
            show_error(err)
            return None
        batch = library.batch_explained(bench, frame,
                                        unfamiliar=int(found.outputs["unfamiliar"].sum()))
        held = st.session_state[SEVERAL] = (digest, bench.label, found, batch)
    found, batch = held[2], held[3]
    if found.ignored:
        st.caption(as_text("Not read by the model, so ignored: "
                           + ", ".join(map(elide, found.ignored)) + "."))
    st.caption("One line per row; select a line for its full explanation below. The numbers are "
               "the model's, as for one row; the downloads hold every output and contribution.")
    picked = st.dataframe(elide_cells(found.summary), hide_index=True, key=f"{key}@table",
                          on_select="rerun", selection_mode="single-row")
    buttons = st.container(horizontal=True)
    parquet = io.BytesIO()
    found.outputs.to_parquet(parquet, index=False)
    model = library.model_key(bench.model)
    for kind, name, data, mime in (
            ("CSV", CSV_NAME, csv_bytes(found.outputs), "text/csv"),
            ("Parquet", PARQUET_NAME, parquet.getvalue(), "application/vnd.apache.parquet")):
        # the click reruns the session, which records the download (its file's digest)
        buttons.download_button(f"Download the explanations ({kind})", data, file_name=name,
                                mime=mime, key=f"{key}@{kind}", on_click=library.downloaded,
                                args=(model, batch, name, data), icon=":material/download:")
    rows = picked.selection.rows
    if not rows:
        return None
    i = int(rows[0])
    return found.rows.iloc[i], str(found.summary["ID"].iloc[i])
