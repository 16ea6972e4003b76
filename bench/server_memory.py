"""Server memory with large uploads from separate browser sessions (the upload-budget issue).

    PYTHONPATH=. .venv/bin/python bench/server_memory.py [--quick] [--budget-mb 512]
        [--files N] [--file-mb S] [--ttl 10] [--slack-mb 256] [--probe] [--server-env N=V]

The issue: five distinct 105 MB CSVs uploaded from five sessions, each closed after its
preview, took the server from 843 MB to 2,820 MB resident, for good. This script repeats that
against its own server (``python -m ui.launch run app.py`` on a free loopback port, with
``FORESTVIZ_UPLOAD_BUDGET_MB`` and ``--server.disconnectedSessionTTL`` set from the command
line) driven by Debian Chromium through Playwright:

1. ``N`` distinct CSVs of ``S`` MB (numbers, a text column, a yes/no label; one seed each) are
   written to a temporary folder (default 5 x 100 MB; ``--quick``: 3 x 20 MB);
2. a first session opens Home and the Data page and is closed: the **baseline** is the
   server's resident memory (VmRSS) after it;
3. for each file, a new browser context opens the Data page, uploads the file and waits until
   its data set is in use (the "Rows" figure under "Data set in use", the page's last
   element: closing the tab earlier stops the run before the data set is built) or refused
   (an error alert: the budget may refuse an upload, which is correct; the outcome is
   recorded, and whether the preview was shown), and closes the context;
4. after the last close, the script waits ``ttl`` + a margin (the sessions' state should be
   dropped), samples, then opens and closes one more session and samples again: Streamlit
   evicts expired sessions lazily (``MemorySessionStorage`` keeps disconnected sessions in a
   ``TTLCache`` that drops expired entries only when written to, i.e. when another session
   disconnects; the evicted session's ``__del__`` then removes its uploaded files), and the
   app nudges it one second after the TTL (``ui.session_end``): the first sample shows
   whether that worked on a quiet server, the second what another session would add.

A thread samples VmRSS of the server process every 0.5 s throughout; the forkserver of the
training pool and its workers are reported separately (they are other processes). The peak of
each parse is the server's VmHWM after the upload (reset before it through
``/proc/<pid>/clear_refs`` when allowed) minus its VmRSS just before, as a multiple of the
file size. The verdict: growth = final - baseline <= budget + slack (``--slack-mb``, 256 by
default: see docs/performance.md, "Server memory with uploads").

``--probe`` runs the same server through a small wrapper that also reports, every 0.5 s, what
stays inside it: bytes in Streamlit's uploaded-file manager, sessions active and stored for
reconnection, bytes the upload budget tracks (and the files it shares), pyarrow's allocated bytes.
At the end it also asks the server for ``gc.collect()``, pyarrow's pools'
``release_unused()`` and glibc's ``malloc_trim(0)`` and samples once more: what the allocators
keep but could give back (not counted in the verdict, which is about the server as it runs).
``--server-env NAME=VALUE`` sets a variable in the server's environment only, e.g. glibc's
``MALLOC_ARENA_MAX=2`` or ``MALLOC_MMAP_THRESHOLD_=4194304``. Linux only. Every wait is
bounded and the server (its process group) is killed at the end, whatever happens.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
from pyarrow import csv as pa_csv

from bench.appserver import CHROMIUM_ARGS, AppServer, descendants, reset_peak, status

MB = 2**20  # the app's "MB" (the budget, the upload limit) are mebibytes
START_TIMEOUT = 90.0  # s: server start to its first health answer
STEP_TIMEOUT = 240_000  # ms: one page step (a 100 MB upload parsed on two busy cores)
SAMPLE_EVERY = 0.5  # s
SETTLE = 3.0  # s: after a close, before a sample
WORDS = np.array(["north", "south", "east", "west", "centre", "harbour", "hill", "river"])

PROBE = Path(__file__).with_name("server_probe.py")



# --------------------------------------------------------------------------- files


def write_csv(path: Path, megabytes: float, seed: int) -> int:
    """About ``megabytes`` MB of CSV: an id, six decimals, a count, a text column and a yes/no
    label, from ``seed`` (distinct seeds give distinct files); returns the number of rows."""
    rng = np.random.default_rng(seed)
    options = pa_csv.WriteOptions(include_header=True, quoting_style="needed")
    sample = pa.BufferOutputStream()
    pa_csv.write_csv(_chunk(np.random.default_rng(seed), 0, 10_000, seed), sample, options)
    total = max(10, int(megabytes * MB / (sample.getvalue().size / 10_000)))
    with pa_csv.CSVWriter(path, _chunk(rng, 0, 1, seed).schema, write_options=options) as out:
        for start in range(0, total, 200_000):
            out.write_table(_chunk(rng, start, min(200_000, total - start), seed))
    return total


def _chunk(rng, start: int, n: int, seed: int) -> pa.Table:
    x = rng.normal(0, 100, (n, 6)).round(3)
    note = np.char.add(np.char.add(WORDS[rng.integers(0, WORDS.size, n)], " ward "),
                       rng.integers(0, 100_000, n).astype(str))
    columns = {"id": pa.array(np.arange(start, start + n) + seed * 10_000_000)}
    columns |= {f"x{j}": pa.array(x[:, j]) for j in range(6)}
    columns["count"] = pa.array(rng.integers(0, 1000, n))
    columns["note"] = pa.array(note.tolist(), pa.string())
    columns["outcome"] = pa.array(np.where(x[:, 0] + x[:, 1] > 0, "yes", "no").tolist())
    return pa.table(columns)


# --------------------------------------------------------------------------- the server


class Server(AppServer):
    """The app with the given upload budget and session TTL, optionally through the probe
    wrapper (``probe``), whose statistics it reads."""

    def __init__(self, folder: Path, *, budget_mb: int, ttl: int, probe: bool,
                 env: dict[str, str]):
        self.stats_path = folder / "probe.json" if probe else None
        super().__init__(folder, options=["--server.disconnectedSessionTTL", str(ttl)],
                         env={**env, "FORESTVIZ_UPLOAD_BUDGET_MB": str(budget_mb)},
                         head=[sys.executable, str(PROBE), str(self.stats_path)] if probe
                         else None, start_timeout=START_TIMEOUT)

    def release(self) -> bool:
        """Ask the probe for gc + arrow pools' release_unused + malloc_trim; False if none."""
        if self.stats_path is None:
            return False
        flag = Path(f"{self.stats_path}.release")
        flag.touch()
        deadline = time.monotonic() + 30
        while flag.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # the next stats
        return not flag.exists()

    def probe(self) -> dict:
        if self.stats_path is None:
            return {}
        with contextlib.suppress(OSError, ValueError):
            return json.loads(self.stats_path.read_text())
        return {}


