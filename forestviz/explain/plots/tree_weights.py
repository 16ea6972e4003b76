"""Tree weights of one row (bars, largest first) and of many rows (a heat map)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from forestviz.explain.plots.conventions import (
    PALE,
    SIDES,
    STRONG,
    WIDTH,
    finish,
    narrowest,
    plain,
    tree_names,
    unique_labels,
)
from forestviz.explain.plots.inputs import matrix, vector
from forestviz.names import elide

PART_NAMES = ("closeness to this row, (1−ε)·D", "learned tree weight, ε·w")
BAND = 6  # units of the x axis the trees past the top k share


def bar_positions(n_trees: int, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(x of each sorted bar, its width, the band's centre): the ``k`` heaviest trees one unit
    apart at 1..k, the other trees side by side in a band as wide as ``BAND`` units (at most
    one unit a tree) after a gap."""
    rest = n_trees - k
    step = min(1.0, BAND / rest) if rest else 1.0
    start = k + 0.5 + 0.5 * (k > 0)  # the band's left edge
    x = np.concatenate([np.arange(1.0, k + 1), start + step * (np.arange(rest) + 0.5)])
    widths = np.concatenate([np.full(k, 0.8), np.full(rest, 0.9 * step)])
    return x, widths, start + step * rest / 2


def weight_order(weights, first=()) -> np.ndarray:
    """Tree indices by weight, largest first; among equal weights the trees of ``first`` (e.g.
    the explanation's top trees, in its order) come first, then tree order."""
    weights = np.asarray(weights, dtype=float)
    rank = np.full(weights.size, len(first)) if len(first) else np.zeros(weights.size)
    rank[np.asarray(first, dtype=int)] = np.arange(len(first))
    return np.lexsort((np.arange(weights.size), rank, -weights))


def tree_weight_bars(weights, *, parts=None, part_names=PART_NAMES, top_k=5, label="weight",
                     tree_ids=None, share_of_prediction=True, first=(), title=None,
                     width=WIDTH) -> go.Figure:
    """Bar chart of one row's tree weights (or scores), largest first: the ``top_k`` trees
    each named on the axis ("Tree 34"), the others as a band of pale bars named by their
    count ("the other 95 trees"; every bar names its tree on hover).

    ``parts``: arrays that sum to ``weights`` drawn stacked, e.g. the ABRF parts
    (1−ε)·D_k(x) and ε·w_k (``tree_weight_parts``). ``share_of_prediction`` adds each tree's
    share of the total to the hover text (right for weights that sum to 1, not for ERF scores).
    Ties put the trees of ``first`` first (:func:`weight_order`: with equal weights the
    explanation's own top trees are the ones named), then tree order. ``title``: in place of
    "Which trees carry this prediction: …". ``width``: the figure's pixels (:mod:`.conventions`).
    """
    weights = vector(weights, "weights")
    n_trees = weights.size
    if parts is None:
        parts, part_names = [weights], [label]
    parts = [vector(p, "parts") for p in parts]
    part_names = [plain(elide(p)) for p in part_names]
    if len(part_names) != len(parts) or any(p.size != n_trees for p in parts):
        raise ValueError("parts and part_names must match, each part with one value per tree")
    if not np.allclose(np.sum(parts, axis=0), weights, rtol=1e-6, atol=1e-9):
        raise ValueError("the parts must add up to the weights")
    label, names = plain(elide(label)), tree_names(n_trees, tree_ids)
    order = weight_order(weights, first)
    k = min(max(int(top_k), 0), n_trees)
    top = np.arange(n_trees) < k
    total = weights.sum()
    share = weights / total if total > 0 else np.zeros(n_trees)
    x, widths, band = bar_positions(n_trees, k)
    fig = go.Figure()
    for p, (part, part_name) in enumerate(zip(parts, part_names, strict=True)):
        head = [f"{names[t]}: {label} {weights[t]:.3f}"
                + (f" ({share[t]:.1%} of the prediction)" if share_of_prediction else "")
                for t in order]
        hover = head if len(parts) == 1 else [
            f"{h}<br>of which {part_name}: {part[t]:.3f}" for h, t in zip(head, order, strict=True)]
        fig.add_trace(go.Bar(  # ids: each bar's tree, for the chart's table (.chart_table)
            x=x, y=part[order], ids=[names[t] for t in order], width=widths, name=part_name,
            hovertext=hover, hoverinfo="text",
            marker_color=np.where(top, STRONG[p % 3], PALE[p % 3]).tolist()))
    ticks, texts = x[:k].tolist(), [names[t] for t in order[:k]]
    if k < n_trees:
        ticks.append(band)
        texts.append(f"the other {n_trees - k} trees" if k else
                     f"all {n_trees} trees" if n_trees > 1 else "the one tree")
    unit = (narrowest(width) - SIDES) / (k + BAND + 1)  # pixels between two named bars
    caption = (f"The {k} trees with the largest {label}, by name, then the other "
               f"{n_trees - k} trees as a band of pale bars, largest first" if k < n_trees
               else f"One bar per tree, largest {label} first")
    caption += ". Trees are numbered from 1; point at a bar for its tree and numbers."
    if len(parts) > 1:
        caption += " Each bar is split into its parts."
    title = title or f"Which trees carry this prediction: {label} of each tree"
    return finish(fig, title, caption,
                   width=width, barmode="stack", showlegend=len(parts) > 1,
                   xaxis={"title": {"text": f"Tree (sorted by {label})"}, "tickvals": ticks,
                          "ticktext": texts, "tickangle": 0 if unit >= 70 else -35,
                          "range": [0.4, float(x[-1] + widths[-1] / 2 + 0.1)],
                          "showgrid": False, "zeroline": False},
                   yaxis={"title": {"text": label[:1].upper() + label[1:]}})


def weight_heatmap(weights, row_labels=None, *, tree_ids=None,
                   share_of_prediction=True, width=WIDTH) -> go.Figure:
    """Trees × rows heat map of tree weights ``weights`` (n rows, T trees). The figure carries
    every cell (about 13 bytes of JSON each): sample the rows for large test sets."""
    weights = matrix(weights, "weights")
    rows = unique_labels(row_labels, "Row {}", weights.shape[0])
    trees = tree_names(weights.shape[1], tree_ids)
    share = " (%{z:.1%} of this row's prediction)" if share_of_prediction else ""
    fig = go.Figure(go.Heatmap(
        z=weights.T, x=rows, y=trees, colorscale="Blues", colorbar={"title": {"text": "weight"}},
        hovertemplate=f"%{{x}}, %{{y}}: weight %{{z:.3f}}{share}<extra></extra>"))
    return finish(
        fig, "Which trees each row relies on (tree weights per row)",
        "One column per row, one line per tree (numbered from 1); darker cells carry more of "
        "that row's prediction.", width=width,
        xaxis={"title": {"text": "Row"}, "type": "category"},
        yaxis={"title": {"text": "Tree"}, "type": "category", "autorange": "reversed"})
