"""forestviz.explain.plots: figure data checked against independent computations, not pixels."""

import functools
import html
import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import trapezoid
from scipy.stats import gaussian_kde, norm, percentileofscore
from sklearn.datasets import make_classification, make_friedman1

from forestviz.attention import AttentionForestRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import plots
from forestviz.explain.plots.density import _bandwidth
from forestviz.names import HOVER_WIDTH, NAME_LIMIT, elide

RNG = np.random.default_rng(0)
NASTY = ["<img src=x onerror=alert(1)>", "<b>x</b>", "a & b"]


def dirichlet(T, n=None, concentration=0.5, seed=0):
    return np.random.default_rng(seed).dirichlet(np.full(T, concentration), size=n)


def strings(fig):
    """Every string in the figure's JSON (what the browser receives), decoded."""
    found = []

    def walk(node):
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(fig.to_json()))
    return found


def axis_titles(fig):
    layout = fig.layout
    if layout.ternary.aaxis.title.text is not None:
        return [layout.ternary[a].title.text for a in ("aaxis", "baxis", "caxis")]
    return [layout[name].title.text for name in layout if name.startswith(("xaxis", "yaxis"))
            if layout[name].title.text is not None]


def ternary_points(trace):
    return np.column_stack([trace.a, trace.b, trace.c])


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
        "density": plots.weight_value_density(alpha, D, names=name[:2]),
        "heatmap": plots.weight_heatmap(W, row_labels=name[:n], tree_ids=name[:T]),
        "simplex": plots.simplex_figure(D, alpha, 0.3, group_names=name[:3]),
        "ternary": plots.ternary_dataset(W, row_labels=name[:n], tree_ids=name[:T],
                                         color_values=np.arange(n), color_name=name[1]),
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
    assert list(bar.x) == [f"Tree {k + 1}" for k in order]
    np.testing.assert_array_equal(bar.y, weights[order])
    assert list(bar.marker.color) == [plots.STRONG[0]] * 2 + [plots.PALE[0]] * 3
    assert "Tree 2: weight 0.081 (8.1% of the prediction)" in bar.hovertext
    assert list(fig.layout.xaxis.categoryarray) == list(bar.x)


def test_bars_stack_parts_that_sum_to_the_weights():
    D, w, eps = dirichlet(20), dirichlet(20, seed=3), 0.4
    alpha = (1 - eps) * D + eps * w
    fig = plots.tree_weight_bars(alpha, parts=[(1 - eps) * D, eps * w], top_k=3)
    assert fig.layout.barmode == "stack" and len(fig.data) == 2
    assert fig.data[0].x == fig.data[1].x
    np.testing.assert_allclose(np.add(fig.data[0].y, fig.data[1].y), np.sort(alpha)[::-1])
    for p, trace in enumerate(fig.data):
        assert list(trace.marker.color[:3]) == [plots.STRONG[p]] * 3
        assert set(trace.marker.color[3:]) == {plots.PALE[p]}
    with pytest.raises(ValueError, match="add up"):
        plots.tree_weight_bars(alpha, parts=[D, w])


def test_bars_degenerate_inputs():
    ties = plots.tree_weight_bars(np.full(4, 0.25), top_k=10)
    assert list(ties.data[0].x) == ["Tree 1", "Tree 2", "Tree 3", "Tree 4"]  # ties: tree order
    assert set(ties.data[0].marker.color) == {plots.STRONG[0]}  # top_k clipped to T
    one = plots.tree_weight_bars([1.0], top_k=0, tree_ids=[7])
    assert list(one.data[0].x) == ["Tree 7"] and list(one.data[0].marker.color) == [plots.PALE[0]]
    scores = plots.tree_weight_bars([0.0, 0.0], label="score", share_of_prediction=False)
    assert not any("%" in h for h in scores.data[0].hovertext)
    with pytest.raises(ValueError, match="finite"):
        plots.tree_weight_bars([np.nan, 1.0])