class Sampler(threading.Thread):
    """VmRSS of the server (and of its other processes) every ``SAMPLE_EVERY`` s, by phase."""

    def __init__(self, server: Server):
        super().__init__(daemon=True)
        self.server, self.phase, self.samples = server, "start", []
        self._done = threading.Event()

    def run(self):
        while not self._done.is_set():
            self.sample()
            self._done.wait(SAMPLE_EVERY)

    def sample(self) -> dict:
        pid = self.server.pid
        others = {child: status(child, "VmRSS") for child in descendants(pid)}
        got = {"t": time.monotonic(), "phase": self.phase, "rss": status(pid, "VmRSS"),
               "anon": status(pid, "RssAnon"), "file": status(pid, "RssFile"),
               "others": sum(others.values()), "n_others": len(others),
               **self.server.probe()}
        self.samples.append(got)
        return got

    def peak(self, phase: str) -> int:
        return max((s["rss"] for s in self.samples if s["phase"] == phase), default=0)

    def stop(self):
        self._done.set()
        self.join(timeout=5)


# --------------------------------------------------------------------------- browser


def open_data_page(browser, url: str):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT)
    page.goto(url, timeout=STEP_TIMEOUT)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data", exact=True).click()
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(
        timeout=STEP_TIMEOUT)
    wait_idle(page)
    return context, page


def wait_idle(page) -> None:
    """Until the page's script run has ended (Streamlit's "Running" indicator gone)."""
    from playwright.sync_api import expect

    # The icon (no text: get_by_text("Running") never matches) shows after 500 ms of a run.
    page.wait_for_timeout(600)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(
        0, timeout=STEP_TIMEOUT)


