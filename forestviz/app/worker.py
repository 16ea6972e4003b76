"""A worker process of :class:`forestviz.app.jobs.JobPool`: how it is started (a plain
``__main__``) and ended (its whole process group), and what runs inside it (:func:`work`).

multiprocessing re-runs the parent's ``__main__`` module in every child; under Streamlit that
is the app script itself (the script runner installs it as ``__main__``), so processes are
started with a plain ``__main__`` in place (:func:`plain_main`). Inside, :func:`work` puts the
worker in its own process group at a lower priority, bounds its CPU seconds, sends progress at
most every ``PROGRESS_INTERVAL`` seconds and the outcome, pickled, through a pipe, and ends with
its process group when its server is gone.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import resource
import select
import signal
import sys
import threading
import time
import types

PROGRESS_INTERVAL = 0.1  # seconds between progress messages from a worker
KILL_GRACE = 1.0  # seconds between SIGTERM and SIGKILL on cancel

_START_LOCK = threading.Lock()


@contextlib.contextmanager
def plain_main():
    """Start processes with an empty ``__main__`` so that children import no script; the
    previous ``__main__`` is put back unless someone else replaced it meanwhile."""
    with _START_LOCK:
        saved, plain = sys.modules.get("__main__"), types.ModuleType("__main__")
        sys.modules["__main__"] = plain
        try:
            yield
        finally:
            if sys.modules.get("__main__") is plain:
                sys.modules["__main__"] = saved


def stop(worker) -> None:
    """End ``worker`` and every process it started (its own process group)."""
    if not worker.is_alive():
        worker.join()
        return
    for sig, wait in ((signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, None)):
        try:
            os.killpg(worker.pid, sig)
        except (ProcessLookupError, PermissionError):  # not yet its own group leader
            worker.kill() if sig == signal.SIGKILL else worker.terminate()
        worker.join(wait)
        if not worker.is_alive():
            return


def noop() -> None:
    """Nothing: the first process started from the forkserver, to start it early."""
    return None


def _watch_server(sender) -> None:
    """End the worker's whole process group once its server is gone: nobody will read the
    result, and what the job started (a solver's or a cluster's processes) must not outlive it.

    The worker's parent is the forkserver, which outlives its server while any worker runs
    (each worker holds the write end of the pipe whose end the forkserver waits for), so the
    parent cannot tell. The server holds the only read end of the worker's result pipe
    (``sender``); once it is closed, by the server's exit or by the pool after the job, the
    write end polls ``POLLERR`` (Linux's pipes), which ``poll`` reports without being asked."""
    watched = os.dup(sender.fileno())  # the thread's own: work() closes ``sender`` when done
    poller = select.poll()
    poller.register(watched, 0)
    poller.poll()
    with contextlib.suppress(OSError):
        os.killpg(0, signal.SIGKILL)  # the group is the worker's own (work), this thread's too
    os._exit(1)


def work(sender, fn, args, kwargs, niceness, spare_cpus, cpu_limit=None) -> None:
    """Worker body: own process group, lower priority, ``spare_cpus`` CPUs left to the pages
    (when that leaves the worker more than half of them), at most ``cpu_limit`` CPU seconds
    (SIGXCPU ends it, SIGKILL a second later), progress and the outcome to ``sender``."""
    if cpu_limit is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 1))
    # Its own process group (for the kill on cancel) but not its own session: Linux groups a
    # session's processes for scheduling (autogroup), and a worker in a session of its own
    # would get an equal share of the CPU whatever its nice value.
    os.setpgid(0, 0)
    os.nice(niceness)
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) > 2 * spare_cpus > 0:  # nice alone does not stop it slowing a hyperthread sibling
        os.sched_setaffinity(0, cpus[spare_cpus:])
    threading.Thread(target=_watch_server, args=(sender,), daemon=True).start()
    last = [0.0]

    def progress(stage: str, fraction: float) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_INTERVAL:
            last[0] = now
            sender.send(("progress", str(stage), float(fraction)))

    try:
        if isinstance(fn, str):
            module, name = fn.split(":")
            fn = getattr(importlib.import_module(module), name)
        value = fn(*args, progress=progress, **kwargs)
    except Exception as err:
        try:
            sender.send(("error", err))
        except Exception:  # an exception that does not pickle
            sender.send(("error", RuntimeError(f"{type(err).__name__}: {err}")))
    else:
        sender.send(("done", value))
    sender.close()
