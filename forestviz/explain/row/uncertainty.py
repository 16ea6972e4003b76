"""How sure is one prediction: the spread of the trees under the row's attention weights, a
calibrated interval fitted on held-out rows, and plain warnings when the weights rest on few
trees.

* :func:`tree_spread` — the trees' predictions f_k(x) weighted by the row's α_k(x), the same
  weights that make the prediction offset + Σ_k α_k·f_k (Utkin & Konstantinov, "Attention-based
  random forest and contamination model", Eq. 8; Eq. 27 for class probabilities): weighted
  quantiles (numpy's ``inverted_cdf``: the smallest value whose cumulative weight reaches the
  level), the weighted standard deviation and, for classes, the weighted vote shares
  Σ_k α_k·[c = argmax f_k]. It describes how much the weighted trees disagree, not where the
  outcome will fall: it is no prediction interval.
* :class:`IntervalModel` — fitted once per trained model on rows the model did not learn
  from, then cheap per row. Regression: MAPIE's split-conformal interval with the absolute
  residual score (Lei, G'Sell, Rinaldo, Tibshirani & Wasserman, "Distribution-free predictive
  inference for regression", JASA 2018, Sec. 2.2: ŷ ± the ⌈(n+1)·confidence⌉-th smallest
  calibration residual), which covers a fresh row's outcome with probability ≥ confidence. The
  risk of a binary classifier: MAPIE's Venn-ABERS predictor (Vovk, Petej & Fedorova,
  "Large-scale probabilistic predictors with and without guarantees of validity", NeurIPS 2015,
  Sec. 4: p0 and p1 are the isotonic calibrations of the row's score with the row labelled 0
  and 1; one of them is perfectly calibrated, p = p1/(1 − p0 + p1) merges them). That range
  has no confidence level: a distribution-free interval for P(y = 1 | x) at a confidence level
  would have to be nearly as wide as a prediction set for y itself (Barber, "Is
  distribution-free inference possible for binary regression?", Electronic Journal of
  Statistics 2020), so the honest statement for a risk is a calibrated value and its
  Venn-ABERS range.
* :func:`spread_warnings` — when the effective number of trees 1/Σα² (Kish's effective
  sample size, "Survey Sampling", 1965) falls below :data:`MIN_EFFECTIVE_TREES`, or ε = 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from mapie.calibration import VennAbersCalibrator
from mapie.conformity_scores import AbsoluteConformityScore
from mapie.regression import SplitConformalRegressor
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier

INTERVAL_CONFIDENCE = 0.9  # the level of a value's conformal interval (interval_model)
LEVELS = (0.05, 0.25, 0.5, 0.75, 0.95)
# Fewer than 5 effective trees: some tree carries more than 1/5 of the weight (max α ≥ Σα²),
# and the weighted average keeps (1 − ρ)/5 ≥ 20 % of a single tree's own variance σ²(1 − ρ)
# where T equal weights keep (1 − ρ)/T (Hastie, Tibshirani & Friedman, "The Elements of
# Statistical Learning", Eq. 15.1): the forest then predicts like a handful of trees.
MIN_EFFECTIVE_TREES = 5.0
RISK_ROUNDING = 1e-9  # how far outside [0, 1] a probability may stray by rounding
# Risks are calibrated at this many decimals. Venn-ABERS is a step function of the risk with a
# step at each calibration row's own risk, and two computations of one row's risk (the
# explainer's weighted sum and predict_proba) differ in the 16th digit: at 0.8889648336063213
# against …211, a held-out row of the default Pima model was calibrated to 0.857 and 0.852.
RISK_DECIMALS = 12


@dataclass(frozen=True, eq=False)
class TreeSpread:
    """The spread of one row's tree predictions under its weights α.

    ``levels`` the quantile levels; ``quantiles`` offset + f_k's weighted quantiles (L,) for a
    value, or those of each class probability (L, C); ``mean`` the prediction (offset + Σα·f,
    or Σα·f (C,)); ``std`` √(Σ_k α_k·(f_k − mean)²), a float or (C,); ``vote_shares`` (C,) the
    weight of the trees whose largest probability is class c (a tie splits a tree's weight
    equally), None for a value; ``effective_trees`` 1/Σα².
    """

    levels: tuple[float, ...]
    quantiles: np.ndarray
    mean: float | np.ndarray
    std: float | np.ndarray
    vote_shares: np.ndarray | None
    effective_trees: float


def tree_spread(tree_predictions, tree_weights, offset: float = 0.0, *,
                levels=LEVELS) -> TreeSpread:
    """The spread of one row's T tree predictions (T,) values or (T, C) class probabilities
    under its weights α (T,), α ≥ 0 summing to 1 (an :class:`Explanation`'s
    ``tree_predictions``, ``tree_weights`` and ``offset``).

    For AGBoost offset + f_k is what the model would predict with all the weight on tree k;
    boosting trees fit successive residuals, so their spread is far wider than the outcome's.
    """
    alpha = np.asarray(tree_weights, dtype=float)
    f = np.asarray(tree_predictions, dtype=float)
    if alpha.ndim != 1 or f.ndim not in (1, 2) or f.shape[0] != alpha.size or alpha.size == 0:
        raise ValueError("expected (T,) weights with (T,) or (T, C) tree predictions, got "
                         f"{alpha.shape} and {f.shape}")
    if not (np.isfinite(alpha).all() and np.isfinite(f).all()):
        raise ValueError("the weights and tree predictions must be finite")
    if alpha.min() < 0 or not np.isclose(alpha.sum(), 1.0):
        raise ValueError("the tree weights must be non-negative and sum to 1")
    levels = tuple(float(q) for q in levels)
    if not all(0 <= q <= 1 for q in levels):
        raise ValueError("quantile levels must lie in [0, 1]")
    if f.ndim == 1:
        f = f + offset
    quantiles = np.quantile(f, levels, axis=0, weights=alpha, method="inverted_cdf")
    mean = alpha @ f
    std = np.sqrt(alpha @ (f - mean) ** 2)
    votes = None
    if f.ndim == 2:
        top = f == f.max(axis=1, keepdims=True)
        votes = alpha @ (top / top.sum(axis=1, keepdims=True))
    else:
        mean, std = float(mean), float(std)
    return TreeSpread(levels, quantiles, mean, std, votes, float(1.0 / (alpha @ alpha)))


def spread_warnings(effective_trees: float, eps: float, n_trees: int, *,
                    min_effective: float = MIN_EFFECTIVE_TREES,
                    base_kept: bool = False) -> list[str]:
    """Plain-words warnings about one row's weights: fewer than ``min_effective`` effective
    trees (1/Σα²; see :data:`MIN_EFFECTIVE_TREES` for why 5), and ε = 1 (the weights are the
    trained w alone, the same for every row) unless the model kept its plain base model
    (``base_kept``: the model's name says so already, :func:`~.explanation.
    model_name`)."""
    warnings = []
    if effective_trees < min_effective:
        warnings.append(
            f"This prediction rests on about {effective_trees:.1f} of the {n_trees} trees "
            f"(fewer than {min_effective:g}): a few trees carry most of the weight, so the "
            "prediction is about as unstable as those few trees and their spread says little.")
    if np.isclose(eps, 1.0) and not base_kept:
        warnings.append(
            "The contamination ε is 1: the tree weights no longer depend on the row, every "
            "row gets the same weights, so nothing here is specific to this row's attention.")
    return warnings


# ------------------------------------------------------------------- calibrated intervals
class _Predicted(RegressorMixin, BaseEstimator):
    """A model's predictions, already computed, as a fitted regressor: ``predict(X)`` is
    ``X[:, 0]``. MAPIE then calibrates the outputs the product has at hand (prefit mode)."""

    def fit(self, X, y=None):
        self.n_features_in_ = 1
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


class _Risk(ClassifierMixin, BaseEstimator):
    """A binary model's P(positive), already computed, as a fitted classifier of the labels
    0 and 1: ``predict_proba(X)`` is ``[1 − X[:, 0], X[:, 0]]``."""

    def fit(self, X, y=None):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return self

    def predict_proba(self, X):
        p = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (np.asarray(X, dtype=float)[:, 0] >= 0.5).astype(int)


def min_calibration_rows(confidence: float) -> int:
    """The fewest calibration rows MAPIE accepts at ``confidence``: n ≥ max(1/α, 1/(1 − α))
    with α = 1 − confidence (decimal arithmetic, as MAPIE computes it). Then
    ⌈(n+1)·confidence⌉ ≤ n, so the interval is finite."""
    alpha = float(Decimal(1) - Decimal(str(confidence)))
    return math.ceil(max(1.0 / alpha, 1.0 / (1.0 - alpha)))


@dataclass(frozen=True, eq=False)
class IntervalModel:
    """A calibrated interval for a model's outputs, fitted once on ``n_calibration`` rows the
    model did not learn from. ``kind`` "conformal" (regression; ``confidence`` its level) or
    "venn-abers" (the risk P(``positive``) of a binary classifier; ``confidence`` None)."""

    kind: str
    confidence: float | None
    n_calibration: int
    positive: object
    calibrator: object

    @classmethod
    def fit(cls, model, X_cal, y_cal, *, confidence: float = 0.9) -> IntervalModel:
        """Calibrate a fitted ``model`` on the rows ``X_cal`` with outcomes ``y_cal``: a
        regressor's ``predict``, or a binary classifier's P(``classes_[1]``)."""
        if not is_classifier(model):
            return cls.from_outputs(model.predict(X_cal), y_cal, task="regression",
                                    confidence=confidence)
        if len(model.classes_) != 2:
            raise ValueError("a calibrated risk needs a binary classifier; this model has "
                             f"{len(model.classes_)} classes")
        return cls.from_outputs(model.predict_proba(X_cal)[:, 1], y_cal, task="classification",
                                positive=model.classes_[1])

    @classmethod
    def from_outputs(cls, outputs, y_cal, *, task: str, confidence: float = 0.9,
                     positive=None) -> IntervalModel:
        """Calibrate from a model's outputs on the calibration rows: predicted values
        (``task="regression"``) or P(``positive``) (``task="classification"``)."""
        outputs = _outputs(outputs)
        y_cal = np.asarray(y_cal)
        if y_cal.shape != outputs.shape:
            raise ValueError(f"expected {outputs.size} outcomes, got shape {y_cal.shape}")
        if task == "regression":
            if not 0 < confidence < 1:
                raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
            if outputs.size < min_calibration_rows(confidence):
                raise ValueError(
                    f"a {confidence:.0%} interval needs at least "
                    f"{min_calibration_rows(confidence)} calibration rows, got {outputs.size}")
            score = AbsoluteConformityScore()
            # MAPIE checks y_pred + |y - y_pred| == y within an absolute 1e-8; for targets
            # beyond about 1e8 the sum's rounding is larger (a few units in the last place)
            score.eps = max(score.eps, 4 * float(np.spacing(np.abs(np.r_[outputs, y_cal])
                                                            .astype(float).max())))
            conformal = SplitConformalRegressor(_Predicted().fit(outputs[:, None]),
                                                confidence_level=confidence,
                                                conformity_score=score, prefit=True)
            conformal.conformalize(outputs[:, None], y_cal.astype(float))
            return cls("conformal", float(confidence), outputs.size, None, conformal)
        if task != "classification":
            raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
        outputs = _risk(outputs)
        labels = (y_cal == positive).astype(int)
        if labels.min() == labels.max():
            raise ValueError("calibrating a risk needs rows of both outcomes; the calibration "
                             f"rows are all {'' if labels[0] else 'not '}{positive}")
        venn = VennAbersCalibrator(_Risk().fit(outputs[:, None]), cv="prefit")
        with np.errstate(divide="ignore", invalid="ignore"):  # MAPIE's 0/0 before nanmin
            venn.fit(outputs[:, None], labels)
        return cls("venn-abers", None, outputs.size, positive, venn)

    def interval(self, outputs) -> tuple[np.ndarray, np.ndarray] | tuple[float, float]:
        """(low, high) for the model's outputs on some rows (predicted values, or
        P(``positive``)): floats for one number, arrays for an array. Conformal: the outcome's
        interval. Venn-ABERS: (p0, p1), the range of the calibrated risk, which need not
        contain the model's own probability when that is miscalibrated."""
        p = _outputs(outputs)
        if self.kind == "conformal":
            _, bounds = self.calibrator.predict_interval(p[:, None])
            low, high = bounds[:, 0, 0], bounds[:, 1, 0]
        else:
            _, p0_p1 = self.calibrator.predict_proba(_risk(p)[:, None], p0_p1_output=True)
            low, high = p0_p1[:, 0], p0_p1[:, 1]
        return _shaped(low, outputs), _shaped(high, outputs)

    def calibrated_risk(self, outputs) -> np.ndarray | float:
        """The Venn-ABERS calibrated P(``positive``), p1/(1 − p0 + p1), of model risks."""
        if self.kind != "venn-abers":
            raise ValueError("a calibrated risk needs an interval model of a binary classifier")
        p = _risk(_outputs(outputs))
        return _shaped(self.calibrator.predict_proba(p[:, None])[:, 1], outputs)

    @property
    def label(self) -> str:
        """What the interval is, in words, for a page."""
        rows = f"fitted on {self.n_calibration} held-out rows"
        if self.kind == "conformal":
            return (f"split-conformal, {rows}: on new rows it holds the outcome at least "
                    f"{self.confidence:.0%} of the time")
        return (f"Venn-ABERS, {rows}: the calibrated risk lies in this range whichever outcome "
                "the row turns out to have")


def _outputs(outputs) -> np.ndarray:
    p = np.atleast_1d(np.asarray(outputs, dtype=float))
    if p.ndim != 1 or p.size == 0 or not np.isfinite(p).all():
        raise ValueError(f"expected finite model outputs, one per row, got shape {p.shape}")
    return p


def _risk(p: np.ndarray) -> np.ndarray:
    """``p`` checked to be probabilities, clipped to [0, 1] (a weighted sum of tree
    probabilities may exceed 1 by a rounding error: 1 + 2.2e-16 seen) and rounded to
    :data:`RISK_DECIMALS`, for fitting and querying alike: one risk, one calibration."""
    if p.min() < -RISK_ROUNDING or p.max() > 1 + RISK_ROUNDING:
        raise ValueError("a risk must lie in [0, 1]")
    return np.round(np.clip(p, 0.0, 1.0), RISK_DECIMALS)


def _shaped(values: np.ndarray, like):
    return float(values[0]) if np.ndim(like) == 0 else values


def interval_model(task: str, estimator, outputs, y_test) -> IntervalModel | None:
    """The trained model's calibrated interval, fitted on the held-out rows (``outputs``: its
    predictions or P(class 1) there): split-conformal at ``INTERVAL_CONFIDENCE`` for a value,
    Venn-ABERS for a binary risk. The held-out metrics score the point predictions, which it
    leaves unchanged; only the interval's own coverage can no longer be measured on these
    rows. None for more than two classes, a held-out side with one outcome only, or too few
    held-out rows."""
    if task == "regression":
        if len(y_test) < min_calibration_rows(INTERVAL_CONFIDENCE):
            return None
        return IntervalModel.from_outputs(outputs, y_test, task=task,
                                          confidence=INTERVAL_CONFIDENCE)
    classes = np.asarray(estimator.classes_)
    if classes.size != 2 or np.unique(y_test).size != 2:
        return None
    return IntervalModel.from_outputs(outputs, y_test, task=task, positive=classes[1])
