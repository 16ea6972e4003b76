"""How far an explanation can be relied on: stability over similar rows and compacity.

Shapash (Bouyahya et al., MAIF, "Shapash" documentation, "Quality metrics: consistency,
stability, compacity") defines three measures of an explanation's quality; two are followed
here, each on the contributions of :mod:`forestviz.explain.row.contributions` (through the row's
own tree weights):

* **Stability**: explanations of similar rows should be similar. Shapash compares the
  normalised contributions of a row with those of its nearest neighbours (the coefficient of
  variation over the neighbourhood). Here it is said as a count a reader can check: of the
  row's K most similar training rows (the "Most similar training rows" the Explain page lists,
  standardised Euclidean distance), how many have the same top reasons (the same set of the
  :data:`TOP_REASONS` columns with the largest |contribution|), and how many are carried by the
  same heaviest trees (the same set of the :data:`TOP_TREES` trees of largest weight). When a
  model gives every tree the same weight no tree carries a row more than another, so that part
  is not counted (:attr:`Stability.trees_same` is None).
* **Compacity**: Shapash's ``compute_features_compacity`` counts the features needed to reach
  a share of the explanation; here, the fewest columns (largest |contribution| first) whose
  |contributions| add up to :data:`COMPACITY_SHARE` of the row's total |contribution| — the
  movement from the base value, with each column counted by its size whichever way it pushes.

Shapash's third measure, *consistency* (agreement of different explanation methods), is here
*robustness to the fit*: the same row's top reasons under refits of the model with other seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from forestviz.explain.row.summary import NEIGHBORS
from forestviz.explain.row.tree_choice import equal_weights

TOP_REASONS = 3
TOP_TREES = 5
NEIGHBOURS = NEIGHBORS  # the similar rows an explanation lists
COMPACITY_SHARE = 0.9


@dataclass(frozen=True)
class Stability:
    """Of ``n`` similar rows: ``reasons_same`` have the same top reasons as the row,
    ``trees_same`` the same heaviest trees (None when every tree weighs the same)."""

    n: int
    reasons_same: int
    trees_same: int | None

    def sentence(self) -> str:
        text = (f"The top {TOP_REASONS} reasons are the same for {self.reasons_same} of the "
                f"{self.n} most similar training rows")
        if self.trees_same is not None:
            text += (f", and the {TOP_TREES} heaviest trees for {self.trees_same} of them")
        return text + "."


def top_sets(values: np.ndarray, k: int) -> list[frozenset[int]]:
    """Per row of ``values`` (n, m) the set of the ``k`` columns of largest value; ties by
    the lower column (a stable order)."""
    order = np.argsort(-values, axis=1, kind="stable")[:, :k]
    return [frozenset(map(int, row)) for row in order]


def stability(contributions: np.ndarray, weights: np.ndarray,
              neighbour_contributions: np.ndarray, neighbour_weights: np.ndarray) -> Stability:
    """The row's (contributions (m,), tree weights (T,)) against its neighbours' ((K, m),
    (K, T))."""
    rows = np.vstack([contributions, neighbour_contributions])
    reasons = top_sets(np.abs(rows), TOP_REASONS)
    same_reasons = sum(r == reasons[0] for r in reasons[1:])
    all_weights = np.vstack([weights, neighbour_weights])
    trees_same = None
    if not equal_weights(all_weights).all():
        trees = top_sets(all_weights, TOP_TREES)
        trees_same = sum(t == trees[0] for t in trees[1:])
    return Stability(n=len(reasons) - 1, reasons_same=int(same_reasons),
                     trees_same=None if trees_same is None else int(trees_same))


def compacity(contributions: np.ndarray, share: float = COMPACITY_SHARE) -> np.ndarray:
    """Per row of ``contributions`` (n, m): the fewest columns, largest |contribution| first,
    whose |contributions| reach ``share`` of the row's total |contribution| (0 for a row
    whose contributions are all 0)."""
    size = np.sort(np.abs(np.atleast_2d(contributions)), axis=1)[:, ::-1]
    total = size.sum(axis=1, keepdims=True)
    reached = np.cumsum(size, axis=1) >= share * total - 1e-12 * total
    counts = np.argmax(reached, axis=1) + 1
    return np.where(total[:, 0] > 0, counts, 0)


def same_reasons_share(original: np.ndarray, refits: list[np.ndarray]) -> np.ndarray:
    """Robustness to the fit: per row, the share of ``refits`` (each (n, m) contributions of
    the same rows by the model refitted with another seed) whose top reasons are the row's
    top reasons under ``original`` (n, m)."""
    mine = top_sets(np.abs(original), TOP_REASONS)
    same = np.zeros(len(mine))
    for contributions in refits:
        theirs = top_sets(np.abs(contributions), TOP_REASONS)
        same += [a == b for a, b in zip(mine, theirs, strict=True)]
    return same / len(refits)
