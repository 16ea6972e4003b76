"""What an open, idle Home tab costs: the app server and Debian Chromium with one tab on Home
(whose follow of the model library runs a fragment every second, ``ui.catalog``), CPU seconds
over a quiet window, read from /proc. Measured twice in the same run: as the app runs (its
``.streamlit/config.toml``: no collection after a timer's tick, ``ui.memory``) and with
Streamlit's default, a full collection after every run (``--runner.postScriptGC true``), the
reference; then a tab on the Glossary (no timer) for the floor.

    PYTHONPATH=. .venv/bin/python bench/idle_tab.py [--seconds 30]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.appserver import CHROMIUM_ARGS, AppServer

SETTLE = 20  # s after the page's first run: the default model's first explanation, the warm-up


def cpu_seconds(match) -> float:
    """User and system CPU of every live process whose pid and name ``match`` accepts."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:]
        if match(int(pid), name, fields.split()):
            total += sum(int(x) for x in fields.split()[11:13])
    return total / os.sysconf("SC_CLK_TCK")


def in_group(group: int):
    """Processes of the server's session (the server, its forkserver and workers)."""
    return lambda pid, name, fields: int(fields[3]) == group


def chromium(pid, name, fields) -> bool:
    return name.startswith(("chromium", "chrome"))


def idle_cost(path: str, options: list[str], seconds: float, browser) -> tuple[float, float]:
    """(server, Chromium) CPU seconds over ``seconds`` with one tab on ``path``, idle."""
    with tempfile.TemporaryDirectory() as folder, AppServer(Path(folder), options=options,
                                                            start_timeout=120) as server:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{server.url}/{path}")
        page.get_by_role("heading", level=1).first.wait_for(timeout=120_000)
        time.sleep(SETTLE)
        group = os.getpgid(server.pid)
        server_before, browser_before = cpu_seconds(in_group(group)), cpu_seconds(chromium)
        time.sleep(seconds)
        cost = (cpu_seconds(in_group(group)) - server_before,
                cpu_seconds(chromium) - browser_before)
        context.close()
        return cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=CHROMIUM_ARGS)
        runs = {"Home, as the app runs": idle_cost("", [], args.seconds, browser),
                "Home, Streamlit's collection after every run (reference)": idle_cost(
                    "", ["--runner.postScriptGC", "true"], args.seconds, browser),
                "Glossary (no timer)": idle_cost("glossary", [], args.seconds, browser)}
        browser.close()
    for name, (server, chrome) in runs.items():
        print(f"{name}: server {server:.2f} CPU-s, Chromium {chrome:.2f} CPU-s "
              f"in {args.seconds:.0f} s")
    floor = runs["Glossary (no timer)"][0]
    now = runs["Home, as the app runs"][0] - floor
    before = runs["Home, Streamlit's collection after every run (reference)"][0] - floor
    print(f"the server's cost of the follow, over an idle tab's floor: {now:.2f} CPU-s against "
          f"{before:.2f}: {before / max(now, 0.01):.1f}x less")


if __name__ == "__main__":
    main()
