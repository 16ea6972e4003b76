"""Which of several new rows rest on a guess: for the several-patients table and its CSV, the
column saying whether a guessed (missing) value could change the answer, computed by the very
checks of the single row's alarm (:func:`~forestviz.explain.row.imputed.missing_value_checks` on
the row's explanation, :mod:`forestviz.explain.row.imputed`), so that the table and the Explain
page of the same row say the same. A row with no missing value the model reads needs no
explanation: it is "no missing value"."""

from __future__ import annotations

import pandas as pd

from forestviz.explain import explain
from forestviz.explain.row.imputed import missing_value_checks

COLUMN = "a guessed value could change it"
"""The column's name in the table and the CSV."""


def guess_column(bundle, rows: pd.DataFrame, X) -> list[str]:
    """Per row of ``rows`` (the table's columns as given) and ``X`` (their encoding,
    ``bundle.preprocessor.transform``): "yes: Glucose, BMI" (the missing columns whose
    plausible values change the predicted class, or move a value past its interval's
    half-width), "no" (values are missing but none of them could), or "no missing value"."""
    used = [c for c in rows.columns if c not in bundle.preprocessor.dropped_columns_]
    gaps = rows[used].isna().to_numpy().any(axis=1)
    said = []
    for i, gap in enumerate(gaps):
        if not gap:
            said.append("no missing value")
            continue
        e = explain(bundle.estimator, X[i], summary=bundle.summary,
                    original_row=rows.iloc[i], intervals=bundle.intervals, contributions=None)
        alarms = [c.column for c in missing_value_checks(bundle.estimator, e, bundle.summary)
                  if c.changes]
        said.append(f"yes: {', '.join(alarms)}" if alarms else "no")
    return said
