"""Shared steps of the browser tests: scrolling to an element, waiting for a page's run to
settle, opening an expander, and the accessibility check of a page (axe-core, the charts'
text, text alternatives: issue 39)."""

import re

from axe_playwright_python.base import AXE_FILE_PATH
from playwright.sync_api import Browser, BrowserContext, Error, Locator, Page, expect

TIMEOUT = 60_000  # ms: a hang guard; the tests run on two loaded cores
TOP = "() => { window.scrollTo(0, 0); for (const el of document.querySelectorAll('*')) " \
      "{ if (el.scrollTop) el.scrollTop = 0; } }"

# CSS animations and transitions off in the tests' pages, as Playwright's screenshots turn them
# off: headless Chromium otherwise drew Streamlit's spinners at 60 frames a second while a page
# ran, half its CPU in a wait on the server (docs/performance.md, "Session 27")
STILL_PAGES = """addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = "*, *::before, *::after"
    + " { animation: none !important; transition: none !important; }";
  document.head.append(style);
});"""


def still_context(browser: Browser, **options) -> BrowserContext:
    """``browser.new_context(**options)`` whose pages have :data:`STILL_PAGES`."""
    context = browser.new_context(**options)
    context.add_init_script(STILL_PAGES)
    return context


def run_ended(page: Page, timeout: float = TIMEOUT) -> None:
    """Wait until the page's run has ended: the app's root says its script is not running (a
    click that asks for a rerun says so at once), and no element of an earlier run is left
    stale. Streamlit's running icon is no sign: under load it shows seconds into a run."""
    page.wait_for_timeout(300)
    expect(page.get_by_test_id("stApp")).to_have_attribute(
        "data-test-script-state", "notRunning", timeout=timeout)
    expect(page.get_by_test_id("stMain").locator('[data-stale="true"]')).to_have_count(
        0, timeout=timeout)


def choose(page: Page, box: str, option: str, timeout: float = TIMEOUT) -> None:
    """Pick ``option`` in the select box labelled ``box``, typed into its search so that the
    option is drawn whatever the length of the list, then wait for the run it starts."""
    combobox = page.get_by_test_id("stMain").get_by_role("combobox", name=box, exact=True)
    combobox.click(timeout=timeout)
    combobox.press_sequentially(option)
    page.get_by_role("option", name=option, exact=True).click(timeout=timeout)
    expect(combobox).to_have_value(option, timeout=timeout)
    run_ended(page, timeout)


def settled(page: Page) -> None:
    """Wait for the page's run to end, then scroll every scrolled box back to its top."""
    run_ended(page, 3 * TIMEOUT)
    page.wait_for_timeout(1000)
    page.evaluate(TOP)
    page.wait_for_timeout(300)


TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")
# Violations that come from Streamlit's own markup, each with its upstream issue
# (docs/accessibility.md); none at Streamlit 1.67 in the states the tests scan
UPSTREAM: dict[str, str] = {}
RUN_AXE = """async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags},
    resultTypes: ['violations']})).violations.map(v => [v.id, v.impact,
    v.nodes.map(n => n.html.slice(0, 120))])"""
# WCAG 2.1's contrast of each chart text's fill (its opacity laid over the white page)
CHART_CONTRAST = """() => {
  const lum = c => c.slice(0, 3).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + [0.2126, 0.7152, 0.0722][i] * v, 0);
  return [...document.querySelectorAll('.js-plotly-plot text')]
    .filter(t => t.textContent.trim() && getComputedStyle(t).visibility !== 'hidden')
    .map(t => { const s = getComputedStyle(t); const c = (s.fill.match(/[0-9.]+/g) || [])
        .map(Number); if (c.length < 3) return [t.textContent, 21];
      const a = (c.length > 3 ? c[3] : 1) * Number(s.opacity) * Number(s.fillOpacity);
      const L = a * lum(c) + (1 - a);
      return [t.textContent.slice(0, 40), 1.05 / (L + 0.05)]; });
}"""
# how a computer prints a number, never a person: "2.3e+02", "881.2115099303014"
MACHINE_NUMBER = re.compile(r"\d(?:\.\d+)?[eE][+-]?\d+\b|\d\.\d{7,}")
DESCRIBED = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]
    .map(e => e.getAttribute('aria-label') || '')
    .concat([...document.querySelectorAll('[data-testid=stMain] img')]
    .map(e => e.getAttribute('alt') || ''))"""


def check(page: Page, state: str, seen: dict) -> None:
    """axe-core over the page as it stands, the charts' text contrast and their text
    alternatives; the findings kept under ``state``."""
    settled(page)
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=AXE_FILE_PATH)
    found = page.evaluate(RUN_AXE, TAGS)
    seen[state] = {
        "violations": [(rule, impact, nodes) for rule, impact, nodes in found
                       if impact in BLOCKING and rule not in UPSTREAM],
        "low contrast": [(text, round(ratio, 2)) for text, ratio in page.evaluate(CHART_CONTRAST)
                         if ratio < 4.5],
        "no text": sum(not text.strip() for text in page.evaluate(DESCRIBED)),
        "machine numbers": MACHINE_NUMBER.findall(page.get_by_test_id("stMain").inner_text()),
    }


# An expander's <details> opened and still: Streamlit animates its height (a Web Animation,
# then its own handler sets the height), and until then what lies below it moves
STILL_OPEN = "d => d.open && d.getAnimations({subtree: true}).length === 0 " \
             "&& d.clientHeight >= d.scrollHeight"


def open_expander(scope: Locator, label: str, timeout: float = TIMEOUT) -> None:
    """Open the expander ``label`` in ``scope`` and wait until it stands still. A click on a
    button below it while it grows can land elsewhere: in a browser context with a second
    page open, the animation started up to 2 s after the click and the height stood back at
    its start for seconds after it, and a form's submit button moved between the press and
    the release, so the click was lost (seen in the two-replica browser test)."""
    expander = scope.get_by_test_id("stExpander").filter(has_text=label)
    expander.get_by_text(label, exact=True).click(timeout=timeout)
    details = expander.locator("details").element_handle(timeout=timeout)
    scope.page.wait_for_function(STILL_OPEN, arg=details, timeout=timeout)


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
