"""The one decision rule of every binary classifier here: the positive class (``classes_[1]``)
when its probability reaches ``threshold_``, the threshold with the largest Youden's J =
TPR − FPR = sensitivity + specificity − 1 on the ROC of rows the model did not learn from
(Youden, "Index for rating diagnostic tests", Cancer 1950; the Enhanced RF's Eq. 1 in
Bertsimas & Stoumpou, "Binary Classification: Is Boosting stronger than Bagging?").

A probability of 0.5 is the right cut only when both classes are equally common; on a table
with 5 % positives a model deciding at 0.5 may predict no positive at all (F1 0). J weighs
missing a positive and a false alarm by the share of each class, so the cut follows the
table.

* The Enhanced RF chooses it on its own validation rows (:mod:`forestviz.enhanced.estimator`).
* Every other classifier (the attention forests, and the plain forests and boosting of
  :mod:`forestviz.trees.plain`) mixes in :class:`HeldOutDecision`: the model is fitted on all
  its rows; a second model of the same settings is fitted on a stratified
  :data:`VALIDATION_FRACTION` of them less (:func:`~forestviz.trees.rows.split_rows`, seeded
  by the model's ``random_state``) and the threshold is Youden's J of its probabilities on the
  rows it left out (:func:`held_out_threshold`). When those rows hold one class only (a class
  of a single row), J is taken on the training rows, as the Enhanced RF does without
  validation rows.

More than two classes: the most probable class (``threshold_`` is then None).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.base import clone
from sklearn.metrics import roc_curve
from sklearn.utils import check_random_state

from forestviz.trees.loaded import checked_number
from forestviz.trees.rows import split_rows

VALIDATION_FRACTION = 0.2
"""The share of the training rows held out to choose the threshold (the Enhanced RF's
default validation fraction)."""
RULE = "Youden's J = sensitivity + specificity − 1, highest on rows held out while training"
"""The rule in words, for pages and reports."""


def youden_threshold(positive, scores, sample_weight=None) -> float:
    """t* = argmax_t TPR(t) − FPR(t) over the cuts of scikit-learn's ``roc_curve`` of the
    rows' ``scores`` (P(positive)) against ``positive`` (bools); a score ≥ t* predicts the
    positive class. The first cut (+∞, nothing positive) is returned as 1.0. When no cut beats
    chance on these rows (the largest J is 0: "never positive" ties with "always positive"),
    the cut is the rows' share of positives, the probability a model without information
    would give: a model that separates nothing on its held-out rows still names the rows it
    finds riskier than the base rate, never no row at all."""
    positive = np.asarray(positive, dtype=bool)
    fpr, tpr, cuts = roc_curve(positive, scores, sample_weight=sample_weight)
    best = np.argmax(tpr - fpr)
    if tpr[best] - fpr[best] <= 0:  # no cut beats chance on these rows: the positives' share
        return float(np.average(positive, weights=sample_weight))
    cut = float(cuts[best])
    return cut if np.isfinite(cut) else 1.0


def held_out_threshold(fit: Callable[[np.ndarray], object], X, y, sample_weight=None, *,
                       random_state=None, fraction: float = VALIDATION_FRACTION) -> float:
    """Youden's J threshold of P(``classes_[1]``) on held-out rows: ``fit(rows)`` returns a
    model of the same settings fitted on ``X[rows]`` only; it is scored on the stratified
    ``fraction`` of the rows it left out (module docstring: the training rows when those hold
    one class)."""
    X, y = np.asarray(X), np.asarray(y)
    _, y_enc = np.unique(y, return_inverse=True)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    seed = check_random_state(random_state).randint(2**31 - 1)
    train, held = split_rows(y_enc, fraction, seed)
    if np.unique(y_enc[held]).size < 2 or np.unique(y_enc[train]).size < 2:
        held = train = np.arange(len(y))
    model = fit(train)
    proba = model.predict_proba(X[held])[:, 1]
    return youden_threshold(y_enc[held] == 1, proba, weight[held])


def decide(proba, classes, threshold):
    """The classes of rows with probabilities ``proba`` (n, C): ``classes[1]`` where
    P(``classes[1]``) ≥ ``threshold`` (two classes with a threshold), else the most probable."""
    classes = np.asarray(classes)
    if classes.size == 2 and threshold is not None:
        return classes[(proba[:, 1] >= threshold).astype(np.intp)]
    return classes[np.argmax(proba, axis=1)]


class HeldOutDecision:
    """Mixin before a classifier: ``fit`` fits it, then chooses its ``threshold_`` on held-out
    rows (:func:`held_out_threshold`, two classes; None otherwise); ``predict`` decides by it
    (:func:`decide`). A model read from a file without ``threshold_`` (saved before the rule)
    takes the most probable class."""

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit on all rows (``fit_params`` pass through, e.g. ``progress``), then choose the
        threshold."""
        super().fit(X, y, sample_weight=sample_weight, **fit_params)
        self.threshold_ = None
        weight = None if sample_weight is None else np.asarray(sample_weight, float)
        weighed = np.asarray(y) if weight is None else np.asarray(y)[weight > 0]
        if len(self.classes_) == 2 and np.unique(weighed).size == 2:

            def fit_rows(rows):
                part = None if weight is None else weight[rows]
                return super(HeldOutDecision, clone(self)).fit(
                    np.asarray(X)[rows], np.asarray(y)[rows], sample_weight=part)

            self.threshold_ = held_out_threshold(fit_rows, X, y, sample_weight,
                                                 random_state=self.random_state)
        return self

    def __setstate__(self, state):
        """A loaded model's ``threshold_`` is a number in [0, 1] or None
        (:class:`~forestviz.trees.loaded.DamagedState` otherwise)."""
        super().__setstate__(state)
        if getattr(self, "threshold_", None) is not None:
            self.threshold_ = checked_number(self.threshold_, "threshold", low=0.0, high=1.0)

    def predict(self, X):
        """``classes_[1]`` where P(``classes_[1]``) ≥ ``threshold_``, else the most probable
        class."""
        return decide(self.predict_proba(X), self.classes_, self.decision_threshold())

    def decision_threshold(self) -> float | None:
        """``threshold_``, or None for a model saved before the rule (the most probable
        class decides)."""
        return getattr(self, "threshold_", None)
