"""Rows that are not in the data set: a new patient typed into a form.

A form for a new row offers one field per original column the model reads, empty by default
(the person in front of the clinician is not a training row), with what the training rows
held there: the range and median of a numeric column, the levels of a text column. A field
left empty is a missing value, handled as the model handles one (the training median, or no
level) and flagged by the explanation's missing-value alarm.

The typed values are identified by :func:`typed_values_digest` (SHA-256 of a canonical JSON
of the values), so that a record of who looked at which new patient need not store the values.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from forestviz.app.workflow import Bundle


@dataclass(frozen=True)
class Field:
    """One column of the new-row form.

    ``levels`` is None for a numeric column, else its known categories (training order);
    ``low``, ``median`` and ``high`` are the training rows' minimum, median and maximum of a
    numeric column (None for a text column); ``missing_share`` the share of training rows
    where the column was missing."""

    column: str
    levels: tuple[str, ...] | None
    low: float | None
    median: float | None
    high: float | None
    missing_share: float

    @property
    def numeric(self) -> bool:
        return self.levels is None

    def range_text(self) -> str:
        """What the training rows held: "training 0–199, median 117" or "levels: a, b"."""
        if self.numeric:
            return (f"training {self.low:.4g}–{self.high:.4g}, median {self.median:.4g}"
                    if self.low is not None else "no value in training")
        return "levels: " + ", ".join(self.levels)


def fields(bundle: Bundle) -> list[Field]:
    """The form's fields for ``bundle``'s columns, in the table's order, from the training rows
    as the user knows them (``bundle.summary.original``)."""
    pre = bundle.preprocessor
    original = bundle.summary.original
    out = []
    for column in pre.feature_names_in_:
        if column in pre.dropped_columns_:
            continue
        values = original[column] if original is not None and column in original else None
        missing = 0.0 if values is None else float(values.isna().mean())
        if column in pre.medians_:
            numbers = (np.array([], dtype=float) if values is None else
                       pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=float))
            low, high = ((float(numbers.min()), float(numbers.max())) if numbers.size
                         else (None, None))
            out.append(Field(column, None, low, float(pre.medians_[column]), high, missing))
        else:
            levels = tuple(map(str, pre.categories_[column]))
            out.append(Field(column, levels, None, None, None, missing))
    return out


def typed_row(form: list[Field], values: dict) -> pd.Series:
    """The row the form's ``values`` (column → number, level, or None/NaN/"" for missing)
    describe, one entry per field (missing as None). A numeric value must be finite; a text
    value one of the field's levels."""
    row = {}
    for field in form:
        value = values.get(field.column)
        if value is None or (isinstance(value, str) and not value.strip()):
            row[field.column] = None
        elif field.numeric:
            number = float(value)
            if not math.isfinite(number):
                raise ValueError(f"{field.column}: a number is needed, got {value!r}")
            row[field.column] = number
        else:
            if str(value) not in field.levels:
                raise ValueError(f"{field.column}: {value!r} is not one of the training levels")
            row[field.column] = str(value)
    return pd.Series(row, dtype=object)


def outside_range(form: list[Field], row: pd.Series) -> list[str]:
    """The numeric columns whose typed value lies outside the training range: the model has
    seen no such value there, and its trees treat it as the nearest edge."""
    return [f.column for f in form if f.numeric and f.low is not None
            and row.get(f.column) is not None
            and not f.low <= float(row[f.column]) <= f.high]


def typed_values_digest(row: pd.Series) -> str:
    """SHA-256 (hex) of the row's values as canonical JSON (keys sorted, missing as null)."""
    plain = {str(k): (None if v is None or (isinstance(v, float) and math.isnan(v))
                      else (float(v) if isinstance(v, (int, float, np.number)) else str(v)))
             for k, v in row.items()}
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()
