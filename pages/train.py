"""Train: choose a model family, train it next to the baselines, compare, save or load it."""

import streamlit as st

from forestviz.app import model_upload
from forestviz.app.families import Settings, default_settings
from forestviz.app.workbench import MAX_MODELS, Workbench
from forestviz.numbers import decimal_text
from forestviz.parameters import SECTIONS, TEST_SIZE, TREES
from forestviz.persistence.archive import ModelFileError
from forestviz.persistence.model_file import digest
from forestviz.registry import AUTO_TUNE_HELP, FAMILIES, families_for
from ui import library, models, publish, signin, state, upload_caps
from ui.charts import chart
from ui.display import as_text, show_error
from ui.parameter_inputs import parameter_input
from ui.state import CHOICE, DATASET

signin.guard("train")

def choose_settings(task: str) -> Settings:
    """The Train page's form, from the registry (:mod:`forestviz.registry`,
    :mod:`forestviz.parameters`); defaults train in seconds on the bundled table."""
    defaults = default_settings(task)
    keys = families_for(task)
    # a row of its own: the longer family names are cut in a third of a narrow window
    key = st.selectbox("Model family", keys, format_func=lambda k: FAMILIES[k].label,
                       index=keys.index(defaults.family), key=f"train_family@{task}",
                       persist_state="session")
    family = FAMILIES[key]
    middle, right = st.columns(2)
    if family.bases is None:
        base = defaults.base
        middle.caption(family.base_note)
    else:
        base = middle.radio("Base ensemble", list(family.bases), format_func=family.bases.get,
                            horizontal=True, key="train_base", persist_state="session")
    caps = state.limits()
    numbers = {TREES.name: parameter_input(right, TREES, defaults.n_estimators, caps)}
    left, right = st.columns(2)
    numbers[TEST_SIZE.name] = parameter_input(left, TEST_SIZE, defaults.test_size, caps)
    auto_tune = right.toggle("Auto-tune", value=defaults.auto_tune, key="train_auto",
                             persist_state="session", disabled=not family.tunes,
                             help=AUTO_TUNE_HELP)
    if family.tuning_note and auto_tune:
        right.caption(family.tuning_note)
    with st.expander("Advanced: the papers' parameters"):
        for section in SECTIONS:
            if section.caption:
                st.caption(section.caption)
            columns = st.columns(len(section.parameters))
            for column, parameter in zip(columns, section.parameters, strict=True):
                numbers[parameter.name] = parameter_input(
                    column, parameter, getattr(defaults, parameter.name), caps)
    return Settings(family=key, base=base, auto_tune=bool(auto_tune), **numbers)


def show_results(bench: Workbench) -> None:
    bundle = bench.model
    st.subheader("Results on the held-out rows", anchor=False)
    st.caption(as_text(f"{bundle.name}: {len(bundle.train_rows)} training rows, "
                       f"{len(bundle.test_rows)} held-out rows, {bundle.n_trees} trees."))
    comparison = bench.comparison()
    if comparison.selection:
        st.info(as_text(comparison.selection), icon=":material/balance:")
    table = bench.models_table()
    # the parameters in words below the table, where they wrap: a table cell would cut them
    # (or need a sideways scroll) at any window width
    parameters = table.pop("parameters")
    numbers = [c for c in table.columns if table[c].dtype.kind == "f"]
    st.dataframe(table.style.format(lambda v: decimal_text(v, 3), subset=numbers).highlight_max(
        subset=list(comparison.higher_is_better), color="#d3f0d9"), key="train_models")
    st.markdown("\n".join(f"* {as_text(label)}: {as_text(said)}"
                          for label, said in parameters.items()))
    thresholds = (" Sensitivity and specificity are at each model's own threshold."
                  if bundle.task == "classification" else "")
    st.caption(as_text(f"Every model trained on this data set in this session (at most "
                       f"{MAX_MODELS}) and the baselines; the current one is {bench.label}."
                       + thresholds))
    models.model_picker(bench, "Current model (Explain and Forest show it)", key="train_current")
    confusion = bench.confusion()
    if confusion is not None:
        st.caption(as_text(f"Held-out confusion matrix of {bench.label} at its threshold "
                           "(rows: recorded, columns: predicted)."))
        st.dataframe(confusion, key="train_confusion")
    if comparison.figure is not None:
        chart(comparison.figure, key="train_comparison")
    if comparison.calibration is not None:
        st.subheader(comparison.calibration.title, anchor=False)
        if comparison.calibration.note:
            st.caption(as_text(comparison.calibration.note))
        chart(comparison.calibration.figure, key="train_calibration")
    for i, view in enumerate(comparison.training):
        st.subheader(view.title, anchor=False)
        if view.note:
            st.caption(view.note)
        chart(view.figure, key=f"train_diagnostic_{i}")
    left, right = st.columns(2)
    left.download_button("Download held-out predictions with tree weights (CSV)",
                         bench.predictions_csv, file_name="predictions.csv",
                         mime="text/csv", key="download_predictions", on_click="ignore",
                         icon=":material/download:")
    right.download_button("Save the model (.skops)", library.signed(bench.save),
                          file_name=f"forestviz-{bundle.settings.family}.skops",
                          mime="application/octet-stream", key="download_model",
                          on_click="ignore", icon=":material/save:")


def load_model(dataset, choice) -> None:
    uploaded = upload_caps.file_uploader(
        "Load a saved model (.skops)", type=["skops"], key="model_file",
        help="Only files saved by forestviz are accepted; anything holding other types of "
             "objects is refused.")
    if uploaded is None:
        return
    data = uploaded.getvalue()
    if st.session_state.get("model_file_digest") == digest(data):
        return
    try:
        upload = model_upload.read_model_upload(data, choice)
    except ModelFileError as err:
        show_error(err)
        return
    if models.start_training(dataset, choice, upload.file.settings, origin="load",
                             file=upload.file, warning=library.file_warning(data)):
        st.session_state["model_file_digest"] = upload.digest
        st.caption(as_text(f"Loading {uploaded.name}: scoring it and the baselines on the "
                           "held-out rows…"))


models.follow_jobs(progress_in_sidebar=False)
st.title("Train", anchor=False)
dataset = st.session_state[DATASET]
choice = st.session_state[CHOICE]
st.caption(as_text(f"Data set: {dataset.name} · target {dataset.target} ({dataset.task}), "
                   f"{len(dataset.frame):,} rows, {len(dataset.feature_columns)} features."))
settings = choose_settings(dataset.task)
caps = state.limits()
st.caption(f"This server trains one model per session at a time, at most {caps.max_trees} trees, "
           f"depth {caps.max_depth} and {caps.max_row_trees:,} training rows × trees; the page "
           "stays usable while it trains.")
if st.button("Train", type="primary", key="train_button", icon=":material/model_training:",
             disabled=models.training_in_progress()):
    models.start_training(dataset, choice, settings, origin="train")
if models.training_in_progress():
    models.job_status()
models.show_outcome()
with st.expander("Load a saved model"):
    load_model(dataset, choice)
bench = models.workbench()
if bench is None:
    st.info("No model trained on this data set yet: press Train.", icon=":material/info:")
else:
    show_results(bench)
    publish.publish_section(bench)
    st.page_link("pages/explain.py", label="Explain a prediction", icon=":material/search:")
