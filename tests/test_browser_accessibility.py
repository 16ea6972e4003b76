"""Readable by everyone (issue 39, item 1), in Debian Chromium: axe-core's WCAG 2.0/2.1 A and AA
rules over every page in its main states, the charts' own text (which axe does not check: it
is SVG) at 4.5 : 1 or more, every chart and drawing with a text alternative, and a walk with
the keyboard alone from Home to a downloaded record."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser_helpers import check, settled
from tests.test_browser_flows import TIMEOUT, go_to
from tests.test_browser_glance import summary
from tests.test_browser_guesses import DEFAULT, SLOW, TYPED, tile

pytestmark = pytest.mark.browser

def test_every_page_in_its_main_states_passes_axe_core(page, dialogs):
    page.set_viewport_size({"width": 1400, "height": 900})
    seen = {}
    page.goto("/")
    expect(page.get_by_role("button", name=DEFAULT)).to_be_visible(timeout=SLOW)
    check(page, "home, nothing trained", seen)
    page.get_by_role("button", name=DEFAULT).click(timeout=SLOW)
    expect(summary(page).locator(".js-plotly-plot").first).to_be_visible(timeout=SLOW)
    check(page, "a row explained", seen)
    main = page.get_by_test_id("stMain")
    main.get_by_text("New patient", exact=True).click(timeout=3 * TIMEOUT)
    expect(main.get_by_role("button", name="Explain this patient")).to_be_visible(
        timeout=3 * TIMEOUT)
    check(page, "the new-patient form", seen)
    main.get_by_text("Several new patients (CSV)", exact=True).click(timeout=3 * TIMEOUT)
    check(page, "several patients", seen)
    for name in ("Data", "Train", "Forest", "Models", "Paper lab", "Audit"):
        go_to(page, name)
        check(page, name, seen)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Home", exact=True).click()
    expect(page.get_by_role("button", name=DEFAULT)).to_be_visible(timeout=SLOW)
    check(page, "home, a model trained", seen)
    page.get_by_role("button", name="See attention at work").click(timeout=SLOW)
    expect(page.locator(".st-key-lesson .js-plotly-plot").first).to_be_visible(timeout=SLOW)
    check(page, "the teacher's lesson", seen)
    assert {state: found for state, found in seen.items()
            if any(found.values())} == {}
    assert dialogs == []


def tab_to(page: Page, role: str, name: str, limit: int = 80, key: str = "Tab") -> int:
    """Press ``key`` (Tab, or Shift+Tab to go back) until the focused element is the ``role``
    named ``name``; the presses."""
    target = page.get_by_role(role, name=name, exact=True).first
    expect(target).to_be_visible(timeout=3 * TIMEOUT)
    for presses in range(1, limit + 1):
        page.keyboard.press(key)
        if target.evaluate("e => e === document.activeElement || e.contains("
                           "document.activeElement)"):
            return presses
    raise AssertionError(f"{name} not reached in {limit} presses of {key}")


def test_the_keyboard_alone_reaches_an_explanation_a_new_patient_and_the_record(page, dialogs):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto("/")
    presses = {"main button": tab_to(page, "button", DEFAULT)}
    page.keyboard.press("Enter")
    heading = summary(page).get_by_test_id("stHeading")
    expect(heading).to_be_visible(timeout=SLOW)
    settled(page)
    first = heading.inner_text()
    presses["row picker"] = tab_to(page, "combobox", "Held-out row (ID · predicted risk · "
                                                     "recorded outcome)")
    page.keyboard.press("ArrowDown")  # opens the list on the row shown
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(heading).not_to_have_text(first, timeout=3 * TIMEOUT)
    settled(page)
    presses["how to pick"] = tab_to(page, "radio", "Held-out rows, highest predicted risk first",
                                    key="Shift+Tab")  # above the row picker
    for _ in range(3):  # the radio group's arrows: by ID, what-if, new patient
        page.keyboard.press("ArrowRight")
    first_field = next(iter(TYPED))
    presses["form"] = tab_to(page, "spinbutton", first_field)
    for column, value in TYPED.items():
        field = page.get_by_role("spinbutton", name=column)
        if not field.evaluate("e => e === document.activeElement"):
            tab_to(page, "spinbutton", column)
        page.keyboard.type(value)
    tab_to(page, "button", "Explain this patient")
    page.keyboard.press("Enter")
    expect(heading).to_contain_text("New patient", timeout=3 * TIMEOUT)
    settled(page)
    risk = tile(page, "P(Yes)")
    tab_to(page, "button", "HTML report", key="Shift+Tab")  # the summary is above the form
    with page.expect_download(timeout=3 * TIMEOUT) as done:
        page.keyboard.press("Enter")
    record = done.value.path().read_text(encoding="utf-8")
    assert "<h1>Explanation of a new patient</h1>" in record
    assert f"risk {risk}" in record  # the record of the patient on the screen
    print("Tab presses:", presses)
    assert dialogs == []
