"""Partial dependence and individual conditional expectation through the model's own
prediction.

For a column j and a grid of values v: ICE_i(v) = f(x_i with x_ij := v) for each row i
(Goldstein et al., "Peeking inside the black box", JCGS 2015, §2) and the partial dependence
PD(v) = mean_i ICE_i(v) (Friedman, "Greedy function approximation", Ann. Statist. 2001,
§8.2), computed by brute force, as scikit-learn's ``partial_dependence(method="brute")`` does,
but on the rows as the user knows them: the value is set in the user's column and the row is
encoded by the model's own preprocessor, so a text column's levels are set whole (its one-hot
columns together) and a number passes through the same encoding as every prediction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

GRID_POINTS = 20  # points of a numeric column's grid
PERCENTILES = (5.0, 95.0)  # the numeric grid's range, as scikit-learn's default
MAX_ROWS = 200  # rows whose curves are computed (a random subset beyond): 200 × 20 predictions
# keep a column switch of an attention forest near 0.3 s (bench/population.py)


@dataclass(frozen=True, eq=False)
class Dependence:
    """``grid`` (g,) the values set (numbers or levels), ``ice`` (n, g) each row's prediction
    at each value, ``average`` (g,) their mean, ``rows`` (n,) the rows' positions used."""

    column: str
    grid: np.ndarray
    ice: np.ndarray
    rows: np.ndarray

    @property
    def average(self) -> np.ndarray:
        return self.ice.mean(axis=0)


def grid_of(values: pd.Series, numeric: bool) -> np.ndarray:
    """A numeric column: its distinct known values when there are at most
    :data:`GRID_POINTS`, else that many evenly spaced points between its 5th and 95th
    percentiles; a text column: its levels in order of first appearance."""
    known = values.dropna()
    if not numeric:
        return np.asarray(pd.unique(known.astype(str)), dtype=object)
    numbers = known.to_numpy(dtype=float)
    distinct = np.unique(numbers)
    if distinct.size <= GRID_POINTS:
        return distinct
    low, high = np.percentile(numbers, PERCENTILES)
    return np.linspace(low, high, GRID_POINTS)


def partial_dependence(predict: Callable[[pd.DataFrame], np.ndarray], rows: pd.DataFrame,
                       column: str, grid, *, max_rows: int = MAX_ROWS,
                       random_state=None) -> Dependence:
    """ICE curves and their average for ``column`` over ``grid`` (:func:`grid_of`), with
    ``predict`` mapping user rows to the model's number (a value or a class probability) in
    one call for all rows and grid points. At most ``max_rows`` rows (drawn without
    replacement with ``random_state`` when there are more). An empty grid (no row has a
    value in ``column``) asks the model nothing: no curve."""
    grid = np.asarray(grid)
    n = len(rows)
    chosen = np.arange(n)
    if n > max_rows:
        chosen = np.sort(np.random.default_rng(random_state).choice(n, max_rows, replace=False))
    base = rows.iloc[chosen].reset_index(drop=True)
    stacked = base.loc[np.tile(np.arange(len(base)), grid.size)].reset_index(drop=True)
    stacked[column] = np.repeat(grid, len(base)).astype(
        object if grid.dtype == object else float)
    outputs = np.asarray(predict(stacked), dtype=float) if grid.size else np.empty(0)
    ice = outputs.reshape(grid.size, len(base)).T
    return Dependence(column=column, grid=grid, ice=ice, rows=chosen)
