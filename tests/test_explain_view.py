"""The Explain view (forestviz.explain.row.view, issue 40): one list of sections that the Explain
page and the record's appendix both render. Checked here on models fitted in the test: the
weights' own charts only where the weights differ (the record drew a hundred equal bars the page
hid), a boosting model's trees named by their term V with its corrections (the record said
"This tree says"), the record printing exactly the view's sections, charts and trees, and every
kind of part in both renderers. The page against the record for every family, through the real
app: tests/test_app_pages.py::test_each_model_family_trains_and_scores_on_held_out_rows."""

import html
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier
from streamlit.testing.v1 import AppTest

from forestviz.attention import AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.explain import Explanation, TrainingSummary, explain
from forestviz.explain.report.document import to_html
from forestviz.explain.row.glance import glance
from forestviz.explain.row.tree_choice import choose_trees, equal_weights
from forestviz.explain.row.view import (
    Chart,
    ExplainView,
    Note,
    Section,
    Table,
    Tile,
    Tiles,
    Tree,
    explain_view,
)
from ui.display import as_text

WEIGHT_CHARTS = {"weights", "kde", "simplex"}


def explained(model, X, y, row=0):
    summary = TrainingSummary.from_data(model.fit(X, y), X, y)
    e = explain(model, X[row], summary=summary, n_alternatives=1)
    return e, explain_view(e, glance(None, e, None), choice=choose_trees(e, summary))


def record(e, view) -> str:
    return to_html(e, appendix=True, view=view)


def printed_titles(document: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r'<h2 class="view">(.*?)</h2>', document)]


@pytest.mark.slow
def test_equal_weights_hide_the_weights_charts_on_the_page_and_in_the_record():
    X, y = make_classification(200, 5, n_informative=3, random_state=0)
    e, view = explained(RandomForestClassifier(20, random_state=0), X, y)
    assert equal_weights(e.tree_weights)
    assert WEIGHT_CHARTS.isdisjoint(view.charts())
    assert set(view.charts()) == {"contributions", "contributions_by_tree", "features"}
    document = record(e, view)
    assert printed_titles(document) == list(view.titles) == [
        "How the forest reached it", "The 5 trees that move this prediction most",
        "This row beside the training rows", "Most similar training rows"]
    assert document.count('<img class="chart"') == len(view.charts())  # no hundred equal bars


@pytest.mark.slow
def test_row_dependent_weights_show_them_in_both():
    X, y = make_friedman1(200, n_features=5, random_state=0)
    e, view = explained(AttentionForestRegressor(20, eps=0.2, tau=0.5, random_state=0), X, y)
    assert not equal_weights(e.tree_weights)
    assert set(view.charts()) >= WEIGHT_CHARTS
    document = record(e, view)
    assert document.count('<img class="chart"') == len(view.charts())
    assert view.titles[1] == "The 5 trees that carry this prediction" == printed_titles(
        document)[1]


@pytest.mark.slow
def test_a_boosting_tree_is_its_term_v_with_its_correction_in_both():
    rng = np.random.default_rng(1)  # pure noise: the model keeps its plain GBM (equal weights)
    X, y = rng.normal(size=(300, 4)), rng.normal(size=300)
    e, view = explained(AttentionBoostingRegressor(30, random_state=0), X, y)
    trees = view.sections[1]
    tables = [p for p in trees.parts if isinstance(p, Table)]
    assert [t.name for t in tables] == ["corrections"]
    notes = " ".join(p.text for p in trees.parts if isinstance(p, Note))
    assert "A boosting tree's number is not a prediction" in notes
    sentences = [p.sentence for p in trees.parts if isinstance(p, Tree)]
    assert len(sentences) == 5 and all("; its term V is " in s for s in sentences)
    document = html.unescape(record(e, view))
    assert "This tree says" not in document and "this tree says" not in document
    for sentence in sentences:
        assert f"<h3>{sentence}</h3>" in document
    corrections = tables[0].frame
    assert document.count("<table") >= 1 and str(corrections.columns[0]) in document


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), rows=st.integers(40, 120), trees=st.integers(2, 12),
       eps=st.sampled_from([0.0, 0.3, 1.0]), row=st.integers(0, 39))
