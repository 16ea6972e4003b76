"""The Explain page in Debian Chromium at a narrow (700 px) and a wide (1400 px) window: the
prediction card's labels are whole (never cut with "…") and the row's table beside the
training rows is text, with "—" where a measure does not apply and no "None"."""

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import scroll_to
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
    labels = ["Predicted class", "P(yes)", "Decision threshold", "Effective number of trees",
              "Weight of the top 5 trees"]
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
    assert dialogs == []
