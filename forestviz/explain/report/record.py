"""What makes a report fit for a record: which data set and model (with its settings and its
held-out metrics next to the baselines), when it was made and by which forestviz, which row,
and which of its values were missing or edited by a what-if.

:class:`ReportContext` is a plain object the caller fills (the app from its ``Workbench``; a
script from whatever it trained); every field is optional, so a report of a bare
:class:`~forestviz.explain.Explanation` still says when and by which version it was made.
"""

from __future__ import annotations

import html
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd

from forestviz import __version__
from forestviz.explain.report.markup import listing, name, sentence, side_by_side, text
from forestviz.explain.row.narrative import rule_words
from forestviz.explain.row.values import was
from forestviz.names import DisplayNames
from forestviz.numbers import plain_number
from forestviz.parameters import REPORT_NAMES
from forestviz.trees.decision import RULE

SKIPPED = frozenset({"n_jobs", "verbose"})  # how a model runs, not what it is
TRAINING_ROW = "This row was used for training: its prediction is optimistic."
"""What the Explain page and the record say of a row the model learned from."""
PERFORMANCE = {"classification": ("AUC", "F1"), "regression": ("R²", "MAE")}
"""The held-out measures the record gives of its model."""
VALUES = {"auto": "chosen on held-out training rows", True: "yes", False: "no", None: "none"}


def _now() -> datetime:
    return datetime.now().astimezone()


@dataclass(frozen=True, eq=False)
class ReportContext:
    """The record fields of a report. ``dataset``: the data set's name; ``model``: the trained
    model's name as in ``metrics``' index; ``settings``: its settings in words
    (:func:`settings_text`); ``metrics``: held-out metrics, one row per model (the trained model
    and its baselines, e.g. ``Workbench.comparison().table``), on ``held_out_rows`` rows;
    ``published``: the model library's name and version of the model ("Pima risk@2"), when
    it was opened from there; ``card``: the SHA-256 of that version's model card
    (:mod:`forestviz.card`), which the record names beside it; ``origin_warning``: a line
    shown under the report's title (a model file whose origin cannot be verified);
    ``created``: when (default: now, with the time zone); ``version``: forestviz's;
    ``training_row``: the explained row is one the model learned from (:data:`TRAINING_ROW`);
    ``disputes``: the disagreements recorded with the row's answer, one sentence each (the
    user's reason in it: shown as text)."""

    dataset: str | None = None
    model: str | None = None
    settings: str | None = None
    metrics: pd.DataFrame | None = None
    held_out_rows: int | None = None
    published: str | None = None
    card: str | None = None
    origin_warning: str | None = None
    created: datetime = field(default_factory=_now)
    version: str = __version__
    training_row: bool = False
    disputes: tuple[str, ...] = ()


def _said(key: str, value) -> str:
    if key == "max_depth" and value is None:
        return "no limit"
    if value is None or isinstance(value, bool):
        return VALUES[value]
    if isinstance(value, float):
        return plain_number(value, 6)
    return VALUES.get(value, str(value)) if isinstance(value, str) else str(value)


def settings_text(estimator) -> str:
    """A scikit-learn-style estimator's parameters in words, the usual ones first: "trees: 100;
    maximum depth: 6; …" ("auto" said as chosen on held-out training rows; parameters left at
    None, such as no cross-validation, left out, but for the depth: "no limit")."""
    order = list(REPORT_NAMES)
    params = sorted(estimator.get_params(deep=False).items(), key=lambda item: (
        order.index(item[0]) if item[0] in REPORT_NAMES else len(order), item[0]))
    return "; ".join(
        f"{REPORT_NAMES.get(key, key.replace('_', ' '))}: {_said(key, value)}"
        for key, value in params
        if key not in SKIPPED and (isinstance(value, str | numbers.Number) or (
            value is None and key == "max_depth")))


def _same(before, after) -> bool:
    if pd.isna(before) and pd.isna(after):
        return True
    if pd.isna(before) or pd.isna(after):
        return False
    if isinstance(before, numbers.Number) and isinstance(after, numbers.Number):
        return float(before) == float(after)
    return str(before) == str(after)  # levels: "01" and "1" are two


def edited_values(before: pd.Series, after: pd.Series) -> dict[str, object]:
    """The columns of ``after`` (a row's values after a what-if) whose value differs from
    ``before`` (the data set's row), each with its value before the edit (a missing value is
    None). Numbers compare as numbers (6 and 6.0 are one value), anything else as text; NA
    equals NA."""
    return {str(column): (None if pd.isna(before.get(column)) else before.get(column))
            for column in after.index if not _same(before.get(column), after[column])}


