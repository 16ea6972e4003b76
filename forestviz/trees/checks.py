"""Checks shared by the estimators: parameter validation (the training numbers' domains from
:mod:`forestviz.parameters`), sample weights, a cheap input path for single rows, and the
progress-callback convention.

``progress(stage, fraction)`` is an optional callable every ``fit`` accepts; the app turns it
into a progress bar. It is never required.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real

import numpy as np
from sklearn.utils import check_array, check_consistent_length
from sklearn.utils.validation import check_is_fitted, validate_data

from forestviz.parameters import EPS, TAU, TREES, Parameter

Progress = Callable[[str, float], None]
Check = tuple[Callable[[object], bool], str]
"""A parameter check: a predicate on the value and what the value must be, in words."""


def ignore_progress(stage: str, fraction: float) -> None:
    """The default ``progress`` callback: report nothing."""


def is_real(value) -> bool:
    """A real number that is not a bool."""
    return isinstance(value, Real) and not isinstance(value, bool)


def auto_or(predicate: Callable[[object], bool]) -> Callable[[object], bool]:
    """A predicate accepting ``"auto"`` or a value ``predicate`` accepts."""
    return lambda value: (isinstance(value, str) and value == "auto") or predicate(value)


def one_of(*options) -> Check:
    """The check that a value is one of ``options``, which it names."""
    words = " or ".join(map(repr, options)) if len(options) <= 2 else f"one of {list(options)}"
    return (lambda value: value in options), words


def in_domain(parameter: Parameter, *, auto: bool = False) -> Check:
    """The check that a value lies in a training parameter's domain, read from its entry in
    :mod:`forestviz.parameters` (the Train page, the command line and a model file's settings
    read the same entry); with ``auto``, ``"auto"`` (searched in ``fit``) passes too."""
    domain = parameter.domain
    if auto:
        return auto_or(domain.__contains__), f"'auto' or {domain.words}"
    return domain.__contains__, domain.words


SHARED_CHECKS: dict[str, Check] = {"n_estimators": in_domain(TREES)}
"""The parameter every estimator here has."""
ATTENTION_CHECKS: dict[str, Check] = {
    **SHARED_CHECKS,
    "eps": in_domain(EPS, auto=True),
    "tau": in_domain(TAU, auto=True),
    "distance": one_of("standardized", "raw"),
    "validation_fraction": (lambda v: is_real(v) and 0.0 < v < 1.0, "a float in (0, 1)"),
}
"""The parameters the attention models (ABRF and AGBoost) share."""


def parameter_check(checks: dict[str, Check]) -> Callable[[object], None]:
    """An estimator's ``_check_params`` method from its table ``name: (predicate, expected)``
    (built on :data:`SHARED_CHECKS` or :data:`ATTENTION_CHECKS`): raises a ``ValueError``
    naming the first parameter, in table order, whose value the predicate refuses."""

    def check_params(estimator) -> None:
        for name, (ok, expected) in checks.items():
            value = getattr(estimator, name)
            if not ok(value):
                raise ValueError(f"{name} must be {expected}, got {value!r}")

    return check_params


def check_sample_weight(sample_weight, X) -> np.ndarray:
    """Row weights for ``fit``: ones when ``sample_weight`` is None, a number repeated, or an
    array-like of one weight per row of ``X``; finite, non-negative and not all zero.

    scikit-learn's public ``check_array`` / ``check_consistent_length`` do the checking; a
    float32 array stays float32 and anything else becomes float64, as scikit-learn's own
    estimators treat weights.
    """
    n = X.shape[0]
    if sample_weight is None:
        return np.ones(n)
    if isinstance(sample_weight, Real) and not isinstance(sample_weight, bool):
        weight = np.full(n, float(sample_weight))
        if not np.isfinite(weight).all():
            raise ValueError(f"sample_weight must be finite, got {sample_weight!r}")
    else:
        weight = check_array(sample_weight, ensure_2d=False, dtype=[np.float64, np.float32],
                             order="C", input_name="sample_weight")
        if weight.ndim != 1:
            raise ValueError(f"sample_weight must be 1-D with one weight per row, got an "
                             f"array of shape {weight.shape}")
        check_consistent_length(X, weight)
    if (weight < 0).any():
        raise ValueError("sample_weight must not be negative")
    if not weight.any():
        raise ValueError("sample_weight must contain at least one non-zero weight")
    return weight


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
