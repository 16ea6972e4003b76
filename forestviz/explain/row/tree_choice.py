"""Which trees to show for one row, and under what name.

:func:`~.explanation.explain` orders the trees by the row's weight α_k (ERF's
by its tree score S). When the weights are all equal (a plain forest, or an attention model
that kept its plain base), that order is a tie broken by tree number: "the trees that carry
this prediction" would then be trees 1–5 whatever the row, and a chart of 100 equal bars says
nothing. :func:`choose_trees` then says in one line that every tree counts the same and shows
the trees by what this row gives them instead:

* a forest's tree k moves the prediction from its own expected output E f_k by
  α_k·(f_k(x) − E f_k) = α_k·Σ_j φ_kj, its share of the contributions
  (:mod:`.contributions`): the trees with the largest |push| are shown;
* ERF's trees keep their score S (Bertsimas & Stoumpou, "Enhanced Random Forests", Eq. 8),
  which is the row's own even when the weights are equal;
* a boosting model's trees each add a correction α_k·V_k to a running total that starts at the
  initial value F_0 and ends at the prediction (Friedman, "Greedy function approximation: a
  gradient boosting machine", Ann. Statist. 2001, Alg. 1; AGBoost weighs the corrections by
  α_k): with equal weights the largest |corrections| are shown, each beside the running total
  after it (:attr:`TreeChoice.corrections`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from forestviz.explain.row.narrative import target_column
from forestviz.numbers import plain_number
from forestviz.trees.paths import Alternative, PathStep

EQUAL_WEIGHTS = 1e-9  # relative spread of the weights under which they count as equal
WEIGHT, SCORE, PUSH, CORRECTION = ("weight", "tree score S", "push on this prediction",
                                   "correction")


@dataclass(frozen=True, eq=False)
class TreeChoice:
    """The trees to show for one explanation, best first.

    ``trees`` indices from 0; ``criterion`` what chose them (``WEIGHT``, ``SCORE``, ``PUSH``
    or ``CORRECTION``) and ``values`` its number per tree shown; ``heading`` the section's
    title; ``note`` the one line saying that every tree counts the same, or how a boosting
    model adds its trees (None otherwise); ``paths`` and ``alternatives`` of each tree shown;
    ``corrections`` (boosting): per tree shown, in tree order, its weight α_k, its value V_k,
    the correction α_k·V_k and the running total F_0 + Σ_{i≤k} α_i·V_i after it.
    """

    trees: tuple[int, ...]
    criterion: str
    values: tuple[float, ...]
    heading: str
    note: str | None
    equal_weights: bool
    paths: tuple[tuple[PathStep, ...], ...]
    alternatives: tuple[tuple[Alternative, ...], ...]
    corrections: pd.DataFrame | None = None


def equal_weights(weights, rtol: float = EQUAL_WEIGHTS):
    """Whether the weights α of one row (T,) are all equal (to ``rtol`` of their largest): a
    bool; per row of ``weights`` (n, T): an array of bools. The one test of equal weights (the
    Explain page, the record and the neighbours' stability alike)."""
    weights = np.asarray(weights, dtype=float)
    rows = np.atleast_2d(weights)
    found = np.ptp(rows, axis=1) <= rtol * np.abs(rows).max(axis=1)
    return bool(found[0]) if weights.ndim == 1 else found


def tree_pushes(e) -> np.ndarray:
    """α_k·Σ_j φ_kj (T,): how far each tree moves the number the explanation speaks of (the
    risk, P(predicted class) or the value) from its own expected output."""
    pushes = e.contributions.weighted_per_tree.sum(axis=1)
    column = target_column(e)
    return pushes if column is None else pushes[:, column]


def choose_trees(e, summary, *, n_alternatives: int | None = None) -> TreeChoice:
    """The :class:`TreeChoice` of an explanation ``e`` (as many trees as ``e.top_trees``);
    ``summary`` (its :class:`~.summary.TrainingSummary`) gives the paths of
    trees other than ``e.top_trees``, with ``n_alternatives`` nearest other leaves each (by
    default as many as ``e`` has)."""
    k, weights = len(e.top_trees), e.tree_weights
    equal = equal_weights(weights)
    boosting = e.boosting
    corrections = weights * e.tree_predictions if boosting else None
    if e.tree_scores is not None:
        trees, criterion, values = e.top_trees, SCORE, e.tree_scores.S
    elif equal and boosting:
        criterion, values = CORRECTION, corrections
        trees = np.argsort(-np.abs(values), kind="stable")[:k]
    elif equal and e.contributions is not None:
        criterion, values = PUSH, tree_pushes(e)
        trees = np.argsort(-np.abs(values), kind="stable")[:k]
    else:
        trees, criterion, values = e.top_trees, WEIGHT, weights
    trees = tuple(int(t) for t in trees)
    paths, alternatives = _paths(e, summary, trees, n_alternatives)
    return TreeChoice(
        trees=trees, criterion=criterion, values=tuple(float(values[t]) for t in trees),
        heading=_heading(len(trees), criterion), note=_note(e, criterion, equal),
        equal_weights=equal, paths=paths, alternatives=alternatives,
        corrections=None if corrections is None else correction_table(e, trees))


def correction_table(e, trees) -> pd.DataFrame:
    """Boosting: the ``trees`` in tree order with their weight α_k, value V_k, correction
    α_k·V_k and the running total F_0 + Σ_{i≤k} α_i·V_i after each (after the last tree: the
    prediction)."""
    corrections = e.tree_weights * e.tree_predictions
    running = e.offset + np.cumsum(corrections)
    shown = sorted(trees)
    return pd.DataFrame({"tree": [t + 1 for t in shown],
                         "weight": e.tree_weights[shown], "value V_k": e.tree_predictions[shown],
                         "correction": corrections[shown], "running total": running[shown]})


def _paths(e, summary, trees, n_alternatives):
    """The paths and nearest other leaves of ``trees``: the explanation's own for its top
    trees, the decision machine's for the others."""
    own = {int(t): i for i, t in enumerate(e.top_trees)}
    if n_alternatives is None:
        n_alternatives = max((len(a) for a in e.alternatives), default=0)
    paths, alternatives = [], []
    for tree in trees:
        if tree in own and (n_alternatives == 0 or e.alternatives):
            paths.append(e.paths[own[tree]])
            alternatives.append(e.alternatives[own[tree]] if e.alternatives else ())
            continue
        paths.append(tuple(summary.machine.path(e.row, tree)))
        alternatives.append(tuple(summary.machine.alternatives(e.row, tree, max_flips=1)
                                  [:n_alternatives]) if n_alternatives else ())
    return tuple(paths), tuple(alternatives)


def _heading(n: int, criterion: str) -> str:
    trees = "tree" if n == 1 else f"{n} trees"
    if criterion == SCORE:
        return f"The {trees} with the highest tree score S for this row"
    if criterion == PUSH:
        return f"The {trees} that move this prediction most"
    if criterion == CORRECTION:
        return f"The {trees} that add the largest corrections"
    return f"The {trees} that carry this prediction"


def _note(e, criterion: str, equal: bool) -> str | None:
    """The one line under the heading: that every tree counts the same and what chose the
    trees instead; for boosting, how its trees add up."""
    said = []
    if equal:
        reason = {PUSH: "the trees shown move this row's prediction furthest from their own "
                        "average output",
                  SCORE: "the trees shown have this row's highest tree score S",
                  CORRECTION: "the trees shown add this row's largest corrections"}.get(
            criterion, "the trees shown are the first by number")
        said.append(f"Every tree counts the same here (equal weights, 1/{e.n_trees} each): "
                    f"{reason}.")
    if e.boosting:
        said.append(f"Each tree adds a correction (its weight × its value V_k) to a running "
                    f"total that starts at the initial value {plain_number(e.offset, 4)} and ends "
                    "at the prediction.")
    return " ".join(said) or None
