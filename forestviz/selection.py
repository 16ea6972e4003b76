"""Choosing among fitted candidates without choosing noise: the one-standard-error rule.

Breiman, Friedman, Olshen & Stone, *Classification and Regression Trees* (1984), §3.4.3 pick
the simplest tree whose cross-validated error is within one standard error of the smallest;
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning* (2nd ed.), §7.10 use the
same rule for any ordered family of models. Every candidate here is scored on the *same*
held-out rows (out-of-bag or cross-fitted), so the standard error used is the one of the
**paired** per-row difference to the best candidate, which removes the rows' common
difficulty: candidate c is within noise of the best b when

    mean_s(L_cs − L_bs) ≤ SE_s(L_cs − L_bs),

and the first such candidate in order of simplicity is chosen. The model families put their
plain base model first (the forest with equal tree weights, the GBM), so attention is chosen
only when it beats every simpler candidate by more than the noise of the comparison.

Row weights ω_s (the user's sample weights) weight the means; the standard error of a weighted
mean is sd_ω / √n_eff with Kish's effective size n_eff = (Σω)² / Σω².
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

CONFIRM_SE = 2.0
"""How many standard errors the cross-fitted confirmation of a choice must beat the base model
by (:func:`confirmed_one_standard_error`)."""


@dataclass(frozen=True)
class Selection:
    """The chosen candidate (``chosen``), the one with the lowest mean loss (``best``) and a
    table, one row per candidate in the order given: ``validation_loss`` (weighted mean over
    the rows that scored it), ``standard_error`` (of that mean), ``difference_to_best``
    (paired mean of L_c − L_best over the rows both scored), ``difference_se`` (its standard
    error), ``n_rows`` and ``selected``."""

    chosen: int
    best: int
    table: pd.DataFrame


def weighted_mean_and_se(values: np.ndarray, weight: np.ndarray) -> tuple[float, float]:
    """Weighted mean of the finite ``values`` and its standard error (NaN, NaN if none)."""
    ok = np.isfinite(values) & (weight > 0)
    if not ok.any():
        return np.nan, np.nan
    v, w = values[ok], weight[ok]
    mean = float(np.average(v, weights=w))
    n_eff = w.sum() ** 2 / np.sum(w**2)
    if n_eff <= 1:
        return mean, np.nan
    variance = float(np.average((v - mean) ** 2, weights=w)) * n_eff / (n_eff - 1)
    return mean, float(np.sqrt(variance / n_eff))


def pool_repeats(losses, rows, weight) -> tuple[np.ndarray, np.ndarray]:
    """Held-out ``losses`` (n, P) of repeated cross-fitting, where ``rows`` (n,) names the row
    each loss belongs to, pooled to one row of losses per distinct row: its mean over the times
    it was held out. Repeating K-fold cross-validation with new partitions and averaging lowers
    the variance that one partition adds to the estimate (Kim, "Estimating classification error
    rate: Repeated cross-validation, repeated hold-out and bootstrap", Comput. Stat. Data Anal.
    53, 2009); pooling by row keeps the standard errors of :func:`one_standard_error` counting
    rows, not repeats, which are not independent. Returns (losses, ``weight`` of each row),
    the rows in ascending order; unchanged when no row repeats."""
    losses, rows = np.asarray(losses, dtype=float), np.asarray(rows)
    weight = np.asarray(weight, dtype=float)
    unique, first, inverse, counts = np.unique(rows, return_index=True, return_inverse=True,
                                               return_counts=True)
    if counts.size == 0 or counts.max() == 1:
        return losses, weight
    sums = np.zeros((unique.size, losses.shape[1]))
    np.add.at(sums, inverse, losses)
    return sums / counts[:, None], weight[first]


def _placements(y, scores, weight):
    """DeLong's structural components of the weighted AUC of ``scores`` (n,) for the binary
    labels ``y``: for each positive row the weighted share of negatives it outranks (ties
    count one half), for each negative the share of positives that outrank it."""
    positive, negative = y == 1, y == 0
    components = []
    for mine, other, sign in ((positive, negative, 1.0), (negative, positive, -1.0)):
        order = np.argsort(sign * scores[other], kind="stable")
        ranked, w = sign * scores[other][order], weight[other][order]
        cumulative = np.concatenate([[0.0], np.cumsum(w)])
        below = cumulative[np.searchsorted(ranked, sign * scores[mine], side="left")]
        tied = cumulative[np.searchsorted(ranked, sign * scores[mine], side="right")] - below
        components.append((below + 0.5 * tied) / cumulative[-1])
    return components


def auc_one_standard_error(y, scores, weight=None) -> Selection:
    """The one-standard-error choice by AUC (binary ``y`` in {0, 1}; ``scores`` (n_rows, P),
    candidates simplest first), with the standard errors of DeLong, DeLong & Clarke-Pearson,
    "Comparing the areas under two or more correlated receiver operating characteristic
    curves" (Biometrics 44, 1988), Eq. 2-4: AUC is the mean of the positives' (or negatives')
    placements, and the variance of a paired difference is Var(ΔV₁₀)/n₊ + Var(ΔV₀₁)/n₋ over
    the placement differences. Row weights weight the placements (the AUC then equals
    scikit-learn's weighted ``roc_auc_score``) and the sample sizes are Kish's effective ones.
    The table's ``validation_loss`` is 1 − AUC."""
    y, scores = np.asarray(y), np.asarray(scores, dtype=float)
    weight = np.ones(y.size) if weight is None else np.asarray(weight, dtype=float)
    keep = weight > 0
    y, scores, weight = y[keep], scores[keep], weight[keep]
    if scores.ndim != 2 or len(np.unique(y)) != 2:
        raise ValueError("auc_one_standard_error needs both classes and scores (n, P)")
    parts = [_placements(y, scores[:, c], weight) for c in range(scores.shape[1])]
    w_pos, w_neg = weight[y == 1], weight[y == 0]

    def mean_and_se(v10, v01):
        m10, se10 = weighted_mean_and_se(v10, w_pos)
        _, se01 = weighted_mean_and_se(v01, w_neg)
        return m10, float(np.sqrt(np.nan_to_num(se10) ** 2 + np.nan_to_num(se01) ** 2))

    stats = [mean_and_se(v10, v01) for v10, v01 in parts]
    losses = np.array([1.0 - auc for auc, _ in stats])
    best = int(np.argmin(losses))
    paired = [mean_and_se(parts[best][0] - v10, parts[best][1] - v01) for v10, v01 in parts]
    return _choose(losses, [se for _, se in stats], [d for d, _ in paired],
                   [se for _, se in paired], [y.size] * len(parts))


def _choose(means, standard_error, difference, difference_se, n_rows) -> Selection:
    """The first candidate (simplest first) whose paired difference to the best is within
    its standard error."""
    means, difference = np.asarray(means, float), np.asarray(difference, float)
    difference_se = np.nan_to_num(np.asarray(difference_se, float), nan=0.0)
    scored = np.isfinite(means)
    best = int(np.nanargmin(means)) if scored.any() else 0
    within = scored & (difference <= difference_se)
    within[best] = scored[best]
    chosen = int(np.flatnonzero(within)[0]) if within.any() else 0
    table = pd.DataFrame({
        "validation_loss": means, "standard_error": standard_error,
        "difference_to_best": difference, "difference_se": difference_se,
        "n_rows": np.asarray(n_rows, dtype=int),
        "selected": np.arange(means.size) == chosen})
    return Selection(chosen, best, table)


def one_standard_error(losses, weight=None) -> Selection:
    """The one-standard-error choice among candidates ordered simplest first.

    ``losses`` (n_rows, P): every candidate's held-out loss on every row (lower is better;
    NaN where a candidate could not score a row); ``weight`` (n_rows,) row weights, ones by
    default. Only the rows every candidate scored count, when there are any (otherwise each
    candidate's own rows). A candidate that scored no row cannot be chosen; with no scored
    candidate at all, ``chosen = best = 0`` and the table holds NaN.
    """
    losses = np.asarray(losses, dtype=float)
    if losses.ndim != 2 or losses.shape[1] == 0:
        raise ValueError(f"losses must be (n_rows, n_candidates), got shape {losses.shape}")
    weight = np.ones(losses.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    common = np.isfinite(losses).all(axis=1)
    if common.any():  # every candidate on the same rows: the comparison stays paired
        losses, weight = losses[common], weight[common]
    stats = [weighted_mean_and_se(losses[:, c], weight) for c in range(losses.shape[1])]
    means = np.array([mean for mean, _ in stats])
    best = int(np.nanargmin(means)) if np.isfinite(means).any() else 0
    paired = [weighted_mean_and_se(losses[:, c] - losses[:, best], weight)
              for c in range(losses.shape[1])]
    n_rows = [int(np.sum(np.isfinite(losses[:, c]) & (weight > 0)))
              for c in range(losses.shape[1])]
    return _choose(means, [se for _, se in stats], [d for d, _ in paired],
                   [se for _, se in paired], n_rows)


def confirmed_one_standard_error(losses, weight=None, *, n_bases: int = 1, n_folds: int = 5,
                                 confirm_se: float = CONFIRM_SE, random_state=None) -> Selection:
    """:func:`one_standard_error`, then the choice of anything but a base model (the first
    ``n_bases`` columns) confirmed on rows it was not chosen on.

    Choosing the best of many candidates on the same rows that score it is optimistic (the
    winner's curse: Cawley & Talbot, "On over-fitting in model selection and subsequent
    selection bias in performance evaluation", JMLR 11, 2010, §4): the one-standard-error rule
    guards a single comparison, not the maximum over hundreds. So the whole rule is
    cross-fitted over the rows (nested validation): the rows are cut into ``n_folds`` folds
    (shuffled with ``random_state``), and on the other folds the rule chooses twice, among all
    candidates (c) and among the base models alone (b, the fallback: column 0 when
    ``n_bases=1``); each row of a fold scores the difference L_c − L_b. The candidate chosen on
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
        chosen, base = (one_standard_error(losses[rest], weight[rest]).chosen, fallback(rest)
                        ) if rest.size else (0, 0)
        difference[fold] = losses[fold, chosen] - losses[fold, base]
    mean, se = weighted_mean_and_se(difference, weight)
    return _confirmed(selection, mean, se, confirm_se,
                      lambda: fallback(np.arange(losses.shape[0])))


def confirmed_auc_one_standard_error(y, scores, weight=None, *, n_folds: int = 5,
                                     confirm_se: float = CONFIRM_SE,
                                     random_state=None) -> Selection:
    """:func:`auc_one_standard_error`, then a choice other than the base model (column 0)
    confirmed on rows it was not chosen on, as :func:`confirmed_one_standard_error` does for
    per-row losses. AUC is not a mean over rows, so the out-of-selection comparison is made on
    stitched scores: the rows are cut into ``n_folds`` stratified folds (scikit-learn's
    ``StratifiedKFold``, shuffled with ``random_state``), the rule chooses on the other folds,
    and each fold's rows take the scores of that choice. The AUC of the stitched scores is
    compared with the base model's by DeLong's paired test (every candidate scores the
    probability of the same class, so the stitched scores rank on one scale); the choice is
    kept only when 1 − AUC drops by more than ``confirm_se`` standard errors, otherwise the
    base model is chosen. With fewer than ``n_folds`` rows of a class nothing can be
    confirmed and the base model is chosen. The table gains ``confirmed_difference`` (the
    stitched scores' 1 − AUC minus the base model's) and ``confirmed_se``."""
    y, scores = np.asarray(y), np.asarray(scores, dtype=float)
    weight = np.ones(y.size) if weight is None else np.asarray(weight, dtype=float)
    selection = auc_one_standard_error(y, scores, weight)
    if selection.chosen == 0:
        return selection
    mean = se = np.nan
    if np.unique(y, return_counts=True)[1].min() >= n_folds:
        stitched = scores[:, 0].copy()
        folds = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
        for rest, fold in folds.split(scores, y):
            stitched[fold] = scores[fold, auc_one_standard_error(
                y[rest], scores[rest], weight[rest]).chosen]
        check = auc_one_standard_error(y, np.column_stack([scores[:, 0], stitched]),
                                       weight).table
        mean = float(check["validation_loss"].iloc[1] - check["validation_loss"].iloc[0])
        se = float(check["difference_se"].max())
    return _confirmed(selection, mean, se, confirm_se, lambda: 0)


def _confirmed(selection: Selection, mean: float, se: float, confirm_se: float,
               fallback) -> Selection:
    """``selection`` with its confirmation (the out-of-selection difference ``mean`` ± ``se``
    to the base model) in its table: kept when mean + confirm_se·SE < 0, else the
    ``fallback()`` candidate chosen."""
    table = selection.table.assign(confirmed_difference=mean, confirmed_se=se)
    if np.isfinite(mean) and mean + confirm_se * np.nan_to_num(se) < 0:
        return Selection(selection.chosen, selection.best, table)
    base = fallback()
    return Selection(base, selection.best, table.assign(selected=np.arange(len(table)) == base))
