"""The numbers beside every chart (issue 39, item 1): the table read from a figure's own data
(forestviz.explain.plots.chart_table) against the numbers the figure was built from, computed
apart (the estimator's tree weights, scikit-learn's importances, numpy's histogram, the
ternary coordinates), and the chart's text alternative saying the same numbers."""

import re

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_friedman2
from sklearn.ensemble import RandomForestRegressor

from forestviz import AttentionForestRegressor
from forestviz.explain import plots
from forestviz.explain.plots.alt import chart_text
from forestviz.explain.plots.chart_table import LISTED, chart_table
from forestviz.explain.plots.contributions import contribution_waterfall
from forestviz.explain.plots.forest_views import SAME
from forestviz.numbers import MAX_DECIMALS, plain_number, range_text, read_number

SCIENTIFIC = re.compile(r"\d[eE][−+-]?\d")


@pytest.fixture(scope="module")
def friedman():
    X, y = make_friedman2(160, noise=10.0, random_state=0)
    return X, y


def numbers(column) -> np.ndarray:
    return np.array([read_number(cell) for cell in column])


def test_tree_weight_bars_list_the_estimator_s_heaviest_trees_by_name(friedman):
    X, y = friedman
    model = AttentionForestRegressor(eps=0.5, n_estimators=30, min_samples_leaf=5,
                                     random_state=0).fit(X[:120], y[:120])
    weights = model.tree_weights(X[120:121])[0]
    table = chart_table(plots.tree_weight_bars(weights))
    heaviest = np.argsort(-weights, kind="stable")[:LISTED]
    assert list(table.frame.iloc[:, 0]) == [f"Tree {t + 1}" for t in heaviest]
    assert list(table.frame.iloc[:, 1]) == [plain_number(weights[t]) for t in heaviest]
    assert table.left_out == f"{weights.size - LISTED} smaller bars not listed"


def test_stacked_parts_are_one_column_each_and_add_up_to_the_weight():
    D, w, eps = np.array([0.5, 0.3, 0.2]), np.array([0.1, 0.1, 0.8]), 0.4
    parts = [(1 - eps) * D, eps * w]
    table = chart_table(plots.tree_weight_bars(parts[0] + parts[1], parts=parts))
    order = np.argsort(-(parts[0] + parts[1]), kind="stable")
    assert list(table.frame.columns[1:]) == ["closeness to this row, (1−ε)·D",
                                             "learned tree weight, ε·w"]
    for column, part in zip(table.frame.columns[1:], parts, strict=True):
        assert list(table.frame[column]) == [plain_number(part[t]) for t in order]


def test_importance_bars_are_scikit_learn_s_importances(friedman):
    X, y = friedman
    forest = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    names = ["R", "omega", "L", "C"]
    table = chart_table(plots.importance_bars(forest.feature_importances_, names))
    shown = dict(zip(table.frame.iloc[:, 0], table.frame.iloc[:, 1], strict=True))
    assert shown == {n: plain_number(v) for n, v in
                     zip(names, forest.feature_importances_, strict=True)}
    assert table.left_out == ""


def test_a_waterfall_runs_from_the_base_through_signed_pushes_to_the_prediction():
    base, pushes = 0.3, np.array([0.05, -0.2, 0.001, 0.0])
    table = chart_table(contribution_waterfall(base, pushes, ["a", "b", "c", "d"],
                                               target="risk"))
    steps = dict(zip(table.frame["Column"], table.frame["risk"], strict=True))
    assert steps["base value"] == "0.3" and steps["risk"] == plain_number(base + pushes.sum())
    assert steps["b"] == "−0.2" and steps["a"] == "+0.05" and steps["c"] == "+0.001"
    assert steps["d"] == "0"


def test_bars_standing_on_a_base_show_where_they_end():
    percentiles = np.array([72.5, 10.0, 50.0])
    frame = plots.row_vs_median_table(np.array([1.0, 2.0, 3.0]),
                                      np.array([[0.0, 0.0, 0.0], [2.0, 4.0, 6.0]]),
                                      feature_names=["a", "b", "c"])
    frame["percentile"] = percentiles
    table = chart_table(plots.row_vs_median(frame))
    assert numbers(table.frame.iloc[:, 1]).tolist() == percentiles.tolist()


