"""Hypothesis strategies for tables as users export them (issue 35): numeric, integer-coded-as-
text and text columns, numbers with thousands separators ("265,000"), rare levels and levels
only in new rows, missing values in any column (text and the ID too), constant columns,
duplicate rows, names with spaces, unicode, brackets and look-alikes, and binary, imbalanced
and regression targets.

A drawn :class:`Table` is what the user has: the CSV's bytes, the position of the target and
ID columns (their names are what :func:`forestviz.io.csv_input.load_csv` makes of the header),
and a few new rows with blanks and an unseen level. :func:`bad_tables` draws tables the app
must refuse in one line.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from forestviz.io.csv_input import load_csv

# Column names people's exports have: spaces, units in brackets, unicode, markup and formula
# look-alikes, names that differ only in case, spacing or a look-alike letter.
NAMES = ("Age (years)", "Age [years]", "age", "Age ", " Age", "Glucose (mg/dL)",
         "blood pressure", "Größe", "体重 kg", "Αge", "Аge", "x", "x.1", "1st visit",
         "<b>bold</b>", "=SUM(A1:A9)", "a,b", 'say "hi"', "naïve", "e\u0301", "[x]", "(x)",
         "Column", "column 1", "—", "ID ", "Outcome ")
LEVELS = ("north", "south", "east", "west", "Nord", "süd", "N/A-ish", "<i>x</i>", "=1+1",
          "a b", "Ünïcödé", "東", "level (2)", "[3]", "0", "1.5")
UNSEEN = "never seen before"
TASKS = ("binary", "imbalanced", "regression")
KINDS = ("float", "int", "int_text", "thousands", "text", "rare_text", "constant", "bool",
         "many_levels")


@dataclass(frozen=True)
class Table:
    """A user's table: ``frame`` as written to ``csv`` (text where the export has text),
    ``target`` and ``id_column`` by position among the columns (``id_column`` None: no ID),
    ``task`` one of :data:`TASKS`, ``kinds`` the feature columns' kinds, ``new_rows`` rows not
    in the table (blanks, a level the table never has) with the feature columns only."""

    frame: pd.DataFrame
    target: int
    id_column: int | None
    task: str
    kinds: tuple[str, ...]
    new_rows: pd.DataFrame

    @property
    def csv(self) -> bytes:
        return csv_bytes(self.frame)

    def __repr__(self) -> str:  # Hypothesis prints the failing table: the CSV itself
        return (f"Table(task={self.task!r}, target={self.target}, id_column={self.id_column}, "
                f"kinds={self.kinds}, csv={self.csv[:4000]!r})")


def csv_bytes(frame: pd.DataFrame) -> bytes:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")


def _column(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(the values as the CSV holds them (object), a number per row the target may follow)."""
    signal = rng.normal(size=n)
    if kind == "float":
        return np.round(signal * 10 + 50, 2).astype(object), signal
    if kind == "int":
        return np.round(signal * 3 + 10).astype(int).astype(object), signal
    if kind == "int_text":  # codes stored as text: "1".."5", sometimes with a word
        codes = np.clip(np.round(signal + 3), 1, 5).astype(int)
        text = np.array([str(c) for c in codes], dtype=object)
        if rng.random() < 0.5:
            text[rng.random(n) < 0.05] = "unknown"
        return text, codes.astype(float)
    if kind == "thousands":
        values = np.round(signal * 150_000 + 400_000).astype(int)
        return np.array([f"{v:,}" for v in values], dtype=object), signal
    if kind == "text":
        levels = np.array(rng.choice(LEVELS, size=int(rng.integers(2, 5)), replace=False))
        codes = np.clip(np.round(signal + len(levels) / 2), 0, len(levels) - 1).astype(int)
        return levels[codes].astype(object), codes.astype(float)
    if kind == "rare_text":  # a common level, a few others and one seen once or twice
        levels = rng.choice(LEVELS, size=4, replace=False)
        codes = np.where(signal > 0.3, 1, 0)
        codes[rng.random(n) < 0.1] = 2
        codes[rng.choice(n, size=min(n, int(rng.integers(1, 3))), replace=False)] = 3
        return levels[codes].astype(object), codes.astype(float)
    if kind == "constant":
        value = rng.choice(["same", 7, 0.5], 1)[0]
        return np.full(n, value, dtype=object), np.zeros(n)
    if kind == "bool":
        return np.where(signal > 0, True, False).astype(object), (signal > 0).astype(float)
    if kind == "many_levels":  # more levels than are one-hot encoded in full
        codes = rng.integers(0, 30, n)
        return np.array([f"code {c}" for c in codes], dtype=object), codes / 30.0
    raise ValueError(kind)


