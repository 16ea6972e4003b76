"""Choosing among fitted candidates without choosing noise (the one-standard-error rule of
Breiman, Friedman, Olshen & Stone, *Classification and Regression Trees*, 1984, §3.4.3, in its
paired form).

``rule`` is the rule over per-row held-out losses (and the pooling of repeated folds),
``auc`` the same rule by AUC with DeLong's standard errors, ``confirm`` the cross-fitted
confirmation of a choice on rows it was not made on, and ``candidates`` how the attention
models' grid searches lay out, order and choose their candidates.
"""

from forestviz.selection.auc import auc_one_standard_error, confirmed_auc_one_standard_error
from forestviz.selection.confirm import CONFIRM_SE, confirmed_one_standard_error
from forestviz.selection.rule import (
    Selection,
    one_standard_error,
    pool_repeats,
    weighted_mean_and_se,
)

__all__ = [
    "CONFIRM_SE",
    "Selection",
    "auc_one_standard_error",
    "confirmed_auc_one_standard_error",
    "confirmed_one_standard_error",
    "one_standard_error",
    "pool_repeats",
    "weighted_mean_and_se",
]
