"""Describing a learning task on a loaded table.

``schema`` reports what each column looks like; ``Dataset.from_frame`` fixes the target, the
ID column and the features, cleans the target and validates the result, raising
:class:`DataError` with a message a non-programmer can act on. Reading the CSV itself is
:mod:`forestviz.io.csv_input`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

from forestviz.io.csv_input import DataError, unique_names
from forestviz.io.row_ids import row_ids
from forestviz.io.values import check_table
from forestviz.numbers import plain_number

MAX_LEVELS = 20  # categorical columns with at most this many levels are one-hot encoded in full
MAX_TEXT_LEVELS = 50  # above this many distinct values a text column is treated as free text
MAX_CLASSES_INFERRED = 10  # an integer target with at most this many values is a class label
MIN_ROWS = 10

_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+(?:\.\d*)?|\.\d+)"

# --------------------------------------------------------------------------- columns


def numbers_from_text(column: pd.Series) -> pd.Series | None:
    """A text column whose non-missing values are all numbers (``"265,000"``, ``"-1.5"``) as
    floats, else None. Numeric and boolean columns are not text: None."""
    if is_numeric_dtype(column) or is_bool_dtype(column):
        return None
    present = column.dropna().astype(str).str.strip()
    if present.empty or not present.str.fullmatch(_NUMBER).all():
        return None
    return as_numbers(column)


def as_numbers(column: pd.Series) -> pd.Series:
    """Floats from a numeric, boolean or number-text column (thousands separators removed;
    True and False, as values or as text in any case, 1 and 0, as a boolean column with a gap
    holds them); a value that is not a number becomes NaN."""
    if is_numeric_dtype(column) or is_bool_dtype(column):
        return column.astype(float)
    text = column.astype("string").str.strip()
    numbers = pd.to_numeric(text.str.replace(",", "", regex=False), errors="coerce")
    lower = text.str.lower()
    return (numbers.astype(float).mask((lower == "true").fillna(False), 1.0)
            .mask((lower == "false").fillna(False), 0.0))


def infer_task(y: pd.Series) -> str:
    """``"classification"`` for a non-numeric target or one with at most
    ``MAX_CLASSES_INFERRED`` distinct integer values, else ``"regression"``."""
    present = y.dropna()
    if present.empty:
        raise DataError(f"The column '{y.name}' has no values. Pick another target column.")
    if not is_numeric_dtype(present) or is_bool_dtype(present):
        return "classification"
    values = present.to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    few = np.unique(values).size <= MAX_CLASSES_INFERRED
    return "classification" if few and np.all(values == np.round(values)) else "regression"


def suggest_id_columns(df: pd.DataFrame) -> list[str]:
    """Columns that look like row identifiers: no missing value, unique per row, not float.

    Columns whose name looks like an identifier ("ID", "Patient no", "key") come first.
    """
    if len(df) < 2:
        return []
    found = [
        name
        for name in df.columns
        if not pd.api.types.is_float_dtype(df[name])
        and not is_bool_dtype(df[name])
        and df[name].notna().all()
        and df[name].is_unique
    ]
    named = re.compile(r"(\bid\b|id$|identifier|\bkey\b|\bno\b|\bnumber\b)", re.IGNORECASE)
    return sorted(found, key=lambda name: not named.search(str(name)))


# a column named like the outcome: "diagnosis", "Outcome", "target", "class", "label", "y" …
_OUTCOME_NAME = re.compile(
    r"^(?:target|outcome|label|class|y|diagnosis|response|result|status)$|"
    r"(?:^|[\s_-])(?:target|outcome|label|class|diagnosis)(?:$|[\s_-])", re.IGNORECASE)


def suggest_target(df: pd.DataFrame) -> tuple[str, bool]:
    """The column an uploaded table's target defaults to, and whether its name says so.

    A column named like an outcome ("diagnosis", "Outcome", "target class"; the whole name
    first) that is not an identifier (:func:`suggest_id_columns`); else the last column that is
    neither an identifier nor free text, else the last column: a guess (False) the Data page
    asks the user to check. The last column alone is no rule: a table whose outcome comes
    first (the breast-cancer CSV's "diagnosis") often ends with some note or category."""
    ids = set(suggest_id_columns(df))
    columns = [c for c in df.columns if c not in ids]
    named = [c for c in columns if _OUTCOME_NAME.search(str(c).strip())]
    if named:
        whole = [c for c in named if _OUTCOME_NAME.fullmatch(str(c).strip())]
        return (whole or named)[0], True
    usable = [c for c in columns if _kind(df[c], False) != "text"]
    return (usable or columns or list(df.columns))[-1], False


def _kind(column: pd.Series, id_like: bool) -> str:
    if id_like:
        return "id-like"
    if is_bool_dtype(column):
        return "categorical"
    if is_numeric_dtype(column) or numbers_from_text(column) is not None:
        return "numeric"
    return "categorical" if column.nunique() <= MAX_TEXT_LEVELS else "text"


def schema(df: pd.DataFrame) -> pd.DataFrame:
    """One row per column for the Data page: column, kind (numeric / categorical / text /
    id-like), dtype, missing, missing %, distinct and up to three example values (as text; a
    number as people read it, to six significant digits: "0.0000451", not "4.51e-05")."""
    id_like = set(suggest_id_columns(df))
    rows = []
    for name in df.columns:
        column = df[name]
        missing = int(column.isna().sum())
        examples = column.dropna().drop_duplicates().head(3)
        shown = (plain_number if is_numeric_dtype(column) and not is_bool_dtype(column)
                 else lambda v, _: str(v))
        rows.append(
            {
                "column": str(name),
                "kind": _kind(column, name in id_like),
                "dtype": str(column.dtype),
                "missing": missing,
                "missing %": round(100 * missing / max(len(column), 1), 1),
                "distinct": int(column.nunique()),
                "examples": ", ".join(shown(v, 6) for v in examples),
            }
        )
    return pd.DataFrame(
        rows, columns=["column", "kind", "dtype", "missing", "missing %", "distinct", "examples"]
    )


# --------------------------------------------------------------------------- the task


@dataclass(frozen=True)
class DataChoice:
    """What the user picked on the Data page; equal choices give equal data sets."""

    source: str  # "bundled:<name>" or "upload:<sha256 of the file>"
    target: str
    id_column: str | None
    exclude: tuple[str, ...]
    task: str  # "auto", "classification" or "regression"


@dataclass(frozen=True, eq=False)
class Dataset:
    """A validated learning task on a table (build it with :meth:`from_frame`)."""

    name: str
    frame: pd.DataFrame = field(repr=False)
    target: str
    task: str
    id_column: str | None
    feature_columns: tuple[str, ...]
    dropped_rows: int
    notes: tuple[str, ...]
    classes: tuple | None
    description: str = ""

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        target: str,
        *,
        task: str | None = None,
        id_column: str | None = None,
        exclude=(),
        name: str = "uploaded",
        description: str = "",
    ) -> Dataset:
        """Clean and validate: numbers written as text (``"265,000"``) become numbers, rows
        without a target are dropped, the task is inferred unless given, and the table must
        have at least ``MIN_ROWS`` rows, one feature and (classification) two classes of at
        least two rows each. Problems raise :class:`DataError`."""
        frame = df.copy()
        frame.columns = unique_names([str(c) for c in frame.columns])
        exclude = tuple(exclude)
        _check_roles(frame, target, id_column, exclude)
        notes = []
        for column in frame.columns.drop(id_column) if id_column else frame.columns:
            numbers = numbers_from_text(frame[column])
            if numbers is not None:
                notes.append(_numbers_note(column, frame[column]))
                frame[column] = numbers
        check_table(frame, [c for c in frame.columns if c not in {id_column, *exclude}])
        keep = _has_value(frame[target])
        dropped = int((~keep).sum())
        frame = frame.loc[keep]
        if dropped:
            rows = "1 row was" if dropped == 1 else f"{dropped} rows were"
            notes.append(f"{rows} dropped because '{target}' is empty there.")
        task = _check_task(frame[target], task)
        frame[target], classes = _clean_target(frame[target], task)
        features = tuple(c for c in frame.columns if c not in {target, id_column, *exclude})
        _check_size(frame, target, features, classes)
        return cls(
            name=name,
            frame=frame,
            target=target,
            task=task,
            id_column=id_column,
            feature_columns=features,
            dropped_rows=dropped,
            notes=tuple(notes),
            classes=classes,
            description=description,
        )

    @property
    def X(self) -> pd.DataFrame:
        """The feature columns with their original values."""
        return self.frame.loc[:, list(self.feature_columns)]

    @property
    def y(self) -> pd.Series:
        return self.frame[self.target]

    @property
    def ids(self) -> pd.Series:
        """The ID column as text, or the row labels as text when there is no ID column."""
        return row_ids(self.frame, self.id_column)


