"""Plotly figures of per-row explanations and training diagnostics (algorithms.md §5).

Pure functions of numpy arrays, pandas frames and plain values; every one returns a
``plotly.graph_objects.Figure`` with a title, a caption (the title's subtitle) stating what is
drawn, axis titles and hover texts in plain words. No model object is needed.

Conventions:

* Trees are numbered from 1 for people: "Tree 1" is ``estimators_[0]`` (pass ``tree_ids`` to
  show other numbers). Tree indices given to functions (``groups``) count from 0, as numpy does.
* Plotly renders a few HTML tags (``<b>``, ``<br>``, ``<a>`` …) inside titles, labels and hover
  texts, so every user-provided name (features, rows, trees, groups) goes through
  :func:`plain`, which escapes ``&``, ``<`` and ``>``; plotly shows the entities as the literal
  characters. Names are cut to 40 characters (:mod:`forestviz.names`) except in hover texts.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from forestviz.names import elide, elide_unique, wrap_name

_UNBROKEN = ("ABRF Fig. ", "Fig. ")  # kept on one line with the word after them
# Characters per line of a figure's title and caption (plotly does not wrap text): narrow
# enough for a figure in half of a wide page.
TITLE_WIDTH = 60
CAPTION_WIDTH = 85
PART_NAMES = ("closeness to this row, (1−ε)·D", "learned tree weight, ε·w")
STRONG = ("#1f5fa8", "#d9650b", "#2b8a3e")  # top-k bars, one colour per stacked part
PALE = ("#b7cde6", "#f6c8a0", "#b9e0c0")  # the other bars
EPS_MARKERS = ("circle", "triangle-up", "square", "diamond", "x", "star", "cross", "pentagon")
METRICS = {  # known score columns: axis title, word in hover texts, higher is better
    "validation_loss": ("Validation error (lower is better)", "validation error", False),
    "r2": ("R² on held-out rows (1 = perfect, 0 = no better than the mean)", "R²", True),
}


def plain(text) -> str:
    """``text`` as a string with ``&``, ``<`` and ``>`` escaped, so plotly shows it literally."""
    return html.escape(str(text), quote=False)


# ------------------------------------------------------------------------------ helpers
def _vector(values, name: str) -> np.ndarray:
    """A finite, non-empty 1-D float array."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return v


def _matrix(values, name: str) -> np.ndarray:
    """A finite, non-empty 2-D float array (a 1-D array is one row)."""
    v = np.atleast_2d(np.asarray(values, dtype=float))
    if v.ndim != 2 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty (rows, trees) array, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return v


def _unique_labels(labels, default: str, n: int) -> list[str]:
    """Escaped labels (``default.format(i + 1)`` when ``labels`` is None), cut to 40 characters
    and kept distinct by a " #k" suffix (:func:`forestviz.names.elide_unique`), since plotly
    merges equal category labels."""
    raw = [default.format(i + 1) for i in range(n)] if labels is None else list(labels)
    if len(raw) != n:
        raise ValueError(f"expected {n} labels, got {len(raw)}")
    return [plain(label) for label in elide_unique(raw)]


def _tree_names(n_trees: int, tree_ids) -> list[str]:
    """"Tree 1" … "Tree T", or "Tree <id>" for the given ids."""
    if tree_ids is None:
        return _unique_labels(None, "Tree {}", n_trees)
    return _unique_labels([f"Tree {t}" for t in tree_ids], "", n_trees)


