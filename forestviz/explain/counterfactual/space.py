"""The values a counterfactual may take, and how far it is from the row.

Per encoded feature (the model's inputs, :mod:`forestviz.explain.row.columns` folds them into the
user's columns):

* a numeric column moves inside its training range (widened to hold the row's own value, so
  a value the row already has never needs to change); a column whose training values are all
  whole numbers, like the row's, takes whole numbers only;
* a categorical column takes one of its levels (its indicators: exactly one set, as many as
  the row has: a missing level stays missing, nothing is invented for it);
* a column the user marks as fixed (age, sex) keeps the row's value.

The distance is the L1 norm weighted by each numeric column's own spread, the median absolute
deviation of its training values (Wachter, Mittelstadt & Russell, "Counterfactual explanations
without opening the black box", 2018, Eq. 5), d(x, x') = Σ_j |x_j − x'_j| / MAD_j, plus 1 per
categorical column whose level changes. Where the MAD is 0 (a column with mostly one value)
the mean absolute deviation stands in, then 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from forestviz.explain.row.columns import CATEGORICAL, ColumnMap


def spread_scale(values) -> float:
    """The median absolute deviation of ``values`` (NaN ignored); the mean absolute
    deviation when it is 0, and 1 when that is 0 too (a constant column)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 1.0
    for scale in (np.median(np.abs(values - np.median(values))),
                  np.mean(np.abs(values - values.mean()))):
        if scale > 0:
            return float(scale)
    return 1.0


@dataclass(frozen=True, eq=False)
class Space:
    """What each encoded feature may be, read from the training rows.

    ``low``/``high`` the training range, ``whole`` whether every training value is a whole
    number, ``scale`` the distance's unit (:func:`spread_scale`; 1 for an indicator),
    ``spread`` the training standard deviation (the decimals a value prints with,
    :mod:`forestviz.numbers`), ``fixed`` the names of the columns that cannot change, ``rows``
    the training rows themselves."""

    columns: ColumnMap
    low: np.ndarray
    high: np.ndarray
    whole: np.ndarray
    scale: np.ndarray
    spread: np.ndarray
    fixed: frozenset[str] = frozenset()
    rows: np.ndarray | None = None  # the training rows (:func:`~.sweep.sweep` starts there)

    @classmethod
    def from_training(cls, X, columns: ColumnMap, fixed=()) -> Space:
        """The space of the training rows ``X`` (encoded, NaN for a missing number);
        ``fixed``: names of columns that cannot change (unknown names: ValueError)."""
        X = np.asarray(X, dtype=np.float64)
        unknown = set(fixed) - set(columns.names)
        if unknown:
            raise ValueError(f"no column named {sorted(unknown)[0]!r} in the model")
        with np.errstate(invalid="ignore"):
            low, high = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
        finite = np.where(np.isfinite(X), X, 0.0)
        whole = np.all(finite == np.round(finite), axis=0)
        scale = np.array([spread_scale(X[:, j]) for j in range(X.shape[1])])
        spread = np.nanstd(X, axis=0)
        for column in columns.columns:
            if column.kind == CATEGORICAL:
                scale[list(column.features)] = 1.0
        return cls(columns, low, high, whole, scale, spread, frozenset(map(str, fixed)), X)

    def with_fixed(self, names) -> Space:
        """The same space with the columns ``names`` fixed too."""
        return replace(self, fixed=self.fixed | frozenset(map(str, names)))

    def fixed_features(self) -> np.ndarray:
        """Whether each encoded feature belongs to a fixed column."""
        out = np.zeros(self.low.size, dtype=bool)
        for column in self.columns.columns:
            if column.name in self.fixed:
                out[list(column.features)] = True
        return out

    def bounds(self, x0, radius: float = np.inf) -> tuple[np.ndarray, np.ndarray]:
        """The range each feature may take for the row ``x0``: the training range widened to
        hold ``x0``; with a ``radius``, only the values within that distance of ``x0``
        (|x_j − x0_j| / scale_j ≤ radius)."""
        x0 = np.asarray(x0, dtype=np.float64)
        low, high = np.fmin(self.low, x0), np.fmax(self.high, x0)
        if np.isfinite(radius):
            low = np.fmax(low, x0 - radius * self.scale)
            high = np.fmin(high, x0 + radius * self.scale)
        return low, high

    def widest(self, x0) -> float:
        """The smallest radius whose :meth:`bounds` are the whole range of every feature."""
        low, high = self.bounds(x0)
        x0 = np.asarray(x0, dtype=np.float64)
        return float(np.max(np.fmax(x0 - low, high - x0) / self.scale, initial=1.0))

    def is_whole(self, x0) -> np.ndarray:
        """Whether each feature takes whole numbers only for the row ``x0``."""
        return self.whole & (np.asarray(x0) == np.round(x0))

    def distance(self, x0, x) -> np.ndarray:
        """d(x0, x) of one row ``x`` (a float) or of rows ``x`` (n, m): Σ |Δ| / scale over the
        numeric features, 1 per categorical column whose level changes."""
        x = np.asarray(x, dtype=np.float64)
        step = np.abs(x - np.asarray(x0, dtype=np.float64)) / self.scale
        level = np.zeros(self.low.size, dtype=bool)
        for column in self.columns.columns:
            if column.kind == CATEGORICAL:
                level[list(column.features)] = True
        # a level change flips two indicators by 1 each
        return step[..., ~level].sum(axis=-1) + step[..., level].sum(axis=-1) / 2

    def changed(self, x0, x) -> tuple[int, ...]:
        """Positions (in ``columns``) of the columns whose value differs in ``x``."""
        differs = np.asarray(x, dtype=np.float64) != np.asarray(x0, dtype=np.float64)
        return tuple(i for i, column in enumerate(self.columns.columns)
                     if differs[list(column.features)].any())

    def allows(self, x0, x) -> bool:
        """Whether ``x`` keeps every rule for the row ``x0``: fixed columns unchanged, values
        in range (as the model reads them, in float32), whole numbers whole, one level per
        categorical column (as many as ``x0`` has)."""
        x, x0 = np.asarray(x, dtype=np.float64), np.asarray(x0, dtype=np.float64)
        low, high = (bound.astype(np.float32) for bound in self.bounds(x0))
        whole, x32 = self.is_whole(x0), x.astype(np.float32)
        if (np.any(x[self.fixed_features()] != x0[self.fixed_features()])
                or np.any(x32 < low) or np.any(x32 > high)
                or np.any(x[whole] != np.round(x[whole]))):
            return False
        for column in self.columns.columns:
            if column.kind == CATEGORICAL:
                part, before = x[list(column.features)], x0[list(column.features)]
                if not (np.isin(part, (0.0, 1.0)).all() and part.sum() == before.sum()):
                    return False
        return True
