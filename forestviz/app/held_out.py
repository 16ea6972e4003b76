"""What a model's held-out rows measure: the metrics the Train page compares with the
baselines' (:func:`scores`). The calibrated interval fitted on those rows is
:func:`forestviz.explain.row.uncertainty.interval_model`.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import (
    accuracy_score,
    brier_score_loss,
    f1_score,
    mean_absolute_error,
    r2_score,
    recall_score,
    roc_auc_score,
)


def scores(estimator, X, y, task: str, classes) -> dict[str, float]:
    """Held-out metrics: AUC / F1 / accuracy, and for two classes the sensitivity and
    specificity at the model's own decision rule and the Brier score (classification); R² / MAE
    (regression)."""
    if task == "regression":
        predicted = estimator.predict(X)
        return {"R²": r2_score(y, predicted), "MAE": mean_absolute_error(y, predicted)}
    proba = estimator.predict_proba(X)
    predicted = estimator.predict(X)
    binary = len(classes) == 2
    try:
        auc = (roc_auc_score(y == classes[1], proba[:, 1]) if binary
               else roc_auc_score(y, proba, multi_class="ovr", labels=list(classes)))
    except ValueError:  # a class missing from the held-out rows
        auc = np.nan
    f1 = (f1_score(y, predicted, pos_label=classes[1]) if binary
          else f1_score(y, predicted, average="macro"))
    found = {"AUC": auc, "F1": f1, "accuracy": accuracy_score(y, predicted)}
    if binary:  # at the model's own decision rule (ERF: Youden's threshold)
        positive = y == classes[1]
        found.update(sensitivity=recall_score(positive, predicted == classes[1],
                                              zero_division=np.nan),
                     specificity=recall_score(~positive, predicted != classes[1],
                                              zero_division=np.nan),
                     **{"Brier score": brier_score_loss(positive,
                                                        np.clip(proba[:, 1], 0.0, 1.0))})
    return found
