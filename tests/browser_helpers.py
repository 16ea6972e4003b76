"""Shared steps of the browser tests."""

from playwright.sync_api import Error, Locator, expect

TIMEOUT = 60_000  # ms: a hang guard; the tests run on two loaded cores


def scroll_to(locator: Locator, attempts: int = 5) -> None:
    """Scroll ``locator`` into view once the page's run has ended. A rerun can replace the
    element between finding and scrolling ("not attached to the DOM"): then find it again."""
    page = locator.page
    for attempt in range(attempts):
        expect(page.get_by_test_id("stMain").locator('[data-stale="true"]')).to_have_count(
            0, timeout=TIMEOUT)
        try:
            locator.scroll_into_view_if_needed(timeout=TIMEOUT)
            return
        except Error as error:
            if "not attached" not in str(error) or attempt == attempts - 1:
                raise
