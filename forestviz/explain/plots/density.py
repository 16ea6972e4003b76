"""Where the weight sits along the forest: the smoothed weight per tree number (ABRF Fig. 3)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from scipy.stats import norm

from forestviz.explain.plots.conventions import WIDTH, finish, plain
from forestviz.explain.plots.inputs import vector
from forestviz.names import elide


def kde_over_tree_index(weights, grid) -> np.ndarray:
    """ρ(t) = Σ_k α_k·N(t; k, 1) on ``grid``, trees indexed k = 1..T (ABRF Fig. 3).

    ``weights`` (T,) or (n, T); returns (G,) or (n, G). Integrates to Σ_k α_k over the line.
    """
    weights, grid = np.asarray(weights, dtype=float), np.asarray(grid, dtype=float)
    trees = np.arange(1, weights.shape[-1] + 1)[:, None]
    return weights @ norm.pdf(grid[None, :], loc=trees)


def _weight_series(alpha, softmax, names):
    """[(name, weights, dash)] for the trained weights (solid) and the Softmax ones (dashed)."""
    alpha = vector(alpha, "alpha")
    series = [(plain(elide(names[0])), alpha, "solid")]
    if softmax is not None:
        softmax = vector(softmax, "softmax")
        if softmax.size != alpha.size:
            raise ValueError("softmax and alpha need one weight per tree each")
        series.append((plain(elide(names[1])), softmax, "dash"))
    return series


def attention_kde(alpha, softmax=None, grid=None, *,
                  names=("trained attention α", "Softmax weights D (no training)"),
                  width=WIDTH) -> go.Figure:
    """ABRF Fig. 3: ρ(t) over the tree number t for α (solid) and the Softmax D (dashed).

    ``grid`` defaults to [−2, T + 3] (three kernel widths beyond the trees), 8 points per unit.
    """
    series = _weight_series(alpha, softmax, names)
    n_trees = series[0][1].size
    grid = np.linspace(-2.0, n_trees + 3.0, 8 * (n_trees + 5) + 1) if grid is None else (
        np.asarray(grid, dtype=float))
    fig = go.Figure([go.Scatter(
        x=grid, y=kde_over_tree_index(w, grid), name=name, mode="lines",
        line={"dash": dash}, hovertemplate=f"{name}<br>around tree %{{x:.1f}}: density "
                                           "%{y:.4f}<extra></extra>")
        for name, w, dash in series])
    return finish(
        fig, "Where the weight sits along the forest (smoothed weight per tree number)",
        "Each tree's weight is spread as a bell curve (variance 1) around its number, trees "
        "numbered from 1; the area under each curve is 1. Peaks mark groups of heavy trees.",
        width=width,
        xaxis={"title": {"text": "Tree number"}},
        yaxis={"title": {"text": "Weight density ρ(t)"}})
