"""What would change the answer for an explained row of a trained model: the one place the
Explain page, the record and the command line get it from, so all three show the same
counterfactual (:mod:`forestviz.explain.counterfactual`; issue 37).

The space is the model's own training rows (encoded as the model reads them) and its columns
(:class:`~forestviz.explain.columns.ColumnMap`); ``fixed`` names the columns the user marked as
unable to change. The row is the explanation's, missing values as the model used them.
"""

from __future__ import annotations

from forestviz.explain.counterfactual import (
    TIME_LIMIT,
    Space,
    WhatWouldChange,
    what_would_change,
)
from forestviz.explain.explanation import Explanation


def counterfactual(bundle, explanation: Explanation, *, fixed=(), change: float | None = None,
                   time_limit: float = TIME_LIMIT, progress=None) -> WhatWouldChange:
    """The nearest confirmed change of ``explanation``'s row for the trained ``bundle``
    (:class:`~forestviz.app.workflow.Bundle`): its other class, or its prediction moved by
    ``change`` (a regression); within ``time_limit`` seconds, ``progress(stage, fraction)``
    hearing each step."""
    columns = bundle.summary.columns
    x, _ = columns.fill_missing(explanation.row)
    space = Space.from_training(bundle.X_train, columns, fixed=fixed)
    return what_would_change(bundle.estimator, x, space, change=change, time_limit=time_limit,
                             progress=progress)
