"""How fast the dashboard answers, in Debian Chromium against fresh servers (issues 15 and 16):
a blank Streamlit app's start (plain ``streamlit run``) and forestviz's first page (the app's
command, ``python -m ui.launch run app.py``), with the same options in the same run;
the Home button to the first explained row (at once, and for a later visitor, when the
server has loaded the default model); row changes on the Explain page; and slider
changes in the Paper lab. The figures are printed (run with ``-s``) and recorded in
docs/performance.md with the machine's load, from this test run alone; the bounds asserted
here are only generous ones, safe on a loaded 2-core machine, so ``make test`` runs it beside
another browser test.

A page is done when Streamlit says its script (or fragment) run has finished
(``data-test-script-state`` of the app element), no element of the previous run is left
stale and every image on it has loaded; the page is polled at every animation frame, so a
figure is not rounded up to a polling interval.
"""

import os
import statistics
import time

import pytest
from playwright.sync_api import Page, expect

from bench.appserver import STREAMLIT, AppServer
from tests.test_browser_flows import TIMEOUT, expect_explanation, go_to

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BLANK_APP = 'import streamlit as st\n\nst.write("A blank app.")\n'
# row changes on Explain and steps of each Paper lab slider: one each in `make test`, where the
# figures are only checked against hang detectors; the medians docs/performance.md records
# are of FORESTVIZ_SPEED_ROWS=10 FORESTVIZ_SPEED_STEPS=5 (each change costs about 1.5 CPU-s)
ROW_CHANGES = int(os.environ.get("FORESTVIZ_SPEED_ROWS", "1"))
SLIDER_STEPS = int(os.environ.get("FORESTVIZ_SPEED_STEPS", "1"))
VIEWPORT = {"width": 1400, "height": 2000}

# Records the app's script-run states (running, notRunning, ...) from now on: each change's
# old and new value (one observer callback can carry several changes), and when it started.
WATCH_RUNS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    window.fvRuns = [];
    window.fvSince = performance.now();
    if (!window.fvWatching) {
        new MutationObserver((changes) => {
            for (const change of changes) window.fvRuns.push(change.oldValue);
            window.fvRuns.push(app.dataset.testScriptState);
        }).observe(app, {attributes: true, attributeOldValue: true,
                         attributeFilter: ["data-test-script-state"]});
        window.fvWatching = true;
    }
}"""
# A fast fragment run can start and end before the page renders it as "running" at all (React
# renders the two state changes at once when the second arrives first on a busy machine): then
# no run is seen, and a quiet page this long after the action counts as done, its time an upper
# bound rather than a failure after a minute of waiting.
UNSEEN_RUN_MS = 3000
# A run that started after WATCH_RUNS has ended, and the page shows all of it. ``text``: the
# main area must also hold this text (null: anything).
DONE = """(text) => {
    const app = document.querySelector('[data-testid="stApp"]');
    const main = document.querySelector('[data-testid="stMain"]');
    if (!app || !main || !window.fvRuns) return false;
    if (!window.fvRuns.includes("running")
        && performance.now() - window.fvSince < UNSEEN_RUN_MS) return false;
    if (app.dataset.testScriptState !== "notRunning") return false;
    if (main.querySelector('[data-stale="true"]')) return false;
    if (text !== null && !main.innerText.includes(text)) return false;
    return [...main.querySelectorAll('[data-testid="stImage"] img')].every(
        (img) => img.complete && img.naturalWidth > 0);
}""".replace("UNSEEN_RUN_MS", str(UNSEEN_RUN_MS))
# The first page: the text is there and the first run has ended (no watcher needed).
SHOWN = """(text) => {
    const app = document.querySelector('[data-testid="stApp"]');
    const main = document.querySelector('[data-testid="stMain"]');
    return !!app && !!main && app.dataset.testScriptState === "notRunning"
        && main.innerText.includes(text);
}"""


def first_page(page: Page, server: AppServer, text: str) -> float:
    """Seconds from the server's launch to its first page showing ``text``."""
    page.goto(server.url)
    page.wait_for_function(SHOWN, arg=text, polling="raf", timeout=TIMEOUT)
    return time.monotonic() - server.started


def timed(page: Page, action, text: str | None = None) -> float:
    """Seconds from ``action()`` to the end of the run it starts (see the module's note)."""
    page.evaluate(WATCH_RUNS)
    started = time.monotonic()
    action()
    page.wait_for_function(DONE, arg=text, polling="raf", timeout=TIMEOUT)
    return time.monotonic() - started


