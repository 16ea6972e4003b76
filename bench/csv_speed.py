"""Time of ``load_csv`` now against an earlier revision's, in the same process and run.

    PYTHONPATH=. .venv/bin/python bench/csv_speed.py [--against REV] [--repeat N]

The earlier ``load_csv`` is the whole package ``forestviz/io`` of ``REV`` (default 578f613, the
last commit with the one-module ``csv_input.py``), extracted from git into a temporary folder
and imported under another name. Each file is read ``N`` times by each version, alternating
which goes first, and the medians are compared: the bundled Pima table (768 rows, a hundred
times as many repeats) and two large tables of ``bench/upload_memory.py`` (165 MB numeric,
101 MB mixed). Goal: new / old <= 1.05 (no slower than noise).
"""

import argparse
import importlib
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from upload_memory import mixed_csv, numeric_csv  # noqa: E402

import forestviz.io.csv_input as new  # noqa: E402


def earlier(revision: str):
    """``forestviz.io.csv_input`` of ``revision``, imported as ``old_forestviz.io.csv_input``
    (its own ``forestviz`` modules renamed, so both versions live in one process)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "forestviz"],
                             capture_output=True, check=True).stdout
    folder = Path(tempfile.mkdtemp())
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "forestviz").rename(folder / "old_forestviz")
    for path in (folder / "old_forestviz" / "io").glob("*.py"):
        text = path.read_text().replace("from forestviz.", "from old_forestviz.")
        path.write_text(text.replace("import forestviz.", "import old_forestviz."))
    sys.path.insert(0, str(folder))
    return importlib.import_module("old_forestviz.io.csv_input")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="578f613", help="the earlier revision")
    parser.add_argument("--repeat", type=int, default=9, help="reads of a large file")
    args = parser.parse_args()
    old = earlier(args.against)
    pima = (ROOT / "data" / "pima_diabetes.csv").read_bytes()
    files = {
        "pima (bundled)": (pima, 100 * args.repeat + 1),
        "numeric 165 MB": (numeric_csv(2_000_000), args.repeat),
        "mixed 101 MB": (mixed_csv(1_650_000), args.repeat),
    }
    for version in (old, new):
        version.load_csv(pima)  # first-call set-up (pools, threads)
    print(f"{'file':16s} {'old ms':>9s} {'new ms':>9s} {'new/old':>8s}")
    for name, (data, repeat) in files.items():
        seconds = {"old": [], "new": []}
        for i in range(repeat):
            pair = [("old", old), ("new", new)]
            for label, version in pair if i % 2 == 0 else pair[::-1]:
                start = time.perf_counter()
                version.load_csv(data)
                seconds[label].append(time.perf_counter() - start)
        before, after = statistics.median(seconds["old"]), statistics.median(seconds["new"])
        print(f"{name:16s} {before * 1e3:9.1f} {after * 1e3:9.1f} {after / before:8.3f}")
    print("goal: new/old <= 1.05")


if __name__ == "__main__":
    main()
