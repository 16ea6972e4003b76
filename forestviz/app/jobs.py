"""Long work off the caller's thread: a pool of worker processes with progress, cancellation
and a bounded number of jobs for the whole server.

Training a forest can take minutes and all the CPU it is given. Run in a Streamlit script
thread it freezes that user's page, cannot be stopped, and keeps a core busy after the browser
has gone. Here every job runs ``fn(*args, progress=callback, **kwargs)`` in its own worker
process:

* at most ``max_running`` jobs run at once and at most ``max_queued`` wait; :meth:`JobPool.submit`
  raises :class:`PoolBusy` beyond that;
* workers run at a lower scheduling priority (``os.nice``), so pages that only read models stay
  responsive while a job trains, but under the normal policy: a job always progresses, however
  busy the machine (Linux's idle scheduling class ran it only on otherwise idle CPU: on a 2-core
  machine with steady load elsewhere it stopped for minutes). On a machine with more than
  twice ``spare_cpus`` CPUs they also keep off ``spare_cpus`` of them; on 2 cores that would
  leave a job half the machine, and one busy program beside it none;
* :meth:`Job.cancel` ends the worker's whole process group (SIGTERM, then SIGKILL after
  ``KILL_GRACE`` seconds), so no computation outlives it;
* a job whose owner stops asking about it (:meth:`Job.touch`) for ``lease`` seconds — a closed
  browser tab — is cancelled the same way; a worker whose server died ends with what it started;
* a pool with a ``time_limit`` stops a job the same way once it has run that many seconds,
  and a pool with a ``cpu_limit`` once its worker has used that many CPU seconds (the kernel's
  ``RLIMIT_CPU``: a measure of the work that a busy machine does not stretch); either raises
  :class:`JobTimedOut`;
* a worker that has not started ``start_timeout`` seconds after its job got a slot (the
  forkserver still importing on a loaded machine, or stuck) fails the job with
  :class:`WorkerDied` rather than leaving it waiting for ever, and a job cancelled or abandoned
  while its worker starts ends at once; a worker that starts after all is stopped;
* progress reports ``(stage, fraction)`` are passed back at most every ``PROGRESS_INTERVAL``
  seconds; the result, or the job's exception, comes back pickled through a pipe (the worker is
  our own code: nothing untrusted is unpickled).

Workers are forked from a ``forkserver`` process that imports ``preload`` once, so a job starts
in milliseconds without forking the multi-threaded server itself. What runs inside a worker,
and how one is started and ended, is :mod:`forestviz.app.worker`; here are the jobs, the pool
that supervises them and :func:`in_thread` for short work that needs no worker.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from forestviz.app.worker import KILL_GRACE, noop, plain_main, stop, work

# what a server's forkserver imports once (ui.server): the model packages with a warm-up
# training, and WeasyPrint, for the PDF workers (forestviz.app.printing) forked from the same
# forkserver; a one-page PDF then takes 0.95–2.1 s in place of 3.4–5.3 s at load 3 (its import is
# ~1 s of CPU). A process has one forkserver, started by its first pool's first job with the
# preload set by then: the test suite sets this one for every pytest process (tests/conftest.py)
SERVER_PRELOAD = ("forestviz.app.warm", "weasyprint")
POLL_INTERVAL = 0.05  # seconds the supervising thread waits for a message
# seconds from a job's slot to its worker's start: the first job of a server waits for the
# forkserver's imports (about 4 CPU-s, docs/performance.md); beyond this the start is stuck
START_TIMEOUT = 180.0
STATES = ("queued", "starting", "running", "done", "failed", "cancelled")
UNFINISHED = ("queued", "starting", "running")


@dataclass
class _StartAttempt:
    """A worker's start, shared by the thread that starts it and the job's thread that watches
    it (:meth:`JobPool._start`); ``lock`` guards ``ended`` and ``given_up``, so that exactly one
    of the two threads stops a worker that starts after the watcher gave up on it."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    ended: bool = False  # worker.start() returned or raised
    error: BaseException | None = None  # what it raised
    given_up: bool = False  # the job was finished without it (cancelled, or too slow)


class PoolBusy(RuntimeError):
    """Too many jobs are running or waiting; try again later."""


class JobCancelled(RuntimeError):
    """The job was cancelled (by its owner, or because nobody asked about it any more)."""


class WorkerDied(RuntimeError):
    """The worker process ended without a result (killed, out of memory, crashed)."""


class JobTimedOut(RuntimeError):
    """The job ran past its pool's ``time_limit`` or ``cpu_limit``; its worker was stopped."""


