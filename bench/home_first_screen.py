"""Home's promise (issue 35): seconds from a click on "Train the default model and explain a
row" to the explanation's first screen (the summary's probability tile and its chart of
reasons) in Debian Chromium at 1400 × 900, against a fresh server each time (the app's
command, ``bench/appserver.py``), the button clicked as soon as Home shows; printed with the
load average and as a ratio to what Home's caption promises
(``forestviz.app.families.DEFAULT_FIRST_SCREEN_SECONDS``).

    PYTHONPATH=. .venv/bin/python -m forestviz.app.model_cache   # as `make run` does
    PYTHONPATH=. .venv/bin/python bench/home_first_screen.py [RUNS]

Without the default model's file for this code (``forestviz.app.model_cache``, named by the
hash of the library's code) the server trains the model first and the click waits for it.
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from bench.appserver import CHROMIUM_ARGS, AppServer
from forestviz.app.families import DEFAULT_FIRST_SCREEN_SECONDS

BUTTON = "Train the default model and explain a row"
TIMEOUT_MS = 180_000
# the summary's tile and its chart are drawn (the rest of the page may still be running)
FIRST_SCREEN = """() => {
    const summary = document.querySelector('.st-key-explain_summary');
    return !!summary && summary.innerText.includes('P(Yes)')
        && [...summary.querySelectorAll('.js-plotly-plot')].some(
            (chart) => chart.textContent.includes('Reasons both ways'));
}"""


def one_run(browser, folder: Path) -> tuple[float, float]:
    """(launch → Home ready, click → first screen) seconds against a fresh server."""
    with AppServer(folder) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(server.url)
        button = page.get_by_test_id("stMain").get_by_role("button", name=BUTTON)
        button.wait_for(timeout=TIMEOUT_MS)
        home = time.monotonic() - server.started
        clicked = time.monotonic()
        button.click()
        try:
            page.wait_for_function(FIRST_SCREEN, polling="raf", timeout=TIMEOUT_MS)
        except PlaywrightError:
            page.screenshot(path=folder / "timeout.png", full_page=True)
            shutil.copy(folder / "timeout.png", Path(tempfile.gettempdir()) / "home-timeout.png")
            raise
        shown = time.monotonic() - clicked
        context.close()
    return home, shown


def main(runs: int) -> None:
    quiet, busy = DEFAULT_FIRST_SCREEN_SECONDS
    chromium = shutil.which("chromium")
    with tempfile.TemporaryDirectory(prefix="home-first-screen-") as tmp, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        for run in range(runs):
            load = os.getloadavg()[0]
            folder = Path(tmp) / str(run)
            folder.mkdir()
            home, shown = one_run(browser, folder)
            print(f"run {run + 1} (load {load:.1f}): launch → Home {home:.2f} s; click → first "
                  f"screen {shown:.2f} s = {shown / quiet:.2f}× the quiet promise ({quiet} s), "
                  f"{shown / busy:.2f}× the busy one ({busy} s)", flush=True)
        browser.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
