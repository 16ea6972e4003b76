"""Where the weight sits along the forest and how large it is: the smoothed weight per tree
number (ABRF Fig. 3) and the density of the weight values."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from scipy.stats import gaussian_kde, norm

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


def value_density(values, grid, bandwidth=None, lower=None) -> np.ndarray:
    """Gaussian kernel density of ``values`` on ``grid``; integrates to 1 over the line, or
    over [``lower``, ∞) when ``lower`` is given (kernels reflected at the bound, density 0
    below it), so non-negative weights get no mass below 0.

    Bandwidth: Silverman's rule 0.9·min(σ, IQR/1.34)·n^(−1/5), or 1.06·σ·n^(−1/5) when the
    IQR is 0; when all values are equal, 5% of their absolute mean (at least 1e−3). The
    density is scipy's ``gaussian_kde`` with that bandwidth (a single normal when the kernel
    centres coincide, where ``gaussian_kde`` has no spread to scale).
    """
    values, grid = vector(values, "values"), np.asarray(grid, dtype=float)
    if lower is not None and values.min() < lower:
        raise ValueError(f"values lie below the lower bound {lower}")
    h = _bandwidth(values) if bandwidth is None else float(bandwidth)
    centres = values if lower is None else np.concatenate([values, 2.0 * lower - values])
    spread = centres.std(ddof=1) if centres.size > 1 else 0.0
    if spread > 0:
        density = gaussian_kde(centres, bw_method=h / spread)(grid)
    else:
        density = norm.pdf(grid, loc=centres[0], scale=h)
    density *= centres.size / values.size  # reflected kernels carry the mass below ``lower``
    return density if lower is None else np.where(grid >= lower, density, 0.0)


def _bandwidth(values: np.ndarray) -> float:
    sigma = values.std()
    iqr = np.subtract(*np.quantile(values, [0.75, 0.25]))
    spread = min(sigma, iqr / 1.34) if iqr > 0 else sigma
    factor = 0.9 if iqr > 0 else 1.06
    if spread > 0:
        return float(factor * spread * values.size ** -0.2)
    return max(0.05 * abs(float(values.mean())), 1e-3)


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


def weight_value_density(alpha, softmax=None, grid=None, *,
                         names=("trained attention α", "Softmax weights D (no training)"),
                         width=WIDTH) -> go.Figure:
    """Density of the weight values themselves (:func:`value_density`, reflected at 0 when
    all weights are ≥ 0), with a dotted line at 1/T, the weight of every tree in a plain
    forest. ``grid`` defaults to 400 points from the bound (or 4 bandwidths below the
    smallest weight) to 4 bandwidths above the largest."""
    series = _weight_series(alpha, softmax, names)
    n_trees = series[0][1].size
    smallest = min(w.min() for _, w, _ in series)
    lower = 0.0 if smallest >= 0 else None
    if grid is None:
        h = max(_bandwidth(w) for _, w, _ in series)
        high = max(w.max() for _, w, _ in series) + 4 * h
        grid = np.linspace(smallest - 4 * h if lower is None else lower, high, 400)
    grid = np.asarray(grid, dtype=float)
    fig = go.Figure([go.Scatter(
        x=grid, y=value_density(w, grid, lower=lower), name=name, mode="lines",
        line={"dash": dash},
        hovertemplate=f"{name}<br>weight %{{x:.4f}}: density %{{y:.3g}}<extra></extra>")
        for name, w, dash in series])
    fig.add_vline(x=1.0 / n_trees, line_dash="dot", line_color="grey",
                  annotation_text=f"equal weights 1/{n_trees}")
    return finish(
        fig, "How large the tree weights are (distribution of the weight values)",
        f"A smoothed histogram of the {n_trees} trees' weights. A plain random forest gives "
        f"every tree 1/{n_trees} (dotted line); a long right tail means a few trees dominate.",
        width=width,
        xaxis={"title": {"text": "Weight of a tree"}},
        yaxis={"title": {"text": "Density (how many trees have this weight)"}})
