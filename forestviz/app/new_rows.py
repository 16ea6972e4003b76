"""Rows that are not in the data set: a new patient typed into a form.

A form for a new row offers one field per original column the model reads, empty by default
(the person in front of the clinician is not a training row), with what the training rows
held there: the range and median of a numeric column, the levels of a text column. A field
left empty is a missing value, handled as the model handles one (the training median, or no
level) and flagged by the explanation's missing-value alarm.

The form refuses what cannot be a measurement of this column, in one line naming it: an
infinite or absurdly large number (:mod:`forestviz.io.values`, the check every input path
shares), a negative number where the training rows never hold one; and a number far outside
the training range (beyond it by more than :data:`FAR` of its width: age 0 where the
training ages run 21–81) unless the user ticks that the values are checked. A value outside
the range but not far from it is explained with a warning.

The patient's identifier is untrusted text (:func:`patient_identifier`): it names the row in
the record, the report's file name and the audit event. The audit trail names typed values by
their keyed digest (:mod:`forestviz.store.digests`), not by the values themselves.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from forestviz.app import guesses
from forestviz.app.workflow import Bundle
from forestviz.batch.model import BatchModel
from forestviz.batch.rows import explain_rows, require_columns
from forestviz.io.csv_input import DataError
from forestviz.io.values import check_numbers
from forestviz.names import clean
from forestviz.numbers import plain_number, signed_number
from forestviz.persistence.model_file import ModelFile

MAX_ROWS = 5_000  # rows of one upload of new patients (explained at once, kept in the session)
MAX_BYTES = 10 * 2**20  # bytes of that upload
UNFAMILIAR = "unlike the training rows"  # the summary's column of familiar ground
FAR = 0.1  # beyond the training range by this share of its width: "far", to be confirmed
ID_CHARS = 40  # characters of a patient's identifier
CONFIRM = "The values far outside the training range are right"  # the form's checkbox
# invisible characters that are not of Unicode's format category (Cf): the combining grapheme
# joiner, Hangul fillers, Mongolian and other variation selectors
_INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0\u180b\u180c\u180d\u180f"
                       + "".join(map(chr, range(0xFE00, 0xFE10)))
                       + "".join(map(chr, range(0xE0100, 0xE01F0))))


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

    def refusal(self, number: float, *, confirmed: bool) -> str | None:
        """Why the form refuses ``number`` here, in one line, or None: negative where the
        training rows never are; far outside the training range unless ``confirmed``."""
        if not self.numeric or self.low is None:
            return None
        low, high = (plain_number(v, 4) for v in (self.low, self.high))
        training = f"the training rows hold {low}–{high}"
        shown = plain_number(number, 6)
        if number < 0 <= self.low:
            return f"{self.column}: {shown} is impossible here ({training}, none negative)."
        width = self.high - self.low or max(abs(self.high), 1.0)
        far = not self.low - FAR * width <= number <= self.high + FAR * width
        if far and not confirmed:
            return (f"{self.column}: {shown} lies far outside the training range "
                    f"({training}); correct it, or tick '{CONFIRM}'.")
        return None

    def range_text(self) -> str:
        """What the training rows held: "training 0–199, median 117" or "levels: a, b"."""
        if self.numeric:
            if self.low is None:
                return "no value in training"
            low, high, median = (plain_number(v, 4) for v in (self.low, self.high, self.median))
            return f"training {low}–{high}, median {median}"
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


def typed_row(form: list[Field], values: dict, *, confirmed: bool = False) -> pd.Series:
    """The row the form's ``values`` (column → number, level, or None/NaN/"" for missing)
    describe, one entry per field (missing as None). ValueError, in one line naming the first
    column, for a number that is infinite or absurd (:func:`~forestviz.io.values.check_numbers`),
    impossible or, unless ``confirmed``, far outside the training range (:meth:`Field.refusal`),
    and for a text value that is not one of the field's levels."""
    row, refused = {}, []
    for field in form:
        value = values.get(field.column)
        if value is None or (isinstance(value, str) and not value.strip()):
            row[field.column] = None
        elif field.numeric:
            number = float(value)
            check_numbers(field.column, [number])
            refused.append(field.refusal(number, confirmed=confirmed))
            row[field.column] = number
        else:
            if str(value) not in field.levels:
                raise ValueError(f"{field.column}: {value!r} is not one of the training levels")
            row[field.column] = str(value)
    refused = [reason for reason in refused if reason is not None]
    if refused:
        more = f" ({len(refused) - 1} more values to check)" if len(refused) > 1 else ""
        raise ValueError(refused[0] + more)
    return pd.Series(row, dtype=object)


def patient_identifier(text) -> str:
    """A typed patient identifier as plain text: NFKC-normalised, without control, format
    (zero-width, bidirectional, tag) or other invisible characters, on one line with its white
    space collapsed ("" when none is given). ValueError beyond :data:`ID_CHARS` characters
    (checked on the raw text first, before any work on a pasted page)."""
    raw = "" if text is None else str(text)
    if len(raw) > 4 * ID_CHARS:
        raise ValueError(f"A patient identifier has at most {ID_CHARS} characters; this one has "
                         f"{len(raw):,}.")
    normal = unicodedata.normalize("NFKC", raw)
    found = clean("".join(c for c in normal if unicodedata.category(c) != "Cf"
                          and c not in _INVISIBLE))
    if len(found) > ID_CHARS:
        raise ValueError(f"A patient identifier has at most {ID_CHARS} characters; this one has "
                         f"{len(found)}.")
    return found


def outside_range(form: list[Field], row: pd.Series) -> list[str]:
    """The numeric columns whose typed value lies outside the training range: the model has
    seen no such value there, and its trees treat it as the nearest edge."""
    return [f.column for f in form if f.numeric and f.low is not None
            and row.get(f.column) is not None
            and not f.low <= float(row[f.column]) <= f.high]


