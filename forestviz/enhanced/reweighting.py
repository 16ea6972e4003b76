"""How the Enhanced Random Forest reweights its training rows between rounds: Algorithm 1
lines 5-7 of Bertsimas & Stoumpou, "Binary Classification: Is Boosting stronger than Bagging?"
(algorithms.md §3.1): Youden's J thresholds on the ROC (Eq. 1), the weight update, and the ROC
AUC that scores every round (and every cleaning round of Algorithm 2).
"""

import numpy as np
from sklearn.metrics import roc_auc_score

from forestviz.trees.decision import youden_threshold


def youden_thresholds(y_enc, proba, n_classes, sample_weight=None):
    """Eq. (1): t* = argmax_t TPR(t) − FPR(t) on the ROC of the given rows, the product's one
    decision rule (:func:`forestviz.trees.decision.youden_threshold`).

    Returns one threshold per class. Binary: t_1 from the ROC of P(class 1) and t_0 = 1 − t_1, so
    the update t_{y_i} − p_{i,y_i} is exactly the paper's λ(t* − p_i) / λ(p_i − t*).
    Multiclass **[resolved, algorithms.md §3.1]**: one-vs-rest Youden threshold per class.
    """
    classes = [1] if n_classes == 2 else range(n_classes)
    thresholds = np.empty(n_classes)
    for c in classes:
        thresholds[c] = youden_threshold(y_enc == c, proba[:, c], sample_weight)
    if n_classes == 2:
        thresholds[0] = 1.0 - thresholds[1]
    return thresholds


def update_weights(weights, y_enc, proba, thresholds, learning_rate):
    """Algorithm 1 lines 6-7: w_i ← max(0, w_i + λ(t_{y_i} − p_{i,y_i}))."""
    rows = np.arange(len(y_enc))
    return np.maximum(weights + learning_rate * (thresholds[y_enc] - proba[rows, y_enc]), 0.0)


def auc_score(y_enc, proba, sample_weight=None):
    """ROC AUC of encoded labels: binary on P(class 1), multiclass the macro one-vs-rest mean over
    the classes present (scikit-learn's ``roc_auc_score`` on their indicator columns: the
    ``multi_class="ovr"`` AUC when every class is present, and defined when one is missing,
    where that form refuses); NaN when fewer than two classes are present."""
    present = np.unique(y_enc)
    if len(present) < 2:
        return float("nan")
    if proba.shape[1] == 2:
        return float(roc_auc_score(y_enc, proba[:, 1], sample_weight=sample_weight))
    return float(roc_auc_score(y_enc[:, None] == present, proba[:, present], average="macro",
                               sample_weight=sample_weight))
