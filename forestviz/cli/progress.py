"""Progress bars and tables on the terminal, through ``rich`` (on standard error, so standard
output carries only results; nothing is drawn with ``--quiet`` or when it is not a terminal)."""

from __future__ import annotations

import contextlib
import math
import sys

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
    """``frame`` (its index as the first column) as a table on standard output; numbers with
    three decimals, a missing one as —."""
    table = Table(title=Text(title), title_justify="left")
    table.add_column(Text(str(frame.index.name or "")))
    for column in frame.columns:
        table.add_column(Text(str(column)), justify="right")
    for label, values in frame.iterrows():
        cells = [Text("—" if isinstance(v, float) and math.isnan(v) else
                      f"{v:.3f}" if isinstance(v, float) else str(v)) for v in values]
        table.add_row(Text(str(label)), *cells)
    OUTPUT.print(table)
