"""Forest: global views of the trained model over its rows."""

from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from forestviz.app import workflow
from forestviz.app.jobs import JobCancelled, WorkerDied
from forestviz.enhanced import EnhancedForestClassifier, clean
from forestviz.explain import plots
from forestviz.explain.explanation import effective_trees
from forestviz.explain.names import elide_cells, elide_unique
from forestviz.trees.fitted import estimator_trees, impurity_importance
from ui import models
from ui.display import as_text
from ui.state import DATASET

HEATMAP_ROWS = 150
CLEANING = "cleaning"  # (bundle, CleaningResult) of the last cleaning run
CLEANING_JOB = "cleaning_job"  # the cleaning rounds while they run


def hardest_rows(bundle, dataset) -> None:
    st.subheader("Hardest training rows (sample importance)")
    estimator = bundle.estimator
    if not hasattr(estimator, "sample_importance_"):
        st.info("Sample importance comes from the Enhanced RF's reweighting rounds: train an "
                "Enhanced RF to see which rows the forest found hardest.", icon=":material/info:")
        return
    st.caption("The Enhanced RF raises the weight of rows it gets wrong at every round; rows "
               "with the largest final weight s_i are the hardest to predict — often unusual "
               "patients or label noise.")
    rows = estimator.train_indices_
    importance = estimator.sample_importance_
    order = np.argsort(-importance, kind="stable")[:15]
    positions = bundle.train_rows[rows[order]]
    table = pd.DataFrame({"ID": dataset.ids.iloc[positions].to_numpy(),
                          "weight (1 = average row)": importance[order] * len(importance),
                          "recorded outcome": dataset.y.iloc[positions].to_numpy()})
    table = pd.concat([table, dataset.X.iloc[positions].reset_index(drop=True)], axis=1)
    st.dataframe(elide_cells(table), hide_index=True, key="forest_hardest")
    figure = go.Figure(go.Histogram(x=importance * len(importance), nbinsx=40))
    figure.update_layout(title={"text": "Final sample weights (1 = the average row)"},
                         xaxis_title="n · s_i", yaxis_title="rows", height=320)
    st.plotly_chart(figure, key="forest_importance_hist")


def cleaning_rounds(bundle) -> None:
    st.subheader("Cleaning rounds (ERF Algorithm 2)")
    if not isinstance(bundle.estimator, EnhancedForestClassifier):
        st.info("Cleaning rounds need an Enhanced RF.", icon=":material/info:")
        return
    st.caption("Each round refits the Enhanced RF, drops the 1 % of training rows with the "
               "lowest s_i and the features with little importance, and scores the result on "
               "a fixed validation split. Good cleaning keeps the AUC while the data shrink.")
    rounds = st.slider("Rounds", 2, 20, 5, key="forest_rounds")
    if st.button("Run the cleaning rounds", key="forest_clean",
                 disabled=models.in_progress(CLEANING_JOB)):
        settings = replace(bundle.settings, n_estimators=min(bundle.settings.n_estimators, 50))
        task = partial(clean, max_rounds=rounds, random_state=settings.random_state)
        models.submit(CLEANING_JOB, models.SessionJob, task,
                      (workflow.make_estimator(settings, bundle.task), bundle.X_train,
                       bundle.y_train),
                      "Cleaning rounds", bundle.choice, settings, "forest", bundle)
    if models.in_progress(CLEANING_JOB):
        models.job_status(CLEANING_JOB)
    finished = models.take_finished(CLEANING_JOB)
    if finished is not None:
        try:
            st.session_state[CLEANING] = (finished.subject, finished.job.result())
        except JobCancelled:
            st.info("Cleaning cancelled.", icon=":material/info:")
        except (ValueError, WorkerDied) as err:
            st.error(as_text(f"Cleaning failed: {err}. It needs at least two rows of every "
                             "class in the validation split."), icon=":material/error:")
    stored = st.session_state.get(CLEANING)
    if stored is None or stored[0] is not bundle:
        return
    records = pd.DataFrame(stored[1].records())
    figure = go.Figure()
    figure.add_scatter(x=records["round"], y=records["validation_auc"], name="validation AUC",
                       mode="lines+markers")
    figure.add_scatter(x=records["round"], y=records["sample_reduction"],
                       name="rows dropped (%)", yaxis="y2", mode="lines+markers")
    figure.add_scatter(x=records["round"], y=records["feature_reduction"],
                       name="features dropped (%)", yaxis="y2", mode="lines+markers")
    figure.update_layout(title={"text": "Validation AUC as rows and features are cleaned"},
                         xaxis_title="round", yaxis_title="validation AUC", height=360,
                         yaxis2={"title": "% dropped", "overlaying": "y", "side": "right"})
    st.plotly_chart(figure, key="forest_cleaning")
    st.dataframe(records, hide_index=True, key="forest_cleaning_table")


def feature_importance(bundle) -> None:
    st.subheader("Feature importance")
    st.caption("Mean decrease in impurity averaged over the trees that split, as shares that "
               "sum to 1 (the numbers the Enhanced RF's cleaning rounds use): how much each "
               "feature's splits purify the leaves. It describes the forest as a whole, not one "
               "row.")
    importance = impurity_importance(estimator_trees(bundle.estimator),
                                     len(bundle.feature_names))
    order = np.argsort(importance)
    labels = elide_unique(bundle.feature_names)  # whole names on hover
    figure = go.Figure(go.Bar(x=importance[order],
                              y=[plots.plain(labels[j]) for j in order],
                              hovertext=[plots.plain(bundle.feature_names[j]) for j in order],
                              orientation="h"))
    figure.update_layout(xaxis_title="importance", height=max(300, 24 * len(order)),
                         title={"text": "Feature importance (impurity decrease)"})
    st.plotly_chart(figure, key="forest_features")


def weights_over_rows(bundle) -> None:
    st.subheader("Tree weights over the held-out rows")
    weights, ids = bundle.test_weights, bundle.ids_test
    if len(ids) > HEATMAP_ROWS:
        st.caption(f"{HEATMAP_ROWS} of the {len(ids)} held-out rows are shown, evenly spaced.")
        keep = np.linspace(0, len(ids) - 1, HEATMAP_ROWS).astype(int)
        weights, ids = weights[keep], ids[keep]
    st.plotly_chart(plots.weight_heatmap(weights, row_labels=list(ids)), key="forest_heatmap")
    effective = effective_trees(bundle.test_weights)
    figure = go.Figure(go.Histogram(x=effective, nbinsx=30))
    figure.update_layout(
        title={"text": "Effective number of trees per held-out row (1 / Σ α²)",
               "subtitle": {"text": f"A plain forest gives every row {bundle.n_trees}; small "
                                    "values mean a few trees carry the prediction."}},
        xaxis_title="effective number of trees", yaxis_title="rows", height=340)
    st.plotly_chart(figure, key="forest_effective")


models.follow_jobs()
st.title("Forest")
bundle = models.current_model()
if bundle is None:
    st.info("Train a model on the Train page first.", icon=":material/info:")
    st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")
    st.stop()
dataset = st.session_state[DATASET]
st.caption(as_text(f"{bundle.name} on {dataset.name}: {bundle.n_trees} trees."))
hardest_rows(bundle, dataset)
cleaning_rounds(bundle)
feature_importance(bundle)
weights_over_rows(bundle)
