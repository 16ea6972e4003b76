"""Each chart's text alternative (issue 39, item 1): the numbers the figure holds, read back from
its own data, and the same text on the page and in the record."""

import re
from html import unescape

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.plots.alt import CHARS, chart_text
from forestviz.explain.plots.chart_table import LISTED
from forestviz.explain.plots.reasons import reasons_waterfall
from forestviz.explain.report.charts import UndrawableFigure, figure_svg
from forestviz.numbers import plain_number
from tests.cli_tables import app_choice

names = st.text(alphabet="abcdefghij", min_size=1, max_size=6)


@settings(deadline=None)
@given(st.lists(st.tuples(names, st.floats(-1e3, 1e3, allow_nan=False)), min_size=1,
                max_size=30, unique_by=lambda pair: pair[0]))
@pytest.mark.slow
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


@settings(deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=50))
def test_a_line_says_its_points_by_the_axes_titles(ys):
    xs = np.arange(len(ys)) / 7
    fig = go.Figure(go.Scatter(x=xs, y=ys, mode="lines", name="ROC"),
                    layout={"xaxis": {"title": {"text": "false positives"}}})
    text = chart_text(fig)
    kept = np.unique(np.linspace(0, len(ys) - 1, min(len(ys), LISTED)).round().astype(int))
    said = "; ".join(f"false positives {plain_number(xs[i])}, value {plain_number(ys[i])}"
                     for i in kept)
    assert text.startswith(said)
    left = len(ys) - kept.size
    assert (f"and {left} other point" in text) == (left > 0)
    assert "e+" not in text and "e-" not in text


def test_bars_on_a_number_axis_are_named_by_their_place():
    fig = go.Figure(go.Bar(x=[1.0, 2.0, 6.031578947368421], y=[0.5, 0.3, 0.2]))
    assert chart_text(fig) == "1: 0.5; 2: 0.3; 6.03: 0.2."


def test_a_heat_map_lists_its_largest_cells_and_a_simplex_its_points():
    z = np.arange(12.0).reshape(3, 4)
    text = chart_text(go.Figure(go.Heatmap(z=z)))
    assert text.startswith("2: column 3, value 11; 2: column 2, value 10")
    ternary = go.Figure(go.Scatterternary(a=[0.2, 0.5], b=[0.3, 0.1], c=[0.5, 0.4]))
    assert chart_text(ternary) == "a 0.2, b 0.3, c 0.5; a 0.5, b 0.1, c 0.4."


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
    shown = bench.explain_view(e, glance).charts().values()  # the page's, the record's
    drawn = [chart_text(fig) for fig in shown if drawable(fig)]
    assert drawn and all(text in alts for text in drawn)


def drawable(fig) -> bool:
    try:
        figure_svg(fig)
    except UndrawableFigure:
        return False
    return True
