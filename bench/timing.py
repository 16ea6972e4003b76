"""Timing helpers shared by the benchmarks (run them with ``PYTHONPATH=.`` from the repo root)."""

import time
import tracemalloc


def best_time(function, repeats: int) -> float:
    """Smallest wall time of ``repeats`` calls (the least disturbed by other load), seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_mib(function) -> float:
    """Peak traced Python/numpy allocation of one call, MiB."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
