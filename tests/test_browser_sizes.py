"""Hostile sizes in Debian Chromium against the real server: a CSV with one 100 MB cell is
refused without being parsed and without crashing the tab (the previous data set stays in
use), and a 5,000-character column name keeps every drawing on Explain and the HTML report
narrow."""

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from tests.browser_helpers import still_context
from tests.test_browser_flows import (
    TIMEOUT,
    ask_for_the_appendix,
    download_report,
    go_to,
    shoot,
    train,
    upload,
    upload_table,
)

pytestmark = pytest.mark.browser

A4_PX = 794  # 210 mm at 96 px per inch


@pytest.mark.slow
def test_one_huge_cell_is_refused_and_the_tab_survives(page, dialogs, artifacts_dir, tmp_path):
    path = tmp_path / "huge-cell.csv"
    with open(path, "wb") as out:
        out.write(b"a,b\n1,2\n3,")
        block = b"0123456789" * 100_000
        for _ in range(100):  # 100 MB of digits in one cell
            out.write(block)
        out.write(b"\n")
    page.goto("/")
    upload(page, path)
    main = page.get_by_test_id("stMain")
    error = main.get_by_test_id("stAlertContentError")
    # refused, not parsed: a hang detector only (docs/performance.md has the figures)
    expect(error).to_contain_text("100,000,000 characters", timeout=TIMEOUT)
    expect(error).to_contain_text("column")
    assert page.evaluate("() => 6 * 7") == 42  # the tab is alive and answers
    expect(main.get_by_text("Nothing was lost")).to_be_visible()
    expect(main.get_by_text("pima_diabetes").first).to_be_visible()  # still the data in use
    shoot(page, artifacts_dir, "huge-cell-refused")
    assert dialogs == []


def test_a_five_thousand_character_name_keeps_drawings_and_report_narrow(
        page, browser, dialogs, artifacts_dir, tmp_path):
    long_name = "very long laboratory value name " * 157 + "end"
    assert len(long_name) >= 5000
    rng = np.random.default_rng(7)
    x = rng.normal(size=90)
    frame = pd.DataFrame({long_name: x.round(3), "z": rng.normal(size=90).round(3),
                          "outcome": np.where(x + rng.normal(0, 0.4, 90) > 0, "yes", "no")})
    path = tmp_path / "long-name.csv"
    frame.to_csv(path, index=False)
    page.goto("/")
    upload_table(page, path, "outcome")
    main = page.get_by_test_id("stMain")
    train(page)
    go_to(page, "Explain")
    images = main.get_by_test_id("stImage").locator("img")
    expect(images.first).to_be_visible(timeout=TIMEOUT)
    widths = images.evaluate_all("imgs => imgs.map(img => img.naturalWidth)")
    assert widths and all(0 < width <= 4000 for width in widths), widths
    shoot(page, artifacts_dir, "long-name-explain")

    ask_for_the_appendix(page)  # the similar rows in full name the column too
    report = download_report(page)
    # its first 500 characters and its whole length in the full-names table (issue 25: every
    # text of a report is cut to a stated length)
    assert long_name[:500] in report and f"({len(long_name):,} characters)" in report
    report_path = tmp_path / "report.html"
    report_path.write_text(report, encoding="utf-8")
    context = still_context(browser, viewport={"width": A4_PX, "height": 1100})
    reader = context.new_page()
    reader.goto(report_path.as_uri())
    width = reader.evaluate("() => document.documentElement.scrollWidth")
    reader.screenshot(path=artifacts_dir / "long-name-report.png")
    context.close()
    assert width <= A4_PX, width
    assert dialogs == []
