"""The worker pool (forestviz.app.jobs) with real processes: results and progress come back, a
cancel, an expired lease or a pool's time limit ends the worker and every process it started
within 2 s, at most ``max_running`` jobs run at once, and failures come back as exceptions."""

import os
import subprocess
import threading
import time

import pytest

from forestviz.app.jobs import (
    JobCancelled,
    JobPool,
    JobTimedOut,
    PoolBusy,
    WorkerDied,
    in_thread,
)

DEADLINE = 60.0  # s for a job to start (the first one starts the forkserver)


def square(x, *, progress):
    for k in range(5):
        progress(f"step {k}", k / 5)
        time.sleep(0.12)
    return x * x


def spin(pid_file, *, progress):
    """Burn a CPU forever, with a grandchild process (its pid written to ``pid_file``)."""
    child = subprocess.Popen(["sleep", "600"])
    with open(pid_file, "w") as out:
        out.write(str(child.pid))
    progress("spinning", 0.5)
    while True:
        sum(range(10_000))


def fail(*, progress):
    raise ValueError("the target has one class")


def die(*, progress):
    os._exit(3)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is not running
        return stat.read().split(")")[-1].split()[0] != "Z"


def wait_for(condition, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.02)


@pytest.fixture(scope="module")
def pool():
    pool = JobPool(max_running=1, max_queued=2, lease=3600)
    pool.warm_up()
    return pool


def test_a_job_named_by_module_and_function_runs_it(pool):
    job = pool.submit("tests.test_jobs:square", 3)
    assert job.wait(DEADLINE) and job.result() == 9


def test_result_and_progress_come_back(pool):
    job = pool.submit(square, 7)
    seen = set()
    while not job.wait(0.02):
        seen.add(job.stage)
    assert job.state == "done" and job.result() == 49
    assert seen & {"step 1", "step 2", "step 3"}


def test_cancel_ends_the_worker_and_its_children_within_two_seconds(pool, tmp_path):
    pid_file = tmp_path / "grandchild"
    job = pool.submit(spin, str(pid_file))
    wait_for(lambda: job.stage == "spinning" and pid_file.exists() and pid_file.read_text())
    worker, grandchild = job.pid, int(pid_file.read_text())
    assert alive(worker) and alive(grandchild)
    cancelled = time.monotonic()
    job.cancel()
    assert job.wait(2.0)
    assert time.monotonic() - cancelled < 2.0
    wait_for(lambda: not alive(worker) and not alive(grandchild), timeout=2.0)
    assert job.state == "cancelled"
    with pytest.raises(JobCancelled):
        job.result()


def test_a_job_nobody_asks_about_is_cancelled():
    pool = JobPool(max_running=1, max_queued=0, lease=1.0)
    job = pool.submit(spin, "/dev/null")
    wait_for(lambda: job.state == "running")
    worker = job.pid
    assert job.wait(DEADLINE) and job.state == "cancelled"
    wait_for(lambda: not alive(worker), timeout=2.0)


def test_a_job_past_the_pools_time_limit_is_stopped_with_its_children(tmp_path):
    """The limit counts from the worker's start; the worker and its grandchild end within the
    kill grace (SIGTERM, then SIGKILL) after it; a job within the limit is untouched."""
    pool = JobPool(max_running=1, max_queued=1, lease=3600, time_limit=4.0)
    quick = pool.submit(square, 5)  # ~0.6 s: done, not stopped
    assert quick.wait(DEADLINE) and quick.result() == 25
    pid_file = tmp_path / "grandchild"
    job = pool.submit(spin, str(pid_file))
    wait_for(lambda: job.state == "running")
    started = time.monotonic()
    wait_for(lambda: pid_file.exists() and pid_file.read_text())
    worker, grandchild = job.pid, int(pid_file.read_text())
    assert job.wait(DEADLINE) and job.state == "failed"
    assert 3.9 <= time.monotonic() - started < 4.0 + 2.0 + 1.0  # limit + kill grace + polling
    with pytest.raises(JobTimedOut, match="limit of 4 s"):
        job.result()
    wait_for(lambda: not alive(worker) and not alive(grandchild), timeout=2.0)
    with pytest.raises(ValueError, match="time_limit"):
        JobPool(time_limit=0)


def test_a_job_past_the_pools_cpu_limit_is_stopped(tmp_path):
    """1 s of CPU: the kernel ends the worker (SIGXCPU), its grandchild is ended too, the job
    says it timed out."""
    pool = JobPool(max_running=1, max_queued=0, lease=3600, cpu_limit=1)
    pid_file = tmp_path / "grandchild"
    job = pool.submit(spin, str(pid_file))
    assert job.wait(DEADLINE) and job.state == "failed"
    with pytest.raises(JobTimedOut, match="limit of 1 s of CPU"):
        job.result()
    grandchild = int(pid_file.read_text())
    wait_for(lambda: not alive(job.pid) and not alive(grandchild), timeout=2.0)
    with pytest.raises(ValueError, match="cpu_limit"):
        JobPool(cpu_limit=0.5)


def test_at_most_max_running_jobs_run_and_the_queue_is_bounded(pool, tmp_path):
    first = pool.submit(spin, str(tmp_path / "a"))
    wait_for(lambda: first.state == "running")
    second, third = pool.submit(square, 2), pool.submit(square, 3)
    with pytest.raises(PoolBusy):
        pool.submit(square, 4)
    time.sleep(0.5)
    assert (second.state, third.state) == ("queued", "queued")
    assert pool.ahead_of(second) == 1 and pool.ahead_of(third) == 2
    third.cancel()  # a waiting job never starts
    assert third.wait(2.0) and third.state == "cancelled" and third.pid is None
    first.cancel()
    assert second.wait(DEADLINE) and second.result() == 4


def test_failures_come_back_as_exceptions(pool):
    job = pool.submit(fail)
    assert job.wait(DEADLINE) and job.state == "failed"
    with pytest.raises(ValueError, match="one class"):
        job.result()
    job = pool.submit(die)
    assert job.wait(DEADLINE) and job.state == "failed"
    with pytest.raises(WorkerDied, match="exit code 3"):
        job.result()


# ------------------------------------------------------------------ a job on a thread
def test_a_job_on_a_thread_reports_progress_and_its_result():
    stages, made = [], threading.Event()

    def work(x, *, progress):
        made.wait(DEADLINE)
        progress("half", 0.5)
        stages.append((job.state, job.stage, job.fraction))
        return x + 1

    job = in_thread(work, 41)
    made.set()
    assert job.wait(DEADLINE) and job.finished_ok and job.result() == 42
    assert stages == [("running", "half", 0.5)]


def test_a_job_on_a_thread_stops_at_its_next_progress_report_once_cancelled():
    started = threading.Event()
    reports = []

    def work(*, progress):
        started.set()
        for k in range(1000):
            progress("step", k / 1000)
            reports.append(k)
            time.sleep(0.01)

    job = in_thread(work)
    started.wait(DEADLINE)
    job.cancel()
    assert job.wait(DEADLINE) and job.state == "cancelled"
    with pytest.raises(JobCancelled):
        job.result()
    assert len(reports) < 1000


def test_a_failing_job_on_a_thread_reraises_its_error():
    job = in_thread(fail)
    assert job.wait(DEADLINE) and job.state == "failed"
    with pytest.raises(ValueError, match="one class"):
        job.result()
