"""How long one page run may wait, in all, for another process's lock on the library's database.

Every SQLite transaction waits for a lock at its ``BEGIN IMMEDIATE`` (:mod:`.engine`): at most
:data:`~forestviz.store.engine.LOCK_WAIT_SECONDS`, or a publish's longer wait. A page run makes
several such calls (an event recorded, the list of models, a publish's three transactions),
so the app gives each run one budget, :func:`page_run`: the waits of all its transactions
together stay within :data:`PAGE_RUN_SECONDS`, whatever each would wait alone; a transaction
that finds the budget spent does not wait at all. Code outside a page run (the command line,
the server's threads) has no budget and waits as each transaction says.

The budget lives in a :class:`contextvars.ContextVar`, so it is the page run's own (its script
thread's), and this module imports nothing else, so the app's first page does not import the
database packages to set it.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

PAGE_RUN_SECONDS = 2.0  # every lock wait of one page run together (issue 36)

_LEFT: ContextVar[list[float] | None] = ContextVar("forestviz_lock_budget", default=None)


def page_run(seconds: float = PAGE_RUN_SECONDS, *, renew: bool = True) -> None:
    """Begin a page run's budget: its transactions wait at most ``seconds`` in all. ``renew``
    replaces the budget the same thread's previous run left (the app's entry point, where
    every run starts); without it a budget already set is kept (a page's first line, which
    Streamlit may run without the entry point: it then starts the run's budget)."""
    if renew or _LEFT.get() is None:
        _LEFT.set([seconds])


def allowed(wait: float) -> float:
    """The wait a transaction asking for ``wait`` seconds may have: all it asks outside a page
    run, else no more than what is left of the run's budget."""
    left = _LEFT.get()
    return wait if left is None else max(0.0, min(wait, left[0]))


class Spent:
    """Times a lock wait and takes it from the page run's budget (if any) when it ends."""

    def __enter__(self) -> Spent:
        self._started = time.monotonic()
        return self

    def __exit__(self, *exc) -> None:
        left = _LEFT.get()
        if left is not None:
            left[0] -= time.monotonic() - self._started
