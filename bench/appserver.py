"""The app served for the browser tests and the server benches, and what /proc says about it.

    with AppServer(log_dir, options=["--server.disconnectedSessionTTL", "3"],
                   env={"FORESTVIZ_UPLOAD_BUDGET_MB": "64"}) as server:
        server.url, server.pid            # http://127.0.0.1:<free port>, the server's pid
        status(server.pid, "VmRSS")       # bytes

The app runs as users start it, ``python -m ui.launch run app.py`` (Streamlit's command line
with the default model's loading started at once: ``ui/launch.py``), on a free loopback port
in its own session (process group), so that leaving the block stops the server *and* its
training forkserver and workers. Every wait is bounded. Linux only (/proc).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = [sys.executable, "-m", "ui.launch"]  # the app's command (README, Makefile, Dockerfile)
STREAMLIT = [sys.executable, "-m", "streamlit"]  # plain Streamlit (the blank app of the speed test)
# Headless Debian Chromium on a machine with no network beyond loopback. Without the features
# named, the window of every browser context started two renderers for its address bar's popup
# (chrome://omnibox-popup.top-chrome/), which no page shows or needs: 0.16 CPU-s a context, and
# a browser test that opens ten contexts took 13 % less CPU without them (docs/performance.md,
# "Session 28")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
]  # fmt: skip


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


class AppServer:
    """``python -m ui.launch run app.py`` (``script`` replaces ``app.py``, e.g. a blank app to
    compare with; ``head`` replaces ``python -m ui.launch``, e.g. :data:`STREAMLIT` for a plain
    ``streamlit run`` or a wrapper script) with extra command-line ``options`` and ``env``;
    its output goes to ``log_dir/streamlit.log``. Entering waits up to ``start_timeout`` s for
    the first health answer (RuntimeError with the log's tail otherwise); leaving stops the
    process group."""

    def __init__(self, log_dir: Path, *, options=(), env=None, head=None, script="app.py",
                 start_timeout: float = 60.0):
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = Path(log_dir) / "streamlit.log"
        self.command = [*(head or LAUNCHER), "run", str(script),
                        "--server.address", "127.0.0.1",
                        "--server.port", self.url.rsplit(":", 1)[1],
                        "--server.headless", "true", "--server.fileWatcherType", "none",
                        "--browser.gatherUsageStats", "false", *options]  # fmt: skip
        self.env = {**os.environ, **(env or {})}
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self.started = self.healthy = None  # time.monotonic() of the launch, first health

    def __enter__(self) -> AppServer:
        self.started = time.monotonic()
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = self.started + self.start_timeout
            while not healthy(self.url):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the app server did not become healthy at {self.url}:\n"
                                       + self.log.read_text(errors="replace")[-3000:])
                time.sleep(0.25)
        except BaseException:
            self.__exit__()
            raise
        self.healthy = time.monotonic()
        return self

    def __exit__(self, *_):
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, 15)  # the server and its forkserver/workers
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, 9)
            self.process.wait(timeout=10)

    @property
    def pid(self) -> int:
        return self.process.pid


def status(pid: int, key: str) -> int:
    """``key`` (VmRSS, VmHWM, RssAnon, …) of a process from /proc, bytes; 0 if it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def children(pid: int) -> list[int]:
    """The live (not zombie) child processes of ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(stat.parent.name))
    return found


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def reset_peak(pid: int) -> bool:
    """Restart the process's VmHWM from its current RSS (False if not allowed)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False
