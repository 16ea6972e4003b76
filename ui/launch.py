"""The app's command: ``python -m ui.launch run app.py [Streamlit's options]``.

Streamlit's own command line (:func:`streamlit.web.cli.main`, what the ``streamlit`` command
runs) with the same arguments, in the same process. The server imports ``app.py`` first (its
``st.App``), and that import, once it has refused local mode on a network address
(:mod:`ui.doors`), calls :func:`start_preload`: one thread that imports what the default model
needs, waits for Streamlit's runtime to exist and then starts :func:`ui.server.default_training`
(the job that loads the default model's file and prepares the explanation Home's button opens).
Streamlit has no hook at the runtime's start, so without it that job starts only at the end of
the first page's run, and a click on Home at once waited about five seconds for it
(``docs/performance.md``, "Cold start and page speed"); here it runs while the server starts
and the browser loads the first page. A refused server never starts the thread (a thread
importing while the interpreter shuts down printed a traceback under the refusal's line).

The job is the cached one every page asks for: the session scripts import the same
``ui.server`` module from ``sys.modules`` and :func:`streamlit.cache_resource` keeps one cache
per process, so the first page's own call finds the job running. Streamlit is imported before
the thread starts (plotly's import looks into ``sys.modules`` for pandas and must not find it
half imported), and Streamlit's caches are first used once the runtime exists (before, each
``st.cache_data`` warns that it has no runtime).
"""

import gc
import importlib
import pkgutil
import sys
import threading
import time

from streamlit import runtime
from streamlit.web import cli

RUNTIME_POLL = 0.02  # s between looks for Streamlit's runtime while the server starts


def preload() -> None:
    """Import the model packages, then start the server's default training once Streamlit's
    runtime exists."""
    from forestviz.app import model_cache  # noqa: F401  (pandas, scikit-learn, the workflow)
    from forestviz.app.workflow import load_families

    load_families()
    freeze_imports()

    while not runtime.exists():
        time.sleep(RUNTIME_POLL)
    from ui import library
    from ui.server import default_training

    default_training()
    library.start()  # the model library, opened (and its models loaded) in a thread of its own


def page_modules() -> list[str]:
    """The names of the app's own modules, which the pages import (every module of ``ui``)."""
    import ui

    return [module.name for module in pkgutil.iter_modules(ui.__path__, "ui.")]


def freeze_imports() -> None:
    """Import every module the pages use (:func:`page_modules`), then move every object alive
    (the libraries' and the app's code and constants) into the collector's permanent
    generation (:func:`gc.freeze`). All garbage is collected after each run of a page
    (:func:`ui.memory.after_page_run`); over the imported libraries' objects that took 0.1–0.2
    s (``docs/performance.md``, "An idle page"). Frozen, a collection scans only what the
    sessions made since. The imports' own garbage is collected first, so none is kept."""
    for name in page_modules():
        importlib.import_module(name)
    gc.collect()
    gc.freeze()


def start_preload() -> None:
    """Start :func:`preload` in a thread of its own (``app.py``, where the server imports it)."""
    threading.Thread(target=preload, daemon=True, name="forestviz-preload").start()


def main() -> None:
    sys.argv[0] = "streamlit"
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
