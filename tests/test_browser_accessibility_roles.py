"""axe-core per role (issue 39, item 1): signed in through a real OpenID Connect provider as a
viewer, an analyst and an admin (tests/test_browser_signin.py's provider and app), each in a
browser context of its own, every page of the role's navigation scanned once, with
tests/browser_helpers.py's check (WCAG 2.0/2.1 A and AA rules, the charts' text contrast,
text alternatives, numbers as a person reads them): Home before a model is open, Explain with
a published model's row explained and its new-patient form, then each other page with the
model open. The model is published into the app's library before the walks (no training in
the browser). On the same app, signed in as an analyst, a rerun inside a page (a number typed
on Explain and Enter pressed) leaves the focus on the field (issue 39's focus, with
``tests/test_browser_focus.py``)."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser_helpers import check, settled
from tests.store_helpers import library_at, trained
from tests.test_browser_flows import TIMEOUT, go_to
from tests.test_browser_focus import expect_heading_focused
from tests.test_browser_glance import summary
from tests.test_browser_guesses import SLOW
from tests.test_browser_signin import (
    USERS,
    expect_signed_in,
    navigation,
    oidc_provider,
    serve_with_signin,
    sign_in,
)
from ui.access import allowed_pages

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROLES = {"viewer": "vera", "analyst": "anna", "admin": "adam"}  # role → a user of USERS


@pytest.fixture(scope="module")
def published_app(tmp_path_factory):
    """The app with sign-in, and a model published in its library for every role to open."""
    with oidc_provider(USERS) as provider, serve_with_signin(
            provider, tmp_path_factory.mktemp("roles")) as app:
        library_at(app["data_dir"]).publish(
            trained(), name="Pima risk", intended_use="Teaching: the accessibility scan")
        yield app


@pytest.mark.parametrize("role", list(ROLES))
def test_every_page_of_each_role_passes_axe_core(published_app, page, dialogs, role):
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, published_app["url"], ROLES[role])
    expect_signed_in(page, ROLES[role], role)
    pages = navigation(page)
    assert len(pages) == len(allowed_pages(role))  # the scan below covers each one
    main = page.get_by_test_id("stMain")
    open_button = main.get_by_role("button", name=re.compile(r"^Open Pima risk"))
    expect(open_button).to_be_visible(timeout=SLOW)
    seen = {}
    check(page, "Home, no model open", seen)
    open_button.click()
    expect(summary(page).locator(".js-plotly-plot").first).to_be_visible(timeout=SLOW)
    check(page, "Explain, a row explained", seen)
    main.get_by_text("New patient", exact=True).click(timeout=3 * TIMEOUT)
    expect(main.get_by_role("button", name="Explain this patient")).to_be_visible(
        timeout=3 * TIMEOUT)
    check(page, "Explain, the new-patient form", seen)
    others = [name for name in pages if name not in ("Home", "Explain")]
    for name in others:
        go_to(page, name)
        check(page, name, seen)
    print(f"{role}: scanned", list(seen))
    assert {state: found for state, found in seen.items() if any(found.values())} == {}
    assert dialogs == []


def test_a_number_typed_on_explain_keeps_the_focus_on_its_field(
        published_app, page, dialogs):
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
