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

import numpy as np
import pandas as pd

from forestviz.io.errors import DataError
from forestviz.names import elide

MAX_MAGNITUDE = 1e30


def check_numbers(column, values) -> None:
    """DataError naming ``column`` when ``values`` (numbers; NaN is a missing value) hold an
    infinite value or one beyond ±:data:`MAX_MAGNITUDE`."""
    numbers = np.asarray(values, dtype=np.float64).ravel()
    bad = np.flatnonzero(~np.isnan(numbers) & ~(np.abs(numbers) <= MAX_MAGNITUDE))
    if bad.size:
        more = f" (and {bad.size - 1} more)" if bad.size > 1 else ""
        raise DataError(f"'{elide(column)}' holds {numbers[bad[0]]:g}{more}: forestviz reads "
                        f"numbers between -{MAX_MAGNITUDE:g} and {MAX_MAGNITUDE:g}. Correct the "
                        "value, or leave it empty for a missing value.")


def check_table(frame: pd.DataFrame, columns) -> None:
    """:func:`check_numbers` on each of ``frame``'s ``columns`` that holds numbers (numeric or
    boolean dtype); text columns are not numbers and are not checked here."""
    for column in columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            check_numbers(column, values.to_numpy(dtype=np.float64, na_value=np.nan))
