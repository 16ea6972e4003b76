"""The HTML report: self-contained (no script, nothing fetched from a network), hostile names
stay text, charts and tree drawings are embedded pictures, path sentences are in it, long names
never widen it; and it renders offline in Debian Chromium within the width of A4. The record
fields, edited values, sizes and the PDF: tests/test_report_record.py."""

import base64
import html
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

from forestviz.attention import AttentionForestClassifier
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import explain
from forestviz.explain.drawing.tree_drawings import tree_drawings
from forestviz.explain.plots.alt import chart_text
from forestviz.explain.report.document import to_html
from forestviz.explain.report.markup import FULL_NAME_LIMIT
from forestviz.explain.row.glance import glance
from forestviz.explain.row.summary import TrainingSummary
from forestviz.explain.row.tree_choice import equal_weights
from forestviz.explain.row.view import explain_view
from forestviz.names import NAME_LIMIT, elide, with_length

HOSTILE = ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", 'a"b&c')
EXTERNAL = re.compile(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", re.IGNORECASE)
TAGS = {"html", "head", "meta", "title", "style", "script", "body", "h1", "h2", "h3", "p", "b",
        "sub", "div", "table", "thead", "tbody", "tr", "th", "td", "img", "span", "ul", "li",
        "dl", "dt", "dd", "i"}  # the appendix's glossary: a term, its meaning, its source


class Tags(HTMLParser):
    """Every start tag of a document with its attributes (script and style bodies are text)."""

    def __init__(self, document):
        super().__init__()
        self.found = []
        self.feed(document)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def hostile():
    """An ERF and an ABRF explanation where every user-provided text is markup."""
    X, y = make_classification(200, n_features=3, n_informative=2, n_redundant=0,
                               random_state=0)
    names = list(HOSTILE)
    labels = np.array(["<b>healthy</b>", "<img src=y onerror=alert(3)>"])[y]
    frame = pd.DataFrame(X, columns=names)
    ids = np.array([f"<i>p{i}</i>" for i in range(len(X))])
    original = frame.assign(**{"<u>ward</u>": "<script>alert(4)</script>"})
    out = {}
    for key, model in (("erf", EnhancedForestClassifier(12, max_depth=3, n_iterations=2,
                                                          random_state=0)),
                       ("abrf", AttentionForestClassifier(12, max_depth=3, random_state=0))):
        model.fit(X, labels)
        summary = TrainingSummary.from_data(model, X, labels, feature_names=names, ids=ids,
                                            original=original)
        out[key] = (model, explain(model, X[5], summary=summary, top_k=3, n_alternatives=3,
                                   row_id="<svg onload=alert(5)>",
                                   original_row=original.iloc[5]), X, labels, names)
    return out


@pytest.fixture(scope="module")
def hostile_reports(hostile):
    """Each explanation's report without tree drawings (the charts take a second to draw)."""
    return {key: to_html(e, appendix=True) for key, (_, e, *_) in hostile.items()}


def view_charts(e) -> dict:
    """The charts of the Explain view the report prints by default (the top trees)."""
    return explain_view(e, glance(None, e, None)).charts()


def without_plotly(report: str) -> str:
    """The report, checked to hold no script at all (the charts are pictures)."""
    assert "<script" not in report.lower() and "plotly" not in report.lower()
    return report


@pytest.mark.slow
@pytest.mark.parametrize("key", ["erf", "abrf"])
def test_report_is_self_contained_and_escapes_user_text(hostile, hostile_reports, key):
    _, e, *_ = hostile[key]
    report = hostile_reports[key]
    rest = without_plotly(report)
    assert EXTERNAL.search(rest) is None
    tags = Tags(report).found
    assert {tag for tag, _ in tags} <= TAGS
    for tag, attrs in tags:  # no event handlers; only embedded images; no external script
        assert not any(name.startswith("on") for name in attrs)
        assert set(attrs) & {"src", "href", "srcset", "action"} <= (
            {"src"} if tag == "img" else set())
        assert attrs.get("src", "data:image/svg+xml;base64,").startswith(
            "data:image/svg+xml;base64,")
    shown = view_charts(e)
    equal = equal_weights(e.tree_weights)
    assert equal == (key == "erf")  # this ERF's weights are equal, the attention forest's not
    common = {"features", "contributions", "contributions_by_tree"}
    # the weights' own three only where the weights differ (the page hid them; the record drew
    # a hundred equal bars)
    assert set(shown) == (common | {"scores"} if equal else common | {"weights", "kde",
                                                                     "simplex"})
    charts = [attrs for tag, attrs in tags if tag == "img" and attrs.get("class") == "chart"]
    assert len(charts) == len(shown)  # one picture per chart, in the Explain view's order
    assert [c["alt"] for c in charts] == [chart_text(f) for f in shown.values()]
    for markup in ("<script>alert", "<img src=x", "<img src=y", "<svg onload", "<b>healthy",
                   "<i>p", "<u>ward"):
        assert markup not in rest
    for text in (*HOSTILE, "<svg onload=alert(5)>", "<i>p", "<u>ward</u>", "<b>healthy</b>"):
        assert html.escape(text) in rest
    for steps in e.paths:  # every path sentence, escaped
        for step in steps:
            assert html.escape(e.step_sentence(step)) in rest
    assert len(e.alternatives) == len(e.top_trees) and any(e.alternatives)
    for others in e.alternatives:  # every nearest other leaf's tests, escaped
        for other in others:
            assert html.escape(e.flips_sentence(other)) in rest
    said = glance(None, e, None)  # names short enough to be shown whole
    assert html.escape(said.argument) in rest and html.escape(said.headline) in rest
    assert f"{e.effective_trees:.1f}" in rest and f"{e.top5_share:.0%}" in rest


def test_report_shows_prediction_threshold_and_neighbours(hostile, hostile_reports):
    model, e, X, *_ = hostile["erf"]
    rest = without_plotly(hostile_reports["erf"])
    assert f"{model.threshold_:.3f}" in rest  # Youden's J in the decision rule
    assert html.escape(str(model.predict(X[5:6])[0])) in rest
    for p in model.predict_proba(X[5:6])[0]:
        assert f"{p:.4g}" in rest
    for row_id in e.neighbors["id"]:
        assert html.escape(row_id) in rest


@pytest.mark.slow
def test_report_embeds_tree_drawings(hostile, require_dot):
    from forestviz.explain.drawing.treeviz import TreeContext, render_tree

    model, e, X, labels, names = hostile["abrf"]
    context = TreeContext.from_data(X, labels, feature_names=names,
                                    class_names=list(model.classes_))
    drawings = tree_drawings(model, e, context)
    assert list(drawings) == e.top_trees.tolist()
    assert drawings[int(e.top_trees[0])] == render_tree(model, int(e.top_trees[0]), X[5],
                                                        context=context, fancy=False)
    svgs = {k: drawings[k] for k in e.top_trees[:2].tolist()}
    report = to_html(e, appendix=True, tree_svgs=svgs)
    for svg in svgs.values():
        assert base64.b64encode(svg.encode()).decode() in report
    rest = without_plotly(report)
    assert EXTERNAL.search(rest) is None
    assert rest.count('<img class="tree"') == 2
    assert rest.count('<img class="chart"') == len(view_charts(e))
    with pytest.raises(ValueError, match="not shown"):
        to_html(e, tree_svgs={int(np.setdiff1d(np.arange(12), e.top_trees)[0]): "<svg/>"})


@pytest.mark.browser
def test_report_renders_offline_in_chromium(hostile, hostile_reports, browser, tmp_path):
    _, e, *_ = hostile["erf"]
    path = tmp_path / "report.html"
    path.write_text(hostile_reports["erf"], encoding="utf-8")
    context = browser.new_context()
    requests, dialogs = [], []
    context.route("**/*", lambda route: (
        route.continue_() if route.request.url.startswith("file:") else
        (requests.append(route.request.url), route.abort())))
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    charts = page.locator("img.chart")
    assert charts.count() == len(view_charts(e))
    widths = charts.evaluate_all("imgs => imgs.map(img => img.complete && img.naturalWidth)")
    assert all(width > 0 for width in widths), widths  # every picture decoded
    assert charts.first.is_visible()
    assert page.get_by_role("heading", name=re.compile("The trees that carry")).is_visible()
    assert requests == [] and dialogs == []
    assert page.locator("img[src='x'], img[src='y']").count() == 0
    context.close()


# ------------------------------------------------------------------------- long names
LONG = "glucose_2h_after_a_<meal>_&_fasting;" * 140  # 5,040 characters, no space
SICK = "sick: " + "insulin resistance " * 20
A4_PX = 794  # 210 mm at 96 px per inch


class Layout(HTMLParser):
    """Where text sits: ``texts`` outside scripts, styles and the table of full names,
    ``appendix`` inside that table, ``attrs`` every (tag, attribute, value)."""

    def __init__(self, document):
        super().__init__()
        self.texts, self.appendix, self.attrs, self.css = [], [], [], ""
        self._open, self._in_names = [], False
        self.feed(document)

    def handle_starttag(self, tag, attrs):
        self._open.append(tag)
        self._in_names |= tag == "table" and ("class", "names") in attrs
        self.attrs += [(tag, name, value or "") for name, value in attrs]

    def handle_endtag(self, tag):
        self._open.pop()
        self._in_names &= tag != "table"

    def handle_data(self, data):
        where = self._open[-1] if self._open else ""
        if where == "style":
            self.css += data
        elif where != "script":
            (self.appendix if self._in_names else self.texts).append(data)


@pytest.fixture(scope="module")
def long_named():
    """An ERF explanation whose feature names, class, row ids and original columns are 5,000
    characters long (two features alike in their first 40 characters)."""
    X, y = make_classification(150, n_features=3, n_informative=2, n_redundant=0,
                               random_state=1)
    names = [LONG, LONG + " (mmol/L)", "<img src=x onerror=alert(1)>"]
    labels = np.array(["healthy", SICK])[y]
    ids = np.array([f"patient {i} " + "x" * 100 for i in range(len(X))])
    original = pd.DataFrame(X, columns=names).assign(note="<b>" * 2000)
    model = EnhancedForestClassifier(8, max_depth=3, n_iterations=1, random_state=0)
    model.fit(X, labels)
    summary = TrainingSummary.from_data(model, X, labels, feature_names=names, ids=ids,
                                        original=original)
    e = explain(model, X[3], summary=summary, top_k=2, row_id=ids[3] + LONG,
                original_row=original.iloc[3])
    return model, e, X, labels, names


@pytest.fixture(scope="module")
def long_report(long_named):
    return to_html(long_named[1], appendix=True)


@pytest.mark.slow
def test_long_names_are_cut_and_whole_only_in_titles_and_the_appendix(long_named, long_report):
    e = long_named[1]
    report = long_report
    layout = Layout(report)
    shown = " ".join(layout.texts)
    assert len(SICK) <= FULL_NAME_LIMIT < len(LONG)
    for name in (LONG, LONG + " (mmol/L)", SICK, e.row_id):
        assert name not in shown  # never whole in the page's text
        full = with_length(name, FULL_NAME_LIMIT)  # whole up to 500 characters, then its length
        assert full in layout.appendix  # in the table of full names
        assert ("span", "title", full) in layout.attrs  # and on hover
    assert with_length(LONG, FULL_NAME_LIMIT).endswith("… (5,040 characters)")
    assert elide(LONG) in shown and elide(SICK) in shown
    assert elide(LONG + " (mmol/L)", NAME_LIMIT - 3) + " #2" in shown  # alike names differ
    assert all(name == "title" for _, name, value in layout.attrs
               if LONG[:FULL_NAME_LIMIT] in value)
    assert f"Rule: {elide(SICK)} when P({elide(SICK)})" in shown
    alike = {elide(LONG), elide(LONG, NAME_LIMIT - 3) + " #2"}  # the two long features
    long_steps = [step for steps in e.paths for step in steps if len(step.feature_name) > 40]
    assert long_steps
    for step in long_steps:
        assert step.sentence() not in shown  # path sentences name the feature cut
        assert any(step.sentence().replace(step.feature_name, cut) in shown for cut in alike)
    rest = without_plotly(report)  # nothing unescaped, however long
    assert "<img src=x" not in rest and "<meal>" not in rest and "<b><b>" not in rest
    assert html.escape(with_length(LONG, FULL_NAME_LIMIT)) in rest
    assert html.escape("<img src=x onerror=alert(1)>") in rest


def test_report_css_bounds_the_width(long_report):
    css = Layout(long_report).css
    for rule in ("max-width:190mm", "table-layout:fixed;width:100%", "overflow-wrap:anywhere",
                 "img{max-width:100%}", "word-break:break-all", "@page{size:A4"):
        assert rule in css


@pytest.mark.browser
def test_report_with_long_names_fits_a4_in_chromium(long_named, browser, tmp_path,
                                                    require_dot):
    """The whole report, tree drawings included, is no wider than an A4 page (794 px)."""
    from forestviz.explain.drawing.treeviz import TreeContext

    model, e, X, labels, names = long_named
    context = TreeContext.from_data(X, labels, feature_names=names,
                                    class_names=list(model.classes_))
    path = tmp_path / "report.html"
    path.write_text(to_html(e, appendix=True,
                              tree_svgs=tree_drawings(model, e, context, mode="full")),
                    encoding="utf-8")
    page = browser.new_context(viewport={"width": A4_PX, "height": 1200}).new_page()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert page.locator("img.tree").count() == 2
    assert page.locator("img.chart").count() == len(view_charts(e))
    widths = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth,"
                           " ...[...document.querySelectorAll('table, img')]"
                           ".map(el => el.getBoundingClientRect().right)]")
    assert max(widths) <= A4_PX, widths
    page.context.close()
