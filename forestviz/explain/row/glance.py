"""A clinician's glance at one prediction: what it is and how sure, the reasons both ways, the
alarm when a guessed value decides it, and what the most similar training rows turned out to
have, all read off one :class:`~.explanation.Explanation` so that the page,
the report and the command line show the same numbers in the same words.

The parts come from their own modules: the headline and the spread and interval sentences
(:mod:`.narrative`), the two-sided reasons and the sentence arguing them (:mod:`.reasons`),
the checks of the missing values (:mod:`.imputed`). :func:`glance` only gathers them and adds
the similar rows' outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from forestviz.explain.row.familiar import Familiarity, unfamiliar_sentence
from forestviz.explain.row.imputed import WARNING, MissingValueCheck, missing_value_checks
from forestviz.explain.row.narrative import (
    headline,
    interval_note,
    interval_text,
    spread_text,
    target_column,
)
from forestviz.explain.row.reasons import Reasons, argument, target_name, two_sided
from forestviz.numbers import range_text

if TYPE_CHECKING:
    from forestviz.explain.counterfactual import WhatWouldChange


@dataclass(frozen=True, eq=False)
class Glance:
    """The summary of one explanation.

    ``headline`` ("Predicted malignant (risk 0.80, …)"); ``target`` what ``value`` is (the
    risk, P(predicted class) or the predicted value) and ``value`` that number, the
    explanation's own; ``predicted_class`` (None for a value); ``spread`` and ``interval``:
    the sentences on how the trees disagree and on the calibrated interval (None when there is
    none); ``reasons`` both ways (None without contributions) and ``argument`` their sentence;
    ``checks`` one per missing value (:mod:`.imputed`); ``similar`` what the most similar
    training rows turned out to have; ``warnings`` about the weights; ``guessed`` the range
    of ``value`` over the alarms' tried values (:func:`guessed_range`) as printed, None
    without an alarm; ``familiarity`` how unusual the row is for the model
    (:mod:`.familiar`, None when not assessed) and ``unfamiliar`` its sentence when flagged;
    ``counterfactual`` what would change the answer
    (:class:`~forestviz.explain.counterfactual.WhatWouldChange`), when it was asked for.
    """

    headline: str
    target: str
    value: float
    predicted_class: object
    spread: str | None
    interval: str | None
    reasons: Reasons | None
    argument: str
    checks: tuple[MissingValueCheck, ...]
    similar: str | None
    warnings: tuple[str, ...]
    guessed: str | None = None
    familiarity: Familiarity | None = None
    unfamiliar: str | None = None
    counterfactual: WhatWouldChange | None = None

    @property
    def alarms(self) -> tuple[MissingValueCheck, ...]:
        """The checks whose guessed value can change the answer."""
        return tuple(c for c in self.checks if c.level == WARNING)

    @property
    def guess_note(self) -> str | None:
        """"The numbers above assume the guessed values; with other plausible values of a
        missing one, the risk would be 0.26–0.84." (None without an alarm): what the tiles,
        the interval and the record's prediction rest on, beside the range the guesses
        span."""
        if self.guessed is None:
            return None
        return ("The numbers above assume the guessed values; with other plausible values of "
                f"a missing one, {self.target} would be {self.guessed}.")


def guessed_range(e, checks) -> str | None:
    """The range of the explained number (the risk or the value) over every alarm's tried
    values, the prediction itself included, as printed ("0.26–0.84", the alarms' own
    rounding): the union of what each guessed value, tried alone, can do. None without an
    alarm."""
    alarms = [c for c in checks if c.level == WARNING]
    if not alarms:
        return None
    low, high = min(c.low for c in alarms), max(c.high for c in alarms)
    if e.task == "regression":
        return "–".join(e.value_texts(low, high))
    return range_text(round(low, 2), round(high, 2), spread=0.01)


def spread_sentence(e, name=str) -> str | None:
    """"The trees, weighted for this row, range from 98.2 to 204 (5–95 %): …." or the
    weighted votes (:func:`~.narrative.spread_text`), as a sentence."""
    spread = spread_text(e, name)
    return None if spread is None else f"{spread[0].upper()}{spread[1:]}."


def interval_sentence(e) -> str | None:
    """"90% interval 98.2–204.5: split-conformal, fitted on 200 held-out rows: …." (the
    interval and where it comes from), None without an interval."""
    if e.interval is None:
        return None
    text = interval_text(e)
    return f"{text[0].upper()}{text[1:]}: {interval_note(e)}."


def similar_rows(e, name=str) -> str | None:
    """What the most similar training rows had: "4 of the 5 most similar training rows were
    malignant (1 benign)" for classes, "the 5 most similar training rows had outcomes
    98.2–204 (median 151)" for values; None when there are none."""
    outcomes = e.neighbors["outcome"] if "outcome" in e.neighbors else pd.Series([])
    n = len(outcomes)
    if n == 0:
        return None
    if e.task == "classification":
        counts = outcomes.astype(str).value_counts(sort=True)
        first, many = counts.index[0], int(counts.iloc[0])
        if n == 1:
            return f"The most similar training row was {name(first)}"
        said = (f"{'All' if many == n else f'{many} of the'} {n} most similar training rows "
                f"were {name(first)}")
        others = ", ".join(f"{int(k)} {name(c)}" for c, k in counts.iloc[1:].items())
        return said + (f" ({others})" if others else "")
    values = outcomes.to_numpy(dtype=float)
    low, high, middle = e.value_texts(values.min(), values.max(), float(np.median(values)))
    if n == 1:
        return f"The most similar training row had outcome {low}"
    return f"The {n} most similar training rows had outcomes {low}–{high} (median {middle})"


def glance(model, e, summary, *, name=str, familiarity: Familiarity | None = None) -> Glance:
    """The :class:`Glance` of ``model``'s explanation ``e`` (``summary``: its
    :class:`~.summary.TrainingSummary`, for the checks of missing values;
    without a ``model``, as for a bare explanation, no checks); ``name`` shows user-given
    names and levels (e.g. :func:`forestviz.names.elide`); ``familiarity``: the row's
    :class:`~.familiar.Familiarity` for the model, when assessed."""
    column = target_column(e)
    value = float(e.prediction if column is None else e.prediction[column])
    checks = () if model is None else missing_value_checks(model, e, summary, name=name)
    return Glance(headline=headline(e, name), target=target_name(e, name), value=value,
                  predicted_class=e.predicted_class, spread=spread_sentence(e, name),
                  interval=interval_sentence(e), reasons=two_sided(e, name=name),
                  argument=argument(e, name), checks=checks, similar=similar_rows(e, name),
                  warnings=tuple(e.warnings), guessed=guessed_range(e, checks),
                  familiarity=familiarity,
                  unfamiliar=None if familiarity is None else unfamiliar_sentence(familiarity,
                                                                                  name))