# ------------------------------------------------------------------------------- KDEs
@pytest.mark.parametrize("T", [1, 3, 100])
def test_kde_over_tree_index_integrates_to_one_and_matches_the_formula(T):
    alpha = dirichlet(T)
    grid = np.linspace(-10, T + 11, 20 * (T + 21) + 1)
    rho = plots.kde_over_tree_index(alpha, grid)
    assert trapezoid(rho, grid) == pytest.approx(1.0, abs=1e-6)
    brute = sum(a * norm.pdf(grid, loc=k + 1, scale=1.0) for k, a in enumerate(alpha))
    np.testing.assert_allclose(rho, brute, atol=1e-15)
    rows = plots.kde_over_tree_index(np.vstack([alpha, alpha[::-1]]), grid)
    np.testing.assert_allclose(rows[0], rho)
    assert trapezoid(rows[1], grid) == pytest.approx(1.0, abs=1e-6)


def test_attention_kde_figure_draws_alpha_solid_and_softmax_dashed():
    alpha, D = dirichlet(30), dirichlet(30, seed=1)
    fig = plots.attention_kde(alpha, D)
    solid, dashed = fig.data
    assert solid.line.dash == "solid" and dashed.line.dash == "dash"
    x = np.asarray(solid.x)
    assert x[0] <= -2 and x[-1] >= 33
    np.testing.assert_allclose(solid.y, plots.kde_over_tree_index(alpha, x))
    np.testing.assert_allclose(dashed.y, plots.kde_over_tree_index(D, x))
    assert trapezoid(solid.y, x) == pytest.approx(1.0, abs=5e-3)  # 3 kernel widths each side
    assert len(plots.attention_kde([1.0]).data) == 1


def test_value_density_matches_scipy_and_integrates_to_one():
    values = dirichlet(50)
    h = 0.01
    grid = np.linspace(-0.2, 1.2, 4001)
    ours = plots.value_density(values, grid, bandwidth=h)
    scipy = gaussian_kde(values, bw_method=h / values.std(ddof=1))(grid)
    np.testing.assert_allclose(ours, scipy, rtol=1e-10, atol=1e-12)
    assert trapezoid(ours, grid) == pytest.approx(1.0, abs=1e-6)
    reflected = plots.value_density(values, grid, lower=0.0)
    assert (reflected[grid < 0] == 0).all()
    positive = np.linspace(0.0, 1.2, 4001)
    reflected = plots.value_density(values, positive, lower=0.0)
    assert trapezoid(reflected, positive) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("values", [[0.25] * 4, [1.0], [0.0, 0.0], [0.5, 0.5, 0.0]])
def test_value_density_of_ties_and_one_tree_is_finite_and_integrates_to_one(values):
    values = np.asarray(values)
    h = _bandwidth(values)
    grid = np.linspace(values.min() - 10 * h, values.max() + 10 * h, 4001)
    density = plots.value_density(values, grid)
    assert np.isfinite(density).all()
    assert trapezoid(density, grid) == pytest.approx(1.0, abs=1e-4)


def test_weight_value_density_figure_starts_at_zero_and_marks_equal_weights():
    alpha = dirichlet(40)
    fig = plots.weight_value_density(alpha, dirichlet(40, seed=1))
    x = np.asarray(fig.data[0].x)
    assert x[0] == 0.0 and x[-1] > alpha.max()
    np.testing.assert_allclose(fig.data[0].y, plots.value_density(alpha, x, lower=0.0))
    assert fig.layout.shapes[0].x0 == pytest.approx(1 / 40)
    signed = plots.weight_value_density([-0.5, 1.5])  # not weights on a simplex: no reflection
    assert signed.data[0].x[0] < -0.5


