"""Names that look like links stay text: a table whose column names, class labels, row IDs,
cell values and file name are URLs and e-mail addresses, walked through Data, Home, Train,
Explain (ranked, what-if and a missing ID) and Forest in Debian Chromium against the real
server. No ``<a>`` (HTML or SVG) may take its text or its address from a name."""

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

TIMEOUT = 60_000  # ms
TRAIN_TIMEOUT = 120_000  # ms: training shares two busy cores

ID = "https://ids.example/id"
NUMBER = "http://evil.example/x"
OTHER = "www.phish.example"
CATEGORY = "contact a@b.co"
TARGET = "https://target.example/t"
CLASSES = ("https://evil.example/cls", "www.bad.example")
LEVELS = ("www.cat.example", "ward c@d.example")
FILE = "www.upload.example.csv"
MISSING = "www.missing.example"
# What a link made from any of the names above would carry in its text or address.
FRAGMENTS = ("ids.example", "evil.example", "phish.example", "a@b.co", "target.example",
             "bad.example", "cat.example", "c@d.example", "upload.example", "missing.example")
ANCHORS = """() => Array.from(document.querySelectorAll('a')).map(a => [
    a.textContent, a.getAttribute('href') || a.getAttribute('xlink:href') || ''])"""


def write_table(path, n: int = 80, seed: int = 4) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(3)
    pd.DataFrame({
        ID: [f"mailto:p{i:03d}@ids.example" for i in range(n)],
        NUMBER: x,
        OTHER: rng.normal(size=n).round(3),
        CATEGORY: rng.choice(LEVELS, n),
        TARGET: np.where(x + rng.normal(0, 0.5, n) > 0, CLASSES[1], CLASSES[0]),
    }).to_csv(path, index=False)


def go_to(page: Page, name: str, heading: str | None = None) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()
    expect(page.get_by_role("heading", name=heading or name, exact=True)).to_be_visible(
        timeout=TIMEOUT)


def shown_text(page: Page) -> str:
    """The main area's text as a reader sees it, and copies it: nothing invisible added
    (issue 36: a word joiner went after every "@" and inside every "://")."""
    text = page.get_by_test_id("stMain").inner_text()
    assert "\u2060" not in text and "\u200b" not in text
    return text


def check_links(page: Page, artifacts_dir, step: str, must_show=()) -> None:
    """The names in ``must_show`` are on the page as text, and no link anywhere on it comes
    from a name; a full-page screenshot of the step."""
    page.wait_for_timeout(500)  # let the last deltas of the run arrive
    text = shown_text(page)
    for name in must_show:
        assert name in text, f"{step}: {name!r} is not shown"
    anchors = page.evaluate(ANCHORS)
    from_names = [(label, href) for label, href in anchors
                  if any(f in f"{label} {href}".lower()
                         for f in FRAGMENTS)]
    print(f"{step}: {len(anchors)} <a> on the page, {len(from_names)} from names: {anchors}")
    page.screenshot(path=artifacts_dir / f"names-{step}.png", full_page=True)
    assert from_names == [], f"{step}: links made from names: {from_names}"
    assert page.get_by_test_id("stException").count() == 0


def test_names_that_look_like_links_stay_text(page, dialogs, artifacts_dir, tmp_path, require_dot):
    path = tmp_path / FILE
    write_table(path)
    page.goto("/")
    main = page.get_by_test_id("stMain")

    go_to(page, "Data")
    main.get_by_text("Upload a CSV").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(path)
    expect(main.get_by_role("combobox", name="Target column")).to_have_value(TARGET,
                                                                             timeout=TIMEOUT)
    expect(main.get_by_role("combobox", name="ID column")).to_have_value(ID)
    expect(main.get_by_text("Classes:").first).to_be_visible(timeout=TIMEOUT)
    check_links(page, artifacts_dir, "1-data", [FILE, TARGET, ID, *CLASSES])

    go_to(page, "Home", "forestviz")
    expect(main.get_by_text("Classes:").first).to_be_visible(timeout=TIMEOUT)
    check_links(page, artifacts_dir, "2-home", [FILE, TARGET, ID, *CLASSES])

    go_to(page, "Train")
    main.get_by_role("button", name="Train", exact=True).click()
    expect(main.get_by_text("Results on the held-out rows")).to_be_visible(timeout=TRAIN_TIMEOUT)
    expect(main.locator(".js-plotly-plot").filter(has_text="ROC")).to_be_visible(timeout=TIMEOUT)
    check_links(page, artifacts_dir, "3-train", [FILE, TARGET])

    go_to(page, "Explain")
    expect(main.get_by_test_id("stMetric").filter(has_text="Predicted class")).to_be_visible(
        timeout=TIMEOUT)
    expect(main.get_by_role("button", name="HTML report")).to_be_visible(timeout=TIMEOUT)
    expect(main.get_by_test_id("stImage").locator("img").first).to_be_visible(timeout=TIMEOUT)
    check_links(page, artifacts_dir, "4-explain", [f"P({CLASSES[1]})", "ids.example",
                                                   "Recorded outcome"])

    main.get_by_text("Edit the values (what-if)").click()
    expect(main.get_by_test_id("stNumberInput").first).to_be_visible(timeout=TIMEOUT)
    expect(main.get_by_role("button", name="HTML report")).to_be_visible(timeout=TIMEOUT)
    check_links(page, artifacts_dir, "5-explain-what-if", [NUMBER, OTHER, CATEGORY])

    main.get_by_text("By ID or row number").click()
    box = main.get_by_role("textbox", name="ID, or row number")
    expect(box).to_be_visible(timeout=TIMEOUT)
    box.fill(MISSING)
    box.press("Enter")
    expect(main.get_by_test_id("stAlertContentWarning")).to_be_visible(timeout=TIMEOUT)
    expect(main.get_by_role("button", name="HTML report")).to_be_visible(timeout=TIMEOUT)
    check_links(page, artifacts_dir, "6-explain-missing-id", [f"'{MISSING}'"])

    go_to(page, "Forest")
    expect(main.locator(".js-plotly-plot").filter(has_text="Effective number of trees")
           ).to_be_visible(timeout=TIMEOUT)
    check_links(page, artifacts_dir, "7-forest", [FILE])
    assert dialogs == []
