"""The pages in Debian Chromium at a narrow (700 px) and a wide (1400 px) window: the
prediction card's labels are whole (never cut with "…"), the row's table beside the training
rows is text, with "—" where a measure does not apply and no "None", and in every chart of
Explain, Train, Forest and Paper lab no text is cut at the figure's edges and the legend
covers neither the title, the caption, the plot nor its axis labels (issue 15: figures built
for a wide page are shrunk to a narrow window's column)."""

import pytest
from playwright.sync_api import expect

from forestviz.registry import FAMILIES
from tests.browser_helpers import choose, scroll_to
from tests.test_browser_flows import (
    TIMEOUT,
    expect_explanation,
    go_to,
    shoot,
    train,
    upload_table,
    write_table,
)

pytestmark = pytest.mark.browser

# each metric label's text against the box that cuts it with "…" (a cut text is wider)
LABEL_WIDTHS = """labels => labels.map(label => {
    const box = label.querySelector('[data-testid="stMarkdownContainer"]');
    return [box.innerText, box.scrollWidth, box.clientWidth];
})"""
# per chart: its title and what is wrong with it: a text cut at the figure's edges, a legend
# entry on the title, the caption, a plotting area or an axis label, the title or caption on
# a plotting area or an axis label
CHART_FAULTS = """charts => charts.map(chart => {
    const boxes = selector => [...chart.querySelectorAll(selector)]
        .filter(el => el.textContent.trim() || el.tagName !== 'text')
        .map(el => [el, el.getBoundingClientRect()]).filter(([, r]) => r.width >= 1);
    const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
    const name = el => (el.textContent || el.getAttribute('class')).slice(0, 40);
    const edge = chart.querySelector('.main-svg').getBoundingClientRect();
    const faults = [];
    for (const [el, r] of boxes('text')) {
        if (r.left < edge.left - 1 || r.right > edge.right + 1 || r.top < edge.top - 1
            || r.bottom > edge.bottom + 1) faults.push('cut: ' + name(el));
    }
    const heading = boxes('.gtitle, .gtitle-subtitle');
    const plot = [...boxes('.nsewdrag'), ...boxes('.ternary .plotbg path'),
                  ...boxes('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text')];
    for (const [entry, r] of boxes('.legend .traces')) {
        for (const [el, o] of [...heading, ...plot]) {
            if (meet(r, o)) faults.push('legend ' + name(entry) + ' on ' + name(el));
        }
    }
    for (const [el, r] of heading) {
        for (const [other, o] of plot) {
            if (meet(r, o)) faults.push(name(el) + ' on ' + name(other));
        }
    }
    return [(chart.querySelector('.gtitle') || {}).textContent, faults];
})"""


def expect_charts_fit(page, artifacts_dir, name: str) -> None:
    """At 700 then 1400 px wide (a narrow window hides the side bar's links): a screenshot,
    and no chart of the page with a fault (cut text, a legend on a title, caption, plot or
    axis label)."""
    charts = page.get_by_test_id("stMain").locator(".js-plotly-plot")
    expect(charts.first).to_be_visible(timeout=TIMEOUT)
    for width in (700, 1400):
        page.set_viewport_size({"width": width, "height": 2000})
        page.wait_for_timeout(1500)  # plotly redraws at the new width
        shoot(page, artifacts_dir, f"narrow-charts-{name}-{width}")
        found = charts.evaluate_all(CHART_FAULTS)
        assert found and all(title for title, _ in found), found
        assert [(title, faults) for title, faults in found if faults] == [], width


def test_card_labels_fit_and_the_feature_table_is_text(page, dialogs, artifacts_dir,
                                                        tmp_path):
    path = tmp_path / "ward.csv"
    write_table(path, n=80, feature="lactate", target="sepsis", seed=4)  # a categorical column
    page.goto("/")
    upload_table(page, path, "sepsis")
    train(page)
    go_to(page, "Explain")
    expect_explanation(page, "P(yes)")
    main = page.get_by_test_id("stMain")
    labels = ["Predicted class", "P(yes)", "Calibrated", "Calibrated range", "Decision threshold",
              "Effective number of trees", "Weight of the top 5 trees"]
    for width in (1400, 700):
        page.set_viewport_size({"width": width, "height": 2000})
        card = main.get_by_test_id("stMetricLabel")
        expect(card).to_have_count(len(labels), timeout=TIMEOUT)
        page.wait_for_timeout(500)  # the new width laid out
        shown = card.evaluate_all(LABEL_WIDTHS)
        assert [text for text, *_ in shown] == labels
        assert all(0 < used <= room for _, used, room in shown), (width, shown)
        shoot(page, artifacts_dir, f"narrow-card-{width}")
    features = main.get_by_test_id("stDataFrame").filter(has_text="percentile").first
    scroll_to(features)
    for heading in ("training median", "most common level", "share with this level"):
        expect(features).to_contain_text(heading)
    expect(features).to_contain_text("—")  # the median of a level, the level of a number
    expect(features).not_to_contain_text("None")
    expect_charts_fit(page, artifacts_dir, "explain")
    go_to(page, "Train")  # the ROC curves and the reliability of the risk
    expect_charts_fit(page, artifacts_dir, "train")
    assert dialogs == []


def test_regression_charts_fit_narrow_and_wide(page, dialogs, artifacts_dir):
    """The bundled regression table under AGBoost (the longest model name, in the legend of
    "Predicted against actual" with the baselines): every chart of Train, Explain, Forest and
    Paper lab fits at 1400 and 700 px."""
    page.goto("/")
    go_to(page, "Data")
    main = page.get_by_test_id("stMain")
    choose(page, "Bundled data set", "Diabetes progression")
    expect(main.get_by_text("Target: Disease progression")).to_be_visible(timeout=TIMEOUT)
    go_to(page, "Train")
    choose(page, "Model family", FAMILIES["agboost"].label)
    train(page)
    expect(main.locator(".js-plotly-plot").filter(has_text="Predicted against actual")
           ).to_be_visible(timeout=TIMEOUT)
    expect_charts_fit(page, artifacts_dir, "regression-train")
    for name, chart in (("Explain", "This row compared with the training data"),
                        ("Forest", "Which trees each row relies on"),
                        ("Paper lab", "ABRF Fig. 2")):
        go_to(page, name)
        expect(main.locator(".js-plotly-plot").filter(has_text=chart).first).to_be_visible(
            timeout=TIMEOUT)
        expect_charts_fit(page, artifacts_dir, f"regression-{name}")
    assert page.get_by_test_id("stException").count() == 0
    assert dialogs == []


# each metric value's text, and the most any box inside it is cut by (scroll − client width)
VALUE_CUTS = """values => values.map(value => [value.innerText,
    Math.max(...[value, ...value.querySelectorAll('*')].map(
        el => el.scrollWidth - el.clientWidth))])"""


def test_home_summary_values_are_whole_at_700_px(page, dialogs):
    """Issue 26: the data set's task read "classific…" in a 700 px window (four equal columns);
    the tiles now take their values' width."""
    page.set_viewport_size({"width": 700, "height": 1200})
    page.goto("/")
    values = page.get_by_test_id("stMain").get_by_test_id("stMetricValue")
    expect(values).to_have_count(4, timeout=TIMEOUT)
    page.wait_for_timeout(500)  # laid out
    shown = values.evaluate_all(VALUE_CUTS)
    assert [text for text, _ in shown] == ["632", "7", "classification", "2"]
    assert all(cut <= 0 for _, cut in shown), shown
    assert dialogs == []
