"""Each chart's text alternative (issue 39, item 1): the numbers the figure holds, read back from
its own data, and the same text on the page and in the record."""

import re
from html import unescape

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.plots.alt import CHARS, LISTED, chart_text
from forestviz.explain.plots.reasons import reasons_waterfall
from forestviz.explain.report_charts import UndrawableFigure, figure_svg
from forestviz.numbers import plain_number
from tests.cli_tables import app_choice

names = st.text(alphabet="abcdefghij", min_size=1, max_size=6)


@given(st.lists(st.tuples(names, st.floats(-1e3, 1e3, allow_nan=False)), min_size=1,
                max_size=30, unique_by=lambda pair: pair[0]))
def test_named_bars_are_listed_the_largest_first_beyond_the_limit(bars):
    labels = [label for label, _ in bars]
    values = [value for _, value in bars]
    text = chart_text(go.Figure(go.Bar(x=values, y=labels, orientation="h"),
                                layout={"title": {"text": "Pushes"}}))
    assert text.startswith("Pushes. ")
    listed = re.findall(r"(\w+): ([^;.]+(?:\.\d+)?)", text.removeprefix("Pushes. "))
    kept = sorted(range(len(bars)), key=lambda i: -abs(values[i]))[:LISTED]
    assert [label for label, _ in listed] == [labels[i] for i in sorted(kept)]
    assert [shown for _, shown in listed] == [plain_number(values[i]) for i in sorted(kept)]
    left = len(bars) - LISTED
    assert (f"and {left} smaller bar" in text) == (left > 0)


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=50))
def test_a_line_says_its_points_and_each_axis_range(ys):
    xs = np.arange(len(ys)) / 7
    fig = go.Figure(go.Scatter(x=xs, y=ys, mode="lines", name="ROC"),
                    layout={"xaxis": {"title": {"text": "false positives"}}})
    text = chart_text(fig)
    assert f"ROC: a line through {len(ys)} points" in text
    assert f"false positives from 0 to {plain_number(xs.max())}" in text
    low, high = min(ys), max(ys)
    assert (f"y from {plain_number(low)} to {plain_number(high)}" if low != high
            else f"y {plain_number(low)}") in text
    assert "e+" not in text and "e-" not in text


def test_bars_on_a_number_axis_are_a_series_not_a_list():
    fig = go.Figure(go.Bar(x=[1.0, 2.0, 6.031578947368421], y=[0.5, 0.3, 0.2]))
    assert chart_text(fig) == "3 bars, x from 1 to 6.03, y from 0.2 to 0.5."


def test_a_heat_map_and_a_simplex_say_their_size():
    z = np.arange(12.0).reshape(3, 4)
    assert "3 by 4 cells, values from 0 to 11" in chart_text(go.Figure(go.Heatmap(z=z)))
    ternary = go.Figure(go.Scatterternary(a=[0.2, 0.5], b=[0.3, 0.1], c=[0.5, 0.4]))
    assert "2 points in the simplex" in chart_text(ternary)


def test_a_long_text_is_cut_to_its_limit():
    labels = [f"column {i} " + "x" * 80 for i in range(40)]
    text = chart_text(go.Figure(go.Bar(x=np.arange(40.0) + 1, y=labels, orientation="h")))
    assert len(text) == CHARS and text.endswith("…")


@pytest.mark.slow
def test_the_record_gives_each_picture_the_page_s_text(table):
    dataset, choice = app_choice(table)
    bench = Workbench(dataset, choice)
    bench.train(Settings(family="erf", n_estimators=20, random_state=0))
    e = bench.explain(values=dataset.X.iloc[bench.model.test_rows[0]], row_id="R")
    glance = bench.glance(e)
    report = bench.report(e, glance=glance, appendix=True)
    alts = [unescape(found) for found in re.findall(r'<img class="[^"]*" alt="([^"]*)"', report)]
    waterfall = chart_text(reasons_waterfall(glance.reasons))
    assert waterfall in alts  # the glance's waterfall: each bar and its push
    for step in glance.reasons.raising + glance.reasons.lowering:
        assert step.column in waterfall
    figures = e.figures(trees=bench.tree_choice(e).trees).values()
    drawn = [chart_text(fig) for fig in figures if drawable(fig)]
    assert drawn and all(text in alts for text in drawn)


def drawable(fig) -> bool:
    try:
        figure_svg(fig)
    except UndrawableFigure:
        return False
    return True
