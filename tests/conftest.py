"""Shared fixtures: system programs the tests need, the app served on a free loopback port, and
Debian Chromium driven by pytest-playwright.

Missing Chromium or graphviz skips the tests that need them on a developer's machine and fails
them under CI (``CI=true``).
"""

import contextlib
import fcntl
import functools
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from bench.appserver import CHROMIUM_ARGS, AppServer
from forestviz.app.jobs import SERVER_PRELOAD
from tests.browser_helpers import still_context

pytest_plugins = ["tests.cli_tables",  # the command line's table and model fixtures
                  "tests.store_databases"]  # SQLite and a throwaway PostgreSQL

REPO = Path(__file__).resolve().parents[1]
SERVER_START_TIMEOUT = 60.0
# A job nobody polls is cancelled after this many seconds (the default is 30): the browser
# tests close a tab mid-training and check the worker is gone.
SERVER_JOB_LEASE = 10


def require_program(name: str, purpose: str) -> str:
    """The path of ``name`` on PATH; skip the test without it, or fail under CI."""
    path = shutil.which(name)
    if path is None:
        message = f"`{name}` is not on PATH; it is needed {purpose}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session", autouse=True)
def library_data_dir(tmp_path_factory):
    """The model library of this test run: a fresh data directory (never ``./var`` or the
    developer's own), for the app under AppTest and the servers the browser tests start; a
    test that needs another one sets ``FORESTVIZ_DATA_DIR`` itself."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FORESTVIZ_DATA_DIR", str(tmp_path_factory.mktemp("library")))
        patch.delenv("FORESTVIZ_DATABASE_URL", raising=False)
        yield


def pytest_configure(config):
    """Every training and PDF worker a test starts in this process is forked from a forkserver
    with a server's imports, whichever pool starts it first (a process has one forkserver, and
    a preload set after its start is ignored): else the app under AppTest, after a test whose
    pool started it bare, had each job import the model packages itself (1.5 CPU-s a job;
    ``tests/test_app_pages.py`` after one such test: 52 → 86 CPU-s)."""
    multiprocessing.set_forkserver_preload(list(SERVER_PRELOAD))


@pytest.fixture(scope="session", autouse=True)
def one_component_scan():
    """Every AppTest's first run scans the metadata of every installed distribution for
    Streamlit components (``manifest_scanner.scan_component_manifests``: 0.17 CPU-s, 115 times
    in the slow tier); the installed packages do not change during a test run, so each pytest
    process keeps its first scan's answer. A Streamlit internal, pinned in
    ``tests/test_streamlit_pins.py``; a server (``ui.launch``) scans once at its start."""
    from streamlit.components.v2 import manifest_scanner

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests",
                      functools.cache(manifest_scanner.scan_component_manifests))
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Under pytest-xdist, a test marked ``serial`` runs while no other worker runs a test.

    Each test, with the set-up and tear-down of whatever fixtures it brings (a module's server,
    the session's browser), holds a shared lock on a file of this run; a ``serial`` test holds
    it exclusively. Both are taken through a turnstile lock so that tests starting while a
    serial test waits queue behind it rather than starve it. Without xdist there is nothing to
    do: tests run one at a time.
    """
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return (yield)
    run = Path(item.config.option.basetemp).parent  # xdist gives each worker <run>/popen-gwN
    exclusive = item.get_closest_marker("serial") is not None
    with open(run / "serial.turnstile", "a") as turnstile, open(run / "serial.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        fcntl.flock(turnstile, fcntl.LOCK_UN)
        return (yield)  # closing the file after the test releases its lock


@pytest.fixture(scope="session")
def chromium_path() -> str:
    return require_program("chromium", "for the browser tests (Debian package `chromium`)")


@pytest.fixture(scope="session")
def require_dot() -> str:
    """graphviz's ``dot`` (Debian package ``graphviz``), which dtreeviz renders trees with."""
    return require_program("dot", "to draw trees (Debian package `graphviz`)")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, chromium_path):
    """pytest-playwright launches the Debian Chromium, never a downloaded browser."""
    return {**browser_type_launch_args, "executable_path": chromium_path, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """A tall viewport: Streamlit scrolls an inner container, so screenshots see only this."""
    return {**browser_context_args, "viewport": {"width": 1400, "height": 2000}}


@pytest.fixture(scope="session")
def lasting_context(browser, browser_context_args):
    """One browser context for every ``page`` test of a worker, with a blank page that lives as
    long as it does. Chromium then keeps the context's renderer process, its compiled script and
    its HTTP cache from one test to the next: a test's first page of the app cost Chromium
    about 2 CPU-s in a new context against 0.4–1 here (docs/performance.md, "Session 27")."""
    context = still_context(browser, **browser_context_args)
    context.new_page()
    yield context
    context.close()


@pytest.fixture
def context(lasting_context):
    """pytest-playwright's ``context``, as a new one is to a test: every page the test opened is
    closed after it, and the cookies, permissions and storage (local storage, IndexedDB) it left
    are cleared (:meth:`~playwright.sync_api.BrowserContext.set_storage_state`)."""
    keeper = lasting_context.pages[0]
    yield lasting_context
    for page in lasting_context.pages:
        if page is not keeper:
            page.close()
    lasting_context.clear_permissions()
    lasting_context.set_storage_state({"cookies": [], "origins": []})


@pytest.fixture(scope="session")
def base_url(app_url) -> str:
    """pytest-playwright's base URL is the app under test, so ``page.goto("/")`` opens it."""
    return app_url


@pytest.fixture
def dialogs(page) -> list[str]:
    """Every JavaScript dialog (alert, confirm, prompt) the page opens; each is dismissed."""
    seen: list[str] = []

    def record(dialog):
        seen.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", record)
    return seen


@pytest.fixture
def artifacts_dir(tmp_path_factory) -> Path:
    """A temporary directory for screenshots; its path is printed (see it with ``-s``)."""
    path = tmp_path_factory.mktemp("artifacts")
    print(f"\nbrowser artifacts: {path}")
    return path


@pytest.fixture(scope="session")
def app_url(app_server) -> str:
    return app_server["url"]


@contextlib.contextmanager
def running(server: AppServer):
    """``server`` started (a start that fails fails the test with the server's one line) and
    stopped when the block ends."""
    try:
        server.__enter__()
    except RuntimeError as error:
        pytest.fail(str(error))
    try:
        yield server
    finally:
        server.__exit__()


@contextlib.contextmanager
def serve_script(tmp_path_factory, script: str):
    """A real server of its own for the small app ``script`` (a test app under ``tests/``);
    yields its base URL."""
    folder = tmp_path_factory.mktemp(Path(script).stem)
    with running(AppServer(folder, script=script, start_timeout=SERVER_START_TIMEOUT)) as server:
        yield server.url


@contextlib.contextmanager
def serve_app(log_dir: Path):
    """The app (:class:`bench.appserver.AppServer`) with a short job lease; yields its base
    ``url``, its ``pid``, its job ``lease`` and the ``time.monotonic()`` of its launch
    (``started``) and of its first health answer (``healthy``), then stops it."""
    server = AppServer(log_dir, env={"FORESTVIZ_JOB_LEASE_SECONDS": str(SERVER_JOB_LEASE)},
                       start_timeout=SERVER_START_TIMEOUT)
    with running(server):
        yield {"url": server.url, "started": server.started, "healthy": server.healthy,
               "pid": server.pid, "lease": SERVER_JOB_LEASE}


@pytest.fixture(scope="session")
def app_server(tmp_path_factory) -> dict:
    """The app server every browser test shares (see :func:`serve_app`)."""
    with serve_app(tmp_path_factory.mktemp("server")) as server:
        yield server


@pytest.fixture
def own_app_server(tmp_path_factory) -> dict:
    """A fresh app server for one test (no sessions or caches left by other tests)."""
    with serve_app(tmp_path_factory.mktemp("own-server")) as server:
        yield server


@pytest.fixture
def empty_cache():
    """The tree drawings' SVG cache, emptied before and after the test."""
    from forestviz.explain.drawing import treeviz

    treeviz.clear_cache()
    yield
    treeviz.clear_cache()


@pytest.fixture(scope="module")
def clinic():
    """A small binary forest on string labels with hostile column names, its drawing context
    and its rows."""
    import numpy as np
    from sklearn.ensemble import RandomForestClassifier

    from forestviz.explain.drawing.treeviz import TreeContext
    from tests.treeviz_helpers import HOSTILE

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(loc=5.0, size=(240, len(HOSTILE))), 1)
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=240) > 10, "sick", "well")
    forest = RandomForestClassifier(n_estimators=4, max_depth=3, random_state=0).fit(X, y)
    context = TreeContext.from_data(X, y, feature_names=HOSTILE, target_name="out<come>")
    return forest, context, X
