"""What a fitted model is, in the model's own words: the one home of the facts the pages, the
report, the models table and the command line say about a model (its name, its plain base
model, whether its trees are boosting corrections, its loss, whether it has ε and τ to set,
its decision threshold).

Each family answers :meth:`~forestviz.trees.ensemble.WeightedEnsemble.describe` (scikit-learn's
forests through :class:`~forestviz.trees.ensemble.ForestEnsemble`); no caller reads a class
name, ``get_params()`` or a fitted attribute to learn these facts. What the Train page offers
before a model exists (label, tasks, bases, cleaning) is on the family's registry entry
(:mod:`forestviz.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from forestviz.trees.decision import RULE

TRAINING_ROWS_RULE = "Youden's J on the training rows"
"""How a threshold chosen without held-out rows is said."""


@dataclass(frozen=True)
class Description:
    """A fitted model's facts.

    ``name``: the model in a sentence ("Attention-based random forest"); ``base``: the noun of
    its plain base model ("forest", "gradient boosting machine"), what a search keeps when
    nothing beats it (:attr:`plain`); ``boosting``: its trees' numbers are corrections added to
    an offset F_0 (a tree's number is its term V, not a prediction); ``loss``: the loss its
    weights were fitted for and its search scored ("l2" or "l1"); ``attention``: it has ε and
    τ a refit may set (``set_params(eps=…, tau=…)``); ``threshold``: a binary classifier's
    decision threshold on P(``classes_[1]``) (None: the most probable class);
    ``held_out``: whether that threshold was chosen on rows held out while training.
    """

    name: str
    base: str = "forest"
    boosting: bool = False
    loss: str = "l2"
    attention: bool = False
    threshold: float | None = None
    held_out: bool = True

    @property
    def plain(self) -> str:
        """Its plain base model in a sentence: "the plain forest"."""
        return f"the plain {self.base}"

    @property
    def rule(self) -> str | None:
        """How the threshold was chosen, in words (None without a threshold)."""
        if self.threshold is None:
            return None
        return RULE if self.held_out else TRAINING_ROWS_RULE


def binary_threshold(threshold) -> float | None:
    """A fitted ``threshold_`` as :attr:`Description.threshold`: the number of a binary
    classifier, None for none or one per class (the most probable class decides)."""
    return float(threshold) if threshold is not None and np.isscalar(threshold) else None