def upload_and_wait(page, path: Path, rows: int) -> str:
    """Upload ``path`` on the Data page and wait until its data set is in use or refused;
    the outcome: "in use", or the refusal's text (with "after the preview" when the file
    was read but its data set was not admitted)."""
    from playwright.sync_api import expect

    main = page.get_by_test_id("stMain")
    main.get_by_text("Upload a CSV").click()
    expect(main.get_by_text("Upload a CSV file to use your own data.")).to_be_visible(
        timeout=STEP_TIMEOUT)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(path)
    # The last element of the page's run: the data set in use ("Rows" = the file's rows), or
    # an error. Closing the tab earlier would stop the run before the data set is built.
    in_use = main.get_by_test_id("stMetric").filter(has_text=f"{rows:,}")
    refusal = main.get_by_test_id("stAlertContentError")
    expect(in_use.or_(refusal).first).to_be_visible(timeout=STEP_TIMEOUT)
    wait_idle(page)
    if refusal.count():
        read = main.get_by_text(f"First rows of {rows:,} ×").count() > 0
        text = " ".join(refusal.first.inner_text().split())
        return ("refused after the preview: " if read else "refused: ") + text
    return "in use"


# --------------------------------------------------------------------------- the run


def mib(nbytes: float) -> str:
    return f"{nbytes / MB:,.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 files of 20 MB")
    parser.add_argument("--files", type=int, help="number of files (default 5; quick 3)")
    parser.add_argument("--file-mb", type=float, help="MB per file (default 100; quick 20)")
    parser.add_argument("--budget-mb", type=int, default=512, help="FORESTVIZ_UPLOAD_BUDGET_MB")
    parser.add_argument("--ttl", type=int, default=10, help="server.disconnectedSessionTTL, s")
    parser.add_argument("--slack-mb", type=int, default=256,
                        help="allowed growth beyond the budget (allocators, imports, caches)")
    parser.add_argument("--margin", type=float, default=5.0, help="s waited beyond the TTL")
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for the server only, e.g. "
                        "MALLOC_ARENA_MAX=2 or MALLOC_MMAP_THRESHOLD_=4194304 (repeatable)")
    parser.add_argument("--probe", action="store_true", help="report what the server holds")
    args = parser.parse_args()
    n_files = args.files or (3 if args.quick else 5)
    file_mb = args.file_mb or (20 if args.quick else 100)
    chromium = shutil.which("chromium")
    if chromium is None:
        print("`chromium` is not on PATH (Debian package `chromium`)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="server-memory-") as tmp:
        folder = Path(tmp)
        started = time.monotonic()
        files = []
        for i in range(n_files):
            path = folder / f"upload-{i + 1}.csv"
            rows = write_csv(path, file_mb, seed=101 + i)
            files.append((path, rows, path.stat().st_size))
        print(f"{n_files} files of about {file_mb:g} MB written in "
              f"{time.monotonic() - started:.0f} s ({files[0][1]:,} rows each)", flush=True)
        env = dict(item.split("=", 1) for item in args.server_env)
        with Server(folder, budget_mb=args.budget_mb, ttl=args.ttl, probe=args.probe,
                    env=env) as server, sync_playwright() as pw:
            sampler = Sampler(server)
            sampler.start()
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                return run(args, server, sampler, browser, files)
            finally:
                sampler.stop()
                browser.close()
                log = server.log.read_text(errors="replace")
                if "Traceback" in log:
                    print("server log:\n" + log[-3000:])


def run(args, server: Server, sampler: Sampler, browser, files) -> int:
    def settle_and_sample(phase: str) -> dict:
        sampler.phase = phase
        time.sleep(SETTLE)
        return sampler.sample()

    context, _ = open_data_page(browser, server.url)  # imports, the bundled data set
    context.close()
    baseline = settle_and_sample("baseline")
    print(f"baseline after a first page load: server {mib(baseline['rss'])} MB, its other "
          f"processes ({baseline['n_others']}) {mib(baseline['others'])} MB", flush=True)
    rows_out, peak_ok = [], reset_peak(server.pid)
    for i, (path, rows, size) in enumerate(files, 1):
        context, page = open_data_page(browser, server.url)
        before = sampler.sample()["rss"]
        reset_peak(server.pid)
        sampler.phase = f"upload {i}"
        began = time.monotonic()
        outcome = upload_and_wait(page, path, rows)
        seconds = time.monotonic() - began
        peak = max(status(server.pid, "VmHWM") if peak_ok else 0, sampler.peak(sampler.phase))
        context.close()
        after = settle_and_sample(f"closed {i}")
        rows_out.append((i, size, seconds, before, peak, after, outcome))
        extra = after.get("budget_tracked_bytes")
        print(f"file {i}: {size / MB:.0f} MB, {seconds:.1f} s, RSS before {mib(before)} MB, "
              f"peak {mib(peak)} MB ({(peak - before) / size:.2f} x file), after close "
              f"{mib(after['rss'])} MB"
              + (f", budget tracks {mib(extra)} MB" if extra is not None else "")
              + f": {outcome[:160]}", flush=True)
    after_all = sampler.sample()
    sampler.phase = "waiting for the TTL"
    time.sleep(args.ttl + args.margin)
    expired = settle_and_sample("after the TTL")
    context, _ = open_data_page(browser, server.url)  # a new session, closed: storage written
    context.close()
    evicted = settle_and_sample("after one more session")
    time.sleep(args.margin)
    final = settle_and_sample("final")
    released = sampler.sample() if server.release() else None
    report(args, baseline, rows_out, after_all, expired, evicted, final, released, sampler,
           peak_ok)
    growth = final["rss"] - baseline["rss"]
    return 0 if growth <= (args.budget_mb + args.slack_mb) * MB else 1


def report(args, baseline, rows_out, after_all, expired, evicted, final, released, sampler,
           peak_ok):
    print()
    print(f"budget {args.budget_mb} MB, session TTL {args.ttl} s, slack {args.slack_mb} MB"
          + "".join(f", {item}" for item in args.server_env))
    print(f"{'file':>4s} {'MB':>5s} {'s':>6s} {'RSS before':>10s} {'peak':>6s} "
          f"{'x file':>6s} {'after close':>11s}  outcome")
    for i, size, seconds, before, peak, after, outcome in rows_out:
        print(f"{i:4d} {size / MB:5.0f} {seconds:6.1f} {mib(before):>10s} {mib(peak):>6s} "
              f"{(peak - before) / size:6.2f} {mib(after['rss']):>11s}  {outcome[:90]}")
    if not peak_ok:
        print("(peaks from 0.5 s samples: /proc/<pid>/clear_refs was not writable)")
    peak = max([s["rss"] for s in sampler.samples] + [row[4] for row in rows_out])
    table = [
        ("baseline (after a first page load)", baseline),
        ("peak", {"rss": peak}),
        ("after all uploads (tabs closed)", after_all),
        (f"after the TTL + {args.margin:g} s", expired),
        ("after one more session came and went", evicted),
        ("final", final),
    ]
    if released is not None:
        table.append(("then gc + malloc_trim + arrow release", released))
    probed = {"upload_manager_bytes": "files MB", "stored_sessions": "stored",
              "active_sessions": "active", "budget_tracked_bytes": "tracked MB",
              "budget_shared_tables": "shared", "arrow_bytes": "arrow MB"}
    keys = [key for key in probed if key in final]
    print(f"\n{'moment':40s} {'RSS MB':>7s} {'anon':>6s} {'file':>6s} {'others':>6s}"
          + "".join(f" {probed[key]:>10s}" for key in keys))
    for name, got in table:
        cells = "".join(f" {(mib(got[k]) if k.endswith('bytes') else str(got[k])):>10s}"
                        if k in got else f" {'':>10s}" for k in keys)
        parts = "".join(f" {mib(got[k]) if k in got else '':>6s}" for k in ("anon", "file"))
        others = mib(got["others"]) if "others" in got else ""
        print(f"{name:40s} {mib(got['rss']):>7s}{parts} {others:>6s}{cells}")
    if keys:
        print("(files: bytes in Streamlit's uploaded-file manager; stored / active: sessions kept "
              "for reconnection / connected; tracked: the upload budget's tables; shared: parsed "
              "files it can share by content; arrow: pyarrow's memory pools)")
    if "probe_error" in final:
        print(f"probe: {final['probe_error']}")
    growth = final["rss"] - baseline["rss"]
    bound = (args.budget_mb + args.slack_mb) * MB
    print(f"\ngrowth final - baseline = {mib(growth)} MB (anonymous memory "
          f"{mib(final['anon'] - baseline['anon'])} MB, mapped files such as libraries "
          f"{mib(final['file'] - baseline['file'])} MB); budget + slack = {mib(bound)} MB: "
          + ("within" if growth <= bound else "EXCEEDED"))


if __name__ == "__main__":
    sys.exit(main())
