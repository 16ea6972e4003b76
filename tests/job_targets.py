"""The jobs the worker-pool tests run (tests/test_jobs.py), in a module that imports nothing but
the standard library: a worker unpickles its target by importing the target's module, and on a
loaded machine a niced worker importing the test module (scikit-learn and all) could pass a
pool's time limit before its target began."""

import os
import subprocess
import time


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
