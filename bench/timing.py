"""Timing helpers shared by the benchmarks (run them with ``PYTHONPATH=.`` from the repo root)."""

import argparse
import time
import tracemalloc


def forest_size_arguments(doc: str) -> argparse.Namespace:
    """The command line of a benchmark on one forest: --n rows, --features, --trees and
    --repeat (timing repeats), with the issues' sizes as defaults."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    return parser.parse_args()


def best_time(function, repeats: int, clock=time.perf_counter) -> float:
    """Smallest time of ``repeats`` calls (the least disturbed by other load), seconds: wall
    time, or with ``clock=time.process_time`` this process's CPU time."""
    times = []
    for _ in range(repeats):
        start = clock()
        function()
        times.append(clock() - start)
    return min(times)


def best_wall_and_cpu(function, repeats: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the call with the smallest wall time of ``repeats``."""
    found = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        found.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(found)


def peak_mib(function) -> float:
    """Peak traced Python/numpy allocation of one call, MiB."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