# ---------------------------------------------------------------------------- ternary
def test_ternary_coordinates_by_hand_and_rows_sum_to_one():
    weights = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.5, 0.5]])
    groups = [[0], [1, 3], [2]]
    np.testing.assert_allclose(plots.ternary_coordinates(weights, groups),
                               [[0.1, 0.6, 0.3], [0.0, 0.5, 0.5]])
    W = dirichlet(25, 200)
    groups = [[0, 5], [7], [k for k in range(25) if k not in (0, 5, 7)]]
    coords = plots.ternary_coordinates(W, groups)
    np.testing.assert_allclose(coords.sum(axis=1), 1.0)
    np.testing.assert_allclose(coords[:, 1], W[:, 7])  # a partition: exact masses


def test_ternary_coordinates_of_listed_trees_are_shares_among_them():
    weights = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.0, 1.0]])
    coords = plots.ternary_coordinates(weights, [[0], [1], [2]])
    np.testing.assert_allclose(coords[0], np.array([0.1, 0.2, 0.3]) / 0.6)
    assert np.isnan(coords[1]).all()  # no weight on any listed tree
    for bad in ([[0], [0], [1]], [[0], [1]], [[0], [1], [9]], [[], [], []]):
        with pytest.raises(ValueError):
            plots.ternary_coordinates(weights, bad)


def test_ternary_groups_rule():
    assert plots.ternary_groups([0.2, 0.5, 0.3]) == [[0], [1], [2]]
    assert plots.ternary_groups([1.0]) == [[0], [], []]
    W = np.array([[0.1, 0.4, 0.1, 0.4, 0.0], [0.1, 0.2, 0.1, 0.2, 0.4]])  # means tie: tree order
    assert plots.ternary_groups(W) == [[1], [3], [0, 2, 4]]


def test_simplex_figure_for_three_trees_draws_the_sub_simplex_vertices():
    D, w, eps = np.array([0.5, 0.3, 0.2]), np.array([0.0, 0.1, 0.9]), 0.4
    fig = plots.simplex_figure(D, w, eps)
    region, d_point, w_point, a_point = fig.data
    expected = [(1 - eps) * D + eps * np.eye(3)[j] for j in (0, 1, 2, 0)]
    np.testing.assert_allclose(ternary_points(region), expected)
    assert region.fill == "toself"
    np.testing.assert_allclose(ternary_points(d_point), [D])
    np.testing.assert_allclose(ternary_points(w_point), [w])
    np.testing.assert_allclose(ternary_points(a_point), [(1 - eps) * D + eps * w])
    assert [fig.layout.ternary[a].title.text for a in ("aaxis", "baxis", "caxis")] == [
        "Tree 1", "Tree 2", "Tree 3"]
    for trace in fig.data:
        np.testing.assert_allclose(ternary_points(trace).sum(axis=1), 1.0)


def test_simplex_figure_projects_many_trees_exactly():
    T, eps = 30, 0.25
    D, w = dirichlet(T), dirichlet(T, seed=5)
    alpha = (1 - eps) * D + eps * w
    fig = plots.simplex_figure(D, w, eps)
    top = np.argsort(-alpha, kind="stable")[:2]
    mass = lambda v: [v[top[0]], v[top[1]], 1 - v[top].sum()]  # noqa: E731
    np.testing.assert_allclose(ternary_points(fig.data[1]), [mass(D)])
    np.testing.assert_allclose(ternary_points(fig.data[3]), [mass(alpha)])
    np.testing.assert_allclose(ternary_points(fig.data[0])[:3],
                               (1 - eps) * np.array(mass(D)) + eps * np.eye(3))
    assert fig.layout.ternary.caxis.title.text == f"the other {T - 2} trees"
    assert "exact" in fig.layout.title.subtitle.text.replace("<br>", " ")
    with pytest.raises(ValueError, match="cover every tree"):
        plots.simplex_figure(D, w, eps, groups=[[0], [1], [2]])


