"""One answer to "how sure" for a new patient with key values missing (issue 35), in Debian
Chromium: Glucose and BMI left empty on the bundled Pima table, the tiles' range covers what
the guessed values can do ("With other guesses", the interval saying it assumes them) and the
alarm lies inside the first 1400 x 900 screen, and inside the first screen at 700 px wide."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser_helpers import settled
from tests.test_browser_flows import TIMEOUT
from tests.test_browser_glance import summary

pytestmark = pytest.mark.browser

TYPED = {"Pregnancies": "2", "Diastolic BP (mm Hg)": "70", "Triceps skinfold (mm)": "20",
         "Diabetes pedigree": "0.5", "Age (years)": "45"}  # Glucose and BMI left empty
# a hang guard only: on a machine at load 30 the server's first model (restored, its baselines
# refitted) and first explanation took over 5 minutes
SLOW = 15 * 60_000
DEFAULT = "Train the default model and explain a row"
RANGE = re.compile(r"(\d+\.\d+)–(\d+\.\d+)")
def alarms_inside(page: Page, height: int) -> list[str]:
    """The alarms' texts, each asserted to lie wholly inside the first ``height`` pixels."""
    found = summary(page).get_by_test_id("stAlert").filter(has_text="could change")
    expect(found.first).to_be_visible(timeout=3 * TIMEOUT)
    texts = []
    for i in range(found.count()):
        box = found.nth(i).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
        texts.append(found.nth(i).inner_text())
    return texts


def tile(page: Page, label: str) -> str:
    metric = summary(page).get_by_test_id("stMetric").filter(has_text=label).first
    expect(metric).to_be_visible(timeout=3 * TIMEOUT)
    return metric.get_by_test_id("stMetricValue").inner_text()


def test_a_new_patient_s_guesses_are_in_the_tiles_and_the_alarm_on_the_first_screen(
        page, dialogs, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto("/")
    page.get_by_role("button", name=DEFAULT).click(timeout=SLOW)
    expect(page.get_by_role("heading", name="Explain", exact=True)).to_be_visible(timeout=SLOW)
    main = page.get_by_test_id("stMain")
    settled(page)
    main.get_by_text("New patient", exact=True).click(timeout=3 * TIMEOUT)
    for column, value in TYPED.items():
        field = main.get_by_role("spinbutton", name=column)
        field.fill(value, timeout=3 * TIMEOUT)
        field.press("Tab")
    main.get_by_role("button", name="Explain this patient").click(timeout=3 * TIMEOUT)
    expect(summary(page).get_by_test_id("stHeading")).to_contain_text("New patient",
                                                                      timeout=3 * TIMEOUT)
    settled(page)
    alarms = alarms_inside(page, 900)
    page.screenshot(path=artifacts_dir / "guesses-pima-1400x900.png")
    low, high = map(float, RANGE.fullmatch(tile(page, "With other guesses")).groups())
    assert low <= float(tile(page, "P(Yes)")) <= high
    for text in alarms:  # each alarm's "the risk would be a–b" lies inside the tile's range
        a, b = map(float, RANGE.search(text.split("would be")[1]).groups())
        assert low <= a and b <= high, (text, low, high)
    expect(summary(page).get_by_test_id("stMetric").filter(has_text="guesses assumed")
           ).to_have_count(1)
    page.set_viewport_size({"width": 700, "height": 900})
    settled(page)
    alarms_inside(page, 900)
    page.screenshot(path=artifacts_dir / "guesses-pima-700x900.png")
    assert dialogs == []
