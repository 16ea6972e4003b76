"""Data: choose a bundled set or upload a CSV, look at it, pick target / ID / excluded columns.

No lambda as a widget's ``format_func`` here: Streamlit keeps it for the session
(``persist_state``), and a lambda keeps this page's namespace, whose ``source`` holds an
upload's table, after that upload was replaced (a dict's ``get`` keeps only the labels)."""

import streamlit as st

from forestviz.io.bundled import list_datasets
from forestviz.io.csv_input import MAX_CELL_CHARS, MAX_LINE_CHARS, DataError
from forestviz.names import CELL_PREVIEW_LIMIT, elide_cells
from ui import models, signin, state, upload_caps
from ui.display import as_text, show_dataset_summary, show_error

signin.guard("data")

SOURCE_KINDS = {"bundled": "Bundled data set", "upload": "Upload a CSV"}
TASK_LABELS = {
    "auto": "auto (inferred)",
    "classification": "classification",
    "regression": "regression",
}


def choose_source() -> state.Source | None:
    """The table picked by the user; None (after saying why) when there is none to use."""
    current = st.session_state[state.CHOICE].source
    kind = st.radio(
        "Source",
        list(SOURCE_KINDS),
        format_func=SOURCE_KINDS.get,
        horizontal=True,
        index=int(current.startswith("upload:")),
        key="source_kind",
        persist_state="session",
    )
    if kind == "bundled":
        infos = {info.name: info for info in list_datasets()}
        names = list(infos)
        current_name = current.removeprefix("bundled:")
        name = st.selectbox(
            "Bundled data set",
            names,
            format_func={n: info.title for n, info in infos.items()}.get,
            index=names.index(current_name) if current_name in infos else 0,
            key="bundled_name",
            persist_state="session",
        )
        st.caption(as_text(f"{infos[name].description} Source: {infos[name].source}"))
        return state.bundled_source(name)
    limit = state.upload_limit_mb()
    uploaded = upload_caps.file_uploader(
        f"CSV file, up to {limit} MB",
        type=["csv"],
        key="upload_csv",
        help="A comma-separated table whose first row holds the column names.",
    )
    caps = state.limits()
    st.caption(f"Upload limit: {limit} MB per file, {MAX_CELL_CHARS:,} characters per value and "
               f"{MAX_LINE_CHARS:,} per line. The file stays in this browser session only; the "
               f"uploads of all sessions share {caps.upload_budget_mb:,} MB of the server's "
               "memory: a session's tables are given back when it uploads another file, "
               "switches to a bundled data set, or ends (a closed tab's "
               f"{st.get_option('server.disconnectedSessionTTL'):g} s after it closed). Values "
               f"longer than {CELL_PREVIEW_LIMIT} characters are shortened in the tables below.")
    if uploaded is None:
        if state.UPLOAD in st.session_state:
            source = st.session_state[state.UPLOAD]
            st.caption(as_text(f"Using {source.name}, uploaded earlier."))
            return source
        st.info("Upload a CSV file to use your own data.", icon=":material/upload:")
        return None
    try:
        return state.read_upload(uploaded.name, uploaded.getvalue())
    except DataError as err:
        show_error(err)
        return None


def choose_columns(source: state.Source) -> state.DataChoice:
    initial = state.initial_choice(source)
    columns = list(source.frame.columns)
    left, middle, right = st.columns(3)
    target = left.selectbox(
        "Target column",
        columns,
        index=columns.index(initial.target),
        key=f"target@{source.key}",
        persist_state="session",
    )
    id_options = [None, *(column for column in columns if column != target)]
    id_column = middle.selectbox(
        "ID column",
        id_options,
        format_func=dict(zip(id_options, ["(none)", *id_options[1:]], strict=True)).get,
        index=id_options.index(initial.id_column) if initial.id_column in id_options else 0,
        key=f"id@{source.key}",
        persist_state="session",
        help="Identifies rows (e.g. a patient ID); never used as a feature.",
    )
    task = right.radio(
        "Task",
        state.TASKS,
        format_func=TASK_LABELS.get,
        index=state.TASKS.index(initial.task),
        horizontal=True,
        key=f"task@{source.key}",
        persist_state="session",
    )
    if source.key.startswith("upload:") and target == source.defaults.target:
        if source.named:
            st.caption(as_text(f"Target column '{target}' was chosen by its name: change it "
                               "above if it is not the outcome to predict."))
        else:
            st.warning(as_text(f"No column is named like an outcome (target, outcome, class, "
                               f"label, diagnosis…), so the target column '{target}' is a "
                               "guess: the last column that is neither an ID nor free text. "
                               "Check it above."), icon=":material/help:")
    feature_options = [column for column in columns if column not in (target, id_column)]
    exclude = st.multiselect(
        "Excluded columns",
        feature_options,
        default=[column for column in initial.exclude if column in feature_options],
        key=f"exclude@{source.key}",
        persist_state="session",
    )
    return state.DataChoice(source.key, target, id_column, tuple(exclude), task)


models.follow_jobs()
st.title("Data", anchor=False)
source = choose_source()
choice = None
if source is not None:
    st.subheader("Preview", anchor=False)
    st.caption(f"First rows of {len(source.frame):,} × {source.frame.shape[1]} columns.")
    st.dataframe(elide_cells(source.frame.head(100)))
    st.subheader("Schema", anchor=False)
    st.dataframe(elide_cells(state.column_schema(source.key, source.frame)), hide_index=True)
    st.subheader("Columns", anchor=False)
    choice = choose_columns(source)
    try:
        state.use_choice(source, choice)
    except DataError as err:
        show_error(err)
st.subheader("Data set in use", anchor=False)
if st.session_state[state.CHOICE] != choice:
    st.caption("Nothing was lost: the data set below stays in use until a new one is ready.")
show_dataset_summary(st.session_state[state.DATASET])
