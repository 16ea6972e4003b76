"""Home's lesson walked in Debian Chromium as a student would (issue 39, item 4): the step
indicator, each step's view for its row, Next and Back, axe-core's WCAG 2.1 A/AA rules on a
step and on the Glossary page (tests/browser_helpers.py's check), and the Paper lab's
Decision Machine drawing across the page at 1400 px."""

import re

import pytest
from playwright.sync_api import Page, expect

from forestviz.app.lesson import TITLES
from tests.browser_helpers import check
from tests.test_browser_flows import TIMEOUT, TRAIN_TIMEOUT, go_to
from tests.test_browser_guesses import settled

pytestmark = pytest.mark.browser

# what each step's view draws: a chart's title, or the element the view is
VIEWS = {1: ".js-plotly-plot", 2: ".js-plotly-plot", 3: ".js-plotly-plot", 4: "img",
         5: "[data-testid=stDataFrame]"}


def test_a_student_walks_the_lesson_alone(page: Page, dialogs, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 900})  # a step is taller than the window
    page.goto("/")
    page.get_by_role("button", name="See attention at work").click(timeout=TIMEOUT)
    lesson = page.locator(".st-key-lesson")
    bar = lesson.get_by_role("progressbar")
    seen = {}
    for step, title in enumerate(TITLES, start=1):
        expect(lesson).to_contain_text(f"Step {step} of 5: {title}", timeout=TRAIN_TIMEOUT)
        expect(bar).to_have_attribute("aria-valuenow", re.compile(f"^{20 * step}(\\.0)?$"))
        expect(bar).to_be_in_viewport(ratio=1, timeout=TIMEOUT)  # the sentence in view, not Next
        expect(lesson.locator(VIEWS[step]).first).to_be_visible(timeout=TIMEOUT)
        expect(lesson.get_by_role("button", name="Back")).to_be_enabled(enabled=step > 1)
        expect(lesson.get_by_role("button", name="Next")).to_be_enabled(enabled=step < 5)
        if step == 3:
            expect(lesson.get_by_role("slider", name="ε (contamination)")).to_be_visible()
            check(page, "a lesson step", seen)
            lesson.screenshot(path=artifacts_dir / "lesson-step-3-1400.png")
        if step < 5:
            lesson.get_by_role("button", name="Next").click()
    lesson.get_by_role("button", name="Back").click()
    expect(lesson).to_contain_text(f"Step 4 of 5: {TITLES[3]}", timeout=TIMEOUT)
    lesson.get_by_role("button").filter(has_text="on Explain").click()
    expect(page.get_by_role("heading", name="Explain", exact=True)).to_be_visible(
        timeout=TIMEOUT)
    go_to(page, "Glossary")
    expect(page.get_by_role("heading", name="Audit trail events")).to_be_visible(
        timeout=TIMEOUT)
    check(page, "the glossary", seen)
    assert {state: found for state, found in seen.items() if any(found.values())} == {}
    assert dialogs == []


def test_the_decision_machine_drawing_reads_at_1400_px(page: Page, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto("/")
    go_to(page, "Paper lab")
    drawing = page.locator(".st-key-lab_dm_drawing img")
    drawing.scroll_into_view_if_needed(timeout=3 * TIMEOUT)
    settled(page)
    drawing.scroll_into_view_if_needed(timeout=TIMEOUT)
    width = drawing.bounding_box()["width"]
    content = page.get_by_test_id("stMainBlockContainer").evaluate(
        "e => { const s = getComputedStyle(e); return e.clientWidth - parseFloat(s.paddingLeft)"
        " - parseFloat(s.paddingRight); }")
    # across the page's content (it was in a column of 3/5 of it), and its smallest text (9 pt,
    # 12 px at the drawing's own size) at 11 px or more (it was 4.4 px)
    assert width >= 0.95 * content, (width, content)
    natural = drawing.evaluate("img => img.naturalWidth")
    assert 12 * width / natural >= 11, (width, natural)
    drawing.screenshot(path=artifacts_dir / "decision-machine-1400.png")
