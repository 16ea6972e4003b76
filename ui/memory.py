"""The server gives back the memory of big uploads once they are released (issue 36, item 9).

glibc serves a request of at least ``M_MMAP_THRESHOLD`` bytes with a mapping of its own,
returned to the system when freed; but the threshold is dynamic: each freed mapped block
raises it to that block's size (up to 32 MiB), so after the first upload the buffers of the
next ones (request bodies, parsed columns: many MB each) are carved from the heap, and freed
heap memory stays with the process (the issue: 865 → 2,021 MB after five 100 MB uploads, every
session closed); pyarrow's own pool (mimalloc) keeps freed memory too.
:func:`at_server_start` fixes the threshold at :data:`MMAP_THRESHOLD`, which also turns the
dynamic rise off; :func:`give_back`, called once a closed session's uploads are dropped
(``ui.session_end``), collects the garbage and hands the free memory of pyarrow's pool and of
glibc's heap (``malloc_trim``) back. Without glibc (another C library) both do only what
they can.

The garbage of a page's whole run is collected as the run ends (:func:`after_page_run`, in
``app.py``). Streamlit's own collection after every run (``runner.postScriptGC``) is off
(``.streamlit/config.toml``): it also ran after each tick of a timer's fragment, which makes
next to no garbage (the library's follow on an open Home or Models page, every second:
``ui.catalog``), and a full collection over what the server made after its start (the default
model, the cached views) was most of a tick's cost (``docs/performance.md``, "An idle page").
Between page runs Python's own generational collector goes on as in any program.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys

M_MMAP_THRESHOLD = -3  # mallopt's parameter number (glibc's malloc.h)
MMAP_THRESHOLD = 4 * 2**20  # bytes: every block this size or larger is a mapping of its own


def _glibc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:
        return None


def at_server_start() -> bool:
    """Fix glibc's mmap threshold; whether it was set."""
    libc = _glibc()
    return libc is not None and libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1


def after_page_run() -> None:
    """Collect the garbage of the run that ends (a page run's namespace, which holds its
    tables, is a reference cycle)."""
    gc.collect()


def give_back() -> None:
    """Collect the garbage (a page run's namespace, which holds its tables, is a cycle), hand
    pyarrow's free memory back (its pool, where the CSV parser allocates) and return the
    heap's free pages to the system."""
    gc.collect()
    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