def test_simplex_figure_degenerate_forests():
    one = plots.simplex_figure([1.0], [1.0], 0.5)
    np.testing.assert_allclose(ternary_points(one.data[0]), [[1, 0, 0], [1, 0, 0]])
    assert one.layout.ternary.baxis.title.text == "(no tree)"
    two = plots.simplex_figure([0.5, 0.5], [1.0, 0.0], 0.2)
    np.testing.assert_allclose(ternary_points(two.data[0]), [[0.6, 0.4, 0], [0.4, 0.6, 0],
                                                             [0.6, 0.4, 0]])
    flat = plots.simplex_figure([0.2, 0.3, 0.5], [1 / 3] * 3, 0.0)  # ε = 0: a point
    np.testing.assert_allclose(ternary_points(flat.data[0]), [[0.2, 0.3, 0.5]] * 4)


def test_ternary_dataset_places_every_row_and_reports_hidden_ones():
    W = dirichlet(12, 40)
    fig = plots.ternary_dataset(W, color_values=np.arange(40.0))
    groups = plots.ternary_groups(W)
    np.testing.assert_allclose(ternary_points(fig.data[0]), plots.ternary_coordinates(W, groups))
    np.testing.assert_allclose(fig.data[0].marker.color, np.arange(40.0))
    W[3] = np.eye(12)[11]  # puts all weight on a tree outside the listed ones
    partial = plots.ternary_dataset(W, groups=[[0], [1], [2]])
    caption = partial.layout.title.subtitle.text.replace("<br>", " ")
    assert len(partial.data[0].a) == 39 and "1 row(s)" in caption
    assert "listed trees only" in caption
    single = plots.ternary_dataset(dirichlet(3), row_labels=["patient 1"])
    assert single.data[0].hovertext[0].startswith("patient 1<br>Tree 1: ")


# --------------------------------------------------------------------- training diagnostics
def test_tau_curves_one_line_per_eps_the_plain_model_as_a_line_and_the_chosen_pair():
    X, y = make_friedman1(60, random_state=0)
    results = AttentionForestRegressor(10, random_state=0).fit(X, y).search_results_
    grid = results[results["candidate"] == "attention"]
    forest = results[results["candidate"] == "base"].iloc[0]
    fig = plots.tau_curves(results)
    lines = [t for t in fig.data if t.name.startswith("ε")]
    assert len(lines) == grid["eps"].nunique()
    assert fig.layout.xaxis.type == "log"
    for trace, (_, curve) in zip(lines, grid.groupby("eps"), strict=True):
        order = np.argsort(curve["tau"].to_numpy())
        np.testing.assert_allclose(trace.x, curve["tau"].to_numpy()[order])
        np.testing.assert_allclose(trace.y, curve["validation_loss"].to_numpy()[order])
    (line,) = fig.layout.shapes  # the plain forest's held-out loss
    assert line.y0 == line.y1 == forest["validation_loss"]
    # an attention pair chosen: starred, whether or not it has the least loss
    pick = grid.index[3]
    chosen = results.assign(selected=results.index == pick)
    (star,) = [t for t in plots.tau_curves(chosen).data if t.name == "chosen pair"]
    assert (star.x[0], star.y[0]) == (grid.loc[pick, "tau"], grid.loc[pick, "validation_loss"])
    # the plain model chosen: no star, the caption says so
    plain = plots.tau_curves(results.assign(selected=results["candidate"] == "base"))
    assert not [t for t in plain.data if t.name in ("chosen pair", "best pair")]
    assert "plain model" in plain.layout.title.subtitle.text.replace("<br>", " ")


def test_tau_curves_accepts_records_r2_and_missing_scores():
    records = [{"eps": e, "tau": t, "r2": e * t} for e in (0.0, 1.0) for t in (1.0, 0.1)]
    fig = plots.tau_curves(records, value="r2")
    (star,) = [t for t in fig.data if t.name == "best pair"]
    assert (star.x[0], star.y[0]) == (1.0, 1.0)  # R²: higher is better
    assert "R²" in fig.layout.yaxis.title.text
    losses = [{"eps": 0.5, "tau": t, "validation_loss": v} for t, v in ((1.0, 3.0), (2.0, 1.0))]
    r2 = plots.tau_curves(losses, target_variance=4.0)
    np.testing.assert_allclose(r2.data[0].y, [0.25, 0.75])
    assert r2.data[1].y[0] == 0.75 and "R²" in r2.layout.yaxis.title.text
    empty = plots.tau_curves([{"eps": 0.0, "tau": 1.0, "validation_loss": np.nan}])
    assert not [t for t in empty.data if t.name == "best pair"]
    assert "No held-out scores" in empty.layout.title.subtitle.text.replace("<br>", " ")
    with pytest.raises(ValueError, match="lacks the column"):
        plots.tau_curves([{"eps": 0.0, "tau": 1.0}])