def _records(data, required: Sequence[str], name: str) -> pd.DataFrame:
    """A DataFrame from a DataFrame or a list of dicts, with the ``required`` columns."""
    frame = pd.DataFrame(data)
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}; it has {list(frame.columns)}")
    return frame


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` characters; a figure reference ("ABRF Fig. 2") stays on one
    line."""
    for words in _UNBROKEN:
        text = text.replace(words, words.replace(" ", "\u00a0"))
    lines = textwrap.wrap(text, width, break_long_words=False)
    return [line.replace("\u00a0", " ") for line in lines]


def _finish(fig: go.Figure, title: str, caption: str, *, panel_titles=False,
            **layout) -> go.Figure:
    """Title with the caption as subtitle (both wrapped), a white template and room for both
    above the plot (more for the corner title of a ternary and for the title of a first
    subplot panel)."""
    title_lines = _wrap(title, TITLE_WIDTH) or [title]
    lines = _wrap(caption, CAPTION_WIDTH)
    top = (58 + 22 * len(title_lines) + 16 * len(lines) + 44 * ("ternary" in layout)
           + 30 * panel_titles)
    fig.update_layout(title={"text": "<br>".join(title_lines),
                             "subtitle": {"text": "<br>".join(lines)}},
                      template="plotly_white", margin={"t": top}, **layout)
    return fig


# ------------------------------------------------------------------- weights of one row
def tree_weight_bars(weights, *, parts=None, part_names=PART_NAMES, top_k=5, label="weight",
                     tree_ids=None, share_of_prediction=True) -> go.Figure:
    """Bar chart of one row's tree weights (or scores), largest first, the ``top_k`` darker.

    ``parts``: arrays that sum to ``weights`` drawn stacked, e.g. the ABRF parts
    (1−ε)·D_k(x) and ε·w_k (``tree_weight_parts``). ``share_of_prediction`` adds each tree's
    share of the total to the hover text (right for weights that sum to 1, not for ERF scores).
    Ties keep tree order.
    """
    weights = _vector(weights, "weights")
    n_trees = weights.size
    if parts is None:
        parts, part_names = [weights], [label]
    parts = [_vector(p, "parts") for p in parts]
    part_names = [plain(elide(p)) for p in part_names]
    if len(part_names) != len(parts) or any(p.size != n_trees for p in parts):
        raise ValueError("parts and part_names must match, each part with one value per tree")
    if not np.allclose(np.sum(parts, axis=0), weights, rtol=1e-6, atol=1e-9):
        raise ValueError("the parts must add up to the weights")
    label, names = plain(elide(label)), _tree_names(n_trees, tree_ids)
    order = np.argsort(-weights, kind="stable")
    k = min(max(int(top_k), 0), n_trees)
    top = np.arange(n_trees) < k
    total = weights.sum()
    share = weights / total if total > 0 else np.zeros(n_trees)
    x = [names[t] for t in order]
    fig = go.Figure()
    for p, (part, part_name) in enumerate(zip(parts, part_names, strict=True)):
        head = [f"{names[t]}: {label} {weights[t]:.3f}"
                + (f" ({share[t]:.1%} of the prediction)" if share_of_prediction else "")
                for t in order]
        hover = head if len(parts) == 1 else [
            f"{h}<br>of which {part_name}: {part[t]:.3f}" for h, t in zip(head, order, strict=True)]
        fig.add_trace(go.Bar(
            x=x, y=part[order], name=part_name, hovertext=hover, hoverinfo="text",
            marker_color=np.where(top, STRONG[p % 3], PALE[p % 3]).tolist()))
    caption = (f"One bar per tree, sorted from the largest {label}"
               + (f"; the {k} darker bars are the top {k}" if k else "")
               + ". Trees are numbered from 1.")
    if len(parts) > 1:
        caption += " Each bar is split into its parts."
    return _finish(fig, f"Which trees carry this prediction: {label} of each tree", caption,
                   barmode="stack", showlegend=len(parts) > 1,
                   xaxis={"title": {"text": f"Tree (sorted by {label})"}, "type": "category",
                          "categoryorder": "array", "categoryarray": x},
                   yaxis={"title": {"text": label[:1].upper() + label[1:]}})


def kde_over_tree_index(weights, grid) -> np.ndarray:
    """ρ(t) = Σ_k α_k·N(t; k, 1) on ``grid``, trees indexed k = 1..T (ABRF Fig. 3).

    ``weights`` (T,) or (n, T); returns (G,) or (n, G). Integrates to Σ_k α_k over the line.
    """
    weights, grid = np.asarray(weights, dtype=float), np.asarray(grid, dtype=float)
    offsets = grid[None, :] - np.arange(1, weights.shape[-1] + 1)[:, None]
    return weights @ (np.exp(-0.5 * offsets**2) / np.sqrt(2.0 * np.pi))


def value_density(values, grid, bandwidth=None, lower=None) -> np.ndarray:
    """Gaussian kernel density of ``values`` on ``grid``; integrates to 1 over the line, or
    over [``lower``, ∞) when ``lower`` is given (kernels reflected at the bound, density 0
    below it), so non-negative weights get no mass below 0.

    Bandwidth: Silverman's rule 0.9·min(σ, IQR/1.34)·n^(−1/5), or 1.06·σ·n^(−1/5) when the
    IQR is 0; when all values are equal, 5% of their absolute mean (at least 1e−3).
    """
    values, grid = _vector(values, "values"), np.asarray(grid, dtype=float)
    if lower is not None and values.min() < lower:
        raise ValueError(f"values lie below the lower bound {lower}")
    h = _bandwidth(values) if bandwidth is None else float(bandwidth)
    centres = values if lower is None else np.concatenate([values, 2.0 * lower - values])
    z = (grid[None, :] - centres[:, None]) / h
    density = np.exp(-0.5 * z**2).sum(axis=0) / (values.size * h * np.sqrt(2.0 * np.pi))
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
    alpha = _vector(alpha, "alpha")
    series = [(plain(elide(names[0])), alpha, "solid")]
    if softmax is not None:
        softmax = _vector(softmax, "softmax")
        if softmax.size != alpha.size:
            raise ValueError("softmax and alpha need one weight per tree each")
        series.append((plain(elide(names[1])), softmax, "dash"))
    return series


def attention_kde(alpha, softmax=None, grid=None, *,
                  names=("trained attention α", "Softmax weights D (no training)")) -> go.Figure:
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
    return _finish(
        fig, "Where the weight sits along the forest (smoothed weight per tree number)",
        "Each tree's weight is spread as a bell curve (variance 1) around its number, trees "
        "numbered from 1; the area under each curve is 1. Peaks mark groups of heavy trees.",
        xaxis={"title": {"text": "Tree number"}},
        yaxis={"title": {"text": "Weight density ρ(t)"}})


def weight_value_density(alpha, softmax=None, grid=None, *,
                         names=("trained attention α", "Softmax weights D (no training)")
                         ) -> go.Figure:
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
    return _finish(
        fig, "How large the tree weights are (distribution of the weight values)",
        f"A smoothed histogram of the {n_trees} trees' weights. A plain random forest gives "
        f"every tree 1/{n_trees} (dotted line); a long right tail means a few trees dominate.",
        xaxis={"title": {"text": "Weight of a tree"}},
        yaxis={"title": {"text": "Density (how many trees have this weight)"}})


def weight_heatmap(weights, row_labels=None, *, tree_ids=None,
                   share_of_prediction=True) -> go.Figure:
    """Trees × rows heat map of tree weights ``weights`` (n rows, T trees). The figure carries
    every cell (about 13 bytes of JSON each): sample the rows for large test sets."""
    weights = _matrix(weights, "weights")
    rows = _unique_labels(row_labels, "Row {}", weights.shape[0])
    trees = _tree_names(weights.shape[1], tree_ids)
    share = " (%{z:.1%} of this row's prediction)" if share_of_prediction else ""
    fig = go.Figure(go.Heatmap(
        z=weights.T, x=rows, y=trees, colorscale="Blues", colorbar={"title": {"text": "weight"}},
        hovertemplate=f"%{{x}}, %{{y}}: weight %{{z:.3f}}{share}<extra></extra>"))
    return _finish(
        fig, "Which trees each row relies on (tree weights per row)",
        "One column per row, one line per tree (numbered from 1); darker cells carry more of "
        "that row's prediction.",
        xaxis={"title": {"text": "Row"}, "type": "category"},
        yaxis={"title": {"text": "Tree"}, "type": "category", "autorange": "reversed"})


# ------------------------------------------------------------------------- ternary views
def ternary_groups(weights) -> list[list[int]]:
    """The default three corners (0-based tree indices).

    T ≤ 3: one tree per corner in tree order (corners without a tree stay empty). T > 3: the
    tree with the largest weight, the second largest (mean over rows for a matrix; ties keep
    tree order), and all other trees together: a partition, so the projection is exact.
    """
    mean = _matrix(weights, "weights").mean(axis=0)
    n_trees = mean.size
    if n_trees <= 3:
        return [[k] if k < n_trees else [] for k in range(3)]
    order = np.argsort(-mean, kind="stable")
    return [[int(order[0])], [int(order[1])], sorted(int(k) for k in order[2:])]


def _membership(groups, n_trees: int) -> np.ndarray:
    """(T, 3) 0/1 matrix of tree-in-group, after checking the groups."""
    if len(groups) != 3:
        raise ValueError(f"a ternary view needs exactly three groups of trees, got {len(groups)}")
    member = np.zeros((n_trees, 3))
    for g, group in enumerate(groups):
        idx = np.asarray(group, dtype=int).ravel()
        if ((idx < 0) | (idx >= n_trees)).any():
            raise ValueError(f"tree indices must lie in 0..{n_trees - 1}")
        member[idx, g] += 1
    if (member.sum(axis=1) > 1).any():
        raise ValueError("the three groups of trees must be disjoint (no tree listed twice)")
    if not member.any():
        raise ValueError("the three groups of trees are all empty")
    return member


def ternary_coordinates(weights, groups) -> np.ndarray:
    """Ternary coordinates (n, 3): the weight mass on each of three groups of trees.

    Rule: coordinate g = Σ_{k in group g} α_k / Σ_{k in any group} α_k. When the groups cover
    every tree (a partition) and the rows sum to 1, the denominator is 1 and the projection is
    exact; otherwise the coordinates are shares among the listed trees. Rows with no weight
    on any listed tree get NaN. ``groups``: three disjoint lists of 0-based tree indices.
    """
    weights = _matrix(weights, "weights")
    mass = weights @ _membership(groups, weights.shape[1])
    total = mass.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, mass / total, np.nan)


def _group_names(groups, names: list[str]) -> list[str]:
    """"Tree 17" for one tree, "the other 98 trees" for the rest of a partition, else a list."""
    covered = sum(len(g) for g in groups) == len(names)
    singles = sum(len(g) == 1 for g in groups)
    out = []
    for group in groups:
        listed = [names[k] for k in group]
        if len(listed) <= 1:
            out.append(listed[0] if listed else "(no tree)")
        elif covered and singles == 2:
            out.append(f"the other {len(listed)} trees")
        else:
            head = ", ".join(n.removeprefix("Tree ") for n in listed[:3])
            out.append(f"Trees {head}{', …' if len(listed) > 3 else ''} ({len(listed)} trees)")
    return out


def _ternary_setup(weights, groups, group_names, tree_ids):
    """Groups, escaped corner names and the caption sentence stating the projection rule."""
    n_trees = weights.shape[1]
    groups = ternary_groups(weights) if groups is None else [
        sorted({int(k) for k in np.ravel(g)}) for g in groups]
    exact = _membership(groups, n_trees).sum() == n_trees
    names = (_group_names(groups, _tree_names(n_trees, tree_ids)) if group_names is None
             else [plain(elide(n)) for n in group_names])
    if len(names) != 3:
        raise ValueError(f"need three group names, got {len(names)}")
    rule = ("Each corner is a tree or a group of trees; a point's closeness to a corner is "
            "the share of the weight on that group (shares sum to 1; every tree is in one "
            "group, so this is exact)." if exact else
            "Each corner is a tree or a group of trees; a point shows the shares of the weight "
            "among the listed trees only, rescaled to sum to 1 (the other trees are left out).")
    return groups, names, rule, exact


def _ternary_hover(titles, coords: np.ndarray, names: list[str]) -> list[str]:
    """One hover text per point: its title, then the share on each corner."""
    return [f"{title}<br>" + "<br>".join(f"{n}: {c:.1%}" for n, c in zip(names, row, strict=True))
            for title, row in zip(titles, coords, strict=True)]


def _ternary_axes(names: list[str]) -> dict:
    return {"sum": 1, **{axis: {"title": {"text": name}, "min": 0}
                         for axis, name in zip(("aaxis", "baxis", "caxis"), names, strict=True)}}


def simplex_figure(softmax_D, w, eps, alpha=None, *, groups=None, group_names=None,
                   tree_ids=None) -> go.Figure:
    """ABRF Fig. 1 for one row: the Softmax weights D (triangle), the ε-sub-simplex
    {(1−ε)·D + ε·v : v ∈ Δ} (shaded; vertices (1−ε)·D + ε·e_j), the trained w (square) and
    α = (1−ε)·D + ε·w (circle; pass ``alpha`` to draw another point).

    For T = 3 the corners are the trees themselves. For T > 3 the view is the exact ternary
    projection of :func:`ternary_coordinates` on ``groups``, which must then cover every tree
    (default :func:`ternary_groups` of α); the sub-simplex projects to the triangle with
    vertices (1−ε)·PD + ε·(corner g) over the non-empty groups g.
    """
    D, w = _vector(softmax_D, "softmax_D"), _vector(w, "w")
    eps = float(eps)
    if not 0.0 <= eps <= 1.0 or D.size != w.size:
        raise ValueError("need 0 ≤ eps ≤ 1 and one Softmax weight and one w per tree")
    alpha = (1.0 - eps) * D + eps * w if alpha is None else _vector(alpha, "alpha")
    groups, names, rule, exact = _ternary_setup(alpha[None, :], groups, group_names, tree_ids)
    if not exact:
        raise ValueError("the simplex view needs groups that together cover every tree")
    pD, pw, pa = ternary_coordinates(np.stack([D, w, alpha]), groups)
    filled = [g for g in range(3) if groups[g]]
    vertices = (1.0 - eps) * pD + eps * np.eye(3)[filled + filled[:1]]
    fig = go.Figure()
    points = [
        ("possible weights for this ε (sub-simplex)", vertices, "lines", "circle", "#9ecae1"),
        ("Softmax weights D (closeness to this row)", pD[None], "markers", "triangle-up",
         "#d9650b"),
        ("learned tree weights w", pw[None], "markers", "square", "#2b8a3e"),
        ("final weights α = (1−ε)·D + ε·w", pa[None], "markers", "circle", "#1f5fa8"),
    ]
    for name, xyz, mode, symbol, colour in points:
        fig.add_trace(go.Scatterternary(
            a=xyz[:, 0], b=xyz[:, 1], c=xyz[:, 2], name=name, mode=mode,
            fill="toself" if mode == "lines" else None, line={"color": colour}, cliponaxis=False,
            marker={"symbol": symbol, "size": 13, "color": colour},
            hovertext=_ternary_hover([name] * len(xyz), xyz, names), hoverinfo="text"))
    title = ("The three trees' weights on a triangle (ABRF Fig. 1)" if alpha.size <= 3 else
             "This row's tree weights on three groups of trees (ABRF Fig. 1, projected)")
    return _finish(fig, title,
                   f"ε = {eps:.2f}: the final weights can only lie in the shaded triangle "
                   f"around D, which grows with ε. {rule}", ternary=_ternary_axes(names))


def ternary_dataset(weights, *, groups=None, group_names=None, tree_ids=None, row_labels=None,
                    color_values=None, color_name="prediction") -> go.Figure:
    """Every row's weight vector (n, T) on the same ternary axes (:func:`ternary_coordinates`;
    default groups from the mean weight over rows), optionally coloured by ``color_values``."""
    weights = _matrix(weights, "weights")
    groups, names, rule, _ = _ternary_setup(weights, groups, group_names, tree_ids)
    coords = ternary_coordinates(weights, groups)
    shown = ~np.isnan(coords).any(axis=1)
    rows = np.array(_unique_labels(row_labels, "Row {}", weights.shape[0]), dtype=object)
    marker: dict = {"size": 8, "color": "#1f5fa8", "opacity": 0.7}
    if color_values is not None:
        marker |= {"color": _vector(color_values, "color_values")[shown],
                   "colorscale": "Viridis",
                   "colorbar": {"title": {"text": plain(elide(color_name))}}}
    fig = go.Figure(go.Scatterternary(
        a=coords[shown, 0], b=coords[shown, 1], c=coords[shown, 2], mode="markers",
        marker=marker, name="rows", cliponaxis=False,
        hovertext=_ternary_hover(rows[shown], coords[shown], names), hoverinfo="text"))
    hidden = int((~shown).sum())
    note = f" {hidden} row(s) put no weight on these trees and are not shown." if hidden else ""
    return _finish(fig, "Every row's tree weights on three groups of trees",
                   f"One point per row. {rule}{note}", ternary=_ternary_axes(names))


# ----------------------------------------------------------------- training diagnostics
def tau_curves(search_results, *, value="validation_loss", target_variance=None, baseline=None,
               baseline_name="plain random forest") -> go.Figure:
    """ABRF Fig. 2: a score against τ (log axis), one line per ε, the best pair marked.

    ``search_results``: ``AttentionForest*.search_results_`` or any DataFrame / list of dicts
    with columns ``eps``, ``tau`` and ``value`` (``validation_loss``, lower is better, as the
    estimator stores it; ``r2``, higher is better; another column is taken as lower-is-better
    with its own name as axis title). ``target_variance``: draw R² = 1 − loss / variance
    instead of the loss, as the paper does; valid when the loss is a mean squared error
    (regression, ``loss="l2"``; with K-fold ``cv`` the estimator sums the K fold losses, so pass
    K·Var(y)). ``baseline``: a horizontal line in the plotted unit, e.g. the plain forest's R².
    """
    frame = _records(search_results, ["eps", "tau", value], "search_results")
    if target_variance is not None:
        frame = frame.assign(r2=1.0 - frame[value].to_numpy(float) / float(target_variance))
        value = "r2"
    frame = frame.sort_values(["eps", "tau"], kind="stable")
    y_title, word, higher = METRICS.get(value, (plain(elide(value)), plain(elide(value)), False))
    fig = go.Figure()
    for i, (eps, curve) in enumerate(frame.groupby("eps", sort=True)):
        fig.add_trace(go.Scatter(
            x=curve["tau"].to_numpy(float), y=curve[value].to_numpy(float), name=f"ε = {eps:.2f}",
            mode="lines+markers", marker={"symbol": EPS_MARKERS[i % len(EPS_MARKERS)], "size": 8},
            hovertemplate=f"ε = {eps:.2f}, τ = %{{x:.3g}}: {word} %{{y:.4g}}<extra></extra>"))
    scores = frame[value].to_numpy(float)
    caption = ("τ sets how sharply the weights favour trees whose leaf is close to the row "
               "(small τ: a few trees; large τ: all trees alike); ε is the share of learned "
               "tree weights.")
    if np.isfinite(scores).any():
        best = frame.iloc[int(np.nanargmax(scores) if higher else np.nanargmin(scores))]
        fig.add_trace(go.Scatter(
            x=[best["tau"]], y=[best[value]], mode="markers", name="best pair",
            marker={"symbol": "star", "size": 16, "color": "gold", "line": {"width": 1}},
            hovertext=[f"best: ε = {best['eps']:.2f}, τ = {best['tau']:.3g}"], hoverinfo="text"))
    else:
        caption += " No held-out scores were recorded, so no pair is marked."
    if baseline is not None:
        fig.add_hline(y=float(baseline), line_color="#d9650b",
                      annotation_text=plain(elide(baseline_name)))
    return _finish(fig, "How the two tuning knobs ε and τ change the score (ABRF Fig. 2)", caption,
                   xaxis={"title": {"text": "τ (temperature of the softmax, log scale)"},
                          "type": "log"},
                   yaxis={"title": {"text": y_title}})


def erf_history(history, best_iteration=None) -> go.Figure:
    """Enhanced Random Forest training rounds (``EnhancedForestClassifier.history_``).

    ``history``: list of dicts or DataFrame with ``iteration`` and ``validation_auc``;
    optional ``train_auc``, ``threshold`` (t*, shown in the hover text) and the sample-weight
    quantiles ``weight_min``, ``weight_q25``, ``weight_median``, ``weight_q75``, ``weight_max``
    (drawn as bands in a second panel). ``best_iteration``: index of the kept round.
    """
    frame = _records(history, ["iteration", "validation_auc"], "history")
    it = frame["iteration"].to_numpy(float)
    bands = {"weight_min", "weight_q25", "weight_median", "weight_q75", "weight_max"}
    has_weights = bands <= set(frame.columns)
    titles = ["AUC by round (1 = perfect, 0.5 = a coin flip)"]
    if has_weights:
        titles.append("Sample weights by round (how much each training row counts)")
    fig = make_subplots(rows=1 + has_weights, cols=1, shared_xaxes=True, vertical_spacing=0.14,
                        subplot_titles=[plain(t) for t in titles])
    threshold = frame["threshold"].tolist() if "threshold" in frame else [None] * len(frame)
    hover = [f"Round {int(i)}: validation AUC {auc:.3f}"
             + ("" if t is None else f", decision threshold {np.round(t, 3).tolist()}")
             for i, auc, t in zip(it, frame["validation_auc"], threshold, strict=True)]
    fig.add_trace(go.Scatter(x=it, y=frame["validation_auc"], name="validation AUC",
                             mode="lines+markers", hovertext=hover, hoverinfo="text"), 1, 1)
    if "train_auc" in frame:
        fig.add_trace(go.Scatter(
            x=it, y=frame["train_auc"], name="training AUC", mode="lines+markers",
            line={"dash": "dash"},
            hovertemplate="Round %{x}: training AUC %{y:.3f}<extra></extra>"), 1, 1)
    if best_iteration is not None:
        row = frame.iloc[int(best_iteration)]
        fig.add_trace(go.Scatter(
            x=[row["iteration"]], y=[row["validation_auc"]], name="kept round", mode="markers",
            marker={"symbol": "star", "size": 16, "color": "gold", "line": {"width": 1}},
            hovertext=[f"The model of round {int(row['iteration'])} is kept"], hoverinfo="text"),
            1, 1)
    if has_weights:
        for low, high, name, colour in (("weight_min", "weight_max", "smallest to largest",
                                         "rgba(31,95,168,0.15)"),
                                        ("weight_q25", "weight_q75", "middle half of the rows",
                                         "rgba(31,95,168,0.35)")):
            fig.add_trace(go.Scatter(x=it, y=frame[high], mode="lines", line={"width": 0},
                                     showlegend=False, hoverinfo="skip"), 2, 1)
            fig.add_trace(go.Scatter(
                x=it, y=frame[low], mode="lines", line={"width": 0}, fill="tonexty",
                fillcolor=colour, name=f"sample weights: {name}",
                hovertemplate=f"Round %{{x}}: {name} of the sample weights<extra></extra>"), 2, 1)
        fig.add_trace(go.Scatter(
            x=it, y=frame["weight_median"], mode="lines+markers", name="median sample weight",
            line={"color": "#1f5fa8"},
            hovertemplate="Round %{x}: median sample weight %{y:.3f}<extra></extra>"), 2, 1)
        fig.update_yaxes(title_text="Sample weight", row=2, col=1)
    fig.update_xaxes(title_text="Training round", row=1 + has_weights, col=1)
    fig.update_xaxes(dtick=1 if len(frame) <= 20 else None)  # whole rounds, not 1.2, 1.4, …
    fig.update_yaxes(title_text="AUC", row=1, col=1)
    return _finish(
        fig, "How the Enhanced Random Forest changed over its training rounds",
        "Each round re-weights the training rows: rows the forest gets wrong weigh more in the "
        "next round. The round with the best validation AUC is kept.",
        panel_titles=True, height=380 + 220 * has_weights)


# ---------------------------------------------------------------- one row vs the training data
def row_vs_median_table(row, X_train, feature_names=None) -> pd.DataFrame:
    """ERF Tables 6-7 with percentiles: per feature the row's value, the training median and
    the mid-rank percentile 100·(#below + #equal/2)/n of the value among the training rows.

    Columns ``feature``, ``value``, ``median``, ``percentile``. Numeric features only.
    """
    train = np.asarray(X_train, dtype=float)
    value = np.asarray(row, dtype=float).ravel()
    if train.ndim != 2 or train.shape[0] == 0 or train.shape[1] != value.size:
        raise ValueError("X_train must be (n_rows, n_features) with the row's number of features")
    below = (value > train).sum(axis=0)
    equal = (value == train).sum(axis=0)
    names = [f"feature {j + 1}" for j in range(value.size)] if feature_names is None else [
        str(f) for f in feature_names]
    return pd.DataFrame({"feature": names, "value": value, "median": np.median(train, axis=0),
                         "percentile": 100.0 * (below + 0.5 * equal) / train.shape[0]})


def _hover(value) -> str:
    """A number to 4 digits, or a text whole and escaped, in lines of 80 characters."""
    return f"{value:.4g}" if isinstance(value, int | float | np.number) else "<br>".join(
        map(plain, wrap_name(value)))


def row_vs_median(table) -> go.Figure:
    """The row's percentile per feature as bars from the median (50), ERF Tables 6-7 style.

    ``table``: DataFrame or list of dicts with ``feature``, ``value``, ``median`` and
    ``percentile`` (0-100, e.g. from :func:`row_vs_median_table`). Percentiles put features
    of any unit on one axis.
    """
    frame = _records(table, ["feature", "value", "median", "percentile"], "table")
    if len(frame) == 0:
        raise ValueError("table needs one row per feature")
    features = _unique_labels(frame["feature"], "", len(frame))
    pct = frame["percentile"].to_numpy(float)
    hover = [f"{_hover(f)}: this row {_hover(v)}, training median {_hover(m)}<br>"
             f"{p:.0f}% of the training rows are lower"
             for f, v, m, p in zip(frame["feature"], frame["value"], frame["median"], pct,
                                   strict=True)]
    fig = go.Figure(go.Bar(
        y=features, x=pct - 50.0, base=50.0, orientation="h", hovertext=hover, hoverinfo="text",
        marker_color=np.where(pct >= 50, STRONG[1], STRONG[0]).tolist(), name="this row"))
    fig.add_vline(x=50, line_color="grey", annotation_text="training median")
    return _finish(
        fig, "This row compared with the training data",
        "Each bar runs from the training median (50) to the row's percentile: how many training "
        "rows have a lower value. Orange: above the median; blue: below.",
        xaxis={"title": {"text": "Percentile among training rows (50 = median)"},
               "range": [0, 100]},
        yaxis={"title": {"text": "Feature"}, "type": "category", "autorange": "reversed"},
        showlegend=False)


__all__ = [
    "attention_kde",
    "erf_history",
    "kde_over_tree_index",
    "plain",
    "row_vs_median",
    "row_vs_median_table",
    "simplex_figure",
    "tau_curves",
    "ternary_coordinates",
    "ternary_dataset",
    "ternary_groups",
    "tree_weight_bars",
    "value_density",
    "weight_heatmap",
    "weight_value_density",
]
