"""The fit's choice in words: did attention (or the Enhanced Random Forest's reweighting and
model weighting) beat the plain base model on the rows the search held out, and by how much?

The sentence is read off the model's own search table (:class:`~forestviz.trees.diagnostics.
Search`): the base model's row (always first), the best attention setting and the one chosen
by the one-standard-error rule (:mod:`forestviz.selection`; Hastie, Tibshirani & Friedman,
*The Elements of Statistical Learning*, §7.10), with the paired difference and its standard
error, and, when the choice was confirmed on rows it was not made on, that gain too. A
regression's mean squared error is said as R² = 1 − MSE / Var(y), the measure the ABRF paper
reports (Utkin & Konstantinov); :func:`r2_variance` is the one place that rule lives, for this
sentence and for the ε–τ curves of the Train page.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from forestviz.numbers import decimal_text, plain_number
from forestviz.trees.diagnostics import Search

LOSS_NAMES = {
    ("regression", "l2"): "mean squared error",
    ("regression", "l1"): "mean absolute error",
    ("classification", "l2"): "Brier score",
    ("classification", "l1"): "mean absolute error of the probabilities",
}


def r2_variance(task: str, loss: str, y_train) -> float | None:
    """Var(y) of the training outcomes when the search's loss is a regression's mean squared
    error (its losses then read as R² = 1 − loss / Var(y)), else None."""
    if task == "regression" and loss == "l2":
        return float(np.var(y_train))
    return None


def loss_name(search: Search, task: str, loss: str) -> str:
    """What the search's validation losses are, as every sentence about them names them: what
    it scored (:attr:`Search.score`), else the model's ``loss`` ("l2" or "l1") for its ``task``
    (:data:`LOSS_NAMES`: a classifier's squared error is its Brier score)."""
    return search.score or LOSS_NAMES.get((task, loss), "mean squared error")


def selection_note(search: Search | None, *, plain: str, task: str, loss: str,
                   variance: float | None) -> str | None:
    """Which candidate won the search and by how much, on the rows it held out; None when the
    model had no search with its plain base model as a candidate.

    ``plain``: the base model's name ("the plain forest"); ``task`` and ``loss``: the model's
    ("l2" or "l1"), which name its losses unless the search says what it scored
    (:attr:`Search.score`); ``variance``: :func:`r2_variance` (None: losses are not said as R²).
    """
    base = None if search is None else search.base()
    if base is None:
        return None
    chosen = search.chosen()
    if not np.isfinite(base.validation_loss):
        return (f"Attention was not compared with {plain}: ε and τ were set by hand and no "
                "rows were held out to score them.")
    name = loss_name(search, task, loss)
    by_auc = search.score == "AUC"  # the table holds 1 − AUC: a gain is in AUC
    score = _score_text(name, None if by_auc else variance)
    best = search.best()
    enhanced = search.by_rounds
    other = "Enhanced RF setting" if enhanced else "attention setting"
    method = "Reweighting and model weighting" if enhanced else "Attention"
    held = (f"on the {base.n_rows:,} training rows the search held out: "
            + ("round 1 with plain averaging" if enhanced else plain) + " "
            f"{score(base.validation_loss)}, the best {other} "
            f"{score(best.validation_loss)}")
    # the confirmation's out-of-selection difference, in R² where the sentence speaks R²
    confirmed = base.confirmed_se is not None
    gain, gain_se = (-base.confirmed_difference, base.confirmed_se) if confirmed else (
        np.nan, np.nan)
    unit = f" in {name}"
    if variance and not by_auc:
        gain, gain_se, unit = gain / variance, gain_se / variance, " in R²"
    beat = base.difference_to_best > base.difference_se  # the search's own rule
    if search.selected_base:
        means = " (each tree reporting the mean of the training rows in its leaf)" if (
            chosen.kind == "base (leaf means)") else ""
        why = "a difference within its standard error"
        if beat and confirmed:
            why = ("but the search, redone without each fifth of those rows, did not beat "
                   f"it on the fifth left out: its gain{unit} was "
                   f"{plain_number(gain, 3, sign=True)} ± "
                   f"{plain_number(gain_se, 3)}, not above zero by two standard errors")
        return (f"{method} did not beat {plain} on this data set ({held}, {why}), so the "
                f"model is {plain}{means}: the explanation shows its own trees with equal "
                "weights.")
    if not beat:
        return (f"Some settings were fixed by hand, so {plain} was not a candidate ({held}; "
                f"this model {score(chosen.validation_loss)}).")
    simplest = "the fewest rounds" if enhanced else "the smoothest weights"
    smoothest = ("" if chosen.position == best.position else
                 " Of the settings within one standard error of the best, the one with "
                 f"{simplest} was chosen ({score(chosen.validation_loss)}).")
    confirmation = "" if not confirmed else (
        "; redone without each fifth of those rows, it beat it on the fifth left out by "
        f"{plain_number(gain, 3)} ± {plain_number(gain_se, 3)}{unit}")
    return (f"{method} improved on {plain} ({held}; the paired difference, "
            f"{plain_number(base.difference_to_best, 3)}, is larger than its standard error, "
            f"{plain_number(base.difference_se, 3)}{confirmation}).{smoothest}")


def _score_text(name: str, variance: float | None) -> Callable[[float], str]:
    """How one loss of the table is said: "AUC 0.812" (the table holds 1 − AUC), "R² 0.431"
    (a mean squared error over ``variance``) or "Brier score 0.1523"."""
    if name == "AUC":
        return lambda value: f"AUC {decimal_text(1 - value, 3)}"
    if variance:
        return lambda value: f"R² {decimal_text(1 - value / variance, 3)}"
    return lambda value: f"{name} {decimal_text(value, 4)}"
