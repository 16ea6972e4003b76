"""The app's command (``python -m ui.launch run``) with a thread that reports, every 0.5 s, what
stays inside the server (bench/server_memory.py ``--probe``): bytes in Streamlit's
uploaded-file manager, sessions active and stored for reconnection, bytes the upload budget
tracks (and the tables it shares by content key), pyarrow's allocated bytes; and, when asked
through a flag file, releases what the allocators keep (gc, pyarrow's pools, glibc's
malloc_trim).

    python bench/server_probe.py STATS.json run app.py [streamlit options]

It reads Streamlit's and the app's private state on purpose: a measurement tool, never imported
by the product.
"""
import ctypes
import gc
import json
import os
import sys
import threading
import time
from pathlib import Path

out = sys.argv.pop(1) if __name__ == "__main__" else ""


def stats():
    from streamlit import runtime
    if not runtime.exists():
        return {}
    rt = runtime.get_instance()
    files, sessions = rt._uploaded_file_mgr, rt._session_mgr
    stored = sessions._session_storage._cache
    got = {
        "upload_manager_bytes": files._total_bytes,
        "upload_manager_sessions": len(files.file_storage),
        "active_sessions": len(sessions._active_session_info_by_id),
        "stored_sessions": len(stored._data),  # expired ones included: len() would reap
    }
    state = sys.modules.get("ui.state")
    if state is not None and hasattr(state, "upload_budget"):
        budget = state.upload_budget()  # the server's one TableBudget (cache_resource)
        got["budget_tracked_bytes"] = sum(list(budget._tracked.values()))
        got["budget_shared_tables"] = len(budget._shared)
    if "pyarrow" in sys.modules:
        got["arrow_bytes"] = sum(pool.bytes_allocated() for pool in arrow_pools())
    return got

def arrow_pools():
    import pyarrow as pa
    for name in pa.supported_memory_backends():
        yield getattr(pa, f"{name}_memory_pool")()

def release():  # asked for by the bench at the very end: what the allocators give back
    gc.collect()
    if "pyarrow" in sys.modules:
        for pool in arrow_pools():
            pool.release_unused()
    ctypes.CDLL("libc.so.6").malloc_trim(0)

def loop():
    while True:
        time.sleep(0.5)
        try:
            if os.path.exists(out + ".release"):
                release()
                os.remove(out + ".release")
            text = json.dumps(stats())
        except Exception as error:  # a half-started runtime: try again
            text = json.dumps({"probe_error": repr(error)})
        with open(out + ".tmp", "w") as handle:
            handle.write(text)
        os.replace(out + ".tmp", out)

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for ui.launch
    from ui.launch import main

    threading.Thread(target=loop, daemon=True).start()
    main()
