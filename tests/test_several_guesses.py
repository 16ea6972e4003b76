"""The several-patients table and its CSV say which rows rest on a guess (issue 35): the column
"a guessed value could change it" equals, row by row, what the Explain page's alarm says of
that row explained alone (its Glance's alarms), for rows with any of their values blanked."""

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from forestviz.app import new_rows
from forestviz.app.guesses import COLUMN
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.io.bundled import load_dataset
from forestviz.io.export import csv_bytes

COLUMNS = 7  # Pima's columns


@pytest.fixture(scope="module")
def bench():
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family="abrf1_qp", n_estimators=20, random_state=0))
    return bench


def alone(bench, row) -> str:
    """What the Explain page's alarm says of ``row`` explained alone, in the column's words."""
    g = bench.glance(bench.explain(values=row, row_id="x"))
    if not g.checks:
        return "no missing value"
    return f"yes: {', '.join(c.column for c in g.alarms)}" if g.alarms else "no"


@given(blanks=st.lists(st.sets(st.integers(0, COLUMNS - 1), max_size=3), min_size=1,
                       max_size=4))
@example(blanks=[{1, 4}, set(), {1}, {0, 2, 3, 5, 6}])  # Glucose and BMI, nothing, ...
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_the_table_says_what_the_alarm_says_of_each_row(bench, blanks):
    X = bench.dataset.X
    picked = bench.model.test_rows[:len(blanks)]
    rows = X.iloc[picked].reset_index(drop=True).astype(float)
    for i, blank in enumerate(blanks):
        rows.iloc[i, sorted(blank)] = np.nan
    found = new_rows.several(bench.model, rows)
    expected = [alone(bench, rows.iloc[i]) for i in range(len(rows))]
    assert found.summary[COLUMN].tolist() == expected
    written = pd.read_csv(io.BytesIO(csv_bytes(found.outputs)))
    assert written[COLUMN].tolist() == expected
