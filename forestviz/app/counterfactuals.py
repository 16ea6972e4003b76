"""What would change the answer for an explained row of a trained model: the one place the
Explain page, the record and the command line get it from, so all three show the same
counterfactual (:mod:`forestviz.explain.counterfactual`; issue 37).

The space is the model's own training rows (encoded as the model reads them) and its columns
(:class:`~forestviz.explain.row.columns.ColumnMap`); ``fixed`` names the columns the user marked as
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

from forestviz.explain.counterfactual import TIME_LIMIT, WhatWouldChange
from forestviz.explain.counterfactual.asked import counterfactual_of, space_of
from forestviz.explain.row.explanation import Explanation


def counterfactual(bundle, explanation: Explanation, *, fixed=(), change: float | None = None,
                   time_limit: float = TIME_LIMIT, progress=None) -> WhatWouldChange:
    """The nearest confirmed change of ``explanation``'s row for the trained ``bundle``
    (:class:`~forestviz.app.workflow.Bundle`): its other class, or its prediction moved by
    ``change`` (a regression); within ``time_limit`` seconds, ``progress(stage, fraction)``
    hearing each step."""
    space = space_of(bundle.X_train, bundle.summary.columns, fixed)
    return counterfactual_of(bundle.estimator, explanation.row, space, change=change,
                             time_limit=time_limit, progress=progress)
