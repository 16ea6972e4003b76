"""The report's charts as SVG pictures drawn by matplotlib from the plotly figures: every figure
of an explanation is drawn with its title, caption, axis titles, categories and legend as text
(read back from the SVG), laid out once to the SVG that ``savefig`` writes when it lays the
figure out itself; names with markup, entities or dollar signs stay literal; a trace type the
pictures do not draw raises, and the report then says the chart is on the page."""

import html
import io
import re
import xml.etree.ElementTree as ET

import numpy as np
import plotly.graph_objects as go
import pytest
from sklearn.datasets import make_classification

from forestviz.attention import AttentionForestClassifier
from forestviz.explain import explain
from forestviz.explain.matplotlib_settings import drawing_with
from forestviz.explain.plots.contributions import contribution_waterfall
from forestviz.explain.plots.conventions import plain_text
from forestviz.explain.plots.tree_weights import tree_weight_bars
from forestviz.explain.report.charts import UndrawableFigure, figure_svg, matplotlib_figure
from forestviz.explain.row.figures import figures
from forestviz.explain.row.summary import TrainingSummary
from forestviz.explain.row.view import Chart, ExplainView, Section

NAMES = ("$x$ & <b>y</b>", "cost in $", "_hidden?")
# the SVG's identifiers, new in every drawing (matplotlib's svg.hashsalt is unset)
IDENTIFIERS = re.compile(r' (?:id|clip-path|xlink:href)="[^"]*"')


def svg_lines(svg: str) -> list[str]:
    """The text of every ``<text>`` element of an SVG (one per line of text)."""
    root = ET.fromstring(svg)
    return ["".join(node.itertext()) for node in root.iter("{http://www.w3.org/2000/svg}text")]


def tick_labels(svg: str, axis: str) -> list[str]:
    """The category labels of the ``axis`` ("x" or "y") ticks, in drawing order."""
    root = ET.fromstring(svg)
    return ["".join(text.itertext()) for group in root.iter("{http://www.w3.org/2000/svg}g")
            if group.get("id", "").startswith(f"{axis}tick_")
            for text in group.iter("{http://www.w3.org/2000/svg}text")]


@pytest.fixture(scope="module")
def explanation():
    X, y = make_classification(150, n_features=3, n_informative=2, n_redundant=0,
                               random_state=2)
    labels = np.array(["well", "ill"])[y]
    model = AttentionForestClassifier(10, max_depth=3, random_state=0).fit(X, labels)
    summary = TrainingSummary.from_data(model, X, labels, feature_names=list(NAMES))
    return explain(model, X[4], summary=summary, top_k=3)


def test_every_figure_is_drawn_with_its_texts(explanation):
    for key, fig in figures(explanation).items():
        svg = figure_svg(fig)
        assert svg.lstrip().startswith("<?xml") and "<script" not in svg
        lines = svg_lines(svg)
        for line in plain_text(fig.layout.title.text).split("\n"):
            assert line in lines, (key, line)
        for line in plain_text(fig.layout.title.subtitle.text).split("\n"):
            assert line in lines, (key, line)
        if key == "simplex":
            ternary = fig.layout.ternary
            for axis in (ternary.aaxis, ternary.baxis, ternary.caxis):
                assert plain_text(axis.title.text) in lines
        else:
            for axis in (fig.layout.xaxis, fig.layout.yaxis):
                assert plain_text(axis.title.text) in lines, key
        if fig.layout.showlegend is not False and len(fig.data) > 1:
            for trace in fig.data:
                assert plain_text(trace.name) in lines, (key, trace.name)


def test_a_picture_laid_out_once_is_the_one_savefig_lays_out_itself(explanation):
    """figure_svg lays a picture out once and fixes it; savefig with the layout engine left on
    lays it out in a measuring draw and again in the real one: the same SVG."""
    drawn = {**figures(explanation),
             "waterfall": contribution_waterfall(0.3, [0.2, -0.1, 0.05], ["a", "b", "c"],
                                                 target="P(ill)")}
    for key, fig in drawn.items():
        out = io.StringIO()
        with drawing_with({"svg.fonttype": "none"}):
            matplotlib_figure(fig).savefig(out, format="svg", metadata={"Date": None})
        assert IDENTIFIERS.sub("", figure_svg(fig)) == IDENTIFIERS.sub("", out.getvalue()), key


def test_names_stay_literal_text(explanation):
    """Plotly's escaped names come back as the names themselves: no mathtext, no markup, and
    a leading underscore does not hide a category."""
    fig = figures(explanation)["contributions"]
    lines = svg_lines(figure_svg(fig))
    for name in NAMES:
        assert name in lines
    raw = figure_svg(fig)
    assert "<b>y</b>" not in raw and html.escape("<b>y</b>", quote=False) in raw


def test_waterfall_categories_keep_their_order():
    fig = contribution_waterfall(0.3, [0.2, -0.1, 0.05], ["a", "b", "c"], target="P(ill)")
    assert tick_labels(figure_svg(fig), "y") == ["base value", "a", "b", "c", "P(ill)"]


def test_stacked_bars_show_the_legend_of_their_parts():
    weights = np.array([0.2, 0.5, 0.3])
    parts = (weights * 0.4, weights * 0.6)
    svg = figure_svg(tree_weight_bars(weights, parts=parts, top_k=1))
    lines = svg_lines(svg)
    assert "closeness to this row, (1−ε)·D" in lines
    assert "learned tree weight, ε·w" in lines
    assert tick_labels(svg, "x") == ["Tree 2", "the other 2 trees"]  # largest weight first


def test_an_undrawable_figure_raises_and_the_report_says_so(explanation):
    from forestviz.explain.report import document as report

    heatmap = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]]), layout={"title": {"text": "A <map>"}})
    with pytest.raises(UndrawableFigure, match="heatmap"):
        figure_svg(heatmap)
    view = ExplainView((Section("forest", "How the forest reached it",
                                (Chart("map", heatmap, True),)),))
    document = report.to_html(explanation, appendix=True, view=view)
    assert "The chart “A &lt;map&gt;” is on the Explain page only." in document
    assert '<img class="chart"' not in document
