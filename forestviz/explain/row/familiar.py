"""Familiar ground: how unusual a row is for this model, read off the model's own forest and
calibrated on the rows it held out from training.

Two parts, each a published outlyingness measure, because neither alone sees every unusual row:

* **Forest proximity** (Breiman, "Random Forests", Machine Learning 2001, §"Proximities";
  Breiman & Cutler, "Random Forests" manual v4.0, §"Outliers"): the proximity of the row x to
  training row j is the share of the trees in which both fall in the same leaf; the raw
  outlyingness is 1 / Σ_j prox(x, j)² — large when few training rows share the row's leaves.
  It sees what the model sees: a combination of values no training patient had, in the columns
  the trees split on. A supervised forest splits on the columns that predict the target only,
  so a value far out in a column the trees ignore changes no leaf, and proximity misses it.
* **The columns' joint spread** (a Gaussian copula distance): each numeric value becomes a
  normal score, Φ⁻¹ of its mid-rank among the training values, extended past the training
  range by the distance beyond it in the column's spread s_j (the training rows' interquartile
  range / 1.349, else their standard deviation, else 1); the part is the Mahalanobis distance
  of those scores under their training correlation (Ledoit & Wolf's shrunk estimate, "A
  well-conditioned estimator for large-dimensional covariance matrices", 2004). It sees a
  value far out in any column, split on or not, and values each ordinary whose combination is
  rare among correlated columns; ranks make it indifferent to skewed columns. Text columns
  (one-hot levels) are read by the proximity alone.

Isolation depth (Liu, Ting & Zhou, "Isolation Forest", ICDM 2008) is not used: it needs trees
grown at random on every column, which the model does not have; proximity reads the trees that
make the prediction. As Breiman & Cutler do, each part is put on a common scale, (raw − median)
/ MAD over the held-out rows, and the score is the larger of the two: a row is as unusual as
its more unusual part, so neither part's ordinary noise dilutes the other's alarm.

Calibration is split-conformal (Vovk, Gammerman & Shafer, "Algorithmic Learning in a Random
World", 2005; Lei et al., "Distribution-free predictive inference for regression", JASA 2018):
the p-value of a row is (1 + #{held-out rows scoring at least as high}) / (n + 1), and the row
is flagged when it is at most α. For a new row exchangeable with the held-out rows,
P(p ≤ α) ≤ α: a share α of ordinary patients is flagged. (The two scales are read from the
same held-out rows, four numbers that shift the flag rate by O(1/n).)

The nearest training rows are those of largest proximity; the columns they differ in most are
those of largest median |x_j − nearest_j| / s_j.

Measured (``bench/familiar.py``, docs/performance.md "Familiar ground"): AUROC 0.98 on shifted
and 0.67–0.69 on independently drawn Pima rows against IsolationForest's 0.83 and 0.61; one
row scored in 2–6 ms at a load of 16 on 2 cores (IsolationForest's one row: 100–220 ms).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri
from sklearn.covariance import ledoit_wolf

from forestviz.explain.row.columns import NUMERIC, ColumnMap
from forestviz.numbers import plain_number
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.flat import FlatTrees

ALPHA = 0.05  # the share of ordinary rows flagged
NEAREST = 5  # training rows of largest proximity
DIFFER = 2  # columns named where the nearest differ most
REFERENCE_ROWS = 2_000  # training rows the proximities compare with
CALIBRATION_ROWS = 2_000  # held-out rows the p-values count
BLOCK_CELLS = 1 << 24  # rows × training rows × trees compared at once


@dataclass(frozen=True)
class Familiarity:
    """How familiar one row is: ``score`` (larger is more unusual), ``p_value`` its share of
    held-out rows at least as unusual ((1 + k) / (n + 1)), ``share`` = k / n (what the sentence
    prints), ``n_held_out`` = n, ``flagged`` = p_value ≤ ``alpha``; ``nearest`` the training
    rows (positions in the model's training rows) of largest proximity, ``proximity`` theirs;
    ``differ`` the user columns where those differ most from the row, most first."""

    score: float
    p_value: float
    share: float
    n_held_out: int
    alpha: float
    flagged: bool
    nearest: tuple[int, ...]
    proximity: tuple[float, ...]
    differ: tuple[str, ...]


class FamiliarGround:
    """The learned state of familiar ground for one trained model: the trees' leaves of the
    training rows, each numeric column's sorted training values and spread, the normal
    scores' precision matrix; once calibrated (:meth:`calibrate`), the two parts' scales and
    the held-out rows' scores. Built from what a model file keeps (the estimator and its
    training and held-out rows), so it is rebuilt, identical, when a model file is read back."""

    def __init__(self, estimator, X_train, numeric, *, random_state=0):
        """``numeric``: (feature index, user column name) of each numeric column in the
        encoded rows ``X_train``. Proximities are to at most :data:`REFERENCE_ROWS` training
        rows (``reference``, drawn with ``random_state`` when there are more), so that one
        row's score costs at most that many rows × T comparisons. Not yet calibrated: every
        row has p-value 1."""
        X_train = np.asarray(X_train, dtype=np.float64)
        self.width, self.random_state = X_train.shape[1], random_state
        self.reference = _at_most(len(X_train), REFERENCE_ROWS, random_state)
        self.trees = list(as_ensemble(estimator).estimators_)
        self.flat = FlatTrees.from_trees(self.trees)
        self.train_leaves = self.leaves(X_train[self.reference])
        self.features = np.array([j for j, _ in numeric], dtype=np.intp)
        self.names = tuple(str(name) for _, name in numeric)
        columns = X_train[:, self.features]
        self.train_columns = columns[self.reference]
        self.spread = _spreads(columns)
        self.sorted = np.sort(columns, axis=0)
        self.precision = (np.linalg.pinv(ledoit_wolf(self.normal_scores(columns),
                                                    assume_centered=True)[0])
                          if columns.shape[1] else np.eye(0))
        self.alpha, self.scales, self.held_out = ALPHA, [(0.0, 1.0), (0.0, 1.0)], np.empty(0)

    def calibrate(self, X_test, alpha: float = ALPHA) -> FamiliarGround:
        """A copy calibrated on the held-out encoded rows ``X_test`` (at most
        :data:`CALIBRATION_ROWS` of them, drawn with the ``random_state``: any subset of
        exchangeable rows calibrates as well): the two parts' (median, MAD) there, their
        scores, and the share ``alpha`` of ordinary rows to flag."""
        if not 0 < alpha < 1:
            raise ValueError("alpha must lie strictly between 0 and 1")
        X_test = np.asarray(X_test, dtype=np.float64).reshape(-1, self.width)
        X_test = X_test[_at_most(len(X_test), CALIBRATION_ROWS, self.random_state)]
        found = copy.copy(self)
        parts = [self._parts(rows, prox) for rows, prox in self._blocks(X_test)]
        outlying, distance = (np.concatenate(part) for part in zip(*parts, strict=True))
        found.alpha, found.scales = float(alpha), [_scale(outlying), _scale(distance)]
        found.held_out = np.sort(found._combine(outlying, distance))
        return found

    def leaves(self, X) -> np.ndarray:
        """Leaf ids (n × T) of encoded rows ``X`` by the compiled descent
        (:meth:`~forestviz.trees.flat.FlatTrees.apply_many`): for one row 0.07 ms where the
        vectorised descent of :func:`~forestviz.trees.lookup.forest_leaf_ids` took 3.7 ms
        (100 fully grown trees, a loaded machine; ``bench/familiar.py``)."""
        return self.flat.apply_many(np.ascontiguousarray(X, dtype=np.float32))

    def proximity(self, leaves: np.ndarray) -> np.ndarray:
        """(n, N): per row of ``leaves`` the share of trees in which each training row falls
        in the same leaf (Breiman's proximity)."""
        same = leaves[:, None, :] == self.train_leaves[None, :, :]
        return same.mean(axis=2)

    def _parts(self, X: np.ndarray, prox: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The raw parts of rows ``X`` (``prox``: their proximities): 1 / Σ_j prox² and the
        Mahalanobis distance of the normal scores."""
        total = np.square(prox).sum(axis=1)
        outlying = 1.0 / np.maximum(total, 1.0 / len(self.trees) ** 2)
        if not self.features.size:
            return outlying, np.zeros(len(X))
        z = self.normal_scores(X[:, self.features])
        return outlying, np.sqrt(np.einsum("ij,jk,ik->i", z, self.precision, z))

    def normal_scores(self, columns: np.ndarray) -> np.ndarray:
        """Each numeric value as a normal score: Φ⁻¹ of its mid-rank among the training
        values (within (0.5/N, 1 − 0.5/N)), plus, beyond the training range, its distance past
        the range in the column's spread (so that farther out is always more unusual)."""
        n = len(self.sorted)
        low = np.array([np.searchsorted(self.sorted[:, j], columns[:, j], side="left")
                        for j in range(columns.shape[1])]).T
        high = np.array([np.searchsorted(self.sorted[:, j], columns[:, j], side="right")
                         for j in range(columns.shape[1])]).T
        rank = np.clip((low + high) / 2, 0.5, n - 0.5) / n
        past = (np.maximum(columns - self.sorted[-1], 0)
                - np.maximum(self.sorted[0] - columns, 0)) / self.spread
        return ndtri(rank) + past

    def _combine(self, outlying, columns_z) -> np.ndarray:
        return np.maximum(*((part - middle) / mad for part, (middle, mad)
                            in zip((outlying, columns_z), self.scales, strict=True)))

    def scores(self, X) -> np.ndarray:
        """The unusualness score of each encoded row of ``X`` (larger: more unusual)."""
        return np.concatenate([self._combine(*self._parts(rows, prox))
                               for rows, prox in self._blocks(X)])

    def p_values(self, scores) -> np.ndarray:
        """(1 + #{held-out scores ≥ s}) / (n + 1) of each score ``s``."""
        n = self.held_out.size
        below = np.searchsorted(self.held_out, np.asarray(scores, dtype=np.float64),
                                side="left")
        return (1 + n - below) / (n + 1)

    def assess(self, x) -> Familiarity:
        """The :class:`Familiarity` of one encoded row ``x``."""
        return self.assess_rows(np.asarray(x, dtype=np.float64).reshape(1, -1))[0]

    def assess_rows(self, X) -> list[Familiarity]:
        """The :class:`Familiarity` of each encoded row of ``X``, a block of rows at a time
        (the proximities of a block to every training row stay within about 16 M cells)."""
        return [found for rows, prox in self._blocks(X)
                for found in self._assess_block(rows, prox)]

    def _blocks(self, X):
        """(rows, their proximities) of the encoded rows ``X``, block after block (one empty
        block when there are none)."""
        X = np.asarray(X, dtype=np.float64).reshape(-1, self.width)
        block = max(1, BLOCK_CELLS // max(self.train_leaves.size, 1))
        for start in range(0, max(len(X), 1), block):
            rows = X[start:start + block]
            yield rows, self.proximity(self.leaves(rows))

    def _assess_block(self, X: np.ndarray, prox: np.ndarray) -> list[Familiarity]:
        scores = self._combine(*self._parts(X, prox))
        p = self.p_values(scores)
        n = self.held_out.size
        found = []
        for i, score in enumerate(scores):
            k = n - int(np.searchsorted(self.held_out, score, side="left"))
            order = np.argsort(-prox[i], kind="stable")[:NEAREST]
            found.append(Familiarity(
                score=float(score), p_value=float(p[i]), share=k / n if n else 1.0,
                n_held_out=n, alpha=self.alpha, flagged=bool(p[i] <= self.alpha),
                nearest=tuple(int(j) for j in self.reference[order]),
                proximity=tuple(float(v) for v in prox[i, order]),
                differ=self.differ(X[i], order)))
        return found

    def differ(self, x, nearest) -> tuple[str, ...]:
        """The user columns where the ``nearest`` reference rows (positions) differ most from
        ``x``: the largest median |x_j − nearest_j| / s_j, at most :data:`DIFFER`, none that
        do not differ."""
        if not self.features.size or not len(nearest):
            return ()
        rows = self.train_columns[nearest]
        gap = np.median(np.abs(rows - x[self.features]) / self.spread, axis=0)
        order = np.argsort(-gap, kind="stable")[:DIFFER]
        return tuple(self.names[j] for j in order if gap[j] > 0)


def unfamiliar_sentence(found: Familiarity, name=str) -> str | None:
    """"Unlike the rows this model learned from: only 0.63% of the 158 rows it held out from
    training are as unusual; the most similar training rows differ most in Glucose and Age"
    when ``found`` is flagged, else None; ``name`` shows user-given column names."""
    if not found.flagged:
        return None
    held = found.n_held_out
    if found.share == 0:
        said = f"none of the {held:,} rows it held out from training is as unusual"
    else:
        said = (f"only {plain_number(100 * found.share, 2)}% of the {held:,} rows it held "
                "out from training are as unusual")
    differ = " and ".join(name(c) for c in found.differ)
    return (f"Unlike the rows this model learned from: {said}"
            + (f"; the most similar training rows differ most in {differ}" if differ else ""))


def numeric_features(columns: ColumnMap) -> list[tuple[int, str]]:
    """(feature index, user column name) of each numeric column of ``columns``."""
    return [(c.features[0], c.name) for c in columns.columns if c.kind == NUMERIC]


def _at_most(n: int, most: int, random_state) -> np.ndarray:
    """Positions 0..n−1, or ``most`` of them drawn with ``random_state``, in order."""
    if n <= most:
        return np.arange(n)
    return np.sort(np.random.default_rng(random_state).choice(n, most, replace=False))


def _spreads(columns: np.ndarray) -> np.ndarray:
    """Per column: IQR / 1.349, else the standard deviation, else 1."""
    if not len(columns):
        return np.ones(columns.shape[1])
    q1, q3 = np.percentile(columns, [25, 75], axis=0)
    spread = (q3 - q1) / 1.349
    sd = columns.std(axis=0)
    return np.where(spread > 0, spread, np.where(sd > 0, sd, 1.0))


def _scale(values: np.ndarray) -> tuple[float, float]:
    """(median, MAD) of ``values``; a MAD of 0 counts as 1 (Breiman & Cutler's scale)."""
    if not len(values):
        return 0.0, 1.0
    middle = float(np.median(values))
    mad = float(np.median(np.abs(values - middle)))
    return middle, mad if mad > 0 else 1.0


def shifted_rows(X, X_train, features, random_state) -> np.ndarray:
    """The issue's first kind of unusual row (bench/familiar.py and the tests): each row of
    ``X`` with one of ``features``, drawn at random, moved by 4 of its training standard
    deviations, up or down at random."""
    rng = np.random.default_rng(random_state)
    X = np.array(X, dtype=np.float64)
    chosen = rng.choice(np.asarray(features), len(X))
    sd = np.asarray(X_train, dtype=np.float64).std(axis=0)
    X[np.arange(len(X)), chosen] += 4 * sd[chosen] * rng.choice([-1.0, 1.0], len(X))
    return X


def independent_rows(n, X_train, random_state) -> np.ndarray:
    """The issue's second kind: ``n`` rows whose columns are drawn independently from the
    training rows' columns, so each value is ordinary and their combination is new."""
    rng = np.random.default_rng(random_state)
    X_train = np.asarray(X_train, dtype=np.float64)
    return np.column_stack([rng.choice(column, n) for column in X_train.T])
