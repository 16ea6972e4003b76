"""The one-page report (issue 26, item 6): its PDF's time and size against the full report
(with the technical appendix, the report as it was before) measured in the same run.

    PYTHONPATH=. .venv/bin/python bench/report.py [--repeat 3]

For the bundled Pima table (the app's default model, an Enhanced RF of 100 trees) and a
regression table (friedman1, 300 rows, ABRF-1 of 100 trees), the riskiest held-out row is
explained; then, each the best of ``--repeat`` runs: the summary's HTML
(``Workbench.report``), its PDF as the app makes it (``Workbench.report(pdf=True)``: the HTML,
then WeasyPrint in a worker process, :func:`forestviz.app.printing.print_pdf`, forked from a
forkserver that imported a server's preload (``forestviz.app.jobs.SERVER_PRELOAD``), WeasyPrint
among it, as the app's does; ``--fresh-workers``: without it, as ``forestviz report --pdf``,
whose worker imports WeasyPrint, about a second of CPU), WeasyPrint's layout alone in this process
(:func:`forestviz.explain.report.pdf.html_to_pdf`, imported already), and the same for the
report with the appendix (its tree drawings from the cache, as the page hands them over).
Goal: the one-page PDF ≤ 3 s and ≤ 300 KB on a quiet 2-core machine.
"""

import argparse
import io
import time

from pypdf import PdfReader

from bench.timing import best_time
from forestviz.app.jobs import SERVER_PRELOAD, JobPool
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.report.pdf import html_to_pdf
from forestviz.io.bundled import load_dataset

GOAL_SECONDS = 3.0
GOAL_BYTES = 300_000
TABLES = {"pima_diabetes": ("erf", {}), "friedman1": ("abrf1_qp", {"n_samples": 300})}


def measure(name: str, repeat: int) -> None:
    family, options = TABLES[name]
    bench = Workbench(load_dataset(name, **options))
    bench.train(Settings(family=family, n_estimators=100, random_state=0))
    e = bench.explain(bench.highest_risk_row())
    glance = bench.glance(e)
    bench.report(e, appendix=True)  # the drawings to the cache, the PDF worker started
    html_to_pdf(bench.report(e))  # WeasyPrint imported here too
    found = {}
    for appendix in (False, True):
        document = bench.report(e, glance=glance, appendix=appendix)
        html = best_time(lambda a=appendix: bench.report(e, glance=glance, appendix=a), repeat)
        layout = best_time(lambda d=document: html_to_pdf(d), repeat)
        cpu = best_time(lambda d=document: html_to_pdf(d), repeat, clock=time.process_time)
        pdf = bench.report(e, pdf=True, glance=glance, appendix=appendix)
        seconds = best_time(lambda a=appendix: bench.report(e, pdf=True, glance=glance,
                                                            appendix=a), repeat)
        found[appendix] = (html, f"{layout:.2f} s ({cpu:.2f} s CPU)", seconds, len(pdf),
                           len(PdfReader(io.BytesIO(pdf)).pages))
    (html, layout, seconds, size, pages), full = found[False], found[True]
    met = seconds <= GOAL_SECONDS and size <= GOAL_BYTES
    print(f"{name}: one-page report: HTML {html:.2f} s, layout {layout}, PDF {seconds:.2f} "
          f"s, {size / 1e3:.0f} KB, {pages} page(s) (goal ≤ {GOAL_SECONDS:g} s, ≤ "
          f"{GOAL_BYTES / 1e3:.0f} KB: {'met' if met else 'NOT met'}); with the appendix: "
          f"HTML {full[0]:.2f} s, layout {full[1]}, PDF {full[2]:.2f} s, "
          f"{full[3] / 1e3:.0f} KB, {full[4]} pages; one-page PDF / full PDF "
          f"{seconds / full[2]:.2f}×", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fresh-workers", action="store_true",
                        help="PDF workers that import WeasyPrint themselves (the command line)")
    args = parser.parse_args()
    if not args.fresh_workers:  # the forkserver the PDF workers come from, as the app's
        JobPool(preload=SERVER_PRELOAD).warm_up()
    for name in TABLES:
        measure(name, args.repeat)


if __name__ == "__main__":
    main()