def test_erf_history_from_a_fitted_model():
    X, y = make_classification(80, random_state=0)
    model = EnhancedForestClassifier(10, n_iterations=3, early_stopping=False,
                                     random_state=0).fit(X, y)
    fig = plots.erf_history(model.history_, best_iteration=model.best_iteration_)
    frame = pd.DataFrame(model.history_)
    by_name = {t.name: t for t in fig.data}
    np.testing.assert_allclose(by_name["validation AUC"].y, frame["validation_auc"])
    np.testing.assert_allclose(by_name["training AUC"].y, frame["train_auc"])
    np.testing.assert_allclose(by_name["median sample weight"].y, frame["weight_median"])
    kept = frame.iloc[model.best_iteration_]
    assert by_name["kept round"].x[0] == kept["iteration"]
    assert "decision threshold" in by_name["validation AUC"].hovertext[0]
    assert fig.layout.yaxis2.title.text and fig.layout.xaxis2.title.text
    # each panel explains itself in a title above it; the vertical axis titles stay short
    # enough to fit beside a half-height panel (long ones overlapped each other)
    panel_titles = [a.text for a in fig.layout.annotations]
    assert any("AUC" in t for t in panel_titles) and any("weights" in t for t in panel_titles)
    assert max(len(fig.layout.yaxis.title.text), len(fig.layout.yaxis2.title.text)) <= 15
    assert fig.layout.xaxis2.dtick == 1  # rounds are whole numbers


def test_erf_history_minimal_and_multiclass_records():
    one = plots.erf_history(pd.DataFrame({"iteration": [1], "validation_auc": [np.nan]}))
    assert len(one.data) == 1 and one.layout.xaxis.title.text == "Training round"
    multi = plots.erf_history([{"iteration": 1, "validation_auc": 0.8,
                                "threshold": [0.2, 0.31234, 0.5]}])
    assert "[0.2, 0.312, 0.5]" in multi.data[0].hovertext[0]


# ----------------------------------------------------------------- row vs the training data
def test_row_vs_median_table_matches_scipy_percentiles():
    X = np.round(RNG.normal(size=(101, 4)), 1)  # rounding makes ties
    row = X[7]
    table = plots.row_vs_median_table(row, X, ["a", "b", "c", "d"])
    np.testing.assert_allclose(table["median"], np.median(X, axis=0))
    expected = [percentileofscore(X[:, j], row[j], kind="mean") for j in range(4)]
    np.testing.assert_allclose(table["percentile"], expected)
    const = plots.row_vs_median_table([1.0], np.ones((5, 1)))
    assert const["percentile"].tolist() == [50.0] and const["feature"].tolist() == ["feature 1"]


def test_row_vs_median_bars_run_from_the_median_to_the_percentile():
    table = pd.DataFrame({"feature": ["pulse oximetry", "age", "sex"], "value": [72, 24, "1"],
                          "median": [98, 38, "1"], "percentile": [3.0, 20.0, 50.0]})
    (bar,) = plots.row_vs_median(table).data
    np.testing.assert_allclose(np.asarray(bar.x) + bar.base, table["percentile"])
    assert list(bar.y) == list(table["feature"])
    assert bar.hovertext[0] == ("pulse oximetry: this row 72, training median 98<br>"
                                "3% of the training rows are lower")
    assert list(bar.marker.color) == [plots.STRONG[0], plots.STRONG[0], plots.STRONG[1]]
    with pytest.raises(ValueError, match="lacks"):
        plots.row_vs_median(table.drop(columns="percentile"))


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