@dataclass(frozen=True, eq=False)
class Several:
    """New rows explained together: ``summary`` (one line each: ID, prediction, interval, the
    strongest column each way, missing columns), ``outputs`` (the command line's ``explain``
    output with contributions, :func:`forestviz.batch.rows.explain_rows`), ``rows`` (the
    rows as given, for the full explanation of one), ``ignored`` (columns the model does not
    read)."""

    summary: pd.DataFrame
    outputs: pd.DataFrame
    rows: pd.DataFrame
    ignored: tuple[str, ...]
    target: str  # what the contributions add up to: "P(<class>)", or the predicted value


def several(bundle: Bundle, frame: pd.DataFrame, *, top_k: int = 5,
            max_rows: int | None = MAX_ROWS) -> Several:
    """Explain every row of ``frame`` (a table with the training table's columns) as the
    command line's ``explain --contributions`` does, through the same encoding as one row's
    explanation (``bundle.preprocessor.transform``). A column the model reads that ``frame``
    lacks raises DataError naming it; other columns are ignored and named; more than
    ``max_rows`` rows (None: no cap) raise DataError."""
    pre = bundle.preprocessor
    used = [c for c in pre.feature_names_in_ if c not in pre.dropped_columns_]
    require_columns(used, frame.columns)
    if max_rows is not None and len(frame) > max_rows:
        raise DataError(f"The file has {len(frame):,} rows; at most {max_rows:,} new rows are "
                        "explained at once here (the command line's explain has no such cap).")
    id_column = bundle.choice.id_column
    ignored = tuple(str(c) for c in frame.columns if c not in used and c != id_column)
    ids = (frame[id_column].astype(str).to_numpy() if id_column in frame.columns
           else np.array([f"new {i + 1}" for i in range(len(frame))]))
    rows = frame.reindex(columns=list(pre.feature_names_in_)).reset_index(drop=True)
    X = pre.transform(rows)
    outputs = explain_rows(batch_model(bundle), X, ids, top_k=top_k, contributions=True)
    outputs[guesses.COLUMN] = guesses.guess_column(bundle, rows, X)  # the alarm's own checks
    summary = _summary(bundle, outputs, rows[used]).assign(
        **{guesses.COLUMN: outputs[guesses.COLUMN]})
    return Several(summary, outputs, rows, ignored, target=_target(bundle))


def batch_model(bundle: Bundle) -> BatchModel:
    """The command line's model for ``bundle`` (its estimator, encoding, decision rule and
    calibrated interval and familiar ground), to explain many rows as one."""
    return replace(BatchModel.from_file(ModelFile.of(bundle)), intervals=bundle.intervals,
                   familiar=bundle.familiar)


def _target(bundle: Bundle) -> str:
    """The number a row's contributions add up to (as the Explain page's waterfall): the risk
    P(second class) of a binary model, the predicted class's probability with more classes,
    else the predicted value."""
    if bundle.task != "classification":
        return f"predicted {bundle.target}"
    if len(bundle.class_names) == 2:
        return f"P({bundle.class_names[1]})"
    return "P(predicted class)"


def _summary(bundle: Bundle, outputs: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """One line a row: what the model predicts, its interval, the column that pushes the
    prediction's number (the risk of a binary model, the value) up most and down most, the
    missing columns, and whether the row is unlike the training rows."""
    summary = pd.DataFrame({"ID": outputs["id"]})
    target = _target(bundle)
    if bundle.task == "classification":
        summary["predicted"] = outputs["predicted_class"].astype(str)
        risk = [c for c in outputs.columns if c.startswith("P(")]
        summary[target] = outputs[target] if len(risk) == 2 else outputs[risk].max(axis=1)
    else:
        summary[target] = outputs["prediction"]
    if "interval_low" in outputs:
        summary["interval"] = [f"{plain_number(lo, 3)}–{plain_number(hi, 3)}" for lo, hi in
                               zip(outputs["interval_low"], outputs["interval_high"],
                                   strict=True)]
    parts = outputs.filter(like="contribution[")
    names = np.array([c[len("contribution["):-1] for c in parts.columns])
    values = parts.to_numpy()
    summary["pushes up most"] = _strongest(names, values, up=True)
    summary["pushes down most"] = _strongest(names, values, up=False)
    summary["missing"] = [", ".join(map(str, row.index[row.to_numpy()]))
                          for _, row in rows.isna().iterrows()]
    summary[UNFAMILIAR] = [_unfamiliar(flagged, share, differ) for flagged, share, differ in
                           zip(outputs["unfamiliar"], outputs["unusual_share"],
                               outputs["nearest_differ_in"], strict=True)]
    return summary


def _unfamiliar(flagged: bool, share: float, differ: str) -> str:
    """"yes: 0.63% of held-out rows as unusual; nearest differ in Glucose, Age" for a row
    unlike the training rows (the glance's line, short), else "—"."""
    if not flagged:
        return "—"
    said = "none" if share == 0 else f"{plain_number(100 * share, 2)}%"
    names = ", ".join(differ.split("; ")) if differ else ""
    return (f"yes: {said} of held-out rows as unusual"
            + (f"; nearest differ in {names}" if names else ""))


def _strongest(names: np.ndarray, values: np.ndarray, *, up: bool) -> list[str]:
    """Per row "column (+0.12)": the largest contribution of that sign, or "—"."""
    signed = values if up else -values
    best = np.argmax(signed, axis=1)
    return [f"{names[j]} ({signed_number(values[i, j], 3)})" if signed[i, j] > 0 else "—"
            for i, j in enumerate(best)]
