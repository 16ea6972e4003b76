"""The real app in Debian Chromium: home page with the default data set, then a CSV uploaded
through the Data page's file input. Column names from the file must stay text (no dialog)."""

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

HOSTILE = "<img src=x onerror=alert(1)>"
TIMEOUT = 30_000  # ms; the first script run imports pandas, scikit-learn and the data set


def test_home_then_upload_a_csv(page, dialogs, artifacts_dir, tmp_path):
    rng = np.random.default_rng(0)
    upload = tmp_path / "ward_7.csv"
    pd.DataFrame(
        {
            "bed": [f"B{i:02d}" for i in range(24)],
            "lactate (mmol/L)": rng.normal(2, 0.5, 24).round(2),
            HOSTILE: rng.integers(0, 3, 24),
            "sepsis": np.where(np.arange(24) % 3 == 0, "yes", "no"),
        }
    ).to_csv(upload, index=False)

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
    assert dialogs == []
    assert page.locator("img[src='x']").count() == 0
