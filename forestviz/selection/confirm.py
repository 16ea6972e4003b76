"""Confirming a choice on rows it was not made on (nested validation).

Choosing the best of many candidates on the same rows that score it is optimistic (the winner's
curse: Cawley & Talbot, "On over-fitting in model selection and subsequent selection bias in
performance evaluation", JMLR 11, 2010, §4): the one-standard-error rule of
:mod:`forestviz.selection.rule` guards a single comparison, not the maximum over hundreds. So a
choice other than a base model is kept only when the rule, cross-fitted over the rows, beats
the base models on the rows it did not choose on by :data:`CONFIRM_SE` standard errors.
"""

from __future__ import annotations

import numpy as np

from forestviz.selection.rule import Selection, one_standard_error, weighted_mean_and_se

CONFIRM_SE = 2.0
"""How many standard errors the cross-fitted confirmation of a choice must beat the base model
by (:func:`confirmed_one_standard_error`)."""


def confirmed_one_standard_error(losses, weight=None, *, n_bases: int = 1, n_folds: int = 5,
                                 confirm_se: float = CONFIRM_SE, random_state=None) -> Selection:
    """:func:`one_standard_error`, then the choice of anything but a base model (the first
    ``n_bases`` columns) confirmed on rows it was not chosen on.

    The whole rule is cross-fitted over the rows (module docstring): the rows are cut into
    ``n_folds`` folds (shuffled with ``random_state``), and on the other folds the rule chooses
    twice, among all candidates (c) and among the base models alone (b, the fallback: column 0
    when ``n_bases=1``); each row of a fold scores the difference L_c − L_b. The candidate chosen on
    all rows is kept only when these out-of-selection differences beat the fallback by more
    than ``confirm_se`` standard errors (mean + confirm_se·SE < 0); otherwise the rule among
    the base models alone, on all rows, chooses. A choice among the base models themselves is
    not confirmed (a few fixed candidates, no search). The default, :data:`CONFIRM_SE` = 2
    (about a 97.7 % one-sided level), is stricter than the rule's one standard error because
    the costs are not symmetric: adopting a worse model costs accuracy, keeping the base model
    costs nothing against it. The table gains ``confirmed_difference`` and ``confirmed_se``
    (the same values on every row). Costs no fit: only the losses are reused.
    """
    losses = np.asarray(losses, dtype=float)
    weight = np.ones(losses.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    if not 1 <= n_bases <= losses.shape[1]:
        raise ValueError(f"n_bases must be in [1, {losses.shape[1]}], got {n_bases}")
    selection = one_standard_error(losses, weight)
    if selection.chosen < n_bases:
        return selection
    common = np.isfinite(losses).all(axis=1)
    if common.any():  # the rows the rule compared every candidate on (one_standard_error)
        losses, weight = losses[common], weight[common]

    def fallback(rows) -> int:
        return one_standard_error(losses[rows, :n_bases], weight[rows]).chosen

    order = np.random.RandomState(random_state).permutation(losses.shape[0])
    difference = np.full(losses.shape[0], np.nan)
    for fold in np.array_split(order, n_folds):
        rest = np.setdiff1d(order, fold)
        chosen = base = 0
        if rest.size:
            chosen = one_standard_error(losses[rest], weight[rest]).chosen
            base = fallback(rest)
        difference[fold] = losses[fold, chosen] - losses[fold, base]
    mean, se = weighted_mean_and_se(difference, weight)
    return confirmed(selection, mean, se, confirm_se,
                     lambda: fallback(np.arange(losses.shape[0])))


def confirmed(selection: Selection, mean: float, se: float, confirm_se: float,
              fallback) -> Selection:
    """``selection`` with its confirmation (the out-of-selection difference ``mean`` ± ``se``
    to the base model) in its table: kept when mean + confirm_se·SE < 0, else the
    ``fallback()`` candidate chosen."""
    table = selection.table.assign(confirmed_difference=mean, confirmed_se=se)
    if np.isfinite(mean) and mean + confirm_se * np.nan_to_num(se) < 0:
        return Selection(selection.chosen, selection.best, table)
    base = fallback()
    return Selection(base, selection.best, table.assign(selected=np.arange(len(table)) == base))
