"""The one-standard-error rule by the area under the ROC curve, for two classes.

AUC is not a mean over rows, so :mod:`forestviz.selection.rule`'s per-row standard errors do
not apply; DeLong, DeLong & Clarke-Pearson, "Comparing the areas under two or more correlated
receiver operating characteristic curves" (Biometrics 44, 1988), Eq. 2-4 give the standard
error of a paired difference of AUCs through the rows' placements. The confirmation on rows a
choice was not made on (:mod:`forestviz.selection.confirm`) is made on stitched scores.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold

from forestviz.selection.confirm import CONFIRM_SE, confirmed
from forestviz.selection.rule import Selection, first_within, weighted_mean_and_se


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
    return first_within(losses, [se for _, se in stats], [d for d, _ in paired],
                        [se for _, se in paired], [y.size] * len(parts))


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
    return confirmed(selection, mean, se, confirm_se, lambda: 0)