def _numbers_note(column: str, text: pd.Series) -> str:
    if text.astype("string").str.contains(",", regex=False).any():
        return f"'{column}' had thousands separators and was read as numbers."
    return f"'{column}' was stored as text and was read as numbers."


def _has_value(y: pd.Series) -> np.ndarray:
    """Rows whose target is present: not missing, not blank text, not an infinite number."""
    if is_bool_dtype(y):
        return y.notna().to_numpy()
    if is_numeric_dtype(y):
        return np.isfinite(y.to_numpy(dtype=float, na_value=np.nan))
    return (y.astype("string").str.strip() != "").fillna(False).to_numpy(dtype=bool)


def _check_roles(frame, target, id_column, exclude):
    columns = set(frame.columns)
    roles = [("target", target), ("ID column", id_column), *(("excluded", e) for e in exclude)]
    for role, name in roles:
        if name is not None and name not in columns:
            raise DataError(
                f"There is no column '{name}' (chosen as {role}). Pick one of the table's columns."
            )
    if id_column == target:
        raise DataError(f"'{target}' cannot be both the target and the ID column. Pick another.")
    if target in exclude:
        raise DataError(f"The target '{target}' cannot be excluded. Pick another target.")
    ids = frame[id_column] if id_column is not None else None
    if ids is not None and not (ids.notna().all() and ids.is_unique):
        raise DataError(
            f"The ID column '{id_column}' has missing or repeated values, so it cannot tell the "
            "rows apart. Pick another ID column or none."
        )


