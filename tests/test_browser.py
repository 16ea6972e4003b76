"""The real app in Debian Chromium: home page with the default data set, then a CSV uploaded
through the Data page's file input, trained and explained on a row with missing values. Column
names from the file must stay text (no dialog); a missing value is said to be missing."""

import re

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from tests.browser_helpers import scroll_to

pytestmark = pytest.mark.browser

HOSTILE = "<img src=x onerror=alert(1)>"
TIMEOUT = 30_000  # ms; the first script run imports pandas, scikit-learn and the data set


def test_home_then_upload_a_csv(page, dialogs, artifacts_dir, tmp_path):
    rng = np.random.default_rng(0)
    upload = tmp_path / "ward_7.csv"
    table = pd.DataFrame(
        {
            "bed": [f"B{i:02d}" for i in range(24)],
            "lactate (mmol/L)": rng.normal(2, 0.5, 24).round(2),
            HOSTILE: rng.integers(0, 3, 24),
            "ward": rng.choice(["north", "south"], 24),
            "sepsis": np.where(np.arange(24) % 3 == 0, "yes", "no"),
        }
    )
    table.loc[[3, 9], "lactate (mmol/L)"] = np.nan
    table.loc[[3, 15], "ward"] = np.nan
    table.to_csv(upload, index=False)

    page.goto("/")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("pima_diabetes")).to_be_visible(timeout=TIMEOUT)
    expect(main.get_by_test_id("stMetric").filter(has_text="Rows")).to_contain_text("632")

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data").click()
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=TIMEOUT)
    main.get_by_text("Upload a CSV").click()
    file_input = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    file_input.set_input_files(upload)

    expect(main.get_by_text("ward_7.csv").last).to_be_visible(timeout=TIMEOUT)
    expect(main.get_by_role("combobox", name="Target column")).to_have_value("sepsis")
    preview = main.get_by_test_id("stDataFrame").first
    expect(preview).to_contain_text("lactate (mmol/L)")
    expect(preview).to_contain_text(HOSTILE)
    expect(main.get_by_test_id("stMetric").filter(has_text="Rows")).to_contain_text("24")

    screenshot = artifacts_dir / "data-page-upload.png"
    page.screenshot(path=screenshot)
    print(f"screenshot: {screenshot}")
    assert screenshot.stat().st_size > 0

    # train, then explain bed B03 (lactate and ward missing): said, not silently filled
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Train").click()
    main.get_by_role("button", name="Train", exact=True).click()
    expect(main.get_by_text("Trained.")).to_be_visible(timeout=TIMEOUT * 10)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Explain").click()
    expect(main.get_by_test_id("stMetric").first).to_be_visible(timeout=TIMEOUT)
    main.get_by_text("By ID or row number").click()
    box = main.get_by_role("textbox", name="ID, or row number")
    box.fill("B03")
    box.press("Enter")
    expect(page.get_by_test_id("stHeading").filter(has_text="Row B03")).to_be_visible(
        timeout=TIMEOUT)
    summary = page.locator(".st-key-explain_summary")  # each missing value and what it risks
    expect(summary).to_contain_text("lactate (mmol/L) is missing (used ")
    expect(summary).to_contain_text("ward is missing (the model used no level)")
    # the argument ("Predicted …"), not a guessed value's alarm above it ("the predicted class
    # could change"): a pattern is case-sensitive where a plain text is not
    argument = summary.get_by_test_id("stAlert").filter(has_text=re.compile("Predicted")).first
    expect(argument).to_contain_text("from the trees' weighted base")
    scroll_to(main.get_by_text("This row beside the training rows"))
    features = main.get_by_test_id("stDataFrame").filter(has_text="used as")
    expect(features).to_contain_text("missing", timeout=TIMEOUT)
    page.screenshot(path=artifacts_dir / "explain-missing-values.png", full_page=True)
    assert dialogs == []
    assert page.locator("img[src='x']").count() == 0
