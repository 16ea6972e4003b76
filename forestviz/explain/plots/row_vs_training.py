"""One row against the training data (ERF Tables 6-7 with percentiles): the table and the
figure of the row's percentile per feature."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy.stats import percentileofscore

from forestviz.explain.plots.conventions import (
    EVERY_CATEGORY,
    STRONG,
    WIDTH,
    finish,
    plain,
    unique_labels,
)
from forestviz.explain.plots.inputs import records
from forestviz.names import wrap_name
from forestviz.numbers import plain_number


def row_vs_median_table(row, X_train, feature_names=None) -> pd.DataFrame:
    """ERF Tables 6-7 with percentiles: per feature the row's value, the training median and
    the mid-rank percentile 100·(#below + #equal/2)/n of the value among the training rows
    (scipy's ``percentileofscore``, ``kind="mean"``).

    Columns ``feature``, ``value``, ``median``, ``percentile``. Numeric features only.
    """
    train = np.asarray(X_train, dtype=float)
    value = np.asarray(row, dtype=float).ravel()
    if train.ndim != 2 or train.shape[0] == 0 or train.shape[1] != value.size:
        raise ValueError("X_train must be (n_rows, n_features) with the row's number of features")
    percentile = [percentileofscore(column, v, kind="mean")
                  for column, v in zip(train.T, value, strict=True)]
    names = [f"feature {j + 1}" for j in range(value.size)] if feature_names is None else [
        str(f) for f in feature_names]
    return pd.DataFrame({"feature": names, "value": value, "median": np.median(train, axis=0),
                         "percentile": percentile})


def _hover(value) -> str:
    """A number to 4 digits, or a text whole and escaped, in lines of 80 characters."""
    return plain_number(value, 4) if isinstance(value, int | float | np.number) else "<br>".join(
        map(plain, wrap_name(value)))


def row_vs_median(table, *, width=WIDTH) -> go.Figure:
    """The row's percentile per feature as bars from the median (50), ERF Tables 6-7 style.

    ``table``: DataFrame or list of dicts with ``feature``, ``value``, ``median`` and
    ``percentile`` (0-100, e.g. from :func:`row_vs_median_table`). Percentiles put features
    of any unit on one axis.
    """
    frame = records(table, ["feature", "value", "median", "percentile"], "table")
    if len(frame) == 0:
        raise ValueError("table needs one row per feature")
    features = unique_labels(frame["feature"], "", len(frame))
    pct = frame["percentile"].to_numpy(float)
    hover = [f"{_hover(f)}: this row {_hover(v)}, training median {_hover(m)}<br>"
             f"{p:.0f}% of the training rows are lower"
             for f, v, m, p in zip(frame["feature"], frame["value"], frame["median"], pct,
                                   strict=True)]
    fig = go.Figure(go.Bar(
        y=features, x=pct - 50.0, base=50.0, orientation="h", hovertext=hover, hoverinfo="text",
        marker_color=np.where(pct >= 50, STRONG[1], STRONG[0]).tolist(), name="this row"))
    # its name above the plot (inside, it would lie on the first bar), where a panel's title
    # would be: finish() makes room for it
    fig.add_vline(x=50, line_color="grey", annotation_text="training median",
                  annotation_position="top")
    return finish(
        fig, "This row compared with the training data",
        "Each bar runs from the training median (50) to the row's percentile: how many training "
        "rows have a lower value. Orange: above the median; blue: below.", width=width,
        panel_titles=True, bars=len(features),
        xaxis={"title": {"text": "Percentile among training rows (50 = median)"},
               "range": [0, 100]},
        yaxis={"title": {"text": "Feature"}, **EVERY_CATEGORY, "autorange": "reversed"},
        showlegend=False)
