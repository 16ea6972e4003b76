"""Forest: global views of the trained model over its rows."""

import numpy as np
import streamlit as st

from forestviz.app.cleaning_views import cleaning_views
from forestviz.app.whole_model import ROBUSTNESS_SEEDS, SPLITS
from forestviz.app.workbench import Workbench
from forestviz.explain import plots
from forestviz.explain.plots import population as population_plots
from forestviz.explain.whole.trust import TOP_REASONS, TOP_TREES
from forestviz.names import elide, elide_cells
from forestviz.numbers import input_format
from ui import models, signin
from ui.charts import chart
from ui.display import as_text
from ui.model_jobs import ModelJob, run_on_demand

signin.guard("forest")

CLEANING = ModelJob(
    label="Run the cleaning rounds", title="Cleaning rounds", what="Cleaning",
    job_key="cleaning_job", result_key="cleaning", widget="forest_clean", origin="forest",
    advice="It needs at least two rows of every class in the validation split.")
REFITS = ModelJob(
    label=f"Refit {ROBUSTNESS_SEEDS} times with other seeds", title="Refits", what="Refits",
    job_key="refit_job", result_key="refits", widget="forest_refit", origin="forest")


def hardest_rows(views) -> None:
    st.subheader("Hardest training rows (sample importance)", anchor=False)
    st.caption("The Enhanced RF raises the weight of rows it gets wrong at every round; rows "
               "with the largest final weight s_i are the hardest to predict — often unusual "
               "patients or label noise.")
    st.dataframe(elide_cells(views.hardest), hide_index=True, key="forest_hardest")
    chart(views.sample_weights, key="forest_importance_hist")


def cleaning_rounds(bench: Workbench) -> None:
    st.subheader("Cleaning rounds (ERF Algorithm 2)", anchor=False)
    bundle = bench.model
    rounds = st.slider("Rounds", 2, 20, 5, key="forest_rounds")
    job = bench.cleaning(rounds)
    st.caption("Each round refits the Enhanced RF, drops the 1% of the rows that trained that "
               "round with the lowest s_i and the features with little importance, and scores "
               "the result on a fixed validation split. Good cleaning keeps the AUC while the "
               "data shrink.")
    result = run_on_demand(CLEANING, bundle, lambda: job)
    if result is None:
        return
    views = cleaning_views(result, bundle.feature_names)
    chart(views.figure, key="forest_cleaning")
    st.caption(as_text(f"Features dropped before the last round: {views.last_dropped}."))
    st.dataframe(elide_cells(views.table), hide_index=True, key="forest_cleaning_table")


def whole_model(bench: Workbench) -> None:
    """The held-out rows' explanations together: importance, beeswarm, one column's
    dependence and partial dependence."""
    st.subheader("The whole model through its explanations", anchor=False)
    population = bench.whole().population()
    st.caption(as_text(
        f"Each of the {len(population.ids)} held-out rows explained as on the Explain page "
        f"(its contributions to {population.target} through its own tree weights), then read "
        "together. Unlike the impurity importance below, these are the numbers of the "
        "predictions users see."))
    table = population.importance()
    chart(population_plots.contribution_importance(table, population.target),
                    key="forest_contribution_importance")
    chart(population_plots.beeswarm(population), key="forest_beeswarm")
    column = st.selectbox("Column", list(table["column"]), key="forest_dependence_column",
                          format_func=elide)
    halves = st.container(horizontal=True)  # side by side on a wide window, else one a line
    chart(place=halves, fig=population_plots.dependence_figure(
        population.dependence(column), column, population.target, width=plots.HALF),
        width=plots.HALF, key="forest_dependence")
    chart(place=halves, fig=population_plots.partial_dependence_figure(
        bench.whole().partial_dependence(column), population.target, width=plots.HALF),
        width=plots.HALF, key="forest_partial_dependence")


