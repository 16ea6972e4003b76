"""Focus after a page switch (issue 39), in Debian Chromium: switched with the keyboard from
the navigation, or by a button that opens another page, the new page's heading holds the focus
(a keyboard or screen-reader user reads on from there, not from the top of the body); a rerun
inside a page (a number typed and Enter pressed) leaves the focus on the field. The second test
opens a model published before it (tests/test_browser_accessibility_roles.py's app, signed in
as an analyst), so no training waits in the browser."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser_helpers import settled
from tests.test_browser_accessibility import tab_to
from tests.test_browser_accessibility_roles import published_app  # noqa: F401 (a fixture)
from tests.test_browser_flows import TIMEOUT
from tests.test_browser_glance import summary
from tests.test_browser_guesses import SLOW
from tests.test_browser_signin import sign_in

pytestmark = pytest.mark.browser


def heading(page: Page, name: str):
    return page.get_by_test_id("stMain").get_by_role("heading", level=1, name=name, exact=True)


def expect_heading_focused(page: Page, name: str) -> None:
    """The page ``name``'s h1 holds the focus, focusable from a script only (no Tab stop)."""
    expect(heading(page, name)).to_be_focused(timeout=3 * TIMEOUT)
    assert heading(page, name).get_attribute("tabindex") == "-1"


def test_a_page_switched_with_the_keyboard_puts_the_focus_on_its_heading(page, dialogs):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto("/")
    expect(heading(page, "forestviz")).to_be_visible(timeout=SLOW)
    settled(page)
    assert page.evaluate("() => document.activeElement === document.body")  # opened: no switch
    tab_to(page, "link", "Glossary")  # the navigation, in the sidebar
    page.keyboard.press("Enter")
    expect_heading_focused(page, "Glossary")
    tab_to(page, "link", "Data", key="Shift+Tab")  # back from the heading to the navigation
    page.keyboard.press("Enter")
    expect_heading_focused(page, "Data")
    settled(page)
    expect_heading_focused(page, "Data")  # kept once the page's run has ended
    page.wait_for_timeout(1000)  # a late redraw drops it to the body; the script takes it back
    expect_heading_focused(page, "Data")
    page.keyboard.press("Tab")  # on from the heading: the page's first control, not the top
    assert page.evaluate("() => document.getElementById('stSidebar')?.contains("
                         "document.activeElement) !== true && document.querySelector("
                         "'[data-testid=stMain]').contains(document.activeElement)")
    assert dialogs == []


def test_a_number_typed_on_explain_keeps_the_focus_on_its_field(
        published_app, page, dialogs):  # noqa: F811 (the fixture imported above)
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, published_app["url"], "anna")
    main = page.get_by_test_id("stMain")
    opening = main.get_by_role("button", name=re.compile(r"^Open Pima risk"))
    expect(opening).to_be_visible(timeout=SLOW)
    opening.focus()
    page.keyboard.press("Enter")  # opens the published model on Explain: a page switch
    expect(summary(page).get_by_test_id("stHeading")).to_be_visible(timeout=SLOW)
    expect_heading_focused(page, "Explain")
    settled(page)
    main.get_by_text("New patient", exact=True).click(timeout=3 * TIMEOUT)
    field = main.get_by_role("spinbutton", name="Pregnancies")
    field.click(timeout=3 * TIMEOUT)
    page.keyboard.type("3")
    page.keyboard.press("Enter")  # submits the form: a rerun inside the page, on its path
    expect(summary(page).get_by_test_id("stHeading")).to_contain_text(
        "New patient", timeout=3 * TIMEOUT)
    settled(page)
    page.wait_for_timeout(1000)  # the script looks every 150 ms
    expect(field).to_be_focused()
    assert dialogs == []
