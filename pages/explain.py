"""Explain: one row's prediction, the trees that carry it, their paths and the row's context."""

from contextlib import nullcontext
from functools import partial

import streamlit as st

from forestviz.app.workbench import Workbench
from forestviz.explain import plots
from forestviz.explain.report.names import typed_identifier
from forestviz.explain.report.record import TRAINING_ROW, edited_values
from forestviz.io.row_ids import row_position
from ui import (
    counterfactual_view,
    dispute_view,
    library,
    models,
    patients,
    signin,
    summary_view,
)
from ui import explain_view as view
from ui.display import as_text

signin.guard("explain")

PICKERS = {"id": "By ID or row number", "whatif": "Edit the values (what-if)",
           "new": "New patient", "several": "Several new patients (CSV)"}
# the label holds no name from the file: a widget's label is also its accessible name, which
# would read as_text's backslashes aloud
SORTED = {"classification": "Held-out row (ID · predicted risk · recorded outcome)",
          "regression": "Held-out row (ID · predicted value · recorded outcome)"}
RANKED = {"classification": "Held-out rows, highest predicted risk first",
          "regression": "Held-out rows, highest predicted value first"}


def pick_row(bench: Workbench, how: str) -> int:
    """The explained row's position in the data set (kept in the session)."""
    dataset = bench.dataset
    ranked = bench.ranked_rows()
    positions = ranked["position"].tolist()
    current = st.session_state.get(models.ROW)
    if current is None or not 0 <= current < len(dataset.frame):
        current = positions[0]
    if how == "ranked":
        text = bench.row_labels()
        # keyed by the model: the browser keeps a kept widget's shown text, so under the same
        # key another model's numbers would stay in the box until the next choice
        left, right = st.columns([3, 2], vertical_alignment="bottom")
        chosen = left.selectbox(SORTED[dataset.task], positions,
                                index=positions.index(current) if current in text else 0,
                                format_func=text.get, key=f"explain_ranked@{bench.label}")
        with right.expander("All held-out rows, sorted"):
            st.dataframe(ranked.drop(columns="position"), hide_index=True)
        current = int(chosen)
    elif how == "id":
        ids = dataset.ids
        wanted = st.text_input("ID, or row number (the table's row label)",
                               value=ids.iloc[current], key="explain_id").strip()
        found = row_position(dataset.frame, dataset.id_column, wanted)
        if found is None:
            st.warning(as_text(f"No row has the ID or row number '{wanted}'; showing "
                               f"{ids.iloc[current]}."), icon=":material/warning:")
        current = current if found is None else found
    st.session_state[models.ROW] = current
    return current


@st.fragment
def explained_row() -> None:
    """The row picker and everything that follows the row: changing the row (or a what-if
    value) reruns only this."""
    bench = models.workbench()
    dataset = bench.dataset
    models.model_picker(bench, "Model", key="explain_model")
    pickers = {"ranked": RANKED[dataset.task], **PICKERS}
    how = st.radio("Choose the row", list(pickers), format_func=pickers.get, horizontal=True,
                   key="explain_picker", label_visibility="collapsed")
    # a new patient's summary goes above the form, on the first screen once it is explained
    above = st.container() if how == "new" else nullcontext()
    if how == "new":
        typed = patients.new_patient(bench, key=f"explain_new@{dataset.name}")
        if typed is None:
            return
        (original, row_id), position, actual = typed, None, None
    elif how == "several":
        picked = patients.several_patients(bench, key="explain_several")
        if picked is None:
            return
        (original, row_id), position, actual = picked, None, None
    else:
        position = pick_row(bench, how)
        row_id = str(dataset.ids.iloc[position])
        original = dataset.X.iloc[position]
        actual = dataset.y.iloc[position]
    if how == "whatif":
        st.caption(as_text(f"Starting from row {row_id}; change any value and the prediction, "
                           "weights and paths follow."))
        original = view.what_if_row(bench, original, key=f"whatif@{position}")
        row_id, actual = f"{row_id} (edited)", None
    training_row = position is not None and bench.is_training_row(position)
    if training_row:
        st.caption(TRAINING_ROW)

    explanation = bench.explain(values=original, row_id=row_id)
    typed = typed_identifier(row_id) if how == "new" else None  # the patient's identifier
    glance = bench.glance(explanation)
    edited = edited_values(dataset.X.iloc[position], original) if how == "whatif" else {}
    asked = {}  # what would change the answer, laid out last, for the report
    disputes = []  # the disagreements recorded with this row, for the report
    explained = {}  # what the trail records of this explanation, for the report's event

    def report_buttons(place) -> None:
        appendix = place.checkbox("With appendix", key="explain_report_appendix",
                                  help="The model's settings and metrics, the weights, the "
                                       "trees and their paths, after the one-page summary.")
        published = library.published_ref(bench.model)  # its "NAME@VERSION" in the record
        names = {kind: bench.report_name(explanation, kind, edited=bool(edited))
                 for kind in ("html", "pdf")}
        made = library.audited_report(  # on click
            lambda **options: bench.report(
                explanation, glance=glance, appendix=appendix, edited=edited, actual=actual,
                training_row=training_row, counterfactual=asked.get("found"),
                published=None if published is None else published.ref,
                card=None if published is None else published.card_sha256,
                disputes=[d.sentence() for d in disputes], **options),
            bench, explained, names)
        place.download_button("HTML report", made, file_name=names["html"], mime="text/html",
                              key="explain_report_html", on_click="ignore",
                              icon=":material/download:")
        with place:
            view.pdf_report(partial(made, pdf=True), names["pdf"])
        asked["dispute"] = dispute_view.form(place, key="explain_dispute")

    title = f"Row {row_id}" if typed is None else f"New patient {typed}".strip()
    with above:
        summary_view.summary(explanation, glance, title=title,
                             notes=[bench.whole().stability(explanation).sentence()],
                             buttons=report_buttons,
                             waterfall=bench.reasons_figure(
                                 glance, explanation, width=summary_view.WATERFALL_WIDTH,
                                 height=summary_view.WATERFALL_HEIGHT))
        changes = st.container()  # what would change the answer: filled last
    # recorded once the summary is on screen (a session's model is digested once, in seconds)
    facts = {"row": row_id if how in ("ranked", "id") else None, "patient": typed}
    explained.update(library.row_explained(bench, explanation, glance, **facts) or {})
    dispute_view.record(asked.get("dispute"), bench, explained or None)
    disputes += library.disputes(explained or None)

    def interactive(section) -> None:  # the page's own additions to the view's sections
        if section.key != "forest":
            return
        view.attention_lens(bench, explanation)
        if len(bench.trained) > 1:
            with st.expander("This row under every trained model"):
                if st.toggle("Compare the models on this row", key="explain_compare"):
                    st.dataframe(bench.row_across_models(values=original),
                                 key="explain_across")

    # after the summary: it is on screen meanwhile
    view.sections(bench, explanation, bench.explain_view(explanation, glance, actual=actual,
                                                         edited=edited, width=plots.WIDTH),
                  interactive)
    with changes:  # seconds of search, after everything else is on the page
        asked["found"] = counterfactual_view.what_would_change(bench, explanation)
    if asked["found"] is not None and asked["found"].best is not None:
        library.row_explained(bench, explanation, glance, **facts, counterfactual=True)


models.follow_jobs()
st.title("Explain", anchor=False)
if models.workbench() is None:
    st.info("Train a model on the Train page first (or use the button on the Home page).",
            icon=":material/info:")
    signin.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")
    st.stop()
explained_row()