class Job:
    """One submitted call. Read :attr:`state`, :attr:`stage`, :attr:`fraction`; call
    :meth:`touch` while someone is waiting for it, :meth:`cancel` to stop it and
    :meth:`result` once it has finished."""

    def __init__(self, fn: Callable, args: tuple, kwargs: dict, lease: float):
        self.fn, self.args, self.kwargs, self.lease = fn, args, kwargs, lease
        self.state = "queued"
        self.stage, self.fraction = "waiting for a free worker", 0.0
        self.submitted = self.last_seen = time.monotonic()
        self.finished: float | None = None
        self.pid: int | None = None  # the worker's process id while it runs
        self._value = self._error = None
        self._cancel = threading.Event()
        self._done = threading.Event()

    def touch(self) -> None:
        """Record that the job's owner is still waiting for it (renews the lease)."""
        self.last_seen = time.monotonic()

    def cancel(self) -> None:
        """Stop the job: a waiting job never starts, a running worker is killed."""
        self._cancel.set()

    @property
    def unfinished(self) -> bool:
        """Whether the job is waiting for a slot, starting its worker or running."""
        return self.state in UNFINISHED

    @property
    def finished_ok(self) -> bool:
        return self.state == "done"

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has finished (any way); False on timeout."""
        return self._done.wait(timeout)

    def result(self):
        """The return value; re-raises the job's exception, :class:`JobCancelled` or
        :class:`WorkerDied`. Only valid once :attr:`state` is done, failed or cancelled."""
        if not self._done.is_set():
            raise RuntimeError("the job has not finished")
        if self._error is not None:
            raise self._error
        return self._value

    def _finish(self, state: str, value=None, error: BaseException | None = None) -> None:
        self._value, self._error = value, error
        self.state, self.finished = state, time.monotonic()
        self._done.set()

    def _abandoned(self) -> bool:
        return self._cancel.is_set() or time.monotonic() - self.last_seen > self.lease


class JobPool:
    """Worker processes for :class:`Job` s, shared by every session of a server."""

    def __init__(self, *, max_running: int = 1, max_queued: int = 4, lease: float = 30.0,
                 niceness: int = 10, spare_cpus: int = 1, preload: tuple[str, ...] = (),
                 time_limit: float | None = None, cpu_limit: int | None = None,
                 start_timeout: float = START_TIMEOUT):
        if max_running < 1 or max_queued < 0:
            raise ValueError("max_running must be ≥ 1 and max_queued ≥ 0")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be positive seconds or None, got {time_limit}")
        if cpu_limit is not None and not (isinstance(cpu_limit, int) and cpu_limit > 0):
            raise ValueError(f"cpu_limit must be whole positive seconds or None, got {cpu_limit}")
        self.max_running, self.max_queued = max_running, max_queued
        self.time_limit, self.cpu_limit = time_limit, cpu_limit
        self.start_timeout = start_timeout
        self.lease, self.niceness, self.spare_cpus = lease, niceness, spare_cpus
        self._context = multiprocessing.get_context("forkserver")
        if preload:
            self._context.set_forkserver_preload(list(preload))
        self._slots = threading.BoundedSemaphore(max_running)
        self._lock = threading.Lock()
        self._active: list[Job] = []

    def submit(self, fn: Callable | str, *args, **kwargs) -> Job:
        """Start ``fn(*args, progress=..., **kwargs)`` in a worker as soon as a slot is free.
        ``fn`` and the arguments must pickle; ``fn`` may also be named ``"module:function"``,
        imported by the worker only (the caller need not have imported it: a first job starts
        while the server is still importing). Raises :class:`PoolBusy` when full."""
        job = Job(fn, args, kwargs, self.lease)
        with self._lock:
            self._active = [j for j in self._active if j.unfinished]
            if len(self._active) >= self.max_running + self.max_queued:
                raise PoolBusy(f"{len(self._active)} jobs are running or waiting on this server "
                               "(the limit); try again in a minute.")
            self._active.append(job)
        threading.Thread(target=self._supervise, args=(job,), daemon=True,
                         name="forestviz-job").start()
        return job

    def ahead_of(self, job: Job) -> int:
        """How many jobs submitted earlier are still waiting or running."""
        with self._lock:
            return sum(1 for j in self._active
                       if j is not job and j.unfinished and j.submitted <= job.submitted)

    def warm_up(self, delay: float = 0.0) -> None:
        """Start the forkserver (and its imports) in the background, ``delay`` seconds from
        now, so that the first job does not wait for it."""

        def start() -> None:
            time.sleep(delay)
            with plain_main():
                self._context.Process(target=noop, daemon=True).start()

        threading.Thread(target=start, daemon=True, name="forestviz-warm-up").start()

    # ---------------------------------------------------------------- supervision
    def _supervise(self, job: Job) -> None:
        while not self._slots.acquire(timeout=POLL_INTERVAL):
            if job._abandoned():
                job._finish("cancelled", error=JobCancelled("cancelled before it started"))
                return
        try:
            self._run(job)
        except BaseException as err:  # never leave a job unfinished
            if not job._done.is_set():
                job._finish("failed", error=WorkerDied(f"the job could not run: {err}"))
        finally:
            self._slots.release()

    def _run(self, job: Job) -> None:
        if job._abandoned():
            job._finish("cancelled", error=JobCancelled("cancelled before it started"))
            return
        receiver, sender = self._context.Pipe(duplex=False)
        worker = self._context.Process(
            target=work,
            args=(sender, job.fn, job.args, job.kwargs, self.niceness, self.spare_cpus,
                  self.cpu_limit),
            daemon=True, name="forestviz-worker")
        job.state, job.stage = "starting", "starting a worker process"
        try:
            if not self._start(job, worker, sender):
                return
            job.pid, job.state, job.stage = worker.pid, "running", "starting"
            try:
                self._follow(job, worker, receiver)
            finally:
                stop(worker)
        finally:
            receiver.close()

    def _start(self, job: Job, worker, sender) -> bool:
        """Start ``worker`` on a thread of its own (the forkserver answers a start only once its
        imports are done), watching ``job`` meanwhile; False, with the job finished, when it
        is cancelled or abandoned or the start takes over ``start_timeout`` seconds: a worker
        that starts after that is stopped at once."""
        attempt = _StartAttempt()

        def start() -> None:
            try:
                with plain_main():
                    worker.start()
            except BaseException as err:  # handed to the supervising thread
                attempt.error = err
            finally:
                sender.close()
                with attempt.lock:
                    attempt.ended = True
                    late = attempt.given_up
                if late and attempt.error is None:
                    stop(worker)

        starter = threading.Thread(target=start, daemon=True, name="forestviz-start")
        starter.start()
        deadline = time.monotonic() + self.start_timeout
        while True:
            starter.join(POLL_INTERVAL)
            with attempt.lock:
                if attempt.ended:
                    break
                if not (job._abandoned() or time.monotonic() > deadline):
                    continue
                attempt.given_up = True
            if job._abandoned():
                job._finish("cancelled", error=JobCancelled("cancelled before it started"))
            else:
                job._finish("failed", error=WorkerDied(
                    f"no worker process started within {self.start_timeout:g} s (the server "
                    "is overloaded); try again in a few minutes"))
            return False
        if attempt.error is not None:
            raise attempt.error
        return True

    def _follow(self, job: Job, worker, receiver) -> None:
        deadline = math.inf if self.time_limit is None else time.monotonic() + self.time_limit
        while True:
            if job._abandoned():
                stop(worker)
                job._finish("cancelled", error=JobCancelled("cancelled"))
                return
            if time.monotonic() > deadline:
                stop(worker)
                job._finish("failed", error=JobTimedOut(
                    f"the job ran longer than its limit of {self.time_limit:g} s and was "
                    "stopped"))
                return
            if not receiver.poll(POLL_INTERVAL):
                continue
            try:
                message = receiver.recv()
            except (EOFError, OSError):
                worker.join(KILL_GRACE)
                if worker.exitcode == -signal.SIGXCPU:
                    # what it started goes too (a pid stays unused while it names a group)
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(worker.pid, signal.SIGKILL)
                    job._finish("failed", error=JobTimedOut(
                        f"the job used more than its limit of {self.cpu_limit} s of CPU and was "
                        "stopped"))
                    return
                job._finish("failed", error=WorkerDied(
                    f"the worker process stopped unexpectedly (exit code {worker.exitcode}); "
                    "the machine may be out of memory"))
                return
            kind, *content = message
            if kind == "progress":
                job.stage, job.fraction = content
            elif kind == "done":
                job._finish("done", value=content[0])
                return
            else:
                job._finish("failed", error=content[0])
                return


def in_thread(fn: Callable, *args) -> Job:
    """Run ``fn(*args, progress=...)`` on a thread of this process and follow it as a
    :class:`Job`: for short work that needs no worker (loading a stored model). Cancelling
    takes effect at ``fn``'s next progress report, which then raises :class:`JobCancelled`."""
    job = Job(fn, args, {}, lease=math.inf)

    def progress(stage: str, fraction: float) -> None:
        if job._cancel.is_set():
            raise JobCancelled("cancelled")
        job.stage, job.fraction = stage, fraction

    def run() -> None:
        job.state, job.stage = "running", "starting"
        try:
            value = fn(*args, progress=progress)
        except JobCancelled as err:
            job._finish("cancelled", error=err)
        except Exception as err:  # the job's failure, for its owner to read
            job._finish("failed", error=err)
        else:
            job._finish("done", value=value)

    threading.Thread(target=run, daemon=True, name="forestviz-job-here").start()
    return job
