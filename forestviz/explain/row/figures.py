"""The charts of one explained row, built once for the Explain view (:mod:`.view`), which the
Explain page and the report's technical appendix both show: the tree weights α (stacked
(1−ε)·D and ε·w when known), ERF's tree scores S (Bertsimas & Stoumpou, "Enhanced Random
Forests", Eq. 8), the density of the weights (Utkin & Konstantinov, "Attention-based Random
Forest and Contamination Model", Fig. 3), the simplex of D, w and α (ibid.,
Fig. 1), the contributions and the row beside the training medians."""

from __future__ import annotations

import plotly.graph_objects as go

from forestviz.explain.plots import conventions
from forestviz.explain.plots.contributions import contribution_waterfall, contributions_by_tree
from forestviz.explain.plots.conventions import WIDTH
from forestviz.explain.plots.density import attention_kde
from forestviz.explain.plots.row_vs_training import row_vs_median
from forestviz.explain.plots.ternary import simplex_figure
from forestviz.explain.plots.tree_weights import tree_weight_bars, weight_order
from forestviz.explain.row.narrative import target_column
from forestviz.names import elide

FIGURES = frozenset({"weights", "scores", "kde", "simplex", "contributions",
                     "contributions_by_tree", "features"})  # what figures() can build
WEIGHT_FIGURES = frozenset({"weights", "kde", "simplex"})  # the tree weights' own


def figures(explanation, *, width: int = WIDTH, trees=None,
            names=None) -> dict[str, go.Figure]:
    """The row's standard figures: ``weights`` (stacked (1−ε)·D and ε·w when known),
    ``scores`` (ERF score S), ``kde`` (ABRF Fig. 3, with the Softmax weights D when known),
    ``simplex`` (ABRF Fig. 1: D, w and α = (1−ε)·D + ε·w) and ``features`` (the row's
    percentiles against the training medians, for the numeric columns the row has a value in;
    absent when it has none), and with contributions ``contributions`` (a waterfall from the
    weighted base value to the prediction, per column) and ``contributions_by_tree`` (what the
    top trees add per column).

    ``width``: the pixels of the page; ``simplex`` and ``features`` are laid out across it,
    the others for half of it (two side by side). ``trees``: the trees the page draws (a
    :class:`~.tree_choice.TreeChoice`'s), whose contributions
    ``contributions_by_tree`` shows; by default the explanation's top trees. ``names``: the
    figures wanted, the others not built (by default all)."""
    e = explanation
    wanted = FIGURES if names is None else frozenset(names)
    parts = e.weight_parts
    half = conventions.half(width)
    top = [int(k) for k in e.top_trees]  # equal weights: these are the trees named
    out = {}
    if "weights" in wanted:
        out["weights"] = tree_weight_bars(e.tree_weights, parts=parts, top_k=len(e.top_trees),
                                          first=top, width=half)
    if e.tree_scores is not None and "scores" in wanted:
        out["scores"] = tree_weight_bars(e.tree_scores.S, top_k=len(e.top_trees), first=top,
                                         label="tree score S", share_of_prediction=False,
                                         width=half)
    softmax = None
    if parts is not None and parts[0].sum() > 0:
        softmax = parts[0] / parts[0].sum()  # D = (1−ε)·D / (1−ε)
    if "kde" in wanted:
        out["kde"] = attention_kde(e.tree_weights, softmax, width=half)
    if "simplex" in wanted:
        # ABRF Fig. 1; without a contamination part (ε = 0) only the point α itself
        eps = 0.0 if e.w is None or (softmax is None and e.eps < 1.0) else e.eps
        heavy = weight_order(e.tree_weights, top)  # the two heaviest trees, then the others
        groups = [[int(heavy[0])], [int(heavy[1])], sorted(int(k) for k in heavy[2:])]
        out["simplex"] = simplex_figure(softmax, e.w, eps, alpha=e.tree_weights, width=width,
                                        groups=groups if e.n_trees > 3 else None)
    if e.contributions is not None:
        column = target_column(e)
        c = e.contributions
        pick = (lambda a: a) if column is None else (lambda a: a[..., column])
        target = "the prediction" if column is None else f"P({elide(e.classes[column])})"
        if "contributions" in wanted:
            values = e.features.set_index("feature")["value"]
            out["contributions"] = contribution_waterfall(
                pick(c.base_value), pick(c.total), c.feature_names, target=target,
                value_texts=[values[name] for name in c.feature_names], width=half)
        if "contributions_by_tree" in wanted:
            out["contributions_by_tree"] = contributions_by_tree(
                pick(c.weighted_per_tree), c.feature_names,
                e.top_trees if trees is None else trees, target=target, width=half)
    numbers = e.features[(e.features["kind"] == "numeric") & ~e.features["missing"]]
    if len(numbers) and "features" in wanted:  # percentiles mean something for numbers
        # given, not for levels or fill-ins
        out["features"] = row_vs_median(numbers, width=width)
    return out


