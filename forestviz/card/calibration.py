"""How well a binary model's risks match what happened on the held-out rows: the slope and
intercept of the logistic recalibration (the outcome regressed, by an unpenalised logistic
regression, on the logit of the risk: slope 1 and intercept 0 for risks that mean what they
say; a slope below 1 for risks too extreme, above 1 for risks too timid; a negative intercept
for risks too high overall) and the Brier score (scikit-learn's ``brier_score_loss``)."""

from __future__ import annotations

import numpy as np
from scipy.special import logit
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
