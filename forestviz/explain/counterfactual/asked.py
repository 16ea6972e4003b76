"""A counterfactual as asked: its space (the model's encoded training rows and columns, the
columns that cannot change), the change a regression asks for, the goal checked against the
model's task, and the nearest confirmed change of one encoded row
(:func:`~forestviz.explain.counterfactual.search.what_would_change`). The app, the record and the
command line's batch all ask through here (:mod:`forestviz.app.counterfactuals`)."""

from __future__ import annotations

import math

from sklearn.base import is_classifier

from forestviz.explain.counterfactual.search import TIME_LIMIT, WhatWouldChange, what_would_change
from forestviz.explain.counterfactual.space import Space
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
