"""The Forest page's views of a trained model over many rows: the Enhanced Random Forest's final
sample weights and cleaning rounds (Bertsimas & Stoumpou, "Enhanced Random Forests",
Algorithms 1 and 2), impurity feature importance and the effective number of trees per row.
Pure functions of arrays and frames, like every module of :mod:`forestviz.explain.plots`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from forestviz.explain.plots.conventions import EVERY_CATEGORY, WIDTH, finish, unique_labels
from forestviz.explain.plots.inputs import records, vector

SAME = 1e-9
"""Values closer than this share of their size are one value to a histogram (float rounding)."""


def even_bins(values, n: int) -> dict:
    """A histogram's ``xbins``: ``n`` bins of one width from the smallest value, and one more
    that holds the largest (plotly's bins hold their start, not their end), so that the chart
    and its table (:mod:`.chart_table`) count the same bins. Values that differ only by float
    rounding (by less than :data:`SAME` of their size: 40 and 39.99999999999999) are one value,
    whose bins are as wide as a single value's: bins narrower than that would be a few units of
    the last place wide, and their ends print alike ("40–40")."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
    one = high - low <= SAME * max(abs(low), abs(high), 1.0)
    size = max(abs(low), 1.0) / n if one else (high - low) / n
    return {"start": low, "size": size, "end": low + (n + 1) * size}


def sample_weight_histogram(importance, *, width=WIDTH) -> go.Figure:
    """ERF's final sample weights s_i, scaled so that 1 is the average row (n·s_i)."""
    s = vector(importance, "importance")
    fig = go.Figure(go.Histogram(x=s * s.size, xbins=even_bins(s * s.size, 40), name="rows",
                                 hovertemplate="n·s_i %{x}: %{y} rows<extra></extra>"))
    return finish(fig, "Final sample weights (1 = the average row)",
                  "The Enhanced RF raises the weight of the rows it gets wrong at every round; "
                  "the rows far to the right are the hardest to predict.",
                  width=width, xaxis={"title": {"text": "n · s_i"}},
                  yaxis={"title": {"text": "rows"}}, height=340)


def importance_bars(importance, feature_names, *, width=WIDTH) -> go.Figure:
    """Horizontal bars of feature importance, largest on top; names cut to 40 characters with
    the whole name on hover."""
    values = vector(importance, "importance")
    labels = unique_labels(feature_names, "x{}", values.size)
    whole = unique_labels(None, "x{}", values.size) if feature_names is None else [
        str(n) for n in feature_names]
    order = np.argsort(values, kind="stable")
    names = [labels[j] for j in order]
    fig = go.Figure(go.Bar(x=values[order], y=names, orientation="h",
                           hovertext=[f"{whole[j]}: {values[j]:.3f}" for j in order],
                           hoverinfo="text"))
    return finish(fig, "Feature importance (impurity decrease)",
                  "Mean decrease in impurity averaged over the trees that split, as shares "
                  "that sum to 1: how much each feature's splits purify the leaves.",
                  width=width, xaxis={"title": {"text": "importance"}},
                  yaxis=EVERY_CATEGORY, height=300, bars=values.size)


def effective_trees_histogram(effective, n_trees: int, *, width=WIDTH) -> go.Figure:
    """The effective number of trees 1/Σα² of each row."""
    values = vector(effective, "effective")
    fig = go.Figure(go.Histogram(x=values, xbins=even_bins(values, 30), name="rows",
                                 hovertemplate="%{x} trees: %{y} rows<extra></extra>"))
    return finish(fig, "Effective number of trees per held-out row (1 / Σ α²)",
                  f"A plain forest gives every row {n_trees}; small values mean a few trees "
                  "carry the prediction.", width=width,
                  xaxis={"title": {"text": "effective number of trees"}},
                  yaxis={"title": {"text": "rows"}}, height=340)


CLEANING_COLUMNS = {  # CleaningResult.records() → the words the Forest page shows
    "round": "round", "validation_auc": "validation AUC", "n_rows": "training rows",
    "n_features": "features", "sample_reduction": "% of rows dropped",
    "feature_reduction": "% of features dropped"}


def cleaning_table(rounds, feature_names) -> pd.DataFrame:
    """ERF Algorithm 2's rounds (``CleaningResult.records()``) in words: the columns named as
    people read them (``CLEANING_COLUMNS``), the AUC to three decimals, shares as whole
    percentages to one decimal, and the features dropped before each round by name
    (``features``: each round's kept feature indices into ``feature_names``)."""
    frame = records(rounds, [*CLEANING_COLUMNS, "features"], "rounds")
    names = [str(n) for n in feature_names]
    dropped = [", ".join(names[j] for j in range(len(names)) if j not in set(kept)) or "none"
               for kept in frame["features"]]
    table = frame[list(CLEANING_COLUMNS)].rename(columns=CLEANING_COLUMNS).assign(
        **{"features dropped": dropped})
    return table.round({"validation AUC": 3, "% of rows dropped": 1, "% of features dropped": 1})


def cleaning_rounds_figure(rounds, *, width=WIDTH) -> go.Figure:
    """ERF Algorithm 2: validation AUC by round (left axis) with the shares of rows and
    features dropped (right axis, in %), ``CleaningResult.records()``; the legend above the
    plot, clear of both axes."""
    frame = records(rounds, ["round", "validation_auc", "sample_reduction",
                             "feature_reduction"], "rounds")
    fig = go.Figure()
    fig.add_scatter(x=frame["round"], y=frame["validation_auc"], name="validation AUC",
                    mode="lines+markers",
                    hovertemplate="round %{x}: validation AUC %{y:.3f}<extra></extra>")
    for column, name in (("sample_reduction", "rows dropped"),
                         ("feature_reduction", "features dropped")):
        fig.add_scatter(x=frame["round"], y=frame[column], name=f"{name} (%, right axis)",
                        yaxis="y2", mode="lines+markers", line={"dash": "dot"},
                        hovertemplate=f"round %{{x}}: {name} %{{y:.1f}}%<extra></extra>")
    return finish(fig, "Validation AUC as rows and features are cleaned",
                  "Each round refits the Enhanced RF without the rows of lowest weight and the "
                  "features of little importance; good cleaning keeps the AUC while the data "
                  "shrink.", width=width, margin={"r": 70},
                  xaxis={"title": {"text": "round"}, "dtick": 1, "tickformat": "d"},
                  yaxis={"title": {"text": "validation AUC"}, "tickformat": ".3f"},
                  yaxis2={"title": {"text": "% dropped"}, "overlaying": "y", "side": "right",
                          "ticksuffix": "%", "rangemode": "tozero", "showgrid": False},
                  height=400)
