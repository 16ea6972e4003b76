"""forestviz.explain.plots: figure data checked against independent computations, not pixels."""

import functools
import html
import json
import re

import numpy as np
import pandas as pd
import pytest

from forestviz.explain import plots
from forestviz.explain.plots import conventions
from forestviz.explain.plots.tree_weights import weight_order
from forestviz.explain.row.figures import figures
from forestviz.names import HOVER_WIDTH, NAME_LIMIT, elide
from tests.plot_helpers import axis_titles, dirichlet, strings

NASTY = ["<img src=x onerror=alert(1)>", "<b>x</b>", "a & b"]

# ---------------------------------------------------------------------------------- text
def test_plain_escapes_markup_and_round_trips():
    assert plots.plain("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"
    for text in [*NASTY, "&lt;", 3.5, "plain"]:
        assert html.unescape(plots.plain(text)) == str(text)
        assert "<" not in plots.plain(text)


@functools.cache
def make_every_figure(names, T=5, n=4, ties=False):
    """Every figure with the user-provided names ``names`` (cycled) in every text slot, for T
    trees and n rows (``ties``: all weights equal)."""
    alpha, D = (np.full(T, 1 / T),) * 2 if ties else (dirichlet(T), dirichlet(T, seed=1))
    W = np.full((n, T), 1 / T) if ties else dirichlet(T, n, seed=2)
    name = [names[i % len(names)] for i in range(max(T, n, 3))]
    table = plots.row_vs_median_table(W[0], W, feature_names=name[:T])
    results = pd.DataFrame({"eps": [0.0, 0.0], "tau": [0.1, 1.0], name[0]: [1.0, 2.0]})
    return {
        "bars": plots.tree_weight_bars(alpha, parts=[0.5 * alpha, 0.5 * alpha],
                                       part_names=name[:2], tree_ids=name[:T], label=name[0]),
        "kde": plots.attention_kde(alpha, D, names=name[:2]),
        "heatmap": plots.weight_heatmap(W, row_labels=name[:n], tree_ids=name[:T]),
        "simplex": plots.simplex_figure(D, alpha, 0.3, group_names=name[:3]),
        "tau": plots.tau_curves(results, value=name[0], baseline=1.5, baseline_name=name[1]),
        "history": plots.erf_history([{"iteration": 1, "validation_auc": 0.7}]),
        "median": plots.row_vs_median(table),
    }


def test_user_names_are_escaped_in_every_figure():
    for key, fig in make_every_figure(tuple(NASTY)).items():
        text = strings(fig)
        assert not any("<img" in s or "<b>x" in s for s in text), key
        if key != "history":  # the only figure without user-provided names
            assert any("&lt;img src=x onerror=alert(1)&gt;" in s for s in text), key


@pytest.mark.parametrize("key", sorted(make_every_figure(("a",))))
@pytest.mark.parametrize(("T", "n", "ties"), [(5, 4, False), (1, 1, False), (3, 1, False),
                                              (4, 3, True)])
def test_every_figure_has_title_caption_axis_titles_hover_and_no_nan(key, T, n, ties):
    fig = make_every_figure(("feature a", "feature b"), T, n, ties)[key]
    assert fig.layout.title.text and fig.layout.title.subtitle.text
    titles = axis_titles(fig)
    assert titles and all(titles)
    numbers = []
    for trace in fig.data:
        shown = trace.hoverinfo != "skip"
        assert not shown or trace.hovertext is not None or trace.hovertemplate is not None
        for attr in ("x", "y", "z", "a", "b", "c"):
            if getattr(trace, attr, None) is not None:
                values = np.asarray(getattr(trace, attr), dtype=object).ravel()
                numbers += [v for v in values if isinstance(v, float | int | np.number)]
    assert numbers and np.isfinite(np.asarray(numbers, dtype=float)).all()


# ---------------------------------------------------------------------------- bar chart
def test_bars_sorted_with_top_k_highlighted_and_hover_in_words():
    weights = np.array([0.05, 0.081, 0.3, 0.069, 0.5])
    fig = plots.tree_weight_bars(weights, top_k=2)
    (bar,) = fig.data
    order = np.argsort(weights)[::-1]
    np.testing.assert_array_equal(bar.y, weights[order])
    assert list(bar.marker.color) == [plots.STRONG[0]] * 2 + [plots.PALE[0]] * 3
    assert "Tree 2: weight 0.081 (8.1% of the prediction)" in bar.hovertext
    # the top 2 named at 1 and 2, the other 3 in a band (one unit each) after a gap
    np.testing.assert_allclose(bar.x, [1, 2, 3.5, 4.5, 5.5])
    assert list(fig.layout.xaxis.ticktext) == ["Tree 5", "Tree 3", "the other 3 trees"]
    np.testing.assert_allclose(fig.layout.xaxis.tickvals, [1, 2, 4.5])


def test_bars_stack_parts_that_sum_to_the_weights():
    D, w, eps = dirichlet(20), dirichlet(20, seed=3), 0.4
    alpha = (1 - eps) * D + eps * w
    fig = plots.tree_weight_bars(alpha, parts=[(1 - eps) * D, eps * w], top_k=3)
    assert fig.layout.barmode == "stack" and len(fig.data) == 2
    np.testing.assert_array_equal(fig.data[0].x, fig.data[1].x)
    np.testing.assert_array_equal(fig.data[0].width, fig.data[1].width)
    np.testing.assert_allclose(np.add(fig.data[0].y, fig.data[1].y), np.sort(alpha)[::-1])
    for p, trace in enumerate(fig.data):
        assert list(trace.marker.color[:3]) == [plots.STRONG[p]] * 3
        assert set(trace.marker.color[3:]) == {plots.PALE[p]}
    with pytest.raises(ValueError, match="add up"):
        plots.tree_weight_bars(alpha, parts=[D, w])


def test_bars_degenerate_inputs():
    ties = plots.tree_weight_bars(np.full(4, 0.25), top_k=10)
    assert list(ties.layout.xaxis.ticktext) == ["Tree 1", "Tree 2", "Tree 3", "Tree 4"]
    assert set(ties.data[0].marker.color) == {plots.STRONG[0]}  # top_k clipped to T
    one = plots.tree_weight_bars([1.0], top_k=0, tree_ids=[7])
    assert list(one.layout.xaxis.ticktext) == ["the one tree"]
    assert list(one.data[0].marker.color) == [plots.PALE[0]]
    scores = plots.tree_weight_bars([0.0, 0.0], label="score", share_of_prediction=False)
    assert not any("%" in h for h in scores.data[0].hovertext)
    with pytest.raises(ValueError, match="finite"):
        plots.tree_weight_bars([np.nan, 1.0])


# -------------------------------------------------------------------------------- heat map
def test_weight_heatmap_is_trees_by_rows():
    W = dirichlet(6, 3)
    (heat,) = plots.weight_heatmap(W, row_labels=["p1", "p1", "p2"]).data
    np.testing.assert_allclose(heat.z, W.T)
    assert list(heat.x) == ["p1", "p1 #2", "p2"]  # repeated labels stay separate columns
    assert list(heat.y) == [f"Tree {k}" for k in range(1, 7)]
    (single,) = plots.weight_heatmap([1.0]).data
    np.testing.assert_allclose(single.z, [[1.0]])
    assert list(single.x) == ["Row 1"]
    with pytest.raises(ValueError, match="labels"):
        plots.weight_heatmap(W, row_labels=["only one"])


# ------------------------------------------------------------------ in a real browser
@pytest.mark.browser
def test_plotly_shows_escaped_names_literally_in_chromium(browser, tmp_path):
    """The escaped names reach the screen as the literal characters (plotly decodes the
    entities into text nodes): no <img>/<b> element, no script, no "&lt;" on screen."""
    table = pd.DataFrame({"feature": NASTY, "value": [1, 2, 3], "median": [0, 0, 0],
                          "percentile": [10.0, 60.0, 90.0]})
    path = tmp_path / "figure.html"
    plots.row_vs_median(table).write_html(path, include_plotlyjs=True)
    page = browser.new_page()
    alerts = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    page.goto(path.as_uri())
    page.wait_for_selector(".main-svg")
    assert sorted(page.locator(".ytick text").all_text_contents()) == sorted(NASTY)
    box = page.locator(".bars .point path").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector(".hovertext")
    hover = page.locator(".hovertext").first.text_content()
    assert any(hover.startswith(f"{name}: this row") for name in NASTY)
    assert "&lt;" not in hover and "&amp;" not in hover
    assert page.locator(".main-svg img, .main-svg b").count() == 0 and not alerts
    page.close()


# ------------------------------------------------------------------------- long names
LONG = "Q" * 5000
HOVER = ("hovertext", "hovertemplate")


def laid_out(node, path=()):
    """(key path, string) of every string in the figure's JSON except hover texts."""
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            if key not in HOVER:
                yield from laid_out(value, (*path, key))
    elif isinstance(node, list):
        for value in node:
            yield from laid_out(value, path)


def test_long_names_never_widen_a_figure():
    """A 5,000-character name takes at most NAME_LIMIT characters in every tick, legend, title
    and annotation of every figure (in hover texts it may be whole)."""
    for key, fig in make_every_figure((LONG, LONG + "R")).items():
        shown = list(laid_out(json.loads(fig.to_json())))
        runs = [len(run) for _, text in shown for run in re.findall("Q+", text)]
        assert max(runs, default=0) <= NAME_LIMIT, key
        for trace in fig.data:  # category labels: cut, and distinct although the names are alike
            for attr in ("x", "y"):
                values = getattr(trace, attr, None)
                labels = [] if values is None else [v for v in values if isinstance(v, str)]
                assert all(len(html.unescape(label)) <= NAME_LIMIT for label in labels), key
                assert len(set(labels)) == len(labels), key


def test_row_vs_median_cuts_long_feature_names_and_shows_them_whole_on_hover():
    hostile = "<img src=x onerror=alert(1)>" * 200
    table = pd.DataFrame({"feature": [LONG, LONG + "R", hostile, "age"],
                          "value": [1.0, 2.0, "<b>" * 100, 40], "median": [0.0, 0.0, "a", 38],
                          "percentile": [90.0, 80.0, 50.0, 55.0]})
    (bar,) = plots.row_vs_median(table).data
    ticks = [html.unescape(label) for label in bar.y]
    assert ticks == [elide(LONG), elide(LONG, NAME_LIMIT - 3) + " #2", elide(hostile), "age"]
    assert not any("<img" in label for label in bar.y)
    hovers = [html.unescape(text.replace("<br>", "")) for text in bar.hovertext]
    for name, hover in zip(table["feature"], hovers, strict=True):
        assert hover.startswith(f"{name}: this row ")
    assert "<b>" * 100 in hovers[2]  # long values too, whole
    assert all(line.count("Q") <= HOVER_WIDTH for line in bar.hovertext[0].split("<br>"))
    assert "<img" not in "".join(bar.hovertext)


def test_held_out_roc_curves_integrate_to_each_models_auc():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    y = rng.choice(["no", "<b>yes</b>"], 200)
    scores = {"<i>model</i>": rng.random(200) + (y == "<b>yes</b>"), "other": rng.random(200)}
    figure = plots.roc_figure(y, scores, "<b>yes</b>")
    curves = {trace.name: trace for trace in figure.data if trace.name != "chance"}
    assert set(curves) == {"&lt;i&gt;model&lt;/i&gt;", "other"}
    for (name, score), trace in zip(scores.items(), curves.values(), strict=True):
        area = np.trapezoid(trace.y, trace.x)
        assert area == pytest.approx(roc_auc_score(y == "<b>yes</b>", score)), name
    assert "<b>" not in figure.layout.title.text


def test_held_out_predicted_against_actual_shows_every_row():
    y = np.array([3.0, 1.0, 2.0])
    figure = plots.predicted_vs_actual(y, {"a": np.array([2.5, 1.5, 2.0])}, "dose")
    points, perfect = figure.data
    np.testing.assert_array_equal(points.x, y)
    np.testing.assert_array_equal(points.y, [2.5, 1.5, 2.0])
    assert list(perfect.x) == list(perfect.y) == [1.0, 3.0]


# ------------------------------------------------------------------- layout at a given width
@pytest.mark.parametrize("width", [700, 1400])
def test_legends_lie_outside_the_plot_at_the_width_given(width):
    """A horizontal legend under the caption, on the container (plotly keeps the plot below
    it), with the top margin grown by its rows, so it neither covers nor squeezes the plot; the
    figure is laid out for ``width`` (tests/test_plots_layout.py: at every width shown)."""
    D, w, eps = dirichlet(100), dirichlet(100, seed=3), 0.4
    alpha = (1 - eps) * D + eps * w
    for fig in (plots.tree_weight_bars(alpha, parts=[(1 - eps) * D, eps * w], width=width),
                plots.attention_kde(alpha, D, width=width)):
        legend = fig.layout.legend
        assert fig.layout.width == width
        assert (legend.orientation, legend.yref, legend.yanchor) == ("h", "container", "top")
        assert 0.5 < legend.y < 1
        assert fig.layout.margin.t >= (1 - legend.y) * fig.layout.height + conventions.LEGEND_ROW


def test_top_k_bars_are_named_and_the_rest_share_a_band():
    weights = dirichlet(100, seed=5)
    fig = plots.tree_weight_bars(weights, top_k=5, width=640)
    top = np.argsort(-weights, kind="stable")[:5]
    assert list(fig.layout.xaxis.ticktext) == [f"Tree {k + 1}" for k in top] + [
        "the other 95 trees"]
    x, widths = np.asarray(fig.data[0].x), np.asarray(fig.data[0].width)
    np.testing.assert_allclose(x[:5], [1, 2, 3, 4, 5])
    band = x[5:]
    assert band.min() - widths[5] / 2 > 5.4 and np.ptp(band) < 6  # a band of 6 units
    assert fig.layout.xaxis.tickangle == -35  # 640 px: names slanted


def test_simplex_shows_only_what_the_model_has():
    D, w = dirichlet(30), dirichlet(30, seed=3)
    full = plots.simplex_figure(D, w, 0.3, width=1300)
    assert [t.name for t in full.data] == [
        "possible weights for this ε (sub-simplex)", "Softmax weights D (closeness to this row)",
        "learned tree weights w", "final weights α = (1−ε)·D + ε·w"]
    erf = plots.simplex_figure(None, None, 0.0, alpha=D, width=1300)
    assert [t.name for t in erf.data] == ["this row's tree weights α"]
    assert erf.layout.showlegend is True and erf.layout.width == 1300
    # the corner names fit: margins hold half of the longest (the other 28 trees) each side
    assert erf.layout.ternary.caxis.title.text == "the other 28 trees"
    assert erf.layout.margin.l == erf.layout.margin.r >= 18 * conventions.CAPTION_CHAR / 2
    with pytest.raises(ValueError):
        plots.simplex_figure(None, None, 0.3, alpha=D)


def test_cleaning_rounds_in_words():
    rounds = [{"round": 1, "n_features": 3, "features": [0, 1, 2], "n_rows": 100,
               "validation_auc": 0.722222, "feature_reduction": 0.0, "sample_reduction": 0.0},
              {"round": 2, "n_features": 2, "features": [0, 2], "n_rows": 99,
               "validation_auc": 0.75, "feature_reduction": 100 / 3,
               "sample_reduction": 1.0}]
    table = plots.cleaning_table(rounds, ["age", "bmi", "glucose"])
    assert list(table.columns) == ["round", "validation AUC", "training rows", "features",
                                   "% of rows dropped", "% of features dropped",
                                   "features dropped"]
    assert table["features dropped"].tolist() == ["none", "bmi"]
    assert table["validation AUC"].tolist() == [0.722, 0.75]
    assert table["% of features dropped"].tolist() == [0.0, 33.3]
    fig = plots.cleaning_rounds_figure(rounds, width=700)
    assert fig.layout.legend.yref == "container" and fig.layout.legend.yanchor == "top"
    assert fig.layout.yaxis2.ticksuffix == "%" and fig.layout.xaxis.tickformat == "d"


def test_equal_weights_name_the_trees_the_explanation_shows():
    """Equal weights (a plain forest kept by the search): the bars and the simplex's corners
    name the explanation's own top trees (ERF's by score S), not trees 1, 2, 3."""
    weights = np.full(10, 0.1)
    fig = plots.tree_weight_bars(weights, top_k=3, first=[7, 2, 5])
    assert list(fig.layout.xaxis.ticktext) == ["Tree 8", "Tree 3", "Tree 6", "the other 7 trees"]
    np.testing.assert_array_equal(weight_order(weights, [7, 2, 5])[:4], [7, 2, 5, 0])
    unequal = np.r_[0.3, np.full(9, 0.7 / 9)]
    assert weight_order(unequal, [7, 2])[:3].tolist() == [0, 7, 2]  # weight first, then ties



# -------------------------------------------------------------------------- white template
def test_every_figure_looks_plotly_white_for_what_it_draws():
    """The template built once (conventions.white_template) is plotly_white wherever a figure
    here can see it: the layout less kinds of plot none has, in the page's typeface
    (conventions.FONT), the defaults of every kind of trace drawn."""
    import plotly.io as pio
    from sklearn.ensemble import RandomForestRegressor

    from forestviz.explain import explain

    white = pio.templates["plotly_white"]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    e = explain(RandomForestRegressor(5, random_state=0).fit(X, X[:, 0]), X[0], X_train=X,
                y_train=X[:, 0])
    every = {**make_every_figure(("a", "b")), **figures(e),
               "roc": plots.roc_figure(np.array(["n", "y"] * 5), {"m": np.arange(10.0)}, "y"),
               "scatter": plots.predicted_vs_actual(np.arange(3.0), {"a": np.ones(3)}, "dose"),
               "histogram": plots.effective_trees_histogram(np.array([2.0, 3.5, 3.0]), 5)}
    kept = {k: v for k, v in white.layout.to_plotly_json().items()
            if k not in conventions.UNDRAWN_LAYOUT}
    kept["font"] = {**kept["font"], "family": conventions.FONT}
    kept["title"] = {**kept["title"], "font": {"size": 16}}
    drawn = set()
    for key, fig in every.items():
        template = fig.layout.template
        assert template.layout.to_plotly_json() == kept, key
        assert not set(fig.layout.to_plotly_json()) & conventions.UNDRAWN_LAYOUT, key
        for trace in fig.data:
            assert trace.type in conventions.TRACE_TYPES, (key, trace.type)
            drawn.add(trace.type)
            ours = [t.to_plotly_json() for t in (template.data[trace.type] or ())]
            theirs = [t.to_plotly_json() for t in (white.data[trace.type] or ())]
            assert ours == theirs, (key, trace.type)
    assert drawn == conventions.TRACE_TYPES  # every kind kept is one drawn here
    assert len(every["roc"].to_json()) < len(every["roc"].update_layout(
        template="plotly_white").to_json()) - 2000  # and the figures are lighter
