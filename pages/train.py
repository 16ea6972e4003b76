"""Train: choose a model family, train it next to the baselines, compare, save or load it."""

import hashlib

import streamlit as st

from forestviz import persistence
from forestviz.app import workflow
from forestviz.app.workbench import MAX_MODELS, Workbench
from ui import models, signin, state
from ui.display import as_text, show_error
from ui.state import CHOICE, DATASET

signin.guard("train")

AGBOOST_BASES = {"random": "Gradient-boosted trees", "extra": "Extra-trees boosting"}


def choose_settings(task: str) -> workflow.Settings:
    """The Train page's form; defaults train in seconds on the bundled table."""
    defaults = workflow.default_settings(task)
    families = workflow.families_for(task)
    # a row of its own: the longer family names are cut in a third of a narrow window
    family = st.selectbox("Model family", families, format_func=workflow.FAMILIES.get,
                          index=families.index(defaults.family), key=f"train_family@{task}",
                          persist_state="session")
    middle, right = st.columns(2)
    if family == "erf":
        base = "random"
        middle.caption("The Enhanced RF grows its own bootstrap forest of depth-limited trees.")
    else:
        names = AGBOOST_BASES if family == "agboost" else workflow.BASES
        base = middle.radio("Base ensemble", list(names), format_func=names.get,
                            horizontal=True, key="train_base", persist_state="session")
    caps = state.limits()
    n_estimators = right.slider("Number of trees", 10, caps.max_trees, defaults.n_estimators,
                                step=10,
                                key="train_trees", persist_state="session")
    left, right = st.columns(2)
    test_percent = left.slider("Held-out rows (%)", 10, 50, int(100 * defaults.test_size),
                               step=5, key="train_test_size", persist_state="session",
                               help="Rows kept aside (stratified by class) to compare models.")
    auto_tune = right.toggle(
        "Auto-tune", value=defaults.auto_tune, key="train_auto", persist_state="session",
        disabled=family == "vanilla",
        help="Attention models: search ε and τ (and γ for AGBoost) on held-out training rows. "
             "Enhanced RF: stop the reweighting rounds when the validation AUC drops.")
    if family == "abrf1_lp" and auto_tune:
        right.caption("The LP variant solves one linear program per grid point: several times "
                      "slower than the QP.")
    with st.expander("Advanced: the papers' parameters"):
        a, b, c = st.columns(3)
        min_leaf = a.number_input("Minimum rows per leaf", 1, 100, defaults.min_samples_leaf,
                                  key="train_min_leaf", persist_state="session")
        depth = b.number_input("Maximum tree depth (0 = the family's default)", 0,
                               caps.max_depth, 0,
                               key="train_depth", persist_state="session")
        seed = c.number_input("Random seed", 0, 2**31 - 1, defaults.random_state,
                              key="train_seed", persist_state="session")
        st.caption("Attention models (used when auto-tune is off): α = (1 − ε)·softmax(−d/2τ) "
                   "+ ε·w.")
        a, b, c = st.columns(3)
        eps = a.slider("Contamination ε", 0.0, 1.0, defaults.eps, step=0.05,
                       key="train_eps", persist_state="session")
        tau = b.number_input("Temperature τ", 0.001, 1000.0, defaults.tau, format="%.3f",
                             key="train_tau", persist_state="session",
                             help="In squared standardised distance units.")
        discount = c.slider("AGBoost discount γ", 0.05, 1.0, defaults.discount, step=0.05,
                            key="train_discount", persist_state="session")
        st.caption("Enhanced RF (Algorithm 1 and model weighting).")
        a, b, c, d = st.columns(4)
        iterations = a.number_input("Reweighting rounds", 1, 50, defaults.n_iterations,
                                    key="train_iterations", persist_state="session")
        rate = b.number_input("Learning rate λ", 0.0, 1.0, defaults.learning_rate, step=0.05,
                              key="train_rate", persist_state="session")
        neighbours = c.number_input("Neighbours M", 1, 100, defaults.n_neighbors,
                                    key="train_neighbours", persist_state="session")
        top_trees = d.number_input("Top trees L", 1, 100, defaults.top_trees,
                                   key="train_top_trees", persist_state="session")
    return workflow.Settings(
        family=family, base=base, n_estimators=int(n_estimators), auto_tune=bool(auto_tune),
        test_size=test_percent / 100, random_state=int(seed), min_samples_leaf=int(min_leaf),
        max_depth=int(depth) or None, eps=float(eps), tau=float(tau), discount=float(discount),
        n_iterations=int(iterations), learning_rate=float(rate), n_neighbors=int(neighbours),
        top_trees=int(top_trees))


def show_results(bench: Workbench) -> None:
    bundle = bench.model
    st.subheader("Results on the held-out rows")
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
    st.dataframe(table.style.format("{:.3f}", subset=numbers, na_rep="—").highlight_max(
        subset=list(comparison.higher_is_better), color="#d3f0d9"), key="train_models")
    st.markdown("\n".join(f"* {as_text(label)}: {as_text(said)}"
                          for label, said in parameters.items()))
    thresholds = (" Sensitivity and specificity are at each model's own threshold."
                  if bundle.task == "classification" else "")
    st.caption(as_text(f"Every model trained on this data set in this session (at most "
                       f"{MAX_MODELS}) and the baselines; the current one is {bench.label}."
                       + thresholds))
    if models.model_picker(bench, "Current model (Explain and Forest show it)",
                           key="train_current"):
        st.rerun()
    confusion = bench.confusion()
    if confusion is not None:
        st.caption(as_text(f"Held-out confusion matrix of {bench.label} at its threshold "
                           "(rows: recorded, columns: predicted)."))
        st.dataframe(confusion, key="train_confusion")
    if comparison.figure is not None:
        st.plotly_chart(comparison.figure, key="train_comparison")
    if comparison.calibration is not None:
        st.subheader(comparison.calibration.title)
        if comparison.calibration.note:
            st.caption(as_text(comparison.calibration.note))
        st.plotly_chart(comparison.calibration.figure, key="train_calibration")
    for i, view in enumerate(comparison.training):
        st.subheader(view.title)
        if view.note:
            st.caption(view.note)
        st.plotly_chart(view.figure, key=f"train_diagnostic_{i}")
    left, right = st.columns(2)
    left.download_button("Download held-out predictions with tree weights (CSV)",
                         bench.predictions_csv, file_name="predictions.csv",
                         mime="text/csv", key="download_predictions", on_click="ignore",
                         icon=":material/download:")
    right.download_button("Save the model (.skops)", bench.save,
                          file_name=f"forestviz-{bundle.settings.family}.skops",
                          mime="application/octet-stream", key="download_model",
                          on_click="ignore", icon=":material/save:")


def load_model(dataset, choice) -> None:
    uploaded = st.file_uploader("Load a saved model (.skops)", type=["skops"], key="model_file",
                                help="Only files saved by forestviz are accepted; anything "
                                     "holding other types of objects is refused.")
    if uploaded is None:
        return
    data = uploaded.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    if st.session_state.get("model_file_digest") == digest:
        return
    try:
        payload = persistence.loads(data)
        settings = workflow.check_payload(payload, choice)
    except persistence.ModelFileError as err:
        show_error(err)
        return
    if models.start_training(dataset, choice, settings, origin="load", payload=payload):
        st.session_state["model_file_digest"] = digest
        st.caption(as_text(f"Loading {uploaded.name}: scoring it and the baselines on the "
                           "held-out rows…"))


models.follow_jobs(progress_in_sidebar=False)
st.title("Train")
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
    st.page_link("pages/explain.py", label="Explain a prediction", icon=":material/search:")
