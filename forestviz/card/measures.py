"""The held-out metrics of a model card, computed for many resamples at once, and their seeded
percentile bootstrap.

The metrics are the Train page's (:func:`forestviz.app.held_out.scores`, which calls
scikit-learn): AUC, F1, accuracy and, for two classes, the sensitivity and specificity at the
model's own decision rule and the Brier score; R² and MAE for a value. Each is written here
on an index matrix (one resample of the held-out rows per line), so that 1,000 resamples of
1,000 rows cost a few array operations instead of 1,000 scikit-learn calls; the first line
of :func:`measure` on ``arange(n)`` is the point estimate, equal to scikit-learn's
(``tests/test_model_card.py``). AUC is the Mann-Whitney statistic on average ranks (ties
count a half, as scikit-learn's ROC area); for more than two classes it is the mean of the
one-versus-rest AUCs, as ``roc_auc_score(multi_class="ovr")``; macro F1 averages the classes
present in the actual or predicted answers, as ``f1_score(average="macro")``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

CONFIDENCE = 0.95
RESAMPLES = 1000
RANDOM_STATE = 0
CELLS = 1 << 21  # index-matrix cells computed at once (resamples x rows)
BINARY = ("AUC", "F1", "accuracy", "sensitivity", "specificity", "Brier score")
CLASSES = ("AUC", "F1", "accuracy")
VALUES = ("R²", "MAE")


@dataclass(frozen=True)
class Outcomes:
    """The held-out answers: ``actual`` and ``predicted`` as class positions (0, 1, …) or
    values, ``proba`` the class probabilities (rows x classes; None for a value)."""

    task: str
    actual: np.ndarray
    predicted: np.ndarray
    proba: np.ndarray | None = None

    @property
    def n_classes(self) -> int:
        return 0 if self.proba is None else self.proba.shape[1]

    @property
    def names(self) -> tuple[str, ...]:
        """The metrics of this task, in the Train page's order."""
        if self.task == "regression":
            return VALUES
        return BINARY if self.n_classes == 2 else CLASSES

    def __len__(self) -> int:
        return len(self.actual)

    def subset(self, rows) -> Outcomes:
        return Outcomes(self.task, self.actual[rows], self.predicted[rows],
                        None if self.proba is None else self.proba[rows])


@dataclass(frozen=True)
class Estimate:
    """A metric on the held-out rows and its percentile bootstrap interval (None: not a number,
    or too few resamples gave one)."""

    value: float | None
    low: float | None
    high: float | None

    def as_json(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high}


def measure(outcomes: Outcomes, rows: np.ndarray) -> dict[str, np.ndarray]:
    """Each metric of ``outcomes`` for each line of the index matrix ``rows`` (resamples x n):
    NaN where a resample leaves it undefined (one class only, for the AUC)."""
    if outcomes.task == "regression":
        actual, predicted = outcomes.actual[rows], outcomes.predicted[rows]
        residual = ((actual - predicted) ** 2).sum(axis=1)
        spread = ((actual - actual.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(spread > 0, 1 - residual / spread,
                          np.where(residual == 0, 1.0, 0.0))  # scikit-learn's force_finite
        return {"R²": r2, "MAE": np.abs(actual - predicted).mean(axis=1)}
    actual, predicted = outcomes.actual[rows], outcomes.predicted[rows]
    found = {"AUC": _auc(actual, outcomes.proba[rows], outcomes.n_classes),
             "F1": _f1(actual, predicted, outcomes.n_classes),
             "accuracy": (actual == predicted).mean(axis=1)}
    if outcomes.n_classes == 2:
        positive, said = actual == 1, predicted == 1
        found.update(sensitivity=_share(said & positive, positive),
                     specificity=_share(~said & ~positive, ~positive),
                     **{"Brier score": ((positive - np.clip(outcomes.proba[rows][..., 1], 0, 1))
                                        ** 2).mean(axis=1)})
    return found


def _share(hits: np.ndarray, among: np.ndarray) -> np.ndarray:
    count = among.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, hits.sum(axis=1) / count, np.nan)


def _binary_auc(positive: np.ndarray, score: np.ndarray) -> np.ndarray:
    ranks = rankdata(score, axis=1)
    n1 = positive.sum(axis=1)
    n0 = positive.shape[1] - n1
    with np.errstate(divide="ignore", invalid="ignore"):
        auc = ((ranks * positive).sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0)
    return np.where((n1 > 0) & (n0 > 0), auc, np.nan)


def _auc(actual: np.ndarray, proba: np.ndarray, n_classes: int) -> np.ndarray:
    if n_classes == 2:
        return _binary_auc(actual == 1, proba[..., 1])
    each = [_binary_auc(actual == k, proba[..., k]) for k in range(n_classes)]
    return np.mean(each, axis=0)  # NaN when a class is missing, as scikit-learn refuses it


def _f1(actual: np.ndarray, predicted: np.ndarray, n_classes: int) -> np.ndarray:
    scores, present = [], []
    for k in range(1, 2) if n_classes == 2 else range(n_classes):
        is_k, said_k = actual == k, predicted == k
        hits = (is_k & said_k).sum(axis=1)
        spread = is_k.sum(axis=1) + said_k.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            scores.append(np.where(spread > 0, 2 * hits / spread, 0.0))
        present.append(spread > 0)
    if n_classes == 2:
        return scores[0]
    present = np.array(present)
    return (np.array(scores) * present).sum(axis=0) / present.sum(axis=0)


def bootstrap(outcomes: Outcomes, *, n_resamples: int = RESAMPLES,
              confidence: float = CONFIDENCE,
              random_state: int = RANDOM_STATE) -> dict[str, Estimate]:
    """Each metric of ``outcomes`` with its percentile bootstrap interval at ``confidence``:
    ``n_resamples`` resamples of the rows with replacement, drawn from ``random_state``'s
    generator (the same card each time). An interval is given when at least half the
    resamples define the metric."""
    n = len(outcomes)
    point = measure(outcomes, np.arange(n)[None, :])
    rng = np.random.default_rng(random_state)
    chunk = max(1, CELLS // max(n, 1))
    drawn = {name: [] for name in outcomes.names}
    for start in range(0, n_resamples, chunk):
        rows = rng.integers(0, n, size=(min(chunk, n_resamples - start), n))
        for name, values in measure(outcomes, rows).items():
            drawn[name].append(values)
    tail = 100 * (1 - confidence) / 2
    found = {}
    for name in outcomes.names:
        values = np.concatenate(drawn[name])
        values = values[np.isfinite(values)]
        low, high = ((None, None) if values.size < n_resamples / 2
                     else (float(v) for v in np.percentile(values, [tail, 100 - tail])))
        found[name] = Estimate(_number(point[name][0]), low, high)
    return found


def _number(value) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None
