"""Progress bars and tables on the terminal, through ``rich`` (on standard error, so standard
output carries only results; nothing is drawn with ``--quiet`` or when it is not a terminal)."""

from __future__ import annotations

import contextlib
import sys
from numbers import Integral, Real

import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from forestviz.numbers import NOTHING, decimal_text

ERRORS = Console(stderr=True, highlight=False)
# results: as wide as the terminal, or lines of up to 200 characters into a file or pipe
OUTPUT = Console(highlight=False, width=None if sys.stdout.isatty() else 200)


@contextlib.contextmanager
def stages(title: str, quiet: bool):
    """A bar for work reported as (stage, fraction done): yields ``progress(stage, f)``."""
    bar = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                   TimeElapsedColumn(), console=ERRORS, disable=quiet, transient=False)
    with bar:
        task = bar.add_task(escape(title), total=1.0)

        def progress(stage: str, fraction: float) -> None:
            bar.update(task, completed=min(max(fraction, 0.0), 1.0),
                       description=escape(f"{title}: {stage}"))

        yield progress
        bar.update(task, completed=1.0, description=escape(f"{title}: done"))


@contextlib.contextmanager
def rows(title: str, total: int | None, quiet: bool):
    """A bar counting rows (of ``total`` when known): yields ``progress(n_more_rows)``."""
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TimeRemainingColumn(), console=ERRORS, disable=quiet)
    with bar:
        task = bar.add_task(escape(title), total=total)

        def progress(n: int) -> None:
            bar.advance(task, n)
            done = bar.tasks[0].completed
            if total is not None and done > total:  # the line count was an estimate
                bar.update(task, total=done)

        yield progress
        bar.update(task, total=bar.tasks[0].completed)


def print_table(frame: pd.DataFrame, title: str) -> None:
    """``frame`` (its index as the first column) as a table on standard output, as people read
    it (:func:`cell_text`)."""
    table = Table(title=Text(title), title_justify="left")
    table.add_column(Text(str(frame.index.name or "")))
    for column in frame.columns:
        table.add_column(Text(str(column)), justify="right")
    for label, values in frame.iterrows():
        table.add_row(Text(str(label)), *(Text(cell_text(v)) for v in values))
    OUTPUT.print(table)


def cell_text(value) -> str:
    """A table cell for people: a count with its thousands grouped ("12,345"), a measure with
    three decimals and a true minus ("−0.102"), a missing one as "—"; text as it is."""
    if value is None:
        return NOTHING
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    return decimal_text(value, 0 if isinstance(value, Integral) else 3)
