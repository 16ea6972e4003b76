"""scikit-learn's plain classifiers deciding by the product's one rule: the Vanilla RF family
(random forest or extra trees) and the baselines the Train page shows beside every model
(random forest, gradient boosting). Each is the scikit-learn class itself, with the same
parameters and fitted attributes, plus ``threshold_`` chosen on held-out rows and a ``predict``
that uses it (:class:`~forestviz.trees.decision.HeldOutDecision`)."""

from __future__ import annotations

from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)

from forestviz.trees.decision import HeldOutDecision


class DecidedRandomForestClassifier(HeldOutDecision, RandomForestClassifier):
    """``RandomForestClassifier`` deciding by Youden's J on held-out rows."""


class DecidedExtraTreesClassifier(HeldOutDecision, ExtraTreesClassifier):
    """``ExtraTreesClassifier`` deciding by Youden's J on held-out rows."""


class DecidedGradientBoostingClassifier(HeldOutDecision, GradientBoostingClassifier):
    """``GradientBoostingClassifier`` deciding by Youden's J on held-out rows."""
