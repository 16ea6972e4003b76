"""The cells of the threshold grid a counterfactual moves between, feature by feature.

The trees test feature j against thresholds θ_{j,1} < … < θ_{j,K}; between two of them the
forest's prediction cannot change, so a feature's value matters only through the cell
(θ_{j,k}, θ_{j,k+1}] it is in. Each cell's nearest value to the row's own is what the
counterfactual takes there: the row's value inside its own cell, else the float32 just past
the crossed threshold (scikit-learn tests float32(x) ≤ θ), or the whole number just past it;
:meth:`Cells.row` then prints it readably, rounded away from the row's value to the decimals
the feature's spread needs (:mod:`forestviz.numbers`), when the rounded value stays in the
cell. The constant parts (a test that every allowed value passes the same way, a fixed
column's test) need no variable.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from forestviz.explain.counterfactual.plain import PlainForest
from forestviz.explain.counterfactual.space import Space
from forestviz.explain.row.columns import CATEGORICAL
from forestviz.numbers import decimals

READABLE_EXTRA = 6  # more decimals tried for a readable value before the exact one is kept


def up32(value: float) -> float:
    """The smallest float32 above ``value``."""
    f = np.float32(value)
    return float(f if f > value else np.nextafter(f, np.float32(np.inf)))


def down32(value: float) -> float:
    """The largest float32 at or below ``value``."""
    f = np.float32(value)
    return float(f if f <= value else np.nextafter(f, np.float32(-np.inf)))


@dataclass(frozen=True, eq=False)
class Cells:
    """The program's binary variables and what they mean for one row ``x0``.

    ``variables``: (feature, threshold) per variable (threshold NaN for a level indicator);
    ``split_var``/``split_constant``: per split of the forest, its variable, or −1 and the
    constant outcome of x > θ; ``costs`` the objective's coefficient of each variable and
    ``base_cost`` its constant; ``points``/``readable``: feature → each cell's nearest value
    and its readable form."""

    x0: np.ndarray
    variables: list[tuple[int, float]]
    split_var: np.ndarray
    split_constant: np.ndarray
    left: np.ndarray
    right: np.ndarray
    costs: np.ndarray
    base_cost: float
    points: dict[int, np.ndarray]
    readable: dict[int, np.ndarray]
    groups: list[tuple[list[int], float]]

    @property
    def n_variables(self) -> int:
        return len(self.variables)

    def chains(self):
        """(μ_{j,k+1}, μ_{j,k}) pairs of consecutive thresholds of one feature."""
        for k in range(1, len(self.variables)):
            (j, threshold), (before, _) = self.variables[k], self.variables[k - 1]
            if j == before and not np.isnan(threshold):
                yield [k, k - 1]

    def level_groups(self):
        """(indicator variables of a categorical column, how many are set)."""
        return iter(self.groups)

    def splits(self):
        """Per split: (variable or −1, constant, leaves left, leaves right)."""
        for i in range(self.split_var.size):
            yield (int(self.split_var[i]), float(self.split_constant[i]),
                   tuple(self.left[i]), tuple(self.right[i]))

    def row(self, mu) -> np.ndarray:
        """The row the variables' values ``mu`` (bools) stand for, each numeric value its
        cell's readable nearest value."""
        x = self.x0.copy()
        cell = {}
        for (feature, threshold), on in zip(self.variables, mu, strict=True):
            if np.isnan(threshold):
                x[feature] = float(on)
            else:
                cell[feature] = cell.get(feature, 0) + int(on)
        for feature, points in self.readable.items():
            x[feature] = points[cell.get(feature, 0)]
        return x


