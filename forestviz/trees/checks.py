"""Checks shared by the estimators: parameter validation, a cheap input path for single rows,
and the progress-callback convention.

``progress(stage, fraction)`` is an optional callable every ``fit`` accepts; the app turns it
into a progress bar. It is never required.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

Progress = Callable[[str, float], None]


def ignore_progress(stage: str, fraction: float) -> None:
    """The default ``progress`` callback: report nothing."""


def is_real(value) -> bool:
    """A real number that is not a bool."""
    return isinstance(value, Real) and not isinstance(value, bool)


def is_count(value, minimum: int = 1) -> bool:
    """An int (not a bool) of at least ``minimum``."""
    return isinstance(value, Integral) and not isinstance(value, bool) and value >= minimum


def check_parameters(estimator, checks: Iterable[tuple[str, bool, str]]) -> None:
    """Raise a ``ValueError`` naming the first parameter whose check failed."""
    for name, ok, expected in checks:
        if not ok:
            raise ValueError(f"{name} must be {expected}, got {getattr(estimator, name)!r}")


def check_rows(estimator, X, fitted_attribute: str) -> np.ndarray:
    """Fitted-state and input check of X at predict time.

    A finite 2-D float64 ndarray of the right width (what the explainer passes for a single
    row) skips scikit-learn's full validation, which costs more than the prediction itself;
    anything else goes through ``validate_data``.
    """
    check_is_fitted(estimator, fitted_attribute)
    if (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype == np.float64
            and X.shape[1] == estimator.n_features_in_
            and not hasattr(estimator, "feature_names_in_") and np.isfinite(X).all()):
        return X
    return validate_data(estimator, X, reset=False, dtype=np.float64)
