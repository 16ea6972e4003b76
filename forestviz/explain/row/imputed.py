"""Does a guessed value decide the case? The alarm for a row's missing values.

A missing value is filled before the model sees it (the training median of a number, no level
of a category: :class:`~.columns.ColumnMap`), and the prediction is then as
much the guess's as the patient's. For each missing column, :func:`missing_value_checks` puts
other plausible values in its place, one column at a time with every other value as the model
used it, and asks the model itself: a number at its training deciles from the 10th to the 90th
percentile (:data:`LEVELS`; the prediction of a forest changes only where a tree tests the
column, and of an attention forest smoothly, so the range seen at these values is a lower
bound of the range over the whole 10–90 % stretch), a category at each of its levels. All
variants of all columns go to the model's own ``predict_proba`` (or ``predict``) in one call.

This is the one-variable sensitivity analysis of a single imputation, the check recommended
before trusting a prediction made with an imputed value (Sterne et al., "Multiple imputation
for missing data in epidemiological and clinical research", BMJ 2009;338:b2393): if plausible
values of the missing one give another answer, the answer rests on the guess. A check
**warns** when the predicted class can change (classification), or when the predicted value
moves by more than the half-width of the row's calibrated interval (regression: the guess then
matters more than the model's own uncertainty); otherwise it is a quiet note.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from sklearn.base import is_classifier

from forestviz.explain.row.columns import NUMERIC
from forestviz.explain.row.explanation import decision
from forestviz.explain.row.narrative import target_column
from forestviz.explain.row.reasons import target_name
from forestviz.numbers import number_text, range_text

LEVELS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
"""The training quantiles a missing number is tried at."""
WARNING, NOTE = "warning", "note"


@dataclass(frozen=True, eq=False)
class MissingValueCheck:
    """What one missing column's guess does to the prediction.

    ``column`` and ``kind`` (numeric or categorical); ``used`` what the model used in its place
    (a number, or None for no level); ``tried`` the values put in its place (numbers or
    levels); ``outputs`` the number the explanation speaks of (the risk, P(predicted class) or
    the value, :func:`~.narrative.target_column`) at each tried value;
    ``classes`` the class predicted at each (None for regression); ``low``/``high`` the range of
    the outputs, the explanation's own prediction included; ``changes`` whether the class can
    change (or the value move past the interval's half-width); ``sentence`` all of it in words.
    """

    column: str
    kind: str
    used: float | None
    tried: tuple
    outputs: np.ndarray
    classes: tuple | None
    low: float
    high: float
    changes: bool
    sentence: str

    @property
    def level(self) -> str:
        """"warning" when the guess can change the answer, else "note"."""
        return WARNING if self.changes else NOTE


def variants(e, summary) -> tuple[list, np.ndarray]:
    """The rows tried: per missing column (in the table's order), (column, the values tried)
    and all variants of the explained row ``e.row`` stacked, one per tried value."""
    rows, tried = [], []
    for column in e.columns.columns:
        if column.name not in e.missing:
            continue
        if column.kind == NUMERIC:
            j = column.features[0]
            values = tuple(dict.fromkeys(float(v) for v in np.quantile(
                summary.sorted_columns[j], LEVELS)))
            block = np.repeat(e.row[None, :], len(values), axis=0)
            block[:, j] = values
        else:
            values = column.levels
            block = np.repeat(e.row[None, :], len(values), axis=0)
            block[:, list(column.features)] = np.eye(len(values))
        tried.append((column, values))
        rows.append(block)
    if not rows:
        return [], np.empty((0, e.row.size))
    return tried, np.vstack(rows)


def model_outputs(model, X) -> np.ndarray:
    """The model's own ``predict_proba`` (classifiers) or ``predict`` of the rows ``X``, as
    fitted (a frame with its feature names when it has them): one call."""
    names = getattr(model, "feature_names_in_", None)
    X = X if names is None else pd.DataFrame(X, columns=names)
    return model.predict_proba(X) if is_classifier(model) else model.predict(X)


def missing_value_checks(model, e, summary, *, name=str) -> tuple[MissingValueCheck, ...]:
    """One :class:`MissingValueCheck` per missing column of the explanation ``e`` of
    ``model``'s prediction (``summary``: the model's
    :class:`~.summary.TrainingSummary`, whose training columns give the
    quantiles). ``name`` shows a user-given name or level (e.g. :func:`forestviz.names.elide`).
    """
    tried, X = variants(e, summary)
    if not tried:
        return ()
    predicted = model_outputs(model, X)
    shown = target_column(e)
    own = float(e.prediction if shown is None else e.prediction[shown])
    checks, start = [], 0
    for column, values in tried:
        block = predicted[start:start + len(values)]
        start += len(values)
        outputs = block if shown is None else block[:, shown]
        classes = None if shown is None else tuple(
            decision(model, p, e.classes)[0] for p in block)
        low, high = min(own, float(outputs.min())), max(own, float(outputs.max()))
        if classes is not None:
            changes = any(c != e.predicted_class for c in classes)
        else:
            changes = e.interval is not None and max(own - low, high - own) > (
                e.interval[1] - e.interval[0]) / 2
        used = None if column.kind != NUMERIC else float(e.row[column.features[0]])
        check = MissingValueCheck(column.name, column.kind, used, values, outputs, classes,
                                  low, high, changes, "")
        checks.append(replace(check, sentence=_sentence(check, e, summary, own, name)))
    return tuple(checks)


def _sentence(check, e, summary, own, name) -> str:
    """"mean concave points is missing (used 0.0326, the training median); had it been
    anywhere from 0.0200 to 0.150 (its training 10th to 90th percentiles, tried at each
    decile), the risk would be 0.21–0.64, and the predicted class could change to
    malignant"."""
    column = e.columns.columns[e.columns.names.index(check.column)]
    if check.kind == NUMERIC:
        spread = summary.scale[column.features[0]]
        used = f"used {number_text(check.used, spread)}, the training median"
        low, high = (number_text(v, spread) for v in (min(check.tried), max(check.tried)))
        had = (f"had it been anywhere from {low} to {high} (its training 10th to 90th "
               "percentiles, tried at each decile)")
    else:
        used = "the model used no level"
        had = f"had it been any of its {len(check.tried)} levels"
    if check.classes is None:
        span = "–".join(e.value_texts(check.low, check.high))
    else:
        span = range_text(round(check.low, 2), round(check.high, 2), spread=0.01)
    said = (f"{name(check.column)} is missing ({used}); {had}, {target_name(e, name)} would "
            f"be {span}")
    if check.classes is not None:
        others = [c for c in dict.fromkeys(check.classes) if c != e.predicted_class]
        said += (", and the predicted class could change to "
                 f"{' or '.join(name(c) for c in others)}" if others
                 else f": the predicted class stays {name(e.predicted_class)}")
    elif e.interval is None:
        said += " (no calibrated interval to weigh that against)"
    else:
        half = e.value_texts((e.interval[1] - e.interval[0]) / 2)[0]
        said += (f", more than the {e.interval_name}'s half-width (±{half}) away from "
                 f"{e.value_texts(own)[0]}" if check.changes
                 else f", within the {e.interval_name}'s half-width (±{half})")
    return said + "."
