"""Two groups of explained rows compared: what moves their predictions, how concentrated the
forest's attention is for them and which trees carry them.

Given the rows' contributions (:class:`~.population.Population`) and tree
weights α (n, T), a group's profile is the mean contribution of each column, the mean
effective number of trees 1/Σα² and the mean weight of each tree; the comparison ranks the
columns and the trees by the size of the difference between the two groups' means, with a
Welch standard error of the difference (the groups' own variances) so that a reader can tell
a difference from noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

TREES_SHOWN = 10


@dataclass(frozen=True, eq=False)
class CohortComparison:
    """``names`` of the two groups and their sizes ``sizes``; ``columns`` one line per column
    (mean contribution in each group, difference B − A, its standard error), largest
    |difference| first; ``effective`` the mean effective number of trees of each group;
    ``trees`` the :data:`TREES_SHOWN` trees whose mean weight differs most (tree numbers from
    1); ``left_out`` the rows in neither group and why (e.g. "miss Glucose"), or None."""

    names: tuple[str, str]
    sizes: tuple[int, int]
    columns: pd.DataFrame
    effective: tuple[float, float]
    trees: pd.DataFrame
    left_out: tuple[int, str] | None = None

    def caption(self) -> str:
        """The groups in words: their sizes and mean effective numbers of trees, and the rows
        in neither group, said rather than silently dropped."""
        text = (f"{self.names[0]}: {self.sizes[0]} rows, effective number of trees "
                f"{self.effective[0]:.1f} on average; {self.names[1]}: {self.sizes[1]} rows, "
                f"{self.effective[1]:.1f}.")
        if self.left_out is not None and self.left_out[0]:
            count, why = self.left_out
            total = count + sum(self.sizes)
            text += f" {count} of the {total} rows {why}: they are in neither group."
        return (text + " Differences larger than two standard errors are unlikely to be "
                "noise.")


def _difference(values: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Per column of ``values`` (n, k): the means of the rows in ``a`` and ``b``, B − A and
    its Welch standard error."""
    first, second = values[a], values[b]
    mean_a, mean_b = first.mean(axis=0), second.mean(axis=0)
    se = np.sqrt(first.var(axis=0, ddof=1) / len(first) + second.var(axis=0, ddof=1)
                 / len(second))
    return mean_a, mean_b, mean_b - mean_a, se


def compare(population, weights: np.ndarray, a, b, names=("A", "B"),
            why_left_out: str = "are left out") -> CohortComparison:
    """Compare the rows in boolean mask ``a`` with those in ``b`` (each at least two rows);
    the rows in neither are counted as ``left_out`` with ``why_left_out`` (e.g. "miss
    Glucose")."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    left_out = int((~a & ~b).sum())
    if a.sum() < 2 or b.sum() < 2:
        reason = f" ({left_out} rows {why_left_out})" if left_out else ""
        raise ValueError(f"each group needs at least two rows; they have {a.sum()} and "
                         f"{b.sum()}{reason}")
    mean_a, mean_b, diff, se = _difference(population.contributions, a, b)
    columns = pd.DataFrame({"column": population.columns, f"mean in {names[0]}": mean_a,
                            f"mean in {names[1]}": mean_b, "difference": diff,
                            "standard error": se})
    columns = columns.iloc[np.argsort(-np.abs(diff), kind="stable")].reset_index(drop=True)
    effective = 1.0 / np.sum(weights**2, axis=1)
    tree_a, tree_b, tree_diff, tree_se = _difference(weights, a, b)
    order = np.argsort(-np.abs(tree_diff), kind="stable")[:TREES_SHOWN]
    trees = pd.DataFrame({"tree": order + 1, f"mean weight in {names[0]}": tree_a[order],
                          f"mean weight in {names[1]}": tree_b[order],
                          "difference": tree_diff[order], "standard error": tree_se[order]})
    return CohortComparison(names=tuple(names), sizes=(int(a.sum()), int(b.sum())),
                            columns=columns,
                            effective=(float(effective[a].mean()),
                                       float(effective[b].mean())),
                            trees=trees, left_out=(left_out, why_left_out) if left_out else None)
