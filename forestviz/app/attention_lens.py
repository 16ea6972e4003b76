"""The attention lens: what attention would have said for a row when the model kept its plain
forest.

An attention forest chooses between its plain forest and attention by held-out loss (Utkin &
Konstantinov, "Attention-based random forest and contamination model", §5, with the
never-worse rule of :mod:`forestviz.selection`). When the plain forest is kept, every tree
weighs the same and the attention views show nothing. The lens takes the best attention
setting the search found (the candidate with the lowest validation loss), refits the model at
that setting on the same training rows with the same seed (so the same trees), and shows its
weights and prediction for a row beside the model's, with both held-out losses. It is never
used for a prediction, and says so wherever it appears.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone, is_classifier

from forestviz.app.workflow import Bundle
from forestviz.explain.whole.selection_note import loss_name
from forestviz.numbers import plain_number
from forestviz.trees.diagnostics import Candidate
from forestviz.trees.ensemble import as_ensemble

NOT_USED = "attention lens: not used for the prediction"
_LENSES: weakref.WeakKeyDictionary[Bundle, Lens | None] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, eq=False)
class Lens:
    """The refitted attention model (``estimator``) at the search's best attention setting
    (``eps``, ``tau``), its validation loss with standard error, the plain forest's, the loss'
    name and the rows they were measured on."""

    estimator: object
    eps: float
    tau: float
    loss: float
    loss_se: float
    base_loss: float
    base_se: float
    loss_name: str
    n_rows: int

    def sentence(self) -> str:
        n = plain_number
        return (f"The search's best attention setting, ε = {n(self.eps, 2)} and τ = "
                f"{n(self.tau, 3)}, had a validation loss ({self.loss_name}) of {n(self.loss, 4)} "
                f"± {n(self.loss_se, 2)} on the {self.n_rows} rows held out in training, against "
                f"{n(self.base_loss, 4)} ± {n(self.base_se, 2)} for the plain forest, which the "
                "model kept: attention did not beat it by more than noise. Below is what "
                "attention at that setting would say for this row; it is not the model's "
                "prediction.")

    def row(self, x) -> tuple[np.ndarray, np.ndarray]:
        """The lens' tree weights α (T,) and prediction (a value, or class probabilities)
        for one encoded row ``x``."""
        x = np.asarray(x, dtype=float)[None, :]
        names = getattr(self.estimator, "feature_names_in_", None)
        rows = x if names is None else pd.DataFrame(x, columns=names)
        weights = as_ensemble(self.estimator).tree_weights(rows)[0]
        predict = (self.estimator.predict_proba if is_classifier(self.estimator)
                   else self.estimator.predict)
        return weights, np.asarray(predict(rows)[0])


def lens(bundle: Bundle) -> Lens | None:
    """The lens of ``bundle``'s model (made once), or None when the model is no attention
    forest, kept attention, or its search tried no attention setting."""
    if bundle in _LENSES:
        return _LENSES[bundle]
    _LENSES[bundle] = found = _make(bundle)
    return found


def best_setting(bundle: Bundle) -> tuple[Candidate, Candidate] | None:
    """The search's best attention candidate and best plain candidate
    (:meth:`~forestviz.trees.diagnostics.Search.best`) of a model with ε and τ to set that kept
    its plain base model; None for any other model."""
    ensemble = as_ensemble(bundle.estimator)
    found = ensemble.diagnostics()
    if not found.selected_base or not ensemble.describe().attention:
        return None
    best, plain = found.search.best(), found.search.best(base=True)
    return None if best is None or plain is None else (best, plain)


def _make(bundle: Bundle) -> Lens | None:
    found = best_setting(bundle)
    if found is None:
        return None
    best, plain = found
    model = bundle.estimator
    ensemble = as_ensemble(model)
    refit = clone(model).set_params(eps=best.eps, tau=best.tau)
    refit.fit(bundle.X_train, bundle.y_train)
    return Lens(estimator=refit, eps=best.eps, tau=best.tau, loss=best.validation_loss,
                loss_se=best.standard_error, base_loss=plain.validation_loss,
                base_se=plain.standard_error,
                loss_name=loss_name(ensemble.diagnostics().search, bundle.task,
                                    ensemble.describe().loss), n_rows=best.n_rows)
