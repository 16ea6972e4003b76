"""What the library's faults and refusals cost (issue 36), each next to a reference measured in
the same run.

    PYTHONPATH=. .venv/bin/python bench/store_faults.py [--repeat 3]

Goals: a text over its cap is refused within 50 ms whatever its length (reference: cleaning
it line by line, what the refusal once came after); a page run's store calls while another
process holds the database lock wait at most 2 s together (reference: the same calls with the
database free); an identical re-publication is recognised in a fraction of a publish
(reference: ``persistence.dumps`` of the same model, which every publish does). Each step
prints its best wall time and that call's CPU time of this process.
"""

import argparse
import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from forestviz import persistence
from forestviz.names import clean
from forestviz.store import LOCAL, StoreConfig, StoreError, blobs, open_library, published
from tests.store_helpers import trained
from tests.test_store_faults import HOLD_LOCK


def best_time(function, repeats: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the call with the smallest wall time of ``repeats``."""
    found = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        with contextlib.suppress(StoreError):
            function()
        found.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(found)


def page_run(library):
    """What a page run that records does with the store: an event, the list, another event."""
    for call in (lambda: library.audit.record(LOCAL, "row_explained", detail="P1"),
                 library.versions,
                 lambda: library.audit.record(LOCAL, "report_downloaded", detail="P1")):
        with contextlib.suppress(StoreError):
            call()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeats = parser.parse_args().repeat
    folder = Path(tempfile.mkdtemp()) / "var"
    library = open_library(StoreConfig(folder))
    bench = trained()

    text = "Pima risk " * 1_000_000
    refused = best_time(lambda: library.publish(bench, name="x", description=text,
                                                intended_use="Screening"), repeats)
    cleaned = best_time(lambda: [clean(line) for line in text.splitlines()], 1)
    print(f"refuse a 10 MB description: {refused[0] * 1e6:.0f} µs wall "
          f"({refused[1] * 1e6:.0f} µs CPU); cleaning it first: {cleaned[0]:.2f} s "
          f"({cleaned[0] / refused[0]:,.0f}x)")

    free = best_time(lambda: page_run(library), repeats)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(folder / "forestviz.db")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        holder.stdout.readline()
        locked = best_time(lambda: page_run(library), 1)  # the first: it waits
        paused = best_time(lambda: page_run(library), repeats)  # within the pause after it
    finally:
        holder.communicate("")
    print(f"a page run's store calls under another process's lock: first {locked[0]:.2f} s, "
          f"then {paused[0] * 1000:.1f} ms; with the database free {free[0] * 1000:.1f} ms")

    data = persistence.dumps(published.published_payload(bench))
    digest = best_time(lambda: blobs.content_digest(data, published.SCORED), repeats)
    dump = best_time(lambda: persistence.dumps(published.published_payload(bench)), repeats)
    print(f"recognise a model file's content ({len(data):,} bytes): {digest[0]:.3f} s wall "
          f"({digest[1]:.3f} s CPU), {digest[0] / dump[0]:.2f}x its dumps ({dump[0]:.3f} s)")


if __name__ == "__main__":
    main()
