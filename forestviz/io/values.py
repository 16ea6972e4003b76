"""The one check of the numbers every input path reads: a training table
(:meth:`forestviz.io.dataset.Dataset.from_frame`), and every row to explain — the New-patient
form, the several-patients CSV, the command line's ``explain`` and ``report`` inputs (CSV or
Parquet), all of which pass :meth:`forestviz.io.preprocessing.TablePreprocessor.transform`
before any model sees them.

A missing value (NaN, an empty cell) is allowed: the model imputes it and says so. An infinite
value, or one beyond ±:data:`MAX_MAGNITUDE`, is refused with one line naming the column: no
measurement is that large, and the models' arithmetic breaks on it. Scikit-learn's trees read
values in single precision (float32, largest 3.4e38: 3.5e38 raised "Input contains infinity"),
and the attention forests square distances in double precision (1e200 squared overflows:
"expected finite model outputs"). 1e30 leaves eight orders of magnitude below float32's limit
for the sums the models make, and its square (1e60) is far inside double precision.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd

from forestviz.io.errors import DataError
from forestviz.names import elide
from forestviz.numbers import bound_text

MAX_MAGNITUDE = 1e30


def check_numbers(column, values) -> None:
    """DataError naming ``column`` when ``values`` (numbers; NaN is a missing value) hold an
    infinite value or one beyond ±:data:`MAX_MAGNITUDE`."""
    numbers = np.asarray(values, dtype=np.float64).ravel()
    bad = np.flatnonzero(~np.isnan(numbers) & ~(np.abs(numbers) <= MAX_MAGNITUDE))
    if bad.size:
        more = f" (and {bad.size - 1} more)" if bad.size > 1 else ""
        raise DataError(f"'{elide(column)}' holds {_size(numbers[bad[0]])}{more}: forestviz "
                        f"reads numbers within ±{bound_text(MAX_MAGNITUDE)}. Correct the value, "
                        "or leave it empty for a missing value.")


def _size(value: float) -> str:
    """A number too large to print digit by digit, in words: "infinity", "minus infinity", "a
    number of 309 digits", "a negative number of 31 digits" (no scientific notation for the
    people who read it)."""
    if not np.isfinite(value):
        return "minus infinity" if value < 0 else "infinity"
    digits = Decimal(abs(value)).adjusted() + 1  # exact: the float 1e200 is below 10^200
    return f"a {'negative ' if value < 0 else ''}number of {digits:,} digits"


def check_table(frame: pd.DataFrame, columns) -> None:
    """:func:`check_numbers` on each of ``frame``'s ``columns`` that holds numbers (numeric or
    boolean dtype); text columns are not numbers and are not checked here."""
    for column in columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            check_numbers(column, values.to_numpy(dtype=np.float64, na_value=np.nan))
