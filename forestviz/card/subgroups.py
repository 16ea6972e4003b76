"""Performance by the subgroups a publisher names: the held-out rows split by the values of a
column of the data set (excluded columns too: a model may leave out the column it is checked
for), each group's size, outcome and metrics with their bootstrap intervals
(:func:`forestviz.card.measures.bootstrap`). A group of fewer than ``MIN_ROWS`` held-out rows
gets a plain note instead of numbers: its estimates would say little, and a small group's
rows are nearly its patients'.

A column of numbers with more than ``MAX_GROUPS`` values is cut at its quartiles (over the
whole table), so "age" gives four groups; a column of text with more than ``MAX_GROUPS``
values (names, notes) is refused in one line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

from forestviz.card.measures import Outcomes, bootstrap
from forestviz.io.csv_input import DataError
from forestviz.numbers import plain_number

MIN_ROWS = 30
MAX_GROUPS = 20
MAX_COLUMNS = 5
MISSING = "(missing)"
FEW = (f"Fewer than {MIN_ROWS} held-out rows: too few for a reliable estimate, so none is "
       "given.")


def group_labels(column: pd.Series) -> pd.Series:
    """The group of each row as text: its value, its quartile's range for a column of many
    numbers, ``MISSING`` where it has none; DataError when the column has too many groups."""
    present = column.dropna()
    values = present.unique()
    if is_numeric_dtype(column) and not is_bool_dtype(column) and len(values) > MAX_GROUPS:
        numbers = column.astype(float)
        bins = pd.qcut(numbers, 4, labels=False, duplicates="drop")
        spans = numbers.groupby(bins).agg(["min", "max"])  # each quartile's own values
        labels = bins.map({b: f"{plain_number(low, 6)} to {plain_number(high, 6)}"
                           for b, (low, high) in spans.iterrows()}).astype(object)
    elif len(values) > MAX_GROUPS:
        raise DataError(f"The column '{column.name}' has {len(values):,} different values: a "
                        f"subgroup column has at most {MAX_GROUPS} (or holds numbers).")
    else:
        labels = column.map(_label).astype(object)
    return labels.where(column.notna(), MISSING).astype(str)


def _label(value) -> str:
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def check_columns(frame: pd.DataFrame, names, target: str) -> tuple[str, ...]:
    """The subgroup column names, each once, each a column of ``frame`` other than the target;
    DataError in one line otherwise."""
    names = tuple(dict.fromkeys(str(name).strip() for name in names if str(name).strip()))
    if len(names) > MAX_COLUMNS:
        raise DataError(f"Name at most {MAX_COLUMNS} subgroup columns ({len(names)} given).")
    for name in names:
        if name == target:
            raise DataError(f"'{name}' is the outcome: name another column for the subgroups.")
        if name not in frame.columns:
            raise DataError(f"The data set has no column '{name}' for the subgroups.")
    return names


def subgroup_table(outcomes: Outcomes, labels: pd.Series, **options) -> list[dict]:
    """Each group of ``labels`` (one per held-out row, in the rows' order), largest first:
    ``group``, ``n``, ``outcome`` (the share of the second class, or the mean value; None for
    more than two classes), ``metrics`` (name → value, low, high; None below ``MIN_ROWS``) and
    ``note``. ``options`` go to :func:`~forestviz.card.measures.bootstrap`."""
    labels = np.asarray(labels, dtype=object)
    found = []
    names, counts = np.unique(labels, return_counts=True)
    for name in names[np.lexsort((names, -counts))]:
        rows = np.flatnonzero(labels == name)
        part = outcomes.subset(rows)
        enough = len(rows) >= MIN_ROWS
        found.append({
            "group": str(name), "n": len(rows), "outcome": outcome_of(part),
            "metrics": ({k: v.as_json() for k, v in bootstrap(part, **options).items()}
                        if enough else None),
            "note": None if enough else FEW})
    return found


def outcome_of(outcomes: Outcomes) -> float | None:
    """The share of the second class (two classes) or the mean value; None otherwise."""
    if outcomes.task == "regression":
        return float(np.mean(outcomes.actual))
    return float(np.mean(outcomes.actual == 1)) if outcomes.n_classes == 2 else None
