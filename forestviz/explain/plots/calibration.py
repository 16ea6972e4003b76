"""The reliability (calibration) curve of a binary classifier on held-out rows (the Train page):
the share of positive outcomes against the mean predicted risk in bins holding equal numbers of
rows, by scikit-learn's ``calibration_curve`` (``strategy="quantile"``): the reliability
diagrams of Niculescu-Mizil & Caruana, "Predicting good probabilities with supervised
learning", ICML 2005, with bins of equal row counts instead of equal widths."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from sklearn.calibration import calibration_curve

from forestviz.explain.plots.conventions import STRONG, WIDTH, finish, plain
from forestviz.explain.plots.inputs import vector

# how far outside [0, 1] a risk may stray by rounding: a weighted sum of tree probabilities
# can reach 1 + 2.2e-16, which calibration_curve refuses
ROUNDING = 1e-9


def reliability_bins(y_true, proba, positive_label, n_bins: int = 10):
    """(mean predicted risk, share of positives, rows) per non-empty bin, as
    ``calibration_curve`` draws them; the rows counted with the same bin edges (the
    ``n_bins``-quantiles of ``proba``, a row on an edge going to the lower bin)."""
    p = vector(proba, "proba")
    y = np.asarray(y_true)
    if y.shape != p.shape:
        raise ValueError(f"y_true must have one outcome per risk, got {y.shape} and {p.shape}")
    if p.min() < -ROUNDING or p.max() > 1 + ROUNDING:
        raise ValueError("proba must lie in [0, 1]")
    p = np.clip(p, 0.0, 1.0)
    if not isinstance(n_bins, int | np.integer) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    positive = y == positive_label
    share, mean = calibration_curve(positive, p, n_bins=n_bins, strategy="quantile",
                                    pos_label=True)
    edges = np.percentile(p, np.linspace(0, 100, n_bins + 1))
    bins = np.searchsorted(edges[1:-1], p)
    counts = np.bincount(bins, minlength=n_bins)
    sums = np.bincount(bins, weights=p, minlength=n_bins)[counts > 0]
    counts = counts[counts > 0]
    if counts.size != mean.size or not np.allclose(sums / counts, mean):
        raise RuntimeError("the row counts do not match calibration_curve's bins")
    return mean, share, counts


# a point's "n=…" label goes above and to the left of it, except where that would leave the
# plot (cut off at its edge): below a share this close to the top, right of a risk this close
# to 0 (about a label's height and width on the smallest plot the figure is shown in)
TOP_ROOM, LEFT_ROOM = 0.15, 0.1


def label_positions(mean, share) -> list[str]:
    """Plotly text positions of the bins' "n=…" labels, each inside the plot."""
    return [f"{'bottom' if y > 1 - TOP_ROOM else 'top'} {'right' if x < LEFT_ROOM else 'left'}"
            for x, y in zip(mean, share, strict=True)]


def reliability_figure(y_true, proba, positive_label, n_bins: int = 10, *,
                       name: str = "held-out rows", width=WIDTH) -> go.Figure:
    """Share of ``positive_label`` outcomes against the mean predicted risk ``proba`` per bin
    of equal row counts, each point labelled with its rows, and the diagonal a perfectly
    calibrated model would follow."""
    mean, share, counts = reliability_bins(y_true, proba, positive_label, n_bins)
    positive = plain(positive_label)
    fig = go.Figure()
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated",
                    line={"dash": "dot", "color": "grey"}, hoverinfo="skip")
    fig.add_scatter(
        x=mean, y=share, mode="lines+markers+text", name=plain(name),
        text=[f"n={c}" for c in counts], textposition=label_positions(mean, share),
        cliponaxis=False, customdata=counts,
        marker={"color": STRONG[0], "size": 8}, line={"color": STRONG[0]},
        hovertemplate=(f"mean predicted risk %{{x:.3f}}<br>share {positive} %{{y:.3f}}"
                       "<br>%{customdata} rows<extra></extra>"))
    return finish(
        fig, f"Reliability of the predicted risk of {positive}",
        f"Rows grouped into {mean.size} bins of about equal size by predicted risk: each "
        f"point is a bin's mean risk and the share of its rows that were {positive}. Points "
        "above the dotted diagonal: the model under-states the risk; below: it over-states it.",
        width=width,
        xaxis={"title": {"text": "mean predicted risk"}, "range": [0, 1]},
        yaxis={"title": {"text": f"share of rows that were {positive}"}, "range": [0, 1.05]},
        height=420)
