"""The upload memory budget (forestviz.app.uploads) and elided table cells
(forestviz.names)."""

import gc

import numpy as np
import pandas as pd
import pytest

from forestviz.app.uploads import BudgetExceeded, TableBudget, table_bytes
from forestviz.io.csv_input import DataError
from forestviz.names import CELL_PREVIEW_LIMIT, elide_cells

MB = 2**20


def table(mb: float, seed: int = 0) -> pd.DataFrame:
    rows = int(mb * MB / 8)
    return pd.DataFrame({"x": np.random.default_rng(seed).normal(size=rows)})


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_table_bytes_counts_text():
    frame = pd.DataFrame({"t": ["a" * 1000] * 10})
    assert table_bytes(frame) > 10 * 1000


def test_tracked_tables_are_released_when_dropped():
    budget = TableBudget(10 * MB, keep_seconds=60)
    frame = budget.keep(None, table(4))
    assert budget.held_bytes() == table_bytes(frame)
    del frame
    gc.collect()
    assert budget.held_bytes() == 0


def test_the_budget_refuses_what_live_sessions_cannot_make_room_for():
    budget = TableBudget(10 * MB, keep_seconds=60)
    first = budget.keep("upload:a", table(4, 1))
    second = budget.keep(None, table(4, 2))
    with pytest.raises(BudgetExceeded, match="already hold 8 MB of the 10 MB") as caught:
        budget.keep("upload:c", table(4, 3))
    assert isinstance(caught.value, DataError)
    assert budget.held_bytes() == table_bytes(first) + table_bytes(second)
    assert budget.get("upload:c") is None


def test_tables_only_kept_for_reuse_make_room():
    budget = TableBudget(10 * MB, keep_seconds=60)
    budget.keep("upload:a", table(4, 1))  # no session holds it any more
    budget.keep("upload:b", table(4, 2))
    assert budget.get("upload:a") is not None
    third = budget.keep("upload:c", table(4, 3))
    assert budget.get("upload:c") is third
    assert budget.held_bytes() <= budget.budget_bytes


def test_reuse_ends_after_keep_seconds():
    clock = Clock()
    budget = TableBudget(10 * MB, keep_seconds=60, timer=clock)
    budget.keep("upload:a", table(1))
    gc.collect()
    assert budget.get("upload:a") is not None
    clock.now = 61
    assert budget.get("upload:a") is None
    gc.collect()
    assert budget.held_bytes() == 0


def test_admit_checks_before_parsing():
    budget = TableBudget(10 * MB, keep_seconds=60)
    held = budget.keep(None, table(6))
    budget.admit(3 * MB)
    with pytest.raises(BudgetExceeded):
        budget.admit(5 * MB, "This file")
    del held


def test_elide_cells_cuts_long_text_only():
    long = "9" * 100_000
    frame = pd.DataFrame({"a": [1.5, 2.5], "b": ["short", long], "c": [None, "x"]})
    shown = elide_cells(frame)
    assert shown["b"].iloc[0] == "short"
    assert shown["b"].iloc[1] == "9" * CELL_PREVIEW_LIMIT + "… (100,000 characters)"
    pd.testing.assert_series_equal(shown["a"], frame["a"])
    pd.testing.assert_series_equal(shown["c"], frame["c"])
    assert frame["b"].iloc[1] == long  # the data itself is untouched
