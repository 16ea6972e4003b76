"""The report's PDF printed off the caller's process, within a time limit.

WeasyPrint (:mod:`forestviz.explain.report.pdf`) lays a report out on one core for as long as
the report asks. The report's bounds (:mod:`forestviz.explain.report.markup`: texts cut, tables
capped) keep that to seconds; this module makes it a hard bound wherever a PDF is printed (the
app's button, ``forestviz report --pdf``). The layout runs in a worker process of a
:class:`~forestviz.app.jobs.JobPool` (lower priority, its own process group, never the server's
process), which is stopped once it has used ``PDF_SECONDS`` of CPU (the work a report asks,
whatever else the machine runs: on a quiet machine, that many seconds of waiting) or has run
``PDF_WALL_SECONDS`` in all (a worker starved by a busy server, at its lower priority); the
caller then gets :class:`PdfRefused`, whose message is one line for the user. At most
``PDF_JOBS`` PDFs are laid out at once and ``PDF_QUEUED`` wait, for the whole process (every
session of a server).
"""

from __future__ import annotations

import functools
import math

from forestviz.app.jobs import JobPool, JobTimedOut, PoolBusy, WorkerDied
from forestviz.io.csv_input import DataError

PDF_SECONDS = 10  # CPU seconds a PDF's worker may use (WeasyPrint's import included)
PDF_WALL_SECONDS = 60.0  # seconds a PDF's worker may run in all
PDF_JOBS = 1  # PDFs laid out at once
PDF_QUEUED = 2  # PDFs waiting for a worker


class PdfRefused(DataError):
    """The PDF was not made (its layout ran past the limit, too many PDFs were being made, or
    the worker died); the message says so in one line."""


@functools.cache
def pdf_pool() -> JobPool:
    """The process's PDF workers (shared by every session of a server)."""
    return JobPool(max_running=PDF_JOBS, max_queued=PDF_QUEUED, lease=math.inf,
                   time_limit=PDF_WALL_SECONDS, cpu_limit=PDF_SECONDS)


def print_pdf(document: str, *, pool: JobPool | None = None) -> bytes:
    """A self-contained HTML report printed to PDF bytes in a worker of ``pool`` (default:
    :func:`pdf_pool`), waiting at most for the pool's queue and time limit. Raises
    :class:`PdfRefused` when the PDF is not made."""
    pool = pdf_pool() if pool is None else pool
    try:
        job = pool.submit("forestviz.explain.report.pdf:html_to_pdf", document)
    except PoolBusy as err:
        raise PdfRefused("The PDF report was not made: other PDF reports are being made on this "
                         "server; try again in a minute (the HTML report has the same content)."
                         ) from err
    job.wait()
    try:
        return job.result()
    except JobTimedOut as err:
        raise PdfRefused(f"The PDF report was not made: laying it out took longer than "
                         f"{_limits(pool)}, the limit for a PDF (the HTML report has the same "
                         "content).") from err
    except WorkerDied as err:
        raise PdfRefused(f"The PDF report was not made: {err}.") from err


def _limits(pool: JobPool) -> str:
    """"10 s of computing or 60 s in all", as far as ``pool`` has limits."""
    said = [f"{pool.cpu_limit} s of computing"] if pool.cpu_limit is not None else []
    if pool.time_limit is not None:
        said.append(f"{pool.time_limit:g} s in all")
    return " or ".join(said)
