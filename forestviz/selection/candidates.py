"""A grid search as a table of candidates, chosen simplest first.

The attention models (ABRF, Utkin & Konstantinov, "Attention-based Random Forest and
Contamination Model", algorithms.md §1; AGBoost, Konstantinov, Utkin & Kirpichenko, §2) choose
among their plain base models and a grid of attention parameters (ε, τ and, for AGBoost, γ).
Both write the choice the same way, here:

* the **candidate table** (:func:`candidate_table`): one row per base model, named, with no
  parameters, then one row per grid point (:func:`grid`, every combination of the axes);
* the **order of simplicity** (:func:`simplest_first`): the base models first, then the grid
  from the smoothest attention weights to the sharpest — descending in the parameters that
  bring α closer to equal weights, the first key deciding (the largest τ, then the largest ε,
  then the largest γ);
* the **choice** (:func:`choose`): the one-standard-error rule over the candidates in that
  order (Breiman et al. 1984, §3.4.3; :mod:`forestviz.selection.rule`), a choice of attention
  confirmed on rows it was not made on (:mod:`forestviz.selection.confirm`, falling back to the
  base models); when the user fixed a parameter the base models cannot be chosen but keep
  their rows, scored against the best grid point for comparison (the **base rows**);
* with no held-out rows nothing is chosen: the grid is then a single point, the parameters the
  user fixed (:func:`single_candidate`).

The losses are given per held-out row and candidate, the columns in the table's row order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from forestviz.selection.confirm import confirmed_one_standard_error
from forestviz.selection.rule import one_standard_error, weighted_mean_and_se

SCORES = ("validation_loss", "standard_error", "difference_to_best", "difference_se", "n_rows",
          "selected")
"""The columns the choice adds to a candidate table (those of a
:class:`~forestviz.selection.rule.Selection`'s table)."""


def grid(axes: dict) -> pd.DataFrame:
    """Every combination of the ``axes`` (name → values) as a float table, the first axis
    outermost and the last varying fastest."""
    positions = np.meshgrid(*(np.arange(len(values)) for values in axes.values()),
                            indexing="ij")
    return pd.DataFrame({name: np.asarray(values, dtype=float)[where.ravel()]
                         for (name, values), where in zip(axes.items(), positions, strict=True)})


def candidate_table(base_names, points: pd.DataFrame, label: str = "attention") -> pd.DataFrame:
    """One row per base model (``candidate`` its name, no parameters) and then one per grid
    point (``candidate`` = ``label``, its parameters in ``points``' columns)."""
    bases = pd.DataFrame({"candidate": list(base_names),
                          **{column: np.nan for column in points.columns}})
    attention = points.copy()
    attention.insert(0, "candidate", label)
    return pd.concat([bases, attention], ignore_index=True)


def simplest_first(points: pd.DataFrame, keys) -> np.ndarray:
    """The positions of the grid ``points``, simplest first: descending in ``keys[0]``, ties
    descending in ``keys[1]``, and so on (a stable sort)."""
    return np.lexsort([-points[key].to_numpy(dtype=float) for key in reversed(keys)])


def choose(table: pd.DataFrame, losses, weight, *, n_bases: int, keys,
           bases_compete: bool = True, random_state=None) -> pd.DataFrame:
    """``table`` (:func:`candidate_table`, ``n_bases`` base rows) with the choice among its
    candidates by their held-out ``losses`` (n_rows, len(table)) and row ``weight``: the
    columns :data:`SCORES`, and ``confirmed_difference`` and ``confirmed_se`` when attention
    won the plain rule and was confirmed or refused
    (:func:`~forestviz.selection.confirm.confirmed_one_standard_error`, folds shuffled with
    ``random_state``). The order is :func:`simplest_first` over ``keys``. With
    ``bases_compete=False`` the base models are not candidates, nothing is confirmed, and
    their rows compare them with the best grid point (:func:`compared`)."""
    order = np.concatenate([np.arange(n_bases),
                            n_bases + simplest_first(table.iloc[n_bases:], keys)])
    losses = np.asarray(losses, dtype=float)[:, order]
    if bases_compete:
        scores = confirmed_one_standard_error(losses, weight, n_bases=n_bases,
                                              random_state=random_state).table
    else:
        selection = one_standard_error(losses[:, n_bases:], weight)
        best = losses[:, n_bases + selection.best]
        scores = pd.concat([compared(losses[:, :n_bases], weight, best), selection.table],
                           ignore_index=True)
    scores = scores.iloc[np.argsort(order)].reset_index(drop=True)
    return pd.concat([table, scores], axis=1)


def compared(losses, weight, best) -> pd.DataFrame:
    """Rows of :data:`SCORES` for candidates that are shown but not chosen: the weighted mean
    of each column of ``losses`` with its standard error, the paired difference to the losses
    ``best`` of the best candidate with its standard error, and the rows that scored it."""
    rows = []
    for column in losses.T:
        mean, se = weighted_mean_and_se(column, weight)
        difference, difference_se = weighted_mean_and_se(column - best, weight)
        scored = int(np.sum(np.isfinite(column) & (weight > 0)))
        rows.append((mean, se, difference, difference_se, scored, False))
    return pd.DataFrame(rows, columns=list(SCORES))


def single_candidate(table: pd.DataFrame, n_bases: int) -> pd.DataFrame:
    """``table`` when no held-out row scored it: its one grid point chosen, no scores. More
    than one grid point cannot be chosen without held-out rows (ValueError)."""
    if len(table) != n_bases + 1:
        raise ValueError(f"no held-out rows to choose among {len(table) - n_bases} grid points")
    return table.assign(validation_loss=np.nan, standard_error=np.nan, difference_to_best=np.nan,
                        difference_se=np.nan, n_rows=0,
                        selected=np.arange(len(table)) == n_bases)


def chosen(table: pd.DataFrame) -> pd.Series:
    """The table's selected row."""
    return table.loc[table["selected"]].iloc[0]