@example(seed=0, rows=40, trees=2, eps=1.0, row=0)  # two trees: the simplex's corners alone
def test_the_record_prints_exactly_the_view(seed, rows, trees, eps, row):
    """Tables and models drawn at random: the record's appendix holds the view's sections in
    order, one picture per chart in the view's order, and each tree's sentence, whatever the
    forest; the weights' charts are there exactly when the weights differ."""
    X, y = make_friedman1(rows, n_features=5, random_state=seed)
    model = AttentionForestRegressor(trees, eps=eps, tau=1.0, max_depth=3, random_state=seed)
    e, view = explained(model, X, y, row=row)
    assert WEIGHT_CHARTS.isdisjoint(view.charts()) == equal_weights(e.tree_weights)
    document = record(e, view)
    assert printed_titles(document) == list(view.titles)
    alts = re.findall(r'<img class="chart" alt="([^"]*)"', document)
    assert len(alts) == len(view.charts())
    trees_printed = [html.unescape(t) for t in re.findall(r"<h3>(Tree \d+: [^<]*)</h3>",
                                                          document)]
    assert trees_printed == [p.sentence for s in view for p in s.parts if isinstance(p, Tree)]
    assert [int(t.split(":")[0].split()[1]) - 1 for t in trees_printed] == list(view.trees)


def test_an_explanation_is_values_only():
    """No figures and no report on the explanation itself: the view and the record are the
    one way to show it."""
    assert not hasattr(Explanation, "figures") and not hasattr(Explanation, "to_html")


def every_part_view() -> ExplainView:
    """An Explain view with every kind of part but a tree (those need a model: above), names
    and notes that would be markup if read as such."""
    bars = go.Figure(go.Bar(x=["a", "b"], y=[1.0, 2.0]), layout={"title": {"text": "Bars"}})
    probabilities = pd.DataFrame({"class": ["x"], "probability": [0.5]})
    return ExplainView((Section("forest", "First <b>section</b>", (
        Tiles((Tile("Effective number of trees", "3.5", "effective number of trees"),)),
        Note("A note with *stars*"),
        Chart("weights", bars, True), Chart("scores", bars, True), Chart("simplex", bars, False),
        Table("probabilities", "Class probabilities", probabilities, folded=True))),
        Section("similar", "Second", (Table("neighbours", None, pd.DataFrame(
            {"id": ["r1", "r2"], "distance": [0.0, 1.5]}), heads=("this row", "r2")),))))


def every_part_page():
    """:func:`every_part_view` through the page's renderer (AppTest script)."""
    from tests.test_explain_view import every_part_view
    from ui.explain_view import sections

    sections(None, None, every_part_view(), lambda section: None)


def test_the_page_renders_every_part_as_the_record_does():
    at = AppTest.from_function(every_part_page, default_timeout=60).run()
    assert not at.exception
    assert [h.value for h in at.header] == [as_text("First <b>section</b>"), "Second"]
    assert [m.label for m in at.metric] == ["Effective number of trees"]
    assert [m.value for m in at.metric] == ["3.5"]
    assert any("A note with" in c.value and "\\*stars\\*" in c.value for c in at.caption)
    assert len(at.get("plotly_chart")) == 3
    assert [e.label for e in at.expander if e.label == "Class probabilities"]
    neighbours = at.dataframe[-1].value
    assert list(neighbours.index) == ["this row", "r2"]
    X, y = make_classification(60, 3, n_informative=2, n_redundant=0, random_state=0)
    e = explain(RandomForestClassifier(3, random_state=0).fit(X, y), X[0], X_train=X,
                y_train=y)
    document = to_html(e, appendix=True, view=every_part_view())
    assert "First &lt;b&gt;section&lt;/b&gt;" in document and "<b>section" not in document
    assert "Effective number of trees: <b>3.5</b>" in document
    assert "A note with *stars*" in document
    assert document.count('<img class="chart"') == 3 and "Numbers in this chart" in document
    assert "<h3>Class probabilities</h3>" in document
    assert "<th>this row</th><th>r2</th>" in document  # the similar rows side by side


def test_a_part_the_record_does_not_know_is_refused():
    X, y = make_classification(60, 3, n_informative=2, n_redundant=0, random_state=0)
    e = explain(RandomForestClassifier(3, random_state=0).fit(X, y), X[0], X_train=X,
                y_train=y)
    view = ExplainView((Section("forest", "A", ("not a part",)),))
    with pytest.raises(TypeError, match="not a part of an Explain view"):
        to_html(e, appendix=True, view=view)
