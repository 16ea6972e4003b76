"""How many of Algorithm 1's rounds the Enhanced Random Forest keeps, with or without model
weighting (Bertsimas & Stoumpou, "Binary Classification: Is Boosting stronger than Bagging?";
algorithms.md §3.1, §3.3).

The candidates, simplest first (:func:`candidates`): round 1 with plain averaging (the plain
forest), round 2, …, then model weighting at the round of best validation AUC (or every round
with model weighting when it is forced on; none when the validation rows hold one class, so
that no round has an AUC). They are scored on the validation rows and chosen
by the one-standard-error rule of :mod:`forestviz.selection` — by AUC with DeLong's standard
errors for two classes, by the Brier score per row otherwise — and a choice other than the
plain forest must also beat it on validation rows it was not made on (:func:`choose`); why,
measured on Pima, is in :mod:`forestviz.enhanced.rounds`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from forestviz.enhanced.rounds import Round, run_rounds
from forestviz.selection import (
    Selection,
    confirmed_auc_one_standard_error,
    confirmed_one_standard_error,
)


@dataclass(frozen=True, eq=False)
class Choice:
    """The kept round count and model weighting, the table of every candidate (the
    estimator's ``search_results_``), the chosen candidate's probabilities for the validation
    rows and the ``history_`` of the rounds run."""

    n_rounds: int
    model_weighting: bool
    table: pd.DataFrame
    proba: np.ndarray
    history: list


def choose_rounds(model, X32, y_enc, weight, train, val, rng, report,
                  weighted: Callable[[Round], np.ndarray]) -> Choice:
    """Algorithm 1 on the ``train`` rows with ``model``'s settings, every round scored on the
    ``val`` rows, and the choice among the :func:`candidates`; ``weighted(kept)`` gives the
    ``val`` rows' probabilities under model weighting fitted on the kept round."""
    rounds = run_rounds(model, X32[train], y_enc[train], weight[train], X32[val], y_enc[val],
                        weight[val], model.n_iterations, rng, report, model.early_stopping)
    options = candidates(rounds, model.model_weighting)
    probas = [rounds[k - 1].val_proba if not mw else
              weighted(rounds[k - 1])
              for k, mw in options]
    selection, table = choose(y_enc[val], weight[val], probas, options, rng.randint(2**31 - 1))
    n_rounds, model_weighting = options[selection.chosen]
    return Choice(n_rounds, model_weighting, table, probas[selection.chosen],
                  [r.record for r in rounds])


def candidates(rounds, model_weighting) -> list[tuple[int, bool]]:
    """(round count, model weighting) pairs, simplest first (module docstring), for
    ``model_weighting`` "auto", True or False."""
    plain = [(k + 1, False) for k in range(len(rounds))]
    if model_weighting is True:
        return [(k, True) for k, _ in plain]
    if model_weighting != "auto":
        return plain
    auc = np.array([r.record["validation_auc"] for r in rounds], dtype=float)
    if np.isnan(auc).all():  # validation rows of one class: no AUC picks a round to weight
        return plain
    return [*plain, (1 + int(np.nanargmax(auc)), True)]


def choose(y_val, sw_val, probas, candidates, seed=None) -> tuple[Selection, pd.DataFrame]:
    """The one-standard-error choice among ``candidates`` ((round, model weighting) pairs,
    simplest first) from their validation probabilities ``probas`` (one (n, C) array each),
    and the table of every candidate (the estimator's ``search_results_``). A choice other
    than the first candidate (the plain forest) is confirmed on validation rows it was not
    made on (:mod:`forestviz.selection`; folds shuffled with ``seed``): the best of a dozen
    candidates on some hundred rows looks better on them than it is."""
    n_classes = probas[0].shape[1]
    present = np.unique(y_val)
    if n_classes == 2 and present.size == 2:
        selection = confirmed_auc_one_standard_error(
            y_val, np.column_stack([p[:, 1] for p in probas]), sw_val, random_state=seed)
    else:  # the Brier score of every row
        onehot = np.eye(n_classes)[y_val]
        selection = confirmed_one_standard_error(
            np.column_stack([((p - onehot) ** 2).sum(axis=1) for p in probas]), sw_val,
            random_state=seed)
    table = pd.DataFrame({
        "candidate": ["base" if (k, mw) == (1, False) else "enhanced" for k, mw in candidates],
        "rounds": [k for k, _ in candidates],
        "model_weighting": [mw for _, mw in candidates]}).join(selection.table)
    return selection, table
