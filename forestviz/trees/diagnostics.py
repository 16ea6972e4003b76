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
from functools import cached_property

import numpy as np
import pandas as pd


def _number(row: pd.Series, column: str) -> float | None:
    value = row.get(column, np.nan)
    return None if pd.isna(value) else float(value)


@dataclass(frozen=True)
class Candidate:
    """One row of a search table by name (:meth:`Search.candidates`).

    ``kind``: "base", "base (leaf means)", "attention" or "enhanced"; ``position``: its row in
    the table; ``validation_loss`` (NaN when nothing was held out), ``standard_error``,
    ``difference_to_best`` and ``difference_se`` (to the best candidate), ``n_rows`` held out;
    its setting where it has one, else None: ``eps``, ``tau``, ``discount`` (AGBoost's γ),
    ``rounds`` and ``model_weighting`` (ERF); ``confirmed_difference`` and ``confirmed_se``:
    the check on rows the choice was not made on (NaN when it could not be made), None when
    the search did not confirm its choice.
    """

    kind: str
    position: int
    validation_loss: float
    standard_error: float
    difference_to_best: float
    difference_se: float
    n_rows: int
    eps: float | None = None
    tau: float | None = None
    discount: float | None = None
    rounds: int | None = None
    model_weighting: bool | None = None
    confirmed_difference: float | None = None
    confirmed_se: float | None = None

    @property
    def is_base(self) -> bool:
        """Whether this candidate is a plain base model (no attention, no reweighting)."""
        return self.kind not in ("attention", "enhanced")

    @classmethod
    def of(cls, position: int, row: pd.Series) -> Candidate:
        rounds, weighting = _number(row, "rounds"), row.get("model_weighting")
        return cls(str(row["candidate"]), position, float(row["validation_loss"]),
                   float(row["standard_error"]), float(row["difference_to_best"]),
                   float(row["difference_se"]), int(row["n_rows"]), _number(row, "eps"),
                   _number(row, "tau"), _number(row, "discount"),
                   None if rounds is None else int(rounds),
                   None if weighting is None else bool(weighting),
                   *(None if column not in row else float(row[column])
                     for column in ("confirmed_difference", "confirmed_se")))


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

    Callers read it through its named accessors (:meth:`candidates`, :meth:`chosen`,
    :meth:`best`, :attr:`by_rounds`, :attr:`by_settings`, :attr:`scored`, :meth:`curves`),
    never by the table's column names: this class is the one reader of the table.
    """

    table: pd.DataFrame
    selected_base: bool
    score: str | None = None
    discount: float | None = None

    @property
    def by_rounds(self) -> bool:
        """Whether the candidates are an Enhanced Random Forest's rounds (not ε–τ settings)."""
        return "rounds" in self.table

    @property
    def by_settings(self) -> bool:
        """Whether the candidates are attention settings (ε, τ and, for AGBoost, γ)."""
        return "tau" in self.table

    @property
    def scored(self) -> bool:
        """Whether the candidates were scored on held-out rows (not set by hand)."""
        return bool(np.isfinite(self.table["validation_loss"]).any())

    def candidates(self) -> tuple[Candidate, ...]:
        """Every candidate, in the table's order (the base models first)."""
        return self._candidates

    @cached_property
    def _candidates(self) -> tuple[Candidate, ...]:
        return tuple(Candidate.of(i, row) for i, (_, row) in enumerate(self.table.iterrows()))

    def base(self) -> Candidate | None:
        """The plain base model's row (always first when it was a candidate), else None."""
        first = self.candidates()[0]
        return first if first.kind == "base" else None

    def chosen(self) -> Candidate:
        """The chosen candidate."""
        return self.candidates()[int(np.flatnonzero(self.table["selected"].to_numpy())[0])]

    def best(self, *, base: bool = False) -> Candidate | None:
        """The candidate of the lowest held-out loss among the attention (or Enhanced RF)
        settings, or with ``base`` among the plain base models (the first on a tie); None when
        there is none."""
        found = (c for c in self.candidates() if c.is_base == base)
        return min(found, key=lambda c: (np.isnan(c.validation_loss), c.validation_loss),
                   default=None)

    def curves(self) -> pd.DataFrame:
        """The table the ε–τ curves draw (:func:`forestviz.explain.plots.training.tau_curves`):
        AGBoost's at its chosen discount γ, the base rows kept; every row otherwise."""
        if self.discount is None:
            return self.table
        table = self.table
        return table[(table["discount"] == self.discount) | (table["candidate"] != "attention")]


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
