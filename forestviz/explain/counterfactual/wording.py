"""A counterfactual in words: what the model would need to see, not advice.

"The model would answer No if Glucose (mg/dL) were 121 instead of 148." Numbers print as the
rest of the product prints a column's values (:mod:`forestviz.numbers`, to the decimals the
column's spread needs); a categorical column says its level. When no candidate was confirmed
by the model, the sentence says so plainly, with how many were tried.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from forestviz.explain.counterfactual.search import Change, WhatWouldChange
from forestviz.explain.row.columns import CATEGORICAL
from forestviz.numbers import counted, distinct_texts, outcome_text


def column_values(result: WhatWouldChange, change: Change) -> list[tuple[str, str, str]]:
    """(column, the row's value, the value the model would need) of each changed column."""
    space, x0 = result.space, result.x0
    out = []
    for i in change.columns:
        column = space.columns.columns[i]
        if column.kind == CATEGORICAL:
            before = space.columns.level(column, x0)
            out.append((column.name, "missing" if before is None else before,
                        space.columns.level(column, change.row) or "missing"))
            continue
        j = column.features[0]
        before, after = distinct_texts(x0[j], change.row[j], spread=space.spread[j])
        out.append((column.name, before, after))
    return out


def answer_text(value) -> str:
    """The model's answer as a person reads it: a class's label, a value to four significant
    digits."""
    return outcome_text(value.item() if isinstance(value, np.generic) else value)


def change_sentence(result: WhatWouldChange, change: Change) -> str:
    """"The model would answer No if Glucose were 121 instead of 148 and BMI were 30.1
    instead of 33.6." (a regression: "would predict 180 instead of 150")."""
    parts = [f"{name} were {after} instead of {before}"
             for name, before, after in column_values(result, change)]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    goal = result.goal
    if goal.classes is not None:
        verb = f"answer {answer_text(change.answer)}"
    else:
        verb = (f"predict {answer_text(change.answer)} instead of "
                f"{answer_text(goal.before)}")
    return f"The model would {verb} if {said}."


def nearness(change: Change) -> str:
    """Whether ``change`` is proven the nearest (:attr:`Change.optimal`: the exact program of a
    plain forest finished) or only the nearest found (its time ran out, or the model weighs
    its trees by the row)."""
    if change.optimal:
        return ("No nearer change of the columns that may change makes the model answer so "
                "(proven on its trees).")
    return "The nearest change found, not proven the nearest: a nearer one may exist."


def summary(result: WhatWouldChange) -> str:
    """One line for the glance: the nearest confirmed change, or why there is none."""
    if result.best is not None:
        return change_sentence(result, result.best)
    goal = result.goal
    wanted = (f"answer {answer_text(goal.after)}" if goal.classes is not None
              else f"predict {answer_text(goal.after)}")
    fixed = (f" (columns that cannot change: {', '.join(sorted(result.space.fixed))})"
             if result.space.fixed else "")
    if result.tried:
        return (f"No change to the columns that may change{fixed} was found that makes the "
                f"model {wanted}: {counted(result.tried, 'candidate')} checked on the model "
                "itself, none changed its answer.")
    return (f"No change to the columns that may change{fixed} was found, within their "
            f"training ranges, that makes the model {wanted}.")


def before_after(result: WhatWouldChange) -> pd.DataFrame:
    """The small before/after table: one row per changed column of each confirmed change
    (``change`` 1 is the nearest), every cell text."""
    rows = []
    for number, change in enumerate(result.changes, start=1):
        for name, before, after in column_values(result, change):
            rows.append({"change": str(number), "column": name, "now": before,
                         "the model would need": after,
                         "answer": answer_text(change.answer)})
    columns = ["change", "column", "now", "the model would need", "answer"]
    return pd.DataFrame(rows, columns=columns, dtype=object)


def changes_text(result: WhatWouldChange) -> str:
    """The nearest confirmed change in one cell, "Glucose: 148 → 121; BMI: 33.6 → 30.1"
    (a table's column, as the before/after table's first change); "" when none was."""
    if result.best is None:
        return ""
    return "; ".join(f"{name}: {before} → {after}"
                     for name, before, after in column_values(result, result.best))
