"""Tree weights on a triangle: ABRF Fig. 1 for one row (the ε-sub-simplex around the Softmax
weights) and every row's weights, each projected exactly onto three groups of trees."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from forestviz.explain.plots.conventions import (
    CAPTION_CHAR,
    WIDTH,
    finish,
    plain,
    tree_names,
)
from forestviz.explain.plots.inputs import matrix, vector
from forestviz.names import elide
from forestviz.trees.contamination import contaminate


def ternary_groups(weights) -> list[list[int]]:
    """The default three corners (0-based tree indices).

    T ≤ 3: one tree per corner in tree order (corners without a tree stay empty). T > 3: the
    tree with the largest weight, the second largest (mean over rows for a matrix; ties keep
    tree order), and all other trees together: a partition, so the projection is exact.
    """
    mean = matrix(weights, "weights").mean(axis=0)
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
    weights = matrix(weights, "weights")
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
    names = (_group_names(groups, tree_names(n_trees, tree_ids)) if group_names is None
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


def _ternary_axes(names: list[str], width: int) -> tuple[dict, dict]:
    """The ternary axes with the corner titles, and margins wide enough for the two bottom
    corners' titles (centred on their corners) at ``width`` pixels."""
    side = max(60, int(max(map(len, names)) * CAPTION_CHAR / 2) + 20)
    axes = {"sum": 1, **{axis: {"title": {"text": name}, "min": 0}
                         for axis, name in zip(("aaxis", "baxis", "caxis"), names, strict=True)}}
    return axes, {"l": side, "r": side}


def _height(width: int) -> int:
    return 560 if width >= 900 else 480


def simplex_figure(softmax_D, w, eps, alpha=None, *, groups=None, group_names=None,
                   tree_ids=None, width=WIDTH) -> go.Figure:
    """ABRF Fig. 1 for one row: the Softmax weights D (triangle), the ε-sub-simplex
    {(1−ε)·D + ε·v : v ∈ Δ} (shaded; vertices (1−ε)·D + ε·e_j), the trained w (square) and
    α = (1−ε)·D + ε·w (circle; pass ``alpha`` to draw another point).

    With ε = 0 (a model with no learned part: ERF, Softmax, plain forests) the sub-simplex is
    the point α = D and w plays no part: only α is drawn (``alpha``, or ``softmax_D``), and
    ``softmax_D`` and ``w`` may be None. With ε = 1, α = w whatever D is: ``softmax_D`` may be
    None and D is not drawn. For T = 3 the corners are the trees themselves. For
    T > 3 the view is the exact ternary projection of :func:`ternary_coordinates` on
    ``groups``, which must then cover every tree (default :func:`ternary_groups` of α); the
    sub-simplex projects to the triangle with vertices (1−ε)·PD + ε·(corner g) over the
    non-empty groups g. ``width``: the figure's pixels (:mod:`.conventions`).
    """
    eps = float(eps)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"need 0 ≤ eps ≤ 1, got {eps}")
    learned = eps > 0
    if eps == 1.0 and softmax_D is None:  # α = w: the Softmax part plays no part
        softmax_D = w
    if learned or alpha is None:
        D, w = vector(softmax_D, "softmax_D"), vector(w, "w")
        if D.size != w.size:
            raise ValueError("need one Softmax weight and one w per tree")
    alpha = contaminate(D, w, eps) if alpha is None else vector(alpha, "alpha")
    groups, names, rule, exact = _ternary_setup(alpha[None, :], groups, group_names, tree_ids)
    if not exact:
        raise ValueError("the simplex view needs groups that together cover every tree")
    final = ("final weights α = (1−ε)·D + ε·w" if learned else "this row's tree weights α",
             ternary_coordinates(alpha, groups), "markers", "circle", "#1f5fa8")
    points = [final]
    if learned:
        pD, pw = ternary_coordinates(np.stack([D, w]), groups)
        filled = [g for g in range(3) if groups[g]]
        vertices = contaminate(pD, np.eye(3)[filled + filled[:1]], eps)
        softmax = [("Softmax weights D (closeness to this row)", pD[None], "markers",
                    "triangle-up", "#d9650b")] if eps < 1.0 else []
        points = [
            ("possible weights for this ε (sub-simplex)", vertices, "lines", "circle",
             "#9ecae1"), *softmax,
            ("learned tree weights w", pw[None], "markers", "square", "#2b8a3e"), final]
    fig = go.Figure()
    for name, xyz, mode, symbol, colour in points:
        fig.add_trace(go.Scatterternary(
            a=xyz[:, 0], b=xyz[:, 1], c=xyz[:, 2], name=name, mode=mode,
            fill="toself" if mode == "lines" else None, line={"color": colour}, cliponaxis=False,
            marker={"symbol": symbol, "size": 13, "color": colour},
            hovertext=_ternary_hover([name] * len(xyz), xyz, names), hoverinfo="text"))
    where = ("The three trees' weights on a triangle" if alpha.size <= 3 else
             "This row's tree weights on three groups of trees")
    title = f"{where} (ABRF Fig. 1{'' if alpha.size <= 3 else ', projected'})"
    said = ("ε = 1: the weights do not depend on the row; α is the learned w." if eps == 1.0
            else f"ε = {eps:.2f}: the final weights can only lie in the shaded triangle around "
            "D, which grows with ε." if learned else
            "This model has no learned part (ε = 0): the point is this row's weights α.")
    axes, margin = _ternary_axes(names, width)
    fig.update_layout(showlegend=True)
    return finish(fig, title, f"{said} {rule}", width=width,
                  ternary=axes, margin=margin, height=_height(width))
