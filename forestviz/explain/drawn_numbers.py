"""The numbers a tree drawing prints, in the short decimal forms the Explanation's words use.

The Explain page writes a row's path as :meth:`forestviz.trees.paths.PathStep.sentence` does
("Glucose = 148 > 127.5": four significant digits, more only where a value and its threshold
would print alike) and a tree's output as ``f"{value:.4g}"``. dtreeviz prints every number with
one fixed-point ``precision`` (``format(v, ".{precision}f")``): with its default of 2 a
threshold of 0.4975 is drawn as 0.50 and a contribution of 0.00123 as 0.00.

:func:`drawn_numbers` gives each number the drawing shows its short form, and the smallest
``precision`` that prints every one of those forms whole. The shadow tree
(:class:`~forestviz.explain.shadow.ForestShadowTree`) hands dtreeviz the forms' values, so each
drawn number, read back, equals the number on the page (``127.5000`` reads as 127.5); the path
itself is the tree's own, decided on the exact row and thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from forestviz.trees.paths import distinct_numbers

ROW_FEATURES_SHOWN = 20
"""dtreeviz's ``max_X_features_TD``: a row of more features shows only the path's ones."""


def short(value) -> str:
    """The page's short form of one number (four significant digits)."""
    return f"{float(value):.4g}"


def decimals(text: str) -> int:
    """Digits after the decimal point that print ``text`` whole in fixed point."""
    exponent = Decimal(text).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def significant(text: str) -> int:
    """Significant digits of a short form."""
    return len(Decimal(text).as_tuple().digits)


@dataclass(frozen=True)
class DrawnNumbers:
    """What a drawing prints: ``thresholds`` {node: short form} of the split nodes drawn,
    ``row`` the row's values as short forms (one per feature), ``leaf_values`` {leaf: short
    form} of the regression leaves drawn, and dtreeviz's ``precision``."""

    thresholds: dict[int, str]
    row: tuple[str, ...]
    leaf_values: dict[int, str]
    precision: int

    def threshold_values(self) -> dict[int, float]:
        return {node: float(text) for node, text in self.thresholds.items()}

    def row_values(self) -> np.ndarray:
        return np.array([float(text) for text in self.row])


def drawn_numbers(tree, row, path, shown, leaf_values=None) -> DrawnNumbers:
    """The short forms of what the drawing of ``tree`` for ``row`` (float64, as given) prints.

    ``path``: the row's nodes, root first; ``shown``: the nodes drawn; ``leaf_values``: the
    tree's output per node of a regression tree (None for a classifier, whose leaves print
    class names). A path test prints its value and threshold as the page's sentence does
    (:func:`forestviz.trees.paths.distinct_numbers`); a feature tested more than once prints
    its most precise form; every other number its 4-digit form.
    """
    t = tree.tree_
    row = np.asarray(row, dtype=np.float64)
    split = [n for n in path if t.children_left[n] >= 0]
    thresholds = {int(n): short(t.threshold[n]) for n in shown if t.children_left[n] >= 0}
    values = [short(v) for v in row]
    precise = [0] * row.size
    for node in split:
        feature = int(t.feature[node])
        value, threshold = distinct_numbers(row[feature], t.threshold[node])
        thresholds[int(node)] = threshold
        if significant(value) > precise[feature]:
            values[feature], precise[feature] = value, significant(value)
    leaves = {} if leaf_values is None else {  # the path's leaf: the row's box prints it
        int(n): short(leaf_values[n]) for n in (*shown, path[-1]) if t.children_left[n] < 0}
    printed = [*thresholds.values(), *leaves.values()]
    if row.size > ROW_FEATURES_SHOWN:
        printed += [values[int(t.feature[n])] for n in split]
    else:
        printed += values
    return DrawnNumbers(thresholds, tuple(values), leaves,
                        max((decimals(text) for text in printed), default=0))
