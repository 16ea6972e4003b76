"""How long a report's PDF takes for the hostile tables of issue 25: 200 rows with three text
columns of 10,000-character values (each value its own, and a variant where they are four
levels of categorical columns), and a table whose column names have 10,000 characters. Each
table is trained on through the Workbench (an ABRF-1 of 12 trees, as the app trains), row 0 is
explained, its HTML report made (with the technical appendix), and the HTML printed by WeasyPrint
(:func:`forestviz.explain.report.pdf.html_to_pdf`) in a child process stopped at
``--ceiling`` seconds, so the script measures code without the report's bounds too (the
issue's PDF had not finished after 900 s). Prints per table the HTML's size and time and the
PDF's wall and CPU seconds and pages.

    PYTHONPATH=. .venv/bin/python bench/report_pdf.py [--ceiling 300]
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import resource
import time

import numpy as np
import pandas as pd

ROWS = 200
LONG = 10_000
KINDS = ("values", "levels", "names")


def hostile_frame(kind: str) -> pd.DataFrame:
    """A 200-row ward table (two numbers, a binary outcome) made hostile: ``values``, three
    text columns whose every value has 10,000 characters (each row its own); ``levels``, the
    same columns with four such values each (categorical features); ``names``, three numeric
    columns named by 10,000-character names."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=ROWS)
    frame = pd.DataFrame({"glucose": (100 + 20 * x).round(1),
                          "bmi": rng.normal(30, 5, ROWS).round(1)})
    for j in range(3):
        if kind == "values":
            frame[f"note {j}"] = [f"row {i:03d}: " + "x" * (LONG - 13) + f"{i:04d}"
                                  for i in range(ROWS)]
        elif kind == "levels":
            levels = [f"level {k}: " + "y" * (LONG - 9) for k in range(4)]
            frame[f"note {j}"] = rng.choice(levels, ROWS)
        else:
            frame[f"{j}" + "A" * (LONG - 1)] = rng.normal(size=ROWS)
    frame["outcome"] = np.where(x + rng.normal(0, 0.5, ROWS) > 0, "sick", "well")
    return frame


def hostile_bench(kind: str):
    """The Workbench trained on :func:`hostile_frame` (``kind``) as the app trains."""
    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Settings
    from forestviz.io.dataset import Dataset

    bench = Workbench(Dataset.from_frame(hostile_frame(kind), "outcome", name="x" * LONG))
    bench.train(Settings(family="abrf1_qp", n_estimators=12, max_depth=3, random_state=0))
    return bench


def _print(document: str, out) -> None:
    from pypdf import PdfReader

    from forestviz.explain.report.pdf import html_to_pdf

    started = time.perf_counter()
    pdf = html_to_pdf(document)
    seconds = time.perf_counter() - started
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    pages = len(PdfReader(io.BytesIO(pdf)).pages)
    out.send((seconds, cpu.ru_utime + cpu.ru_stime, pages))


def pdf_seconds(document: str, ceiling: float) -> tuple[float, float, int] | None:
    """(wall s, CPU s of the child, pages) of printing ``document``, None past ``ceiling``."""
    receiver, sender = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("spawn").Process(target=_print, args=(document, sender))
    child.start()
    found = receiver.poll(ceiling)
    result = receiver.recv() if found else None
    child.kill()
    child.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ceiling", type=float, default=300.0)
    args = parser.parse_args()
    for kind in KINDS:
        bench = hostile_bench(kind)
        e = bench.explain(0)
        started = time.perf_counter()
        document = bench.report(e, appendix=True)  # the whole report, as the issue printed it
        made = time.perf_counter() - started
        result = pdf_seconds(document, args.ceiling)
        said = (f"not finished after {args.ceiling:g} s" if result is None else
                f"{result[0]:.1f} s wall, {result[1]:.1f} s CPU (with imports), "
                f"{result[2]} pages")
        print(f"{kind:7s} HTML {len(document.encode()):>9,} bytes in {made:.2f} s; PDF {said}",
              flush=True)


if __name__ == "__main__":
    main()
