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


def first_within(means, standard_error, difference, difference_se, n_rows) -> Selection:
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
    return first_within(means, [se for _, se in stats], [d for d, _ in paired],
                        [se for _, se in paired], n_rows)
