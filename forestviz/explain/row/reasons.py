"""The reasons on both sides of one prediction, and the sentence that argues them.

The contributions (:mod:`.contributions`) split the prediction into the trees'
weighted base value and one push per user column, base + Σ pushes = prediction. A sentence that
names only the pushes in the direction of the net move tells one side: when the row's columns
pull both ways and nearly cancel, the prediction barely moved from the base and the other side,
as strong, goes unsaid. :func:`two_sided` keeps the strongest columns each way and folds the
rest into one number (the data of a compact waterfall,
:func:`~forestviz.explain.plots.reasons.reasons_waterfall`); :func:`argument` says the net
move, the strongest columns toward the prediction and against it, and "mostly balanced" when
the two sides nearly cancel (:data:`BALANCED`). Nothing is said that the contributions do not
hold: each named column's signed push is printed beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from forestviz.explain.row.columns import NUMERIC
from forestviz.explain.row.narrative import SECOND_REASON, headline, target_column, value_text
from forestviz.numbers import plain_number, signed_number

SHOWN = 3  # columns each way drawn one by one; the others share one bar
BALANCED = 0.25
"""The two sides "mostly balance" when the net move is less than this share of the larger side
(both sides pushing): three quarters or more of each push is undone by the other side."""


@dataclass(frozen=True)
class Reason:
    """One column's push: ``column`` its name, ``value`` the row's value as given ("13.3",
    "F", "missing", "missing (imputed 0.0326)"), ``contribution`` its signed push on the
    target number."""

    column: str
    value: str
    contribution: float


@dataclass(frozen=True, eq=False)
class Reasons:
    """The pushes of one prediction on its target number (``target``: "the risk",
    "P(class)" or "the prediction"), from ``base`` (the trees' weighted expected output) to
    ``prediction`` = base + Σ contributions. ``raising`` and ``lowering``: the strongest
    columns each way, strongest first; ``rest``: the sum of the other columns' contributions
    (``folded`` names them). ``toward``: the sign (+1, −1) of the pushes toward the predicted
    class (classification) or of the net move (regression); ``side_names``: how the two sides
    are called, raising first ("toward malignant", "toward benign")."""

    target: str
    base: float
    prediction: float
    raising: tuple[Reason, ...]
    lowering: tuple[Reason, ...]
    rest: float
    folded: tuple[str, ...]
    up: float  # Σ of every positive contribution
    down: float  # Σ of every negative contribution (≤ 0)
    toward: int
    side_names: tuple[str, str]
    ends: tuple[str, str]
    """``base`` and ``prediction`` printed as the tiles print the model's answer
    (:meth:`~.explanation.Explanation.outcome_texts`)."""

    @property
    def net(self) -> float:
        return self.prediction - self.base

    @property
    def balanced(self) -> bool:
        """Both sides push and the net move is under :data:`BALANCED` of the larger one."""
        larger = max(self.up, -self.down)
        return self.up > 0 > self.down and abs(self.net) < BALANCED * larger


def target_name(e, name=str) -> str:
    """What the number an explanation ``e`` speaks of is called
    (:func:`~.narrative.target_column`): "the risk" (binary), "P(class)"
    (the predicted class of several) or "the prediction" (a value)."""
    if e.task != "classification":
        return "the prediction"
    return "the risk" if e.classes.size == 2 else f"P({name(e.predicted_class)})"


def two_sided(e, *, shown: int = SHOWN, name=str) -> Reasons | None:
    """The :class:`Reasons` of an explanation ``e`` (None without contributions): its
    ``shown`` strongest columns each way, the rest folded."""
    c = e.contributions
    if c is None:
        return None
    column = target_column(e)
    total = np.asarray(c.total if column is None else c.total[:, column], dtype=float)
    base = float(c.base_value if column is None else c.base_value[column])
    values = _values(e.features)
    order = np.argsort(-np.abs(total), kind="stable")
    raising = [j for j in order if total[j] > 0][:shown]
    lowering = [j for j in order if total[j] < 0][:shown]
    kept = set(raising) | set(lowering)
    folded = [j for j in range(total.size) if j not in kept]

    def reasons(indices):
        return tuple(Reason(c.feature_names[j], values[c.feature_names[j]], float(total[j]))
                     for j in indices)

    net = float(total.sum())
    if column is None:
        toward, sides = 1 if net >= 0 else -1, ("raising it", "lowering it")
    elif e.classes.size == 2:
        toward = 1 if e.predicted_class == e.classes[1] else -1
        sides = (f"toward {name(e.classes[1])}", f"toward {name(e.classes[0])}")
    else:
        toward = 1
        sides = (f"toward {name(e.predicted_class)}", f"against {name(e.predicted_class)}")
    return Reasons(target=target_name(e, name), base=base, prediction=base + net,
                   raising=reasons(raising), lowering=reasons(lowering),
                   rest=float(total[folded].sum()),
                   folded=tuple(c.feature_names[j] for j in folded),
                   up=float(total[total > 0].sum()), down=float(total[total < 0].sum()),
                   toward=toward, side_names=sides,
                   ends=tuple(e.outcome_texts(base, base + net)))


def _values(features) -> dict[str, str]:
    """Each column's value as given, a missing number with what stood in for it ("missing
    (imputed 0.0326)")."""
    return {row.feature: (f"missing (imputed {row.used.split(' ')[0]})"
                          if row.missing and row.kind == NUMERIC else str(row.value))
            for row in features.rename(columns={"used as": "used"}).itertuples(index=False)}


def argument(e, name=str) -> str:
    """One sentence for an explanation ``e`` that argues both sides: "Predicted benign (risk
    0.38): this row's columns move the risk up by 0.007 from the trees' weighted base 0.373,
    the two sides mostly balanced; toward benign: mean concave points is missing (imputed as
    0.0326) (−0.058); toward malignant: worst concavity = 0.628 (+0.061) and worst fractal
    dimension = 0.1243 (+0.043)". The headline alone without contributions."""
    head = headline(e, name)
    r = two_sided(e, name=name)
    if r is None or e.columns is None:
        return head + "."
    move = "up" if r.net > 0 else "down"
    said = (f"{head}: this row's columns move {r.target} {move} by {plain_number(abs(r.net), 2)} "
            f"from the trees' weighted base {r.ends[0]}")
    if r.balanced:
        said += ", the two sides mostly balanced"
    sides = [(r.side_names[0], r.raising), (r.side_names[1], r.lowering)]
    if r.toward < 0:
        sides.reverse()
    parts = [f"{label}: {_named(e, reasons, name)}" for label, reasons in sides]
    return f"{said}; {'; '.join(parts)}."


def _named(e, reasons, name) -> str:
    """The strongest column of one side, and the second when it pushes at least half as
    much (:data:`~.narrative.SECOND_REASON`), each with its push."""
    if not reasons:
        return "no column"
    named = [reasons[0]] + [r for r in reasons[1:2] if abs(r.contribution)
                            >= SECOND_REASON * abs(reasons[0].contribution)]
    return " and ".join(f"{value_text(e, r.column, name)} ({signed(r.contribution)})"
                        for r in named)


def signed(value: float) -> str:
    """A push with its sign, two significant digits, a true minus: "+0.061", "−0.058", "+120"
    (:func:`~forestviz.numbers.signed_number`)."""
    return signed_number(value)
