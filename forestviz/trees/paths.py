"""A row's decision path in words: the tests it takes in one tree (:class:`PathStep`), the
tests it would have to flip (:class:`Flip`) and the leaves those flips lead to
(:class:`Alternative`), as :class:`~forestviz.trees.machine.DecisionMachine` finds them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from forestviz.numbers import apart_note, difference_texts, distinct_texts


@dataclass(frozen=True)
class PathStep:
    """One test on a row's decision path.

    ``margin = x_f − t`` uses x_f rounded to float32, the value scikit-learn compares, so its
    sign always agrees with ``direction`` ("<=": margin ≤ 0, ">": margin > 0).
    ``scaled_margin = margin / s_f`` with the machine's ``feature_scale`` (1 without one);
    ``fragile`` marks the step with the smallest ``|scaled_margin|`` on the path. ``spread``:
    the feature's training spread, which sets the decimals its numbers print with
    (:mod:`forestviz.numbers`; four significant digits when None).
    """

    tree: int
    depth: int
    node: int
    feature: int
    feature_name: str
    threshold: float
    direction: str
    value: float
    margin: float
    scaled_margin: float
    fragile: bool
    spread: float | None = None

    def texts(self) -> tuple[str, str, str]:
        """The value, the threshold and the margin as the page prints them
        (:func:`~forestviz.numbers.difference_texts`: the margin is the difference of the two
        printed numbers)."""
        return difference_texts(self.value, self.threshold, spread=self.spread)

    def sentence(self, name=str) -> str:
        """E.g. "Glucose (mg/dL) = 148 > 127.5"; ``name`` shows the feature name (e.g.
        ``forestviz.names.elide`` for display)."""
        value, threshold, _ = self.texts()
        sign = "≤" if self.direction == "<=" else ">"
        return (f"{name(self.feature_name)} = {value} {sign} {threshold}"
                + apart_note((value, threshold), (self.value, self.threshold)))


@dataclass(frozen=True)
class Flip:
    """A test a row would have to flip: ``direction`` is the outcome the other leaf needs and
    ``new_value`` the nearest value (on scikit-learn's float32 grid) that gives it; ``spread``
    as in :class:`PathStep`."""

    node: int
    depth: int
    feature: int
    feature_name: str
    threshold: float
    direction: str
    value: float
    new_value: float
    spread: float | None = None

    def sentence(self, name=str) -> str:
        """E.g. "Glucose were above 120.5" (``name`` as in :meth:`PathStep.sentence`)."""
        where = "at most" if self.direction == "<=" else "above"
        (threshold,) = distinct_texts(self.threshold, spread=self.spread)
        return f"{name(self.feature_name)} were {where} {threshold}"


@dataclass(frozen=True)
class Alternative:
    """A leaf ``flips`` tests away from a row's exit leaf in one tree.

    ``prediction`` is the tree's own leaf prediction there: the leaf value (regression) or the
    class probabilities (classification, in the order of ``DecisionMachine.classes``);
    ``prediction_text`` names it. ``row`` is the row moved into the leaf's box along the
    flipped features only; ``distance`` = Σ |new − old| / s_f over those features.
    """

    tree: int
    leaf: int
    flips: int
    tests: tuple[Flip, ...]
    distance: float
    prediction: float | tuple[float, ...]
    prediction_text: str
    row: np.ndarray = field(repr=False, compare=False)

    def sentence(self, name=str) -> str:
        """E.g. "if Glucose were above 120.5, this tree would say P(1) = 0.81"."""
        tests = " and ".join(flip.sentence(name) for flip in self.tests)
        return f"if {tests}, this tree would say {self.prediction_text}"