def _edited_list(e, names, edited) -> str:
    """"Glucose: now 150, was 187; …" (the values as the explanation used them)."""
    if not edited:
        return "none"
    now = pd.Series(dtype=object) if e.original_row is None else e.original_row
    said = []
    for column, old in edited.items():
        value = now.get(column)
        value = "missing" if value is None or pd.isna(value) else text(value)
        said.append(f"{name(names, column)}: now {value}, {html.escape(was(old))}")
    return listing(said, sep="; ")


def rule_text(e, names: DisplayNames) -> str:
    """The decision rule in words (escaped), with the class names in it cut as everywhere
    else (:func:`~forestviz.explain.row.narrative.rule_words`)."""
    return sentence(rule_words(e, names))


def threshold_text(e, names: DisplayNames) -> str:
    """"0.606: P(Yes) at or above it predicts Yes (Youden's J on held-out rows)" (escaped,
    class names cut), or the rule in words when no threshold decides (more than two
    classes)."""
    if e.threshold is None:
        return rule_text(e, names)
    positive = name(names, e.classes[1])
    how = ("Youden's J on held-out rows" if RULE in e.decision_rule
           else "Youden's J on the training rows" if "Youden" in e.decision_rule
           else "the larger probability")
    return f"{e.threshold:.3f}: P({positive}) at or above it predicts {positive} ({how})"


def performance_text(e, context: ReportContext) -> str | None:
    """"AUC 0.812, F1 0.667 on 154 held-out rows" (R² and MAE for a value) of the report's
    model, from ``context.metrics``; None when they are not known."""
    c = context
    if c.metrics is None or c.model is None or c.model not in c.metrics.index:
        return None
    found = c.metrics.loc[c.model]
    said = [f"{m} {e.value_texts(found[m])[0] if m == 'MAE' else format(found[m], '.3f')}"
            for m in PERFORMANCE[e.task] if m in found.index and pd.notna(found[m])]
    if not said:
        return None
    rows = "" if c.held_out_rows is None else f" on {c.held_out_rows:,} held-out rows"
    return text(", ".join(said) + rows)


def record_section(e, context: ReportContext, names: DisplayNames,
                   edited: Mapping[str, object]) -> str:
    """The record's table, who, what and when: row ID (or "new patient", and whether the
    model learned from it), data set, model with its held-out performance, the decision
    threshold, date, version, missing and edited values."""
    c = context
    rows = [("Row ID", "not given" if e.row_id is None else name(names, e.row_id))]
    if c.training_row:
        rows.append(("Training row", text(TRAINING_ROW)))
    if c.dataset is not None:
        rows.append(("Data set", name(names, c.dataset)))
    model = sentence(e.model_name) + f" with {e.n_trees} trees"
    if c.model is not None:
        model = f"{name(names, c.model)}: {model}"
    rows.append(("Model", model))
    if c.published is not None:
        rows.append(("Published model", name(names, c.published)))
    if c.card is not None:
        rows.append(("Model card", f"{name(names, c.published or 'the model')}, SHA-256 "
                                   f"{text(c.card)}"))
    rows += [("Disagreement recorded", sentence(said)) for said in c.disputes]
    performance = performance_text(e, c)
    if performance is not None:
        rows.append(("Held-out performance", performance))
    if e.task == "classification":
        rows.append(("Decision threshold", threshold_text(e, names)))
    rows += [("Report created", text(c.created.isoformat(sep=" ", timespec="seconds"))),
             ("forestviz version", text(c.version)),
             ("Missing values", listing([name(names, m) for m in sorted(e.missing)]) or "none"),
             ("Values edited (what-if)", _edited_list(e, names, edited))]
    body = "".join(f"<tr><th>{head}</th><td>{cell}</td></tr>" for head, cell in rows)
    return f'<table class="record"><tbody>{body}</tbody></table>'


def model_section(e, context: ReportContext, names: DisplayNames) -> str:
    """The technical appendix's model: its settings in words, the learned contamination ε,
    then the held-out metrics next to the baselines."""
    c = context
    rows = [("Settings", sentence(c.settings))] if c.settings else []
    if e.weight_parts is not None:
        rows.append(("Contamination ε (learned)", f"{e.eps:.3f}"))
    body = "".join(f"<tr><th>{head}</th><td>{cell}</td></tr>" for head, cell in rows)
    out = ('<h2>The model</h2><table class="record model">'
           f"<tbody>{body}</tbody></table>") if rows else ""
    if c.metrics is not None and len(c.metrics):
        models = [str(m) for m in c.metrics.index]
        frame = c.metrics.reset_index(drop=True).assign(**{
            "this report's model": ["yes" if m == c.model else "" for m in models]})
        rows_said = ("" if c.held_out_rows is None else
                     f" ({c.held_out_rows:,} rows the model did not see while training)")
        out += (f"<h2>Held-out metrics</h2><p>The model next to the baselines on the held-out "
                f"rows{rows_said}: one column per model.</p>"
                + side_by_side(frame, names, heads=models, corner="metric", css="metrics"))
    return out
