"""What a counterfactual must reach: the model's other answer, in the model's own rule.

A classifier decides by :func:`forestviz.trees.decision.decide`: with two classes and a
threshold t (Youden's J, :meth:`~forestviz.trees.ensemble.WeightedEnsemble.describe`),
``classes_[1]`` exactly when P(``classes_[1]``) ≥ t; otherwise the most probable class (the
first on a tie, as ``numpy.argmax``). Reaching the other class is
then a linear condition on the class probabilities p, one or more rows lo ≤ a · p ≤ hi that the
program (:mod:`.milp`) imposes on the plain forest's p. A regression moves the prediction by a
requested amount: ŷ ≥ ŷ0 + Δ (Δ > 0) or ŷ ≤ ŷ0 + Δ (Δ < 0).

Whether a row reaches the goal is always decided by the model's own ``predict``
(:meth:`Goal.reached`), never by the program's arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import is_classifier

from forestviz.trees.ensemble import as_ensemble

STRICT = 1e-5
"""How far past a strict inequality's bound (P(class) < t, or one class's probability above
another's) the program must go: more than the 1e-6 by which HiGHS lets a row of a mixed-integer
program slip (its ``mip_feasibility_tolerance``; at 1e-7, a tie of two classes' probabilities
passed for the second winning)."""


@dataclass(frozen=True, eq=False)
class Goal:
    """``before`` the model's answer for the row (a class, or a value); ``after`` the class it
    must answer, or the value the prediction must reach (None for a class), ``rows`` the
    conditions (a, lo, hi) on the plain forest's prediction, ``unit`` the scale of a margin
    (1 for probabilities, |Δ| for a value), ``classes`` the model's classes (None for a
    regression)."""

    before: object
    after: object
    rows: tuple[tuple[np.ndarray, float, float], ...]
    unit: float
    classes: np.ndarray | None = None
    rising: bool = True

    def tightened(self, margin: float) -> list[tuple[np.ndarray, float, float]]:
        """The rows with ``margin`` (times :attr:`unit`) more room to each finite bound."""
        step = margin * self.unit
        return [(a, lo + step if np.isfinite(lo) else lo, hi - step if np.isfinite(hi) else hi)
                for a, lo, hi in self.rows]

    def answers(self, model, X) -> np.ndarray:
        """The model's own predictions for the rows ``X``."""
        return np.asarray(model.predict(np.asarray(X, dtype=np.float64)))

    def slack(self, model, X) -> np.ndarray:
        """How far inside the goal the model's own probabilities (or value) for each row of
        ``X`` are: the least room to any bound of :attr:`rows`, negative outside. A guide for
        the search only; :meth:`reached` decides."""
        X = np.asarray(X, dtype=np.float64)
        if self.classes is None:
            p = np.asarray(model.predict(X), dtype=np.float64)[:, None]
        else:
            p = np.asarray(model.predict_proba(X), dtype=np.float64)
        room = np.full(len(X), np.inf)
        for a, lo, hi in self.rows:
            score = p @ np.asarray(a, dtype=np.float64)
            room = np.minimum(room, np.minimum(score - lo, hi - score))
        return room

    def reached(self, model, X) -> np.ndarray:
        """Whether the model's own prediction for each row of ``X`` is the goal."""
        answers = self.answers(model, X)
        if self.classes is not None:
            return answers == self.after
        return answers >= self.after if self.rising else answers <= self.after


def goal_for(model, x0, *, target=None, change: float | None = None) -> Goal:
    """The goal for the row ``x0``: a classifier's ``target`` class (by default its other
    class, with more than two the second most probable), or a regression's prediction moved
    by ``change`` (required, not 0)."""
    x0 = np.asarray(x0, dtype=np.float64).reshape(1, -1)
    before = model.predict(x0)[0]
    if not is_classifier(model):
        if change is None or not np.isfinite(change) or change == 0:
            raise ValueError("a regression's counterfactual needs a non-zero change of the "
                             "prediction")
        after = float(before) + float(change)
        a = np.ones(1)
        rows = ((a, after, np.inf),) if change > 0 else ((a, -np.inf, after),)
        return Goal(float(before), after, rows, abs(float(change)), None, change > 0)
    classes = np.asarray(model.classes_)
    proba = model.predict_proba(x0)[0]
    if target is None:
        order = [c for c in np.argsort(-proba, kind="stable") if classes[c] != before]
        target = classes[order[0]]
    if target == before or target not in classes:
        raise ValueError(f"the target class must be another of the model's classes, not "
                         f"{target!r}")
    c = int(np.flatnonzero(classes == target)[0])
    unit = np.eye(classes.size)
    threshold = as_ensemble(model).describe().threshold
    if classes.size == 2 and threshold is not None:  # P(classes_[1]) ≥ t
        rows = ((unit[1], threshold, np.inf),) if c == 1 else (
            (unit[1], -np.inf, threshold - STRICT),)
    else:  # the most probable class; a tie goes to the first
        rows = tuple((unit[c] - unit[k], 0.0 if c < k else STRICT, np.inf)
                     for k in range(classes.size) if k != c)
    return Goal(before, target, rows, 1.0, classes)
