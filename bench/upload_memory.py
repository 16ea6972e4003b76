"""Peak memory and time of ``load_csv`` on large uploads: before and after the lean parser.

    PYTHONPATH=. .venv/bin/python bench/upload_memory.py [--quick]

Four files are written to a temporary folder: 2M rows x 11 numeric columns (~164 MB), a mixed
table of text, numbers and dates (~100 MB), the issue's one-huge-cell file (``a,b`` then a 100 MB
value) and 2M rows x 11 short categories (~58 MB, the worst case for memory). Each is read in a
fresh subprocess by

* ``old``: ``load_csv`` as of commit 63f7fcd (taken from git), pandas' C reader on the whole
  decoded text, the reference;
* ``new, C``: today's ``load_csv`` with pyarrow switched off, as for the few files that
  pyarrow would read otherwise than pandas (ragged rows, spaces after separators, ...);
* ``new``: today's ``load_csv``.

The child parses a tiny table first (one-time set-up), reads the file's bytes, notes its
resident memory (VmRSS), resets the peak (``/proc/self/clear_refs``), calls ``load_csv`` and
reports the peak (VmHWM) minus that baseline: the extra memory of parsing, the returned table
included, as a multiple of the file size. Goal (upload issue): at most 4 times the file size.
``--quick`` uses files a tenth the size (fixed costs then weigh more). Linux only.
"""

import argparse
import contextlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "63f7fcd"  # the last commit with the C-reader-only load_csv
VARIANTS = ("old", "new, C", "new")
WORDS = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"])


def numeric_csv(rows: int) -> bytes:
    """``rows`` x 11 numbers with up to three decimals (about 82 bytes a row)."""
    values = np.round(np.random.default_rng(0).uniform(0, 300, (rows, 11)), 3)
    lines = np.char.mod("%g", values).astype(object)
    return "\n".join(["x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10", *map(",".join, lines), ""]).encode()


def mixed_csv(rows: int) -> bytes:
    """An ID, a category, quoted free text with commas, integers, decimals with missing values,
    a date and a yes/no label (about 84 bytes a row)."""
    rng = np.random.default_rng(1)

    def word():
        return WORDS[rng.integers(0, WORDS.size, rows)]

    days = np.datetime64("2020-01-01") + rng.integers(0, 1500, rows)
    bmi = np.char.mod("%.1f", rng.normal(27, 5, rows)).astype(object)
    bmi[rng.random(rows) < 0.05] = ""
    columns = [
        np.char.add("P", np.arange(rows).astype(str)), word(),
        np.char.add(np.char.add(np.char.add('"', word()), ", "), np.char.add(word(), ' text"')),
        rng.integers(18, 90, rows).astype(str), bmi, days.astype(str),
        np.char.mod("%.1f", rng.normal(110, 30, rows)),
        np.array(["Yes", "No"])[rng.integers(0, 2, rows)],
    ]
    lines = map(",".join, zip(*(column.tolist() for column in columns), strict=True))
    header = "id,city,note,age,bmi,visit,glucose,label"
    return "\n".join([header, *lines, ""]).encode()


def short_text_csv(rows: int) -> bytes:
    """``rows`` x 11 one- to three-letter categories (about 29 bytes a row): the worst case, as
    pandas keeps 9 bytes or more per value (an offset and the text) however short the text."""
    codes = np.random.default_rng(2).integers(0, 5, (rows, 11))
    lines = np.array(["A", "B", "C", "yes", "no"], dtype=object)[codes]
    return "\n".join(["c0,c1,c2,c3,c4,c5,c6,c7,c8,c9,c10", *map(",".join, lines), ""]).encode()


def huge_cell_csv(size: int) -> bytes:
    """The issue's file: ``a,b``, a short row, then a row whose second value is ``size`` digits."""
    return b"a,b\n1,2\n3," + b"7" * size + b"\n"


def _status(key: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"{key}:\s+(\d+) kB", text).group(1)) * 1024


def child(variant: str, path: str) -> None:
    """Run in a fresh process: read ``path``, then time and measure one ``load_csv``."""
    import forestviz.io.csv_input as csv_input

    if variant == "old":
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:forestviz/csv_input.py"],
            capture_output=True, text=True, check=True,
        ).stdout
        old = Path(tempfile.mkdtemp()) / "old_csv_input.py"
        old.write_text(source)
        spec = importlib.util.spec_from_file_location("old_csv_input", old)
        csv_input = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(csv_input)
    elif variant == "new, C":
        csv_input._parse_arrow = lambda *_: None  # as when pyarrow would read the file otherwise
    csv_input.load_csv(b"a,b,c\n1,2.5,x\n3,4.5,y\n")  # first-call set-up (pools, threads) first
    data = Path(path).read_bytes()
    baseline = _status("VmRSS")
    with contextlib.suppress(OSError):  # else the peak includes reading the file: only more
        Path("/proc/self/clear_refs").write_text("5")  # the peak restarts from here
    start = time.perf_counter()
    try:
        frame = csv_input.load_csv(data)
        outcome = f"{frame.shape[0]:,} x {frame.shape[1]}"
    except csv_input.DataError as error:
        outcome = f"refused: {str(error)[:60]}…"
    seconds = time.perf_counter() - start
    extra = _status("VmHWM") - baseline
    print(json.dumps({"seconds": seconds, "extra": extra, "size": len(data), "outcome": outcome}))


def measure(variant: str, path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, __file__, "--child", variant, str(path)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    if result.returncode:
        return {"error": result.stderr.strip().splitlines()[-1]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="files a tenth the size")
    parser.add_argument("--child", nargs=2, metavar=("VARIANT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    scale = 10 if args.quick else 1
    shapes = {
        "numeric 2M x 11": lambda: numeric_csv(2_000_000 // scale),
        "mixed text": lambda: mixed_csv(1_650_000 // scale),
        "one huge cell": lambda: huge_cell_csv(100 * 2**20 // scale),
        "short text 2M x 11": lambda: short_text_csv(2_000_000 // scale),
    }
    print(f"{'file':17s} {'MB':>6s}  {'reader':7s} {'seconds':>8s} {'peak extra MiB':>15s} "
          f"{'x file':>7s}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for name, make in shapes.items():
            path = Path(folder) / "upload.csv"
            path.write_bytes(make())
            size = path.stat().st_size
            for variant in VARIANTS:
                got = measure(variant, path)
                if "error" in got:
                    print(f"{name:17s} {size / 1e6:6.1f}  {variant:7s} failed: {got['error']}")
                    continue
                print(f"{name:17s} {size / 1e6:6.1f}  {variant:7s} {got['seconds']:8.2f} "
                      f"{got['extra'] / 2**20:15.0f} {got['extra'] / size:7.2f}  {got['outcome']}")
    print("goal: peak extra memory <= 4 x the file size")


if __name__ == "__main__":
    main()
