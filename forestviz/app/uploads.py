"""A memory budget for uploaded tables, shared by every session of a server.

A server that keeps each parsed upload until some number of entries is reached lets a handful
of large files take the machine's memory, and every other user with it. :class:`TableBudget`
bounds what the server holds in **bytes**, and counts only what some session still holds:

* every table a session keeps (the parsed upload and the data set built from it) is
  *tracked* by a weak reference with its size (``DataFrame.memory_usage(deep=True)``); when
  the session drops it (another upload, another data set, the session's end), its bytes are
  released, and the budget holds no strong reference of its own;
* a parsed upload is found again by its content key while any session holds it (a second
  session uploading the same file shares the table; a ``weakref.WeakValueDictionary``), and
  is gone with its last holder: nothing is kept "for reuse" after the sessions that used it;
* :meth:`TableBudget.admit` refuses a new table (:class:`BudgetExceeded`, with a plain
  message) when the tracked tables plus the new one would pass ``budget_bytes``.

So the tables held across all sessions never exceed the budget, except for the transient peak
of a parse in progress (bounded separately by :mod:`forestviz.io.csv_input`). When sessions
end is the server's business (``ui.session_end``).
"""

from __future__ import annotations

import gc
import threading
import weakref

import pandas as pd

from forestviz.io.csv_input import DataError


class BudgetExceeded(DataError):
    """The server's memory budget for uploads cannot take this table now (a DataError, so
    the page shows it like any other problem with the file)."""


def table_bytes(frame: pd.DataFrame) -> int:
    """Memory held by ``frame``, text cells included."""
    return int(frame.memory_usage(deep=True, index=True).sum())


class TableBudget:
    """Tables held by the sessions of a server, bounded by ``budget_bytes`` (thread-safe)."""

    def __init__(self, budget_bytes: int):
        self.budget_bytes = int(budget_bytes)
        self._lock = threading.RLock()
        self._shared: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self._tracked: dict[int, int] = {}  # id(frame) -> bytes, while the frame lives

    def held_bytes(self) -> int:
        """Bytes of every tracked table still alive."""
        with self._lock:
            return sum(self._tracked.values())

    def get(self, key: str) -> pd.DataFrame | None:
        """The table kept under ``key`` if a session still holds it, else None."""
        with self._lock:
            return self._shared.get(key)

    def admit(self, nbytes: int, what: str = "This table") -> None:
        """Raise :class:`BudgetExceeded` unless ``nbytes`` more fit in the budget."""
        with self._lock:
            if self._fits(nbytes):
                return
            gc.collect()  # tables dropped inside reference cycles are freed now
            if not self._fits(nbytes):
                raise BudgetExceeded(
                    f"{what} needs about {nbytes / 2**20:,.0f} MB, but uploads from the "
                    f"sessions on this server already hold {self.held_bytes() / 2**20:,.0f} MB "
                    f"of the {self.budget_bytes / 2**20:,.0f} MB allowed. Try again later, or "
                    "use a smaller file.")

    def keep(self, key: str | None, frame: pd.DataFrame) -> pd.DataFrame:
        """Track ``frame`` (admitting it first) and, with a ``key``, share it under that key
        while it lives."""
        size = table_bytes(frame)
        with self._lock:
            ident = id(frame)
            if ident not in self._tracked:
                self.admit(size)
                self._tracked[ident] = size
                weakref.finalize(frame, self._release, ident)
            if key is not None:
                self._shared[key] = frame
        return frame

    def _fits(self, nbytes: int) -> bool:
        return self.held_bytes() + nbytes <= self.budget_bytes

    def _release(self, ident: int) -> None:
        with self._lock:
            self._tracked.pop(ident, None)
