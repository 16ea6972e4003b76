"""What a fit learned beyond its tree weights, as typed values every family fills in the same
way (:meth:`~forestviz.trees.ensemble.WeightedEnsemble.diagnostics` and
:attr:`~forestviz.trees.ensemble.EnsembleOutputs.scores`).

* :class:`Search`: the choice between attention (or ERF's rounds and model weighting) and the
  plain base model, scored on rows held out in training: the attention forests' and AGBoost's
  ε–τ(–γ) search (Utkin & Konstantinov, ABRF Fig. 2; Konstantinov, Utkin & Kirpichenko) and
  the Enhanced Random Forest's choice of round (Bertsimas & Stoumpou, Algorithm 1);
* :class:`Rounds`: the Enhanced Random Forest's reweighting rounds and the final sample
  importance s_i of its training rows (Algorithm 1);
* :class:`Scores`: the per-tree scores that order an Enhanced Random Forest's trees for a row,
  S (Eq. 8) and its parts S1, S2 (Eqs. 6–7).

Plain forests have none of them (:class:`Diagnostics` with both parts None). The explanations,
the Train and Forest pages and the models table read these fields, never a model's attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True, eq=False)
class Search:
    """The candidates a fit compared on rows it held out, and its choice.

    ``table``: one row per candidate (the model's ``search_results_``: ``candidate`` "base",
    "base (leaf means)", "attention" or "enhanced", its setting, ``validation_loss``,
    ``standard_error``, ``difference_to_best``, ``difference_se``, ``n_rows``, ``selected``
    and, when the choice was confirmed, ``confirmed_difference`` and ``confirmed_se`` on the
    base row); ``selected_base``: whether the plain base model won; ``score``: what
    ``validation_loss`` holds when it is not the model's own loss ("AUC": the table holds
    1 − AUC; "Brier score"), else None; ``discount``: AGBoost's chosen discount γ, else None.
    """

    table: pd.DataFrame
    selected_base: bool
    score: str | None = None
    discount: float | None = None

    @property
    def by_rounds(self) -> bool:
        """Whether the candidates are an Enhanced Random Forest's rounds (not ε–τ settings)."""
        return "rounds" in self.table

    def chosen(self) -> pd.Series:
        """The table's row of the chosen candidate."""
        return self.table.loc[self.table["selected"]].iloc[0]


@dataclass(frozen=True, eq=False)
class Rounds:
    """The Enhanced Random Forest's reweighting (Algorithm 1).

    ``history``: one dict per round (``iteration`` counts from 1); ``best``: the position in
    ``history`` of the round kept; ``sample_importance``: the final s_i of the training rows at
    positions ``train_indices`` of the rows given to ``fit``.
    """

    history: list[dict]
    best: int
    sample_importance: np.ndarray
    train_indices: np.ndarray


@dataclass(frozen=True, eq=False)
class Diagnostics:
    """What a fit learned: its :class:`Search` and its :class:`Rounds`, each None when the
    family has none (plain forests: both)."""

    search: Search | None = None
    rounds: Rounds | None = None

    @property
    def selected_base(self) -> bool:
        """Whether a search kept the plain base model (equal tree weights)."""
        return self.search is not None and self.search.selected_base


@dataclass(frozen=True, eq=False)
class Scores:
    """Per-tree scores of n rows, each (n, T): ``S`` orders the trees (ERF Eq. 8), ``S1`` and
    ``S2`` its parts (Eqs. 6–7), None where they were not computed (lean outputs)."""

    S: np.ndarray
    S1: np.ndarray | None = None
    S2: np.ndarray | None = None

    def row(self, i: int) -> Scores:
        """Row ``i``'s scores, each (T,)."""
        return Scores(*(None if part is None else part[i] for part in (self.S, self.S1, self.S2)))
