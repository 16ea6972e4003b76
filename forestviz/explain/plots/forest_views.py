"""The Forest page's views of a trained model over many rows: the Enhanced Random Forest's final
sample weights and cleaning rounds (Bertsimas & Stoumpou, "Enhanced Random Forests",
Algorithms 1 and 2), impurity feature importance and the effective number of trees per row.
Pure functions of arrays and frames, like every module of :mod:`forestviz.explain.plots`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from forestviz.explain.plots.conventions import finish, unique_labels
from forestviz.explain.plots.inputs import records, vector


def sample_weight_histogram(importance) -> go.Figure:
    """ERF's final sample weights s_i, scaled so that 1 is the average row (n·s_i)."""
    s = vector(importance, "importance")
    fig = go.Figure(go.Histogram(x=s * s.size, nbinsx=40, name="rows",
                                 hovertemplate="n·s_i %{x}: %{y} rows<extra></extra>"))
    return finish(fig, "Final sample weights (1 = the average row)",
                  "The Enhanced RF raises the weight of the rows it gets wrong at every round; "
                  "the rows far to the right are the hardest to predict.",
                  xaxis={"title": {"text": "n · s_i"}}, yaxis={"title": {"text": "rows"}},
                  height=340)


def importance_bars(importance, feature_names) -> go.Figure:
    """Horizontal bars of feature importance, largest on top; names cut to 40 characters with
    the whole name on hover."""
    values = vector(importance, "importance")
    labels = unique_labels(feature_names, "x{}", values.size)
    whole = unique_labels(None, "x{}", values.size) if feature_names is None else [
        str(n) for n in feature_names]
    order = np.argsort(values, kind="stable")
    fig = go.Figure(go.Bar(x=values[order], y=[labels[j] for j in order], orientation="h",
                           hovertext=[f"{whole[j]}: {values[j]:.3f}" for j in order],
                           hoverinfo="text"))
    return finish(fig, "Feature importance (impurity decrease)",
                  "Mean decrease in impurity averaged over the trees that split, as shares "
                  "that sum to 1: how much each feature's splits purify the leaves.",
                  xaxis={"title": {"text": "importance"}}, height=max(300, 24 * values.size))


def effective_trees_histogram(effective, n_trees: int) -> go.Figure:
    """The effective number of trees 1/Σα² of each row."""
    values = vector(effective, "effective")
    fig = go.Figure(go.Histogram(x=values, nbinsx=30, name="rows",
                                 hovertemplate="%{x} trees: %{y} rows<extra></extra>"))
    return finish(fig, "Effective number of trees per held-out row (1 / Σ α²)",
                  f"A plain forest gives every row {n_trees}; small values mean a few trees "
                  "carry the prediction.",
                  xaxis={"title": {"text": "effective number of trees"}},
                  yaxis={"title": {"text": "rows"}}, height=340)


def cleaning_rounds_figure(rounds) -> go.Figure:
    """ERF Algorithm 2: validation AUC by round with the shares of rows and features dropped
    (``CleaningResult.records()``)."""
    frame = records(rounds, ["round", "validation_auc", "sample_reduction",
                             "feature_reduction"], "rounds")
    fig = go.Figure()
    fig.add_scatter(x=frame["round"], y=frame["validation_auc"], name="validation AUC",
                    mode="lines+markers")
    fig.add_scatter(x=frame["round"], y=frame["sample_reduction"], name="rows dropped (%)",
                    yaxis="y2", mode="lines+markers")
    fig.add_scatter(x=frame["round"], y=frame["feature_reduction"],
                    name="features dropped (%)", yaxis="y2", mode="lines+markers")
    return finish(fig, "Validation AUC as rows and features are cleaned",
                  "Each round refits the Enhanced RF without the rows of lowest weight and the "
                  "features of little importance; good cleaning keeps the AUC while the data "
                  "shrink.",
                  xaxis={"title": {"text": "round"}, "dtick": 1},
                  yaxis={"title": {"text": "validation AUC"}},
                  yaxis2={"title": {"text": "% dropped"}, "overlaying": "y", "side": "right"},
                  height=380)
