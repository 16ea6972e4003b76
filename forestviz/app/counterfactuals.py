"""What would change the answer for an explained row of a trained model: the one place the
Explain page, the record and the command line get it from, so all three show the same
counterfactual (:mod:`forestviz.explain.counterfactual`; issue 37).

The space is the model's own training rows (encoded as the model reads them) and its columns
(:class:`~forestviz.explain.columns.ColumnMap`); ``fixed`` names the columns the user marked as
unable to change. The row is the explanation's, missing values as the model used them.

Which columns cannot change starts as **none**, and is the user's to mark (remembered per model
and published with it). A guess by name would be wrong both ways and silently: "age" misses
"Alter", "gender" and "date of birth", and takes "age at onset" or "dosage age" for something
that cannot change, while for some questions (a what-if of a younger patient) age may change.
An answer that changes such a column says so in its sentence and table, where the user sees
it and marks the column once for the model; a search quietly narrowed by a guess would say
nothing.
"""

from __future__ import annotations

import math

from sklearn.base import is_classifier

from forestviz.explain.counterfactual import (
    TIME_LIMIT,
    Space,
    WhatWouldChange,
    what_would_change,
)
from forestviz.explain.explanation import Explanation
from forestviz.io.csv_input import DataError
from forestviz.names import with_length

SHOWN = 40  # characters of a refused change quoted in its message


def space_of(X_train, columns, fixed=()) -> Space:
    """The counterfactual's space for a model trained on the encoded rows ``X_train`` with
    ``columns``; DataError (one line) when ``fixed`` names a column the model does not have."""
    try:
        return Space.from_training(X_train, columns, fixed=fixed)
    except ValueError as err:
        raise DataError(f"Columns that cannot change: {err}.") from err


def requested_change(value) -> float:
    """A regression's requested change of its prediction as a number; DataError (one line)
    when it is not a finite number other than 0."""
    try:
        change = float(value)
    except (TypeError, ValueError):
        change = math.nan
    if not math.isfinite(change) or change == 0:
        shown = " ".join(str(value).split())  # one line, whatever the value held
        raise DataError(f"The change of the prediction must be a number other than 0, not "
                        f"'{with_length(shown, SHOWN)}'.")
    return change


def check_goal(classifier: bool, change: float | None) -> None:
    """DataError (one line) unless a regression has a ``change`` and a classifier none."""
    if change is None and not classifier:
        raise DataError("A regression's counterfactual needs the change of the prediction to "
                        "look for (--change).")
    if change is not None and classifier:
        raise DataError("--change is for a regression; a classifier's counterfactual looks "
                        "for its other answer.")


def counterfactual_of(model, x, space: Space, *, change: float | None = None,
                      time_limit: float = TIME_LIMIT, progress=None) -> WhatWouldChange:
    """The nearest confirmed change of the encoded row ``x`` (missing values as the model
    used them, :meth:`ColumnMap.fill_missing`) in ``space``: its other class, or its
    prediction moved by ``change`` (a regression; :func:`check_goal`)."""
    check_goal(is_classifier(model), change)
    x, _ = space.columns.fill_missing(x)
    return what_would_change(model, x, space, change=change, time_limit=time_limit,
                             progress=progress)


def counterfactual(bundle, explanation: Explanation, *, fixed=(), change: float | None = None,
                   time_limit: float = TIME_LIMIT, progress=None) -> WhatWouldChange:
    """The nearest confirmed change of ``explanation``'s row for the trained ``bundle``
    (:class:`~forestviz.app.workflow.Bundle`): its other class, or its prediction moved by
    ``change`` (a regression); within ``time_limit`` seconds, ``progress(stage, fraction)``
    hearing each step."""
    space = space_of(bundle.X_train, bundle.summary.columns, fixed)
    return counterfactual_of(bundle.estimator, explanation.row, space, change=change,
                             time_limit=time_limit, progress=progress)