@settings(deadline=None, max_examples=25)  # a figure is milliseconds to build
@given(st.lists(st.floats(0.05, 40, allow_nan=False), min_size=1, max_size=300))
@example([40.0, 39.99999999999999])  # one value but for float rounding: bins 1e-16 wide
@example([1.5, 31.5625])  # the largest on an edge: the table had it a bin below plotly's
@example([40.0] * 25)  # a plain forest's rows: "40", not its bin's ends "40.0–41.3"
def test_a_histogram_s_table_counts_every_value_in_the_bins_it_draws(values):
    values = np.asarray(values)
    fig = plots.effective_trees_histogram(values, n_trees=40)
    bins = fig.data[0].xbins
    index = np.floor((values - bins.start) / bins.size + 1e-9).astype(int)
    counts = np.bincount(index)  # bin by bin, as plotly counts them: start in, end out
    table = chart_table(fig)
    shown = dict(zip(table.frame.iloc[:, 0], table.frame.iloc[:, 1], strict=True))
    drawn = np.flatnonzero(counts)
    largest = drawn[np.argsort(-counts[drawn], kind="stable")][:LISTED]
    edges = bins.start + bins.size * np.arange(counts.size + 1)
    if values.max() - values.min() <= SAME * values.max():  # one value: the value, its count
        assert shown == {plain_number(values.min(), 3): f"{values.size:,}"}
    else:
        assert shown == {range_text(edges[i], edges[i + 1]): f"{counts[i]:,}" for i in largest}
    assert (table.left_out == "") == (drawn.size <= LISTED)


def test_a_simplex_lists_its_points_three_coordinates():
    D, w = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.2, 0.6])
    fig = plots.simplex_figure(D, w, 0.3)
    table = chart_table(fig)
    alpha = 0.7 * D + 0.3 * w
    final = table.frame[table.frame["point"].str.startswith("final weights")]
    assert numbers(final.iloc[0, 1:]).tolist() == pytest.approx(alpha, abs=0.005)
    assert all(abs(numbers(row[1:]).sum() - 1) < 0.01 for row in table.frame.to_numpy())


def test_a_long_line_keeps_points_evenly_spaced_from_first_to_last():
    xs, ys = np.arange(50.0), np.arange(50.0) ** 2
    fig = go.Figure(go.Scatter(x=xs, y=ys, mode="lines"),
                    layout={"xaxis": {"title": {"text": "round"}},
                            "yaxis": {"title": {"text": "loss"}}})
    table = chart_table(fig)
    assert list(table.frame.columns) == ["round", "loss"]
    kept = numbers(table.frame["round"]).astype(int)
    assert len(kept) == LISTED and kept[0] == 0 and kept[-1] == 49
    assert np.all(np.diff(kept) > 0)
    assert numbers(table.frame["loss"]).tolist() == pytest.approx(ys[kept], rel=1e-2)
    assert table.left_out == f"{50 - LISTED} other points not listed"


def test_points_on_named_lines_read_as_their_line_s_name():
    fig = go.Figure(go.Scatter(x=[0.1, -0.2, 0.3], y=[0.2, 1.1, 1.9], mode="markers"),
                    layout={"yaxis": {"title": {"text": "Column"}, "tickvals": [0, 1, 2],
                                      "ticktext": ["age", "bmi", "glucose"]}})
    assert list(chart_table(fig).frame["Column"]) == ["age", "bmi", "glucose"]


def test_the_text_alternative_says_the_table_line_by_line():
    weights = np.random.default_rng(0).dirichlet(np.ones(20))
    for fig in (plots.tree_weight_bars(weights), plots.weight_heatmap(
            np.random.default_rng(1).dirichlet(np.ones(6), size=4)),
            plots.attention_kde(weights), plots.effective_trees_histogram(1 / weights, 20)):
        table, text = chart_table(fig), chart_text(fig)
        assert text.startswith(f"{table.title}. ")
        rest = text.removeprefix(f"{table.title}. ")
        for row in table.frame.astype(str).to_numpy():
            for cell in row:  # every cell, in the table's order
                at = rest.find(cell)
                assert at >= 0, (cell, rest)
                rest = rest[at + len(cell):]
        assert (f"and {table.left_out}." in text) == bool(table.left_out)


@settings(deadline=None, max_examples=40)
@given(st.lists(st.floats(-1e15, 1e15, allow_nan=False, allow_infinity=False), min_size=1,
                max_size=30))
@example([0.0, -0.0, 1e-12, -3e-7, 2.3e2, 123456789.0])
@example([1e15, -1e15, 5e-324])
@example([2.220446049250313e-16])  # two digits left at the 17th decimal
def test_bar_values_print_without_scientific_notation_in_order_with_their_sign(values):
    labels = [f"c{i}" for i in range(len(values))]
    table = chart_table(go.Figure(go.Bar(x=values, y=labels, orientation="h")))
    kept = sorted(sorted(range(len(values)), key=lambda i: -abs(values[i]))[:LISTED])
    assert list(table.frame.iloc[:, 0]) == [labels[i] for i in kept]  # the figure's order
    for cell, i in zip(table.frame.iloc[:, 1], kept, strict=True):
        assert not SCIENTIFIC.search(cell) and "-" not in cell
        shown = read_number(cell)
        assert shown == 0 or np.sign(shown) == np.sign(values[i])
        # three significant digits, to the formatter's last decimal (MAX_DECIMALS)
        assert shown == pytest.approx(values[i], rel=5e-3, abs=10.0 ** -MAX_DECIMALS)
    assert not SCIENTIFIC.search(chart_text(go.Figure(go.Bar(x=values, y=labels,
                                                             orientation="h"))))