def cohorts(bench: Workbench, columns: list[str]) -> None:
    """Two groups of held-out rows compared."""
    st.subheader("Compare two groups of rows", anchor=False)
    split = st.radio("Groups", list(SPLITS), format_func=SPLITS.get, horizontal=True,
                     key="forest_cohort_split")
    column = cut = None
    if split == "column":
        left, right = st.columns(2)
        column = left.selectbox("Column", columns, key="forest_cohort_column",
                                format_func=elide)
        levels = bench.whole().column_levels(column)
        if levels is None:
            median = bench.whole().column_median(column)
            cut = right.number_input("Up to (and above)", value=median,
                                     key=f"forest_cohort_cut@{column}",
                                     format=input_format(median))
        else:
            cut = right.selectbox("Level (against the others)", levels,
                                  key=f"forest_cohort_level@{column}")
    try:
        found = bench.whole().cohorts(split, column, cut)
    except ValueError as err:
        st.info(as_text(f"These groups cannot be compared: {err}."), icon=":material/info:")
        return
    population = bench.whole().population()
    st.caption(as_text(found.caption()))
    chart(population_plots.cohort_figure(found, population.target),
                    key="forest_cohorts")
    left, right = st.columns(2)
    left.dataframe(found.columns, hide_index=True, key="forest_cohort_columns")
    right.dataframe(found.trees, hide_index=True, key="forest_cohort_trees")


def trust(bench: Workbench) -> None:
    """How far the held-out rows' explanations can be relied on."""
    st.subheader("How far the explanations can be relied on", anchor=False)
    table = bench.whole().trust()
    n = int(table["similar rows"].max())
    st.caption(f"For each held-out row: how many of its {n} most similar training rows have "
               f"the same top {TOP_REASONS} reasons, and how many columns carry 90% of its "
               "movement from the base value (fewer: an explanation easier to read whole).")
    halves = st.container(horizontal=True)
    chart(place=halves, fig=population_plots.count_bars(
        table["same top reasons"], title="Same top reasons among similar rows",
        caption=f"Of each row's {n} most similar training rows, how many share its top "
                f"{TOP_REASONS} reasons.", x_title="similar rows with the same top reasons",
        low=0, high=n, width=plots.HALF), width=plots.HALF, key="forest_stability")
    chart(place=halves, fig=population_plots.count_bars(
        table["compacity"], title="Columns that carry 90% of the movement",
        caption="The fewest columns, largest first, whose contributions make up 90% of the "
                "row's total.", x_title="columns", low=1,
        high=max(1, int(table["compacity"].max())), width=plots.HALF), width=plots.HALF,
        key="forest_compacity")
    trees = table["same heaviest trees"].dropna()
    if trees.empty:
        st.caption("Every tree weighs the same for these rows, so no tree carries one row "
                   "more than another: the heaviest trees are not compared.")
    else:
        st.caption(f"The {TOP_TREES} heaviest trees are the same as for a similar row in "
                   f"{trees.sum() / (len(trees) * n):.0%} of the comparisons.")


def robustness(bench: Workbench) -> None:
    """The held-out rows' top reasons under refits with other seeds, on demand."""
    bundle = bench.model
    st.markdown("**Robustness to the fit**: refit the model with other seeds on the same "
                "training rows and count how often each row keeps its top reasons.")
    contributions = run_on_demand(REFITS, bundle, bench.whole().robustness_job)
    if contributions is None:
        return
    share = bench.whole().robustness(contributions)
    n = len(contributions)
    chart(population_plots.count_bars(
        np.rint(share * n).astype(int), title="Top reasons kept under refits",
        caption=f"Of {n} refits with other seeds, how many give each held-out row the same top "
                f"{TOP_REASONS} reasons.", x_title="refits with the same top reasons", low=0,
        high=n), key="forest_robustness")
    st.caption(f"On average a row keeps its top {TOP_REASONS} reasons in {share.mean():.0%} of "
               "the refits.")


def weights_over_rows(views) -> None:
    st.subheader("Tree weights over the held-out rows", anchor=False)
    if views.heatmap_note:
        st.caption(views.heatmap_note)
    chart(views.heatmap, key="forest_heatmap")
    chart(views.effective, key="forest_effective")


models.follow_jobs()
st.title("Forest", anchor=False)
bench = models.workbench()
if bench is None:
    st.info("Train a model on the Train page first.", icon=":material/info:")
    signin.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")
    st.stop()
st.caption(as_text(f"{bench.model.name} on {bench.dataset.name}: {bench.model.n_trees} trees."))
views = bench.global_views()
whole_model(bench)
cohorts(bench, bench.whole().population().columns)
trust(bench)
robustness(bench)
if views.no_rounds is None:
    hardest_rows(views)
    cleaning_rounds(bench)
else:  # no slider, no advice the task cannot follow
    st.subheader("Hardest training rows and cleaning rounds", anchor=False)
    st.info(as_text(views.no_rounds), icon=":material/info:")
st.subheader("Feature importance", anchor=False)
st.caption("It describes the forest as a whole, not one row; these are the numbers the Enhanced "
           "RF's cleaning rounds use.")
chart(views.importance, key="forest_features")
weights_over_rows(views)