def feature_cells(forest: PlainForest, space: Space, x0, radius: float = np.inf) -> Cells:
    """The cells of ``forest``'s thresholds for the row ``x0`` in ``space``, within
    ``radius`` of it (:meth:`Space.bounds`; a level change, 1, needs a radius of 1)."""
    x0 = np.asarray(x0, dtype=np.float64)
    split = forest.splits()
    low, high = space.bounds(x0, radius)
    whole = space.is_whole(x0)
    fixed = space.fixed_features()
    indicator = np.zeros(x0.size, dtype=bool)
    groups_features = []
    for column in space.columns.columns:
        if column.kind == CATEGORICAL:
            indicator[list(column.features)] = True
            if column.name not in space.fixed and radius >= 1:
                groups_features.append(list(column.features))
    feature, theta = split.feature, split.threshold
    effective = np.where(whole[feature], np.floor(theta), theta)
    x32 = x0.astype(np.float32).astype(np.float64)
    fixed = fixed | (indicator & (radius < 1))
    constant = np.where(fixed[feature], x32[feature] > theta,
                        np.where(indicator[feature], theta < 0,
                                 low.astype(np.float32)[feature] > effective))
    varies = ~fixed[feature] & np.where(
        indicator[feature], (theta >= 0) & (theta < 1),
        (low.astype(np.float32)[feature] <= effective)
        & (high.astype(np.float32)[feature] > effective))

    variables: list[tuple[int, float]] = []
    costs, points, readable = [], {}, {}
    base = 0.0
    numeric = sorted(set(feature[varies & ~indicator[feature]].tolist()))
    for j in numeric:
        cuts = np.unique(effective[varies & (feature == j)])
        exact, shown = _cell_points(cuts, x0[j], low[j], high[j], whole[j], space.spread[j])
        cost = np.abs(exact - x0[j]) / space.scale[j]
        base += cost[0]
        costs.extend(np.diff(cost))
        variables.extend((j, float(c)) for c in cuts)
        points[j], readable[j] = exact, shown
    groups = []
    for features in groups_features:
        start = len(variables)
        variables.extend((j, np.nan) for j in features)
        costs.extend(0.0 if x0[j] > 0.5 else 1.0 for j in features)
        groups.append((list(range(start, len(variables))), float(np.sum(x0[features] > 0.5))))
    index = {(j, -np.inf if np.isnan(t) else t): i for i, (j, t) in enumerate(variables)}
    split_var = np.full(feature.size, -1, dtype=np.intp)
    for i in np.flatnonzero(varies):
        j = int(feature[i])
        split_var[i] = index[(j, -np.inf if indicator[j] else float(effective[i]))]
    return Cells(x0, variables, split_var, constant.astype(np.float64), split.left,
                 split.right, np.asarray(costs, dtype=np.float64), float(base), points,
                 readable, groups)


def _cell_points(cuts, x0, low, high, whole, spread) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's nearest value to ``x0`` (cells: ≤ cuts[0], (cuts[k], cuts[k+1]], > cuts[−1]),
    exact and readable."""
    bounds = np.concatenate([[-np.inf], cuts, [np.inf]])
    x32 = float(np.float32(x0))
    exact, shown = [], []
    for a, b in pairwise(bounds):
        if (x0 if whole else x32) > a and (x0 if whole else x32) <= b:
            exact.append(x0)
            shown.append(x0)
            continue
        rising = x0 <= a
        if whole:
            point = a + 1 if rising else b
            exact.append(point)
            shown.append(point)
            continue
        point = up32(a) if rising else down32(b)
        exact.append(point)
        shown.append(_readable(point, rising, a, b, low, high, spread))
    return np.asarray(exact), np.asarray(shown)


def _readable(point, rising, a, b, low, high, spread) -> float:
    """``point`` rounded away from the row's value to the decimals of ``spread`` (more when
    needed) while it stays in the cell (a, b] and the range; ``point`` itself otherwise."""
    places = decimals(spread)
    for extra in range(READABLE_EXTRA + 1):
        unit = 10.0 ** (places + extra)
        value = (np.ceil(point * unit) if rising else np.floor(point * unit)) / unit
        value = float(round(value, places + extra))
        v32 = np.float32(value)
        if a < v32 <= b and np.float32(low) <= v32 <= np.float32(high):
            return value
    return point
