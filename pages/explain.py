"""Explain: one row's prediction, the trees that carry it, their paths and the row's context."""

from functools import partial

import numpy as np
import streamlit as st

from forestviz.app.workbench import Workbench
from forestviz.explain import plots
from forestviz.explain.narrative import tree_value_note
from forestviz.explain.report_record import edited_values
from ui import explain_view as view
from ui import models
from ui.display import as_text

PICKERS = {"id": "By ID or row number", "whatif": "Edit the values (what-if)"}
# the label holds no name from the file: a widget's label is also its accessible name, which
# would read as_text's backslashes aloud
SORTED = {"classification": "Held-out row (ID · predicted risk · recorded outcome)",
          "regression": "Held-out row (ID · predicted value · recorded outcome)"}
RANKED = {"classification": "Held-out rows, highest predicted risk first",
          "regression": "Held-out rows, highest predicted value first"}


def pick_row(bench: Workbench) -> int:
    """The explained row's position in the data set (kept in the session)."""
    dataset = bench.dataset
    ranked = bench.ranked_rows()
    positions = ranked["position"].tolist()
    current = st.session_state.get(models.ROW)
    if current is None or not 0 <= current < len(dataset.frame):
        current = positions[0]
    pickers = {"ranked": RANKED[dataset.task], **PICKERS}
    how = st.radio("Choose the row", list(pickers), format_func=pickers.get, horizontal=True,
                   key="explain_picker")
    if how == "ranked":
        label = ranked.columns[2]
        text = {p: f"{i} · {r:.3g} · recorded: {a}" for p, i, r, a in
                ranked[["position", "ID", label, "actual"]].itertuples(index=False)}
        # keyed by the model: the browser keeps a kept widget's shown text, so under the same
        # key another model's numbers would stay in the box until the next choice
        chosen = st.selectbox(SORTED[dataset.task], positions,
                              index=positions.index(current) if current in text else 0,
                              format_func=text.get, key=f"explain_ranked@{bench.label}")
        with st.expander("All held-out rows, sorted"):
            st.dataframe(ranked.drop(columns="position"), hide_index=True)
        current = int(chosen)
    elif how == "id":
        ids = dataset.ids.to_numpy(dtype=str)
        wanted = st.text_input("ID, or row number (the table's row label)", value=ids[current],
                               key="explain_id").strip()
        matches = np.flatnonzero(ids == wanted)
        labels = dataset.frame.index
        if matches.size:
            current = int(matches[0])
        elif wanted.isdigit() and int(wanted) in labels:
            current = int(labels.get_loc(int(wanted)))
        else:
            st.warning(as_text(f"No row has the ID or row number '{wanted}'; showing "
                               f"{ids[current]}."), icon=":material/warning:")
    st.session_state[models.ROW] = current
    return current


@st.fragment
def explained_row() -> None:
    """The row picker and everything that follows the row: changing the row (or a what-if
    value) reruns only this."""
    bench = models.workbench()
    dataset = bench.dataset
    models.model_picker(bench, "Model", key="explain_model")
    position = pick_row(bench)
    row_id = str(dataset.ids.iloc[position])
    original = dataset.X.iloc[position]
    actual = dataset.y.iloc[position]
    if st.session_state["explain_picker"] == "whatif":
        st.caption(as_text(f"Starting from row {row_id}; change any value and the prediction, "
                           "weights and paths follow."))
        original = view.what_if_row(bench, original, key=f"whatif@{position}")
        row_id, actual = f"{row_id} (edited)", None
    if bench.is_training_row(position):
        st.caption("This row was used for training: its prediction is optimistic.")

    explanation = bench.explain(values=original, row_id=row_id)
    if len(bench.trained) > 1:
        with st.expander("This row under every trained model"):
            if st.toggle("Compare the models on this row", key="explain_compare"):
                st.dataframe(bench.row_across_models(values=original), key="explain_across")
    st.subheader(as_text(f"Row {row_id}"), anchor=False)  # no "#row-<id>" link from the ID
    view.prediction_card(explanation, actual)
    view.why_and_warnings(explanation)
    view.missing_note(explanation)

    charts = explanation.figures(width=plots.WIDTH)
    halves = st.container(horizontal=True)  # two side by side on a wide window, else one a line
    for name in ("weights", "scores", "kde", "contributions", "contributions_by_tree"):
        if name in charts:
            halves.plotly_chart(charts[name], width=plots.HALF, key=f"explain_{name}")
    st.plotly_chart(charts["simplex"], key="explain_simplex")
    st.subheader(f"The {len(explanation.top_trees)} trees that carry this prediction")
    st.caption("Each drawing shows only this row's path; open a tree's expander for the whole "
               "tree.")
    note = tree_value_note(explanation)
    if note is not None:
        st.caption(as_text(note))
    svgs = {}
    for rank, tree in enumerate(explanation.top_trees):
        svg = view.draw(bench, int(tree), explanation.row, mode="path", fancy=False)
        if svg is not None:
            svgs[int(tree)] = svg
        view.tree_section(bench, explanation, rank, svg)

    st.subheader("This row beside the training rows")
    view.feature_table(explanation)
    if "features" in charts:
        st.plotly_chart(charts["features"], key="explain_features_chart")
    st.subheader("Most similar training rows")
    st.dataframe(explanation.neighbors.drop(columns="row"), hide_index=True,
                 key="explain_neighbours")

    edited = (edited_values(dataset.X.iloc[position], original)
              if st.session_state["explain_picker"] == "whatif" else {})
    buttons = st.container(horizontal=True)
    for kind, mime in (("HTML", "text/html"), ("PDF", "application/pdf")):
        made = partial(bench.report, explanation, pdf=kind == "PDF", tree_svgs=svgs,
                       edited=edited)  # made (and dated) only when the button is clicked
        buttons.download_button(f"Download report ({kind})", made,
                                file_name=f"forestviz-report-{position}.{kind.lower()}", mime=mime,
                                key=f"explain_report_{kind.lower()}", on_click="ignore",
                                icon=":material/download:")


models.follow_jobs()
st.title("Explain")
if models.workbench() is None:
    st.info("Train a model on the Train page first (or use the button on the Home page).",
            icon=":material/info:")
    st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")
    st.stop()
explained_row()