def change_row(page: Page, row: int) -> float:
    """Ask the Explain page for row number ``row`` (the bundled table's IDs are P0001, ...)."""
    field = page.get_by_test_id("stMain").get_by_label("ID, or row number")
    field.fill(str(row))
    return timed(page, lambda: field.press("Enter"), f"Row P{row + 1:04d}")


def move_slider(page: Page, name: str, index: int = 0) -> float:
    """One step right on the Paper lab's slider ``name`` (the ``index``-th of that name)."""
    slider = page.get_by_test_id("stMain").get_by_role("slider", name=name).nth(index)
    slider.scroll_into_view_if_needed()
    slider.focus()
    return timed(page, lambda: slider.press("ArrowRight"))


def test_cold_start_and_snappy_pages(browser, artifacts_dir, tmp_path):
    (tmp_path / "blank.py").write_text(BLANK_APP)
    (tmp_path / "blank").mkdir()
    with AppServer(tmp_path / "blank", script=tmp_path / "blank.py", head=STREAMLIT) as server:
        context = browser.new_context(viewport=VIEWPORT)
        blank = first_page(context.new_page(), server, "A blank app.")
        context.close()

    (tmp_path / "app").mkdir()
    with AppServer(tmp_path / "app") as server:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        home = first_page(page, server, "Train the default model and explain a row")
        button = page.get_by_test_id("stMain").get_by_role(
            "button", name="Train the default model and explain a row")
        clicked = time.monotonic()
        explained = timed(page, button.click, "most similar training rows")
        launch_to_row = time.monotonic() - server.started
        expect_explanation(page, "P(Yes)")
        page.screenshot(path=artifacts_dir / "speed-first-row.png", full_page=True)

        page.get_by_test_id("stMain").get_by_text("By ID or row number").click()
        expect(page.get_by_test_id("stMain").get_by_label("ID, or row number")).to_be_visible(
            timeout=TIMEOUT)
        rows = [change_row(page, row) for row in range(3, 3 + ROW_CHANGES)]

        go_to(page, "Paper lab")
        expect(page.get_by_test_id("stMain").get_by_test_id("stImage").locator("img")
               ).to_be_visible(timeout=TIMEOUT)
        page.wait_for_function(SHOWN, arg="h for this row", polling="raf", timeout=TIMEOUT)
        sliders = {name: [move_slider(page, name, index) for _ in range(SLIDER_STEPS)]
                   for name, index in (("ε (contamination)", 0), ("Row of Friedman 1", 0),
                                       ("Clinical row", 1))}
        page.screenshot(path=artifacts_dir / "speed-lab.png", full_page=True)
        assert page.get_by_test_id("stException").count() == 0
        context.close()

        # a later visitor: the server loaded the default model once, from its start
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function(SHOWN, arg="Train the default model and explain a row",
                               polling="raf", timeout=TIMEOUT)
        later = timed(page, page.get_by_test_id("stMain").get_by_role(
            "button", name="Train the default model and explain a row").click,
            "most similar training rows")
        expect_explanation(page, "P(Yes)")
        context.close()

    print(f"\nblank Streamlit app: launch → first page {blank:.2f} s")
    print(f"forestviz: launch → first page {home:.2f} s; Home button → first explained row "
          f"{explained:.2f} s (launch → explained row {launch_to_row:.2f} s, "
          f"{clicked - server.started - home:.2f} s of it between page and click)")
    print(f"a later visitor: Home button → first explained row {later:.2f} s (the default "
          "model loaded once by the server)")
    print(f"Explain, {ROW_CHANGES} row changes: median {statistics.median(rows):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in rows)})")
    for name, times in sliders.items():
        print(f"Paper lab, slider '{name}': median {statistics.median(times):.2f} s "
              f"({', '.join(f'{s:.2f}' for s in times)})")
    every_slider = [s for times in sliders.values() for s in times]
    print(f"Paper lab, every slider step: median {statistics.median(every_slider):.2f} s")
    # hang detectors only, at least 10x the quiet figures (3.6-3.8 s, 5.4-6.0 s, 0.7-0.9 s,
    # 0.9-1.0 s, 0.3-0.5 s): the targets are in docs/performance.md
    assert home < 40 and launch_to_row < 90 and later < 30
    assert statistics.median(rows) < 10 and statistics.median(every_slider) < 10
