"""The numbers a tree drawing prints, in the forms the Explanation's words use.

The Explain page writes a row's path as :meth:`forestviz.trees.paths.PathStep.sentence` does
("Glucose = 148 > 127.5": decimals from the feature's training spread, more only where a value
and its threshold would print alike, :mod:`forestviz.numbers`) and a tree's output to four
significant digits (:func:`forestviz.numbers.number_text`, never scientific notation).
dtreeviz prints every number with one fixed-point ``precision``
(``format(v, ".{precision}f")``): one precision cannot print "0.00614" and "1001" alike.

:func:`drawn_numbers` gives each number the drawing shows its form, and :class:`Printed` hands
it to dtreeviz: a float (for its plots and comparisons) that formats as its form under any
format, so each drawn number is the number on the page, character for character; the path
itself is the tree's own, decided on the exact row and thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from forestviz.numbers import distinct_texts, number_text, read_number


def short(value) -> str:
    """The page's short form of one number (four significant digits)."""
    return number_text(value)


class Printed(float):
    """A number that formats as ``text`` whatever the format spec (dtreeviz's
    ``format(v, ".2f")`` prints the page's form), and is the number it reads
    (:func:`~forestviz.numbers.read_number`) otherwise."""

    text: str

    def __new__(cls, text: str, value: float | None = None):
        number = super().__new__(cls, read_number(text) if value is None else value)
        number.text = text
        return number

    def __format__(self, spec) -> str:
        return self.text


@dataclass(frozen=True)
class DrawnNumbers:
    """What a drawing prints: ``thresholds`` {node: form} of the split nodes drawn, ``row``
    the row's values as forms (one per feature), ``leaf_values`` {leaf: short form} of the
    regression leaves drawn and ``imputed`` the features whose value stood in for a missing
    one (printed "0.0326 (imputed)", an indicator "no (missing)")."""

    thresholds: dict[int, str]
    row: tuple[str, ...]
    leaf_values: dict[int, str]
    imputed: frozenset[int] = frozenset()

    def threshold_values(self) -> dict[int, Printed]:
        return {node: Printed(text, INDICATOR_SPLIT if text == INDICATOR_TEXT else None)
                for node, text in self.thresholds.items()}

    def row_values(self) -> list[Printed]:
        return [Printed(text + (_mark(text) if j in self.imputed else ""),
                        LEVEL_VALUES[text] if text in LEVEL_VALUES else read_number(text))
                for j, text in enumerate(self.row)]


def _mark(text: str) -> str:
    """How a guessed value is marked: a number was imputed, an indicator's level is missing."""
    return " (missing)" if text in LEVEL_VALUES else " (imputed)"


INDICATOR_TEXT = "no | yes"
"""How a split on a category's indicator prints its threshold: the rows without the level go
left, those with it right (scikit-learn splits a 0/1 indicator at 0.5)."""
INDICATOR_SPLIT = 0.5
LEVEL_VALUES = {"no": 0.0, "yes": 1.0}
"""How a row's indicator prints (whether it has the level), and the value it stands for."""


def drawn_numbers(tree, row, path, shown, leaf_values=None, spreads=None,
                  indicators=frozenset(), imputed=frozenset()) -> DrawnNumbers:
    """The forms of what the drawing of ``tree`` for ``row`` (float64, as given) prints.

    ``path``: the row's nodes, root first; ``shown``: the nodes drawn; ``leaf_values``: the
    tree's output per node of a regression tree (None for a classifier, whose leaves print
    class names); ``spreads``: each feature's training spread (None: four significant
    digits). A path test prints its value and threshold as the page's sentence does
    (:func:`forestviz.numbers.distinct_texts`); a feature tested more than once prints its
    most precise form; every other number its plain form. ``indicators``: the features that
    are one level of a category (one-hot): the row prints "yes" or "no" (has the level or
    not), a split :data:`INDICATOR_TEXT`, as the page's sentences say "sex = F" / "sex is
    not F". ``imputed``: the features whose value was filled in for a missing one, marked so
    (:class:`DrawnNumbers`).
    """
    t = tree.tree_
    row = np.asarray(row, dtype=np.float64)
    spread = [None] * row.size if spreads is None else [float(s) for s in spreads]
    split = [n for n in path if t.children_left[n] >= 0]
    thresholds = {int(n): INDICATOR_TEXT if t.feature[n] in indicators
                  else number_text(t.threshold[n], spread[t.feature[n]])
                  for n in shown if t.children_left[n] >= 0}
    values = [("yes" if v > INDICATOR_SPLIT else "no") if j in indicators else number_text(v, s)
              for j, (v, s) in enumerate(zip(row, spread, strict=True))]
    for node in split:
        feature = int(t.feature[node])
        if feature in indicators:
            continue
        value, threshold = distinct_texts(row[feature], t.threshold[node],
                                          spread=spread[feature])
        thresholds[int(node)] = threshold
        if len(value) > len(values[feature]):
            values[feature] = value
    leaves = {} if leaf_values is None else {  # the path's leaf: the row's box prints it
        int(n): short(leaf_values[n]) for n in (*shown, path[-1]) if t.children_left[n] < 0}
    return DrawnNumbers(thresholds, tuple(values), leaves, frozenset(int(j) for j in imputed))