@st.composite
def tables(draw, *, min_rows: int = 30, max_rows: int = 300, max_features: int = 5,
           tasks=TASKS) -> Table:
    """A table a user might export (see the module's docstring)."""
    # most tables small, some large: 30–200 rows, up to 1,000, up to max_rows
    bands = [(min_rows, min(max_rows, 200)), (min_rows, min(max_rows, 1000)),
             (min_rows, max_rows)]
    low, high = draw(st.sampled_from(bands[:1] * 6 + bands[1:2] * 3 + bands[2:]))
    n = draw(st.integers(low, high))
    task = draw(st.sampled_from(tasks))
    kinds = tuple(draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=max_features)))
    if all(kind == "constant" for kind in kinds):  # something to learn from (else: bad table)
        kinds = (*kinds, "float")
    names = draw(st.lists(st.sampled_from(NAMES), min_size=len(kinds), max_size=len(kinds)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    columns, signal = {}, np.zeros(n)
    for i, (kind, name) in enumerate(zip(kinds, names, strict=True)):
        values, number = _column(kind, n, rng)
        gaps = draw(st.sampled_from((0.0, 0.0, 0.05, 0.3, 0.9)))
        if gaps:
            values[rng.random(n) < gaps] = None
        columns[f"{i}"] = (name, values)
        signal += number * rng.normal()
    signal = (signal - signal.mean()) / (signal.std() or 1.0) + rng.normal(scale=0.7, size=n)
    frame = pd.DataFrame({key: values for key, (_, values) in columns.items()})
    frame.columns = [name for name, _ in columns.values()]
    target_name = draw(st.sampled_from(("Outcome", "outcome (yes/no)", "Diabetes", "Préd",
                                        "price [€]", "y")))
    if task == "regression":
        y = np.round(signal * 40 + 200, 3).astype(object)
        if draw(st.booleans()):
            y = np.array([f"{v:,.0f}" for v in y * 1000], dtype=object)
    else:
        share = 0.5 if task == "binary" else draw(st.sampled_from((0.03, 0.05, 0.1)))
        positive = signal > np.quantile(signal, 1 - share)
        labels = draw(st.sampled_from((("No", "Yes"), (0, 1), ("benign", "malignant"),
                                       (False, True))))
        y = np.where(positive, labels[1], labels[0]).astype(object)
    y[rng.random(n) < draw(st.sampled_from((0.0, 0.0, 0.02)))] = None  # rows without a target
    at = draw(st.integers(0, len(kinds)))
    frame.insert(at, target_name, y)
    duplicates = draw(st.sampled_from((0, 0, 3, 20)))
    if duplicates:
        frame = pd.concat([frame, frame.iloc[rng.choice(n, min(n, duplicates))]],
                          ignore_index=True)
    id_at = None
    if draw(st.booleans()):
        id_at = draw(st.integers(0, frame.shape[1]))
        ids = [f"P{i:04d}" for i in range(len(frame))]
        frame.insert(id_at, draw(st.sampled_from(("Patient ID", "id", "ID (local)"))), ids)
        target_at = at + (id_at <= at)
    else:
        target_at = at
    new = _new_rows(frame.drop(columns=frame.columns[[target_at] + (
        [] if id_at is None else [id_at])]), rng)
    return Table(frame=frame, target=target_at, id_column=id_at, task=task, kinds=kinds,
                 new_rows=new)


def table_of(csv: bytes, target: int, id_column: int | None = None, task: str = "binary",
             new_rows: pd.DataFrame | None = None) -> Table:
    """A :class:`Table` from a CSV a run found (an explicit ``@example``): its new rows are
    ``new_rows`` or drawn from its rows as :func:`tables` draws them (seed 0)."""
    frame = load_csv(csv)  # the types the app reads (a new row's text levels are text)
    features = frame.drop(columns=frame.columns[[target] + (
        [] if id_column is None else [id_column])])
    new = _new_rows(features, np.random.default_rng(0)) if new_rows is None else new_rows
    return Table(frame=frame, target=target, id_column=id_column, task=task,
                 kinds=("from a run",), new_rows=new)


def _new_rows(features: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Three rows the table does not have: a copy of a row with blanks in about half its
    columns, one with a level no row has in every text column, one copied whole."""
    rows = features.iloc[rng.choice(len(features), 3)].reset_index(drop=True).astype(object)
    blanks = rng.random(features.shape[1]) < 0.5
    blanks[rng.integers(features.shape[1])] = True
    rows.iloc[0, np.flatnonzero(blanks)] = None
    for j in range(features.shape[1]):
        present = features.iloc[:, j].dropna()
        if len(present) and all(isinstance(v, str) for v in present):
            rows.iloc[1, j] = UNSEEN
    return rows


@dataclass(frozen=True)
class BadTable:
    """A table the app must refuse: its CSV bytes, the target and ID by position among the
    columns (``target`` None: a name the table does not have), and why."""

    csv: bytes
    target: int | None
    id_column: int | None
    problem: str


@st.composite
def bad_tables(draw) -> BadTable:
    """A table with one thing wrong that no model can be trained on."""
    table = draw(tables(max_rows=80, tasks=("binary", "regression")))
    frame = table.frame.copy()
    target, id_column = table.target, table.id_column
    problem = draw(st.sampled_from(("no target values", "one class", "too few rows",
                                    "ID missing", "ID repeated", "target is the ID",
                                    "no such target")))
    if problem == "no target values":
        frame.iloc[:, target] = None
    elif problem == "one class":
        frame.iloc[:, target] = "Yes"
    elif problem == "too few rows":
        frame = frame.iloc[:draw(st.integers(1, 9))]
    elif problem == "no such target":
        target = None
    else:
        if id_column is None:
            frame.insert(0, "Patient ID", [f"P{i}" for i in range(len(frame))])
            id_column, target = 0, target + 1
        if problem == "ID missing":
            frame.iloc[draw(st.integers(0, len(frame) - 1)), id_column] = None
        elif problem == "ID repeated":
            frame.iloc[-1, id_column] = frame.iloc[0, id_column]
        else:
            target = id_column
    return BadTable(csv=csv_bytes(frame), target=target, id_column=id_column, problem=problem)
