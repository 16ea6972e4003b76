"""Replay a test tier's measured durations in pytest-xdist's ``load`` and ``worksteal``
schedulers (xdist 3.8's rules, two workers) and print when each would end, against an even
split of the work (docs/performance.md, "Where the time goes").

    pytest -n 2 -m "slow and not browser" --durations=0 -p no:cacheprovider -q > durations.txt
    pytest -m "slow and not browser" --collect-only -q -p no:cacheprovider > order.txt
    PYTHONPATH=. .venv/bin/python bench/xdist_schedule.py durations.txt order.txt

A model: a test costs its set-up, call and tear-down; the workers' start-up, collection and
reporting are left out, and a worker runs its next test at once.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict

WORKERS = 2
MIN_PENDING = 2  # xdist.scheduler.worksteal: a worker with fewer queued tests is idle
LINE = re.compile(r"^([0-9.]+)s (?:call|setup|teardown)\s+(\S.*)$")


def durations(path: str) -> dict[str, float]:
    """Seconds per test id from ``--durations=0`` output (set-up, call and tear-down added)."""
    found: dict[str, float] = defaultdict(float)
    with open(path) as lines:
        for line in lines:
            match = LINE.match(line.rstrip())
            if match:
                found[match[2]] += float(match[1])
    return found


def run(queues: list[list[int]], times: list[float], refill) -> float:
    """Run each worker's queue in order; after each test ``refill(worker, seconds)`` may add
    to the queues. Returns the time the last test ends."""
    clock = [0.0] * len(queues)
    while any(queues):
        worker = min((w for w in range(len(queues)) if queues[w]), key=clock.__getitem__)
        test = queues[worker].pop(0)
        clock[worker] += times[test]
        refill(worker, times[test])
        for other, queue in enumerate(queues):  # an idle worker starts when it is given work
            if not queue:
                clock[other] = max(clock[other], clock[worker])
    return max(clock)


def load(times: list[float]) -> float:
    """``--dist load``: a first chunk each, then top-ups from the front of the collection."""
    pending = list(range(len(times)))
    chunk = max(len(times) // WORKERS // 4, 2)
    queues = []
    for _ in range(WORKERS):
        queues.append(pending[:chunk])
        del pending[:chunk]

    def refill(worker: int, seconds: float) -> None:
        for index in range(WORKERS):
            queue = queues[index]
            least = max(2, len(pending) // WORKERS // 4)
            most = max(2, len(pending) // WORKERS // 2)
            busy = index == worker and seconds >= 0.1 and len(queue) >= 2
            if pending and len(queue) < least and not busy:
                count = min(most - len(queue), len(pending))
                queue += pending[:count]
                del pending[:count]

    return run(queues, times, refill)


def worksteal(times: list[float]) -> float:
    """``--dist worksteal``: contiguous shares, then an idle worker takes half of the longest
    queue's tail."""
    size = len(times)
    queues = [list(range(k * size // WORKERS, (k + 1) * size // WORKERS))
              for k in range(WORKERS)]

    def refill(worker: int, _seconds: float) -> None:
        if len(queues[worker]) >= MIN_PENDING:
            return
        longest = max(range(WORKERS), key=lambda index: len(queues[index]))
        count = min(len(queues[longest]) // 2, len(queues[longest]) - MIN_PENDING)
        if longest != worker and count > 0:
            queues[worker] += queues[longest][-count:]
            del queues[longest][-count:]

    return run(queues, times, refill)


def main(durations_path: str, order_path: str) -> None:
    measured = durations(durations_path)
    with open(order_path) as lines:
        order = [line.strip() for line in lines if "::" in line]
    times = [measured.get(test, 0.0) for test in order]
    total = sum(times)
    print(f"{len(order)} tests, {total:.0f} worker-seconds, even split {total / WORKERS:.0f} s, "
          f"longest test {max(times):.0f} s")
    print(f"load ends at {load(times):.0f} s, worksteal at {worksteal(times):.0f} s")


if __name__ == "__main__":
    main(*sys.argv[1:3])
