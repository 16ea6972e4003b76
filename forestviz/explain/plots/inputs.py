"""What the figures accept: finite, non-empty arrays of weights or values, and tables (a
DataFrame or a list of dicts) with the columns a figure needs. Anything else is a ValueError
that names the argument."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def vector(values, name: str) -> np.ndarray:
    """A finite, non-empty 1-D float array."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return v


def matrix(values, name: str) -> np.ndarray:
    """A finite, non-empty 2-D float array (a 1-D array is one row)."""
    v = np.atleast_2d(np.asarray(values, dtype=float))
    if v.ndim != 2 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty (rows, trees) array, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return v


def records(data, required: Sequence[str], name: str) -> pd.DataFrame:
    """A DataFrame from a DataFrame or a list of dicts, with the ``required`` columns."""
    frame = pd.DataFrame(data)
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}; it has {list(frame.columns)}")
    return frame