def _check_task(y: pd.Series, task: str | None) -> str:
    if task is None:
        return infer_task(y)
    if task not in ("classification", "regression"):
        raise DataError(f"Unknown task '{task}'. Choose classification or regression.")
    if task == "regression" and (not is_numeric_dtype(y) or is_bool_dtype(y)):
        example = y.dropna().astype(str).iloc[0] if y.notna().any() else ""
        raise DataError(
            f"'{y.name}' holds text such as '{example}', so it cannot be predicted as a number. "
            "Choose classification, or pick a numeric target."
        )
    return task


def _clean_target(y: pd.Series, task: str) -> tuple[pd.Series, tuple | None]:
    """Regression: floats. Classification: integer-valued numbers as ints, mixed types as text,
    with the sorted class labels."""
    if task == "regression":
        return y.astype(float), None
    if not is_bool_dtype(y) and y.map(type).eq(bool).all():  # True/False with a gap read as text
        y = y.astype(bool)
    if is_numeric_dtype(y) and not is_bool_dtype(y):
        values = y.to_numpy(dtype=float)
        if np.all(values == np.round(values)):
            y = y.astype(np.int64)
    labels = y.drop_duplicates().tolist()
    try:
        return y, tuple(sorted(labels))
    except TypeError:  # labels of mixed types (numbers and text) are compared as text
        return y.astype(str), tuple(sorted(map(str, labels)))


def _check_size(frame, target, features, classes):
    if len(frame) < MIN_ROWS:
        raise DataError(
            f"Only {len(frame)} rows have a value for '{target}'; at least {MIN_ROWS} are needed "
            "to train and test a model. Use a larger table or pick another target."
        )
    if not features:
        raise DataError(
            "No column is left to learn from: every column is the target, the ID or excluded. "
            "Include at least one more column."
        )
    if classes is None:
        return
    counts = frame[target].value_counts()
    if len(classes) < 2:
        raise DataError(
            f"'{target}' has only one value ('{classes[0]}'), so there is nothing to tell "
            "apart. Pick another target, or choose regression."
        )
    rare = counts[counts < 2]
    if not rare.empty:
        raise DataError(
            f"The class '{rare.index[0]}' of '{target}' appears in only one row; every class "
            "needs at least two. Remove or merge such rows, or pick another target."
        )
