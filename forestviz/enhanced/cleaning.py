"""Sample and feature cleaning: Algorithm 2 of the Enhanced Random Forest (Bertsimas & Stoumpou,
"Binary Classification: Is Boosting stronger than Bagging?"; algorithms.md §3.2).

Each round refits the enhanced forest from w = 1 on the rows and features still kept, scores it
on a fixed held-out validation split, then drops the bucket of training rows with the lowest
s_i (1 % of the rows that trained that round, i.e. the forest's ``train_indices_``, or every such
row with s_i = 0 if there are more) and every feature whose impurity importance is below
``feature_threshold`` × the largest one. The paper does not size the buckets (the 1 % is
algorithms.md §3.2's choice); the stopping rule (validation AUC more than 0.01 below the best)
and the 70 rounds are from its experiments section (its "1 %" read as 0.01 of AUC).
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from math import ceil

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_X_y

from forestviz.enhanced.reweighting import auc_score


@dataclass(frozen=True)
class CleaningRound:
    """One round: the rows (indices into X) and features (column indices) it trained on."""

    round: int
    features: np.ndarray
    rows: np.ndarray
    validation_auc: float
    feature_reduction: float  # % of the original features dropped before this round
    sample_reduction: float  # % of the original cleanable rows dropped before this round


@dataclass(frozen=True)
class CleaningResult:
    """All rounds of Algorithm 2, in order; ``best`` is the round with the highest AUC."""

    rounds: list[CleaningRound] = field(default_factory=list)

    @property
    def best(self) -> CleaningRound:
        return max(self.rounds, key=lambda r: r.validation_auc)

    def records(self) -> list[dict]:
        """One dict per round (for a table or a plot); ``features`` lists the column indices
        it trained on."""
        return [
            {
                "round": r.round,
                "n_features": len(r.features),
                "features": r.features.tolist(),
                "n_rows": len(r.rows),
                "validation_auc": r.validation_auc,
                "feature_reduction": r.feature_reduction,
                "sample_reduction": r.sample_reduction,
            }
            for r in self.rounds
        ]


def _drop_rows(rows, importance, fraction):
    """Drop the bucket with the lowest s_i: ``fraction`` of the rows (at least one), or every
    row with s_i = 0 if there are more of those."""
    size = max(ceil(fraction * len(rows)), int(np.sum(importance == 0)))
    return np.sort(rows[np.argsort(importance, kind="stable")[size:]])


def clean(
    estimator,
    X,
    y,
    *,
    clean_samples=True,
    clean_features=True,
    sample_bucket=0.01,
    feature_threshold=0.1,
    max_rounds=70,
    tolerance=0.01,
    validation_fraction=0.2,
    random_state=None,
    progress: Callable[[str, float], None] | None = None,
) -> CleaningResult:
    """Algorithm 2 with ``estimator`` (an unfitted :class:`EnhancedForestClassifier`).

    Stops after ``max_rounds`` rounds, when the validation AUC falls more than ``tolerance``
    below the best seen, or when nothing is left to drop. Rows are dropped only among those the
    round's forest was trained on (its ``train_indices_``): they are the ones with an s_i.
    """
    X, y = check_X_y(X, y, dtype=np.float64)
    check_classification_targets(y)
    classes, y_enc = np.unique(y, return_inverse=True)
    rng = check_random_state(random_state)
    fit_rows, val_rows = train_test_split(
        np.arange(len(y)), test_size=validation_fraction, stratify=y_enc,
        random_state=rng.randint(2**31 - 1),
    )
    rows, features = np.sort(fit_rows), np.arange(X.shape[1])
    rounds, best_auc = [], -np.inf
    for r in range(max_rounds):
        if progress is not None:
            progress(f"cleaning round {r + 1}", r / max_rounds)
        model = clone(estimator).fit(X[np.ix_(rows, features)], y_enc[rows])
        proba = np.zeros((len(val_rows), len(classes)))
        proba[:, model.classes_] = model.predict_proba(X[np.ix_(val_rows, features)])
        auc = auc_score(y_enc[val_rows], proba)
        rounds.append(CleaningRound(
            round=r + 1, features=features, rows=rows, validation_auc=auc,
            feature_reduction=100.0 * (1 - len(features) / X.shape[1]),
            sample_reduction=100.0 * (1 - len(rows) / len(fit_rows)),
        ))
        best_auc = max(best_auc, auc)
        if auc < best_auc - tolerance:
            break
        new_rows, new_features = rows, features
        if clean_samples:
            trained = rows[model.train_indices_]
            kept = _drop_rows(trained, model.sample_importance_, sample_bucket)
            new_rows = np.union1d(np.setdiff1d(rows, trained), kept)
        if clean_features:
            importance = model.feature_importances_
            new_features = features[importance >= feature_threshold * importance.max()]
        if len(np.unique(y_enc[new_rows])) < len(classes) or (
            len(new_rows) == len(rows) and len(new_features) == len(features)
        ):
            break
        rows, features = new_rows, new_features
    return CleaningResult(rounds=rounds)
