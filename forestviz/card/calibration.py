"""How well a model's answers match what happened on the held-out rows (Van Calster et al.,
"Calibration: the Achilles heel of predictive analytics", BMC Medicine 2019; TRIPOD+AI).

* A risk (:func:`calibration`): the slope and intercept of the logistic recalibration (the
  outcome regressed, by an unpenalised logistic regression, on the logit of the risk: slope 1
  and intercept 0 for risks that mean what they say; a slope below 1 for risks too extreme,
  above 1 for risks too timid; a negative intercept for risks too high overall) and the Brier
  score (scikit-learn's ``brier_score_loss``). A model of more than two classes: each class's
  risk against the rest.
* A value (:func:`linear_calibration`): the slope and intercept of the linear recalibration (the
  outcome regressed by least squares on the prediction, ``scipy.stats.linregress``: slope 1 and
  intercept 0 for predictions that mean what they say; a slope below 1 for predictions too
  spread out, above 1 for predictions too timid); no Brier score.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit
from scipy.stats import linregress
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss

EDGE = 1e-6  # risks of exactly 0 or 1 are taken as this close to them (a finite logit)


def calibration(positive: np.ndarray, risk: np.ndarray) -> dict | None:
    """``{"slope", "intercept", "brier"}`` of the risks ``risk`` for the outcomes ``positive``
    (booleans), or None when the held-out rows hold one outcome only. Risks that separate the
    outcomes completely (every positive above every negative, or below) have no finite fit:
    their slope and intercept are None."""
    positive = np.asarray(positive, dtype=bool)
    risk = np.clip(np.asarray(risk, dtype=float), 0.0, 1.0)
    if positive.all() or not positive.any():
        return None
    brier = float(brier_score_loss(positive, risk))
    x = logit(np.clip(risk, EDGE, 1 - EDGE))
    if x[positive].min() > x[~positive].max() or x[positive].max() < x[~positive].min():
        return {"slope": None, "intercept": None, "brier": brier}
    fitted = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(x[:, None], positive)
    return {"slope": float(fitted.coef_[0, 0]), "intercept": float(fitted.intercept_[0]),
            "brier": brier}


def linear_calibration(actual: np.ndarray, predicted: np.ndarray) -> dict | None:
    """``{"slope", "intercept", "brier": None}`` of the predictions ``predicted`` for the
    values ``actual``, or None for fewer than two rows. Predictions that are all the same have
    no slope: slope and intercept are None."""
    actual, predicted = np.asarray(actual, dtype=float), np.asarray(predicted, dtype=float)
    if actual.size < 2:
        return None
    if np.ptp(predicted) == 0:
        return {"slope": None, "intercept": None, "brier": None}
    fitted = linregress(predicted, actual)
    return {"slope": float(fitted.slope), "intercept": float(fitted.intercept), "brier": None}


def card_calibration(outcomes, classes) -> dict | None:
    """The card's calibration of held-out ``outcomes`` (:class:`.measures.Outcomes`; ``classes``
    the model's class labels): ``{"kind": "logistic" | "linear", "rows": [{"of", "slope",
    "intercept", "brier"}]}``, a row per class whose risk is calibrated ("of": its label; a
    model of two classes: the second class's risk only; a value: "of" None), or None when no
    row has one (one outcome only)."""
    if outcomes.task == "regression":
        found = linear_calibration(outcomes.actual, outcomes.predicted)
        return None if found is None else {"kind": "linear", "rows": [{"of": None, **found}]}
    shown = [1] if outcomes.n_classes == 2 else range(outcomes.n_classes)
    rows = [{"of": str(classes[k]), **found} for k in shown
            if (found := calibration(outcomes.actual == k, outcomes.proba[:, k])) is not None]
    return {"kind": "logistic", "rows": rows} if rows else None
