"""Plotly figures of per-row explanations and training diagnostics (algorithms.md §5).

Pure functions of numpy arrays, pandas frames and plain values; every one returns a
``plotly.graph_objects.Figure`` that follows :mod:`~forestviz.explain.plots.conventions` and
checks its arguments with :mod:`~forestviz.explain.plots.inputs`. No model object is needed.
One module a view: ``tree_weights`` (bars, heat map), ``density`` (ABRF Fig. 3, weight values),
``ternary`` (ABRF Fig. 1, every row on a triangle), ``training`` (ABRF Fig. 2, ERF rounds),
``row_vs_training`` (ERF Tables 6-7), ``held_out`` (the Train page's comparison of models),
``calibration`` (the Train page's reliability curve of a binary risk), ``reasons`` (the
reasons both ways, a compact waterfall),
``forest_views`` (the Forest page: sample weights, importance, cleaning rounds).
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "HALF": "forestviz.explain.plots.conventions",
    "PALE": "forestviz.explain.plots.conventions",
    "STRONG": "forestviz.explain.plots.conventions",
    "WIDTH": "forestviz.explain.plots.conventions",
    "attention_kde": "forestviz.explain.plots.density",
    "cleaning_rounds_figure": "forestviz.explain.plots.forest_views",
    "cleaning_table": "forestviz.explain.plots.forest_views",
    "effective_trees_histogram": "forestviz.explain.plots.forest_views",
    "importance_bars": "forestviz.explain.plots.forest_views",
    "sample_weight_histogram": "forestviz.explain.plots.forest_views",
    "erf_history": "forestviz.explain.plots.training",
    "kde_over_tree_index": "forestviz.explain.plots.density",
    "plain": "forestviz.explain.plots.conventions",
    "predicted_vs_actual": "forestviz.explain.plots.held_out",
    "reasons_waterfall": "forestviz.explain.plots.reasons",
    "reliability_bins": "forestviz.explain.plots.calibration",
    "reliability_figure": "forestviz.explain.plots.calibration",
    "roc_figure": "forestviz.explain.plots.held_out",
    "row_vs_median": "forestviz.explain.plots.row_vs_training",
    "row_vs_median_table": "forestviz.explain.plots.row_vs_training",
    "simplex_figure": "forestviz.explain.plots.ternary",
    "tau_curves": "forestviz.explain.plots.training",
    "ternary_coordinates": "forestviz.explain.plots.ternary",
    "ternary_groups": "forestviz.explain.plots.ternary",
    "tree_weight_bars": "forestviz.explain.plots.tree_weights",
    "weight_heatmap": "forestviz.explain.plots.tree_weights",
})
