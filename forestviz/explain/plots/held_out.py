"""Held-out comparison of the trained models (the Train page): ROC curves for a binary target,
predicted against actual values for a numeric one."""

import numpy as np
import plotly.graph_objects as go
from sklearn.metrics import roc_curve

from forestviz.explain.plots.conventions import WIDTH, finish, plain


def roc_figure(y_test, predictions: dict[str, np.ndarray], positive, *,
               width=WIDTH) -> go.Figure:
    """One ROC curve per model on the held-out rows (``predictions``: P(positive class))."""
    fig = go.Figure()
    for name, score in predictions.items():
        fpr, tpr, _ = roc_curve(np.asarray(y_test) == positive, score)
        fig.add_scatter(x=fpr, y=tpr, mode="lines", name=plain(name))
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                    line={"dash": "dot", "color": "grey"})
    return finish(
        fig, f"ROC curves on the held-out rows (positive class: {plain(positive)})",
        "Higher and further left is better; the dotted line is guessing.", width=width,
        xaxis={"title": {"text": "False-positive rate (1 − specificity)"}},
        yaxis={"title": {"text": "True-positive rate (sensitivity)"}}, height=420)


def predicted_vs_actual(y_test, predictions: dict[str, np.ndarray], target, *,
                        width=WIDTH) -> go.Figure:
    """Predicted against actual values of the held-out rows, one marker set per model."""
    y = np.asarray(y_test, dtype=float)
    fig = go.Figure()
    for name, predicted in predictions.items():
        fig.add_scatter(x=y, y=predicted, mode="markers", name=plain(name), opacity=0.7)
    bounds = [float(y.min()), float(y.max())]
    fig.add_scatter(x=bounds, y=bounds, mode="lines", name="perfect",
                    line={"dash": "dot", "color": "grey"})
    return finish(
        fig, f"Predicted against actual {plain(target)} on the held-out rows",
        "Points on the dotted line are predicted exactly.", width=width,
        xaxis={"title": {"text": f"actual {plain(target)}"}},
        yaxis={"title": {"text": "predicted"}}, height=420)
