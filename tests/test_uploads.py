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


def test_table_bytes_counts_text():
    frame = pd.DataFrame({"t": ["a" * 1000] * 10})
    assert table_bytes(frame) > 10 * 1000


def test_tracked_tables_are_released_when_dropped():
    budget = TableBudget(10 * MB)
    frame = budget.keep(None, table(4))
    assert budget.held_bytes() == table_bytes(frame)
    del frame
    gc.collect()
    assert budget.held_bytes() == 0


def test_the_budget_refuses_what_live_sessions_cannot_make_room_for():
    budget = TableBudget(10 * MB)
    first = budget.keep("upload:a", table(4, 1))
    second = budget.keep(None, table(4, 2))
    with pytest.raises(BudgetExceeded, match="already hold 8 MB of the 10 MB") as caught:
        budget.keep("upload:c", table(4, 3))
    assert isinstance(caught.value, DataError)
    assert budget.held_bytes() == table_bytes(first) + table_bytes(second)
    assert budget.get("upload:c") is None


def test_a_table_is_shared_while_held_and_gone_with_its_last_holder():
    budget = TableBudget(10 * MB)
    first = budget.keep("upload:a", table(4, 1))
    assert budget.get("upload:a") is first  # a second session uploading the same file
    again = budget.keep("upload:a", budget.get("upload:a"))
    assert budget.held_bytes() == table_bytes(first)  # one table, counted once
    del first, again
    assert budget.get("upload:a") is None
    assert budget.held_bytes() == 0  # nothing kept "for reuse"


def test_a_table_dropped_inside_a_reference_cycle_makes_room():
    budget = TableBudget(10 * MB)
    holder = {"frame": budget.keep("upload:a", table(6, 1))}
    holder["self"] = holder  # a session's state is full of cycles: only gc frees them
    gc.disable()
    try:
        del holder
        assert budget.held_bytes() > 0
        third = budget.keep("upload:b", table(6, 2))  # admit collects, then it fits
    finally:
        gc.enable()
    assert budget.held_bytes() == table_bytes(third)


def test_admit_checks_before_parsing():
    budget = TableBudget(10 * MB)
    held = budget.keep(None, table(6))
    budget.admit(3 * MB)
    with pytest.raises(BudgetExceeded):
        budget.admit(5 * MB, "This file")
    del held


def test_elide_cells_cuts_long_text_and_says_missing_cells():
    long = "9" * 100_000
    frame = pd.DataFrame({"a": [1.5, 2.5], "b": ["short", long], "c": [None, "x"],
                          "d": [np.nan, 2.0], "e": pd.array([pd.NA, 1], dtype="Int64")})
    shown = elide_cells(frame)
    assert shown["b"].iloc[0] == "short"
    assert shown["b"].iloc[1] == "9" * CELL_PREVIEW_LIMIT + "… (100,000 characters)"
    pd.testing.assert_series_equal(shown["a"], frame["a"])  # no gap: still numbers
    # a missing cell reads "—", never "None" (issue 35)
    assert shown["c"].tolist() == ["—", "x"]
    # a number column with a gap is text throughout: Arrow (Streamlit's tables) takes it whole
    assert shown["d"].tolist() == ["—", "2.0"]
    assert shown["e"].tolist() == ["—", "1"]
    import pyarrow as pa
    assert pa.types.is_large_string(pa.Table.from_pandas(shown).column("d").type)
    assert frame["b"].iloc[1] == long  # the data itself is untouched
    assert pd.isna(frame["c"].iloc[0])
