"""The weighted-ensemble protocol of the two families whose tree weights are an ε-contaminated
Softmax (Utkin & Konstantinov, "Attention-based Random Forest and Contamination Model", Eq. 14;
Konstantinov, Utkin & Kirpichenko, "AGBoost: Attention-based Modification of Gradient Boosting
Machine", Eq. 18; algorithms.md §1 and §2):

    α_k(x) = (1 − ε)·D_k(x) + ε·w_k.

ABRF and AGBoost differ only in how a row's Softmax weights D(x) and tree values f_k(x) come out
of one leaf look-up (:meth:`ContaminatedEnsemble._attention`); everything the protocol returns
from them is written here once.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from forestviz.trees.contamination import contaminate, weight_parts
from forestviz.trees.ensemble import EnsembleOutputs, WeightedEnsemble


class ContaminatedEnsemble(WeightedEnsemble):
    """:class:`~forestviz.trees.ensemble.WeightedEnsemble` for a fitted model with ``eps_`` (ε)
    and ``w_`` (w over the T trees) and the hook :meth:`_attention`."""

    def _attention(self, X) -> tuple[np.ndarray, np.ndarray]:
        """D(x) (n, T) and the per-tree predictions f_k(x) ((n, T) or (n, T, C)) of rows X,
        checked here, from one leaf look-up."""
        raise NotImplementedError(f"{type(self).__name__} must implement _attention")

    def tree_weights(self, X) -> np.ndarray:
        """Attention weights α_k(x) = (1 − ε)·D_k(x) + ε·w_k (n, T), rows sum to 1."""
        return contaminate(self._attention(X)[0], self.w_, self.eps_)

    def tree_weight_parts(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The two parts of α: (1 − ε)·D(x) (n, T) and ε·w broadcast to (n, T)."""
        return weight_parts(self._attention(X)[0], self.w_, self.eps_)

    def ensemble_outputs(self, X) -> EnsembleOutputs:
        """α, its two parts, the per-tree predictions and the offset, from one leaf look-up."""
        D, values = self._attention(X)
        parts = weight_parts(D, self.w_, self.eps_)
        return EnsembleOutputs(parts[0] + parts[1], parts, values, offset=self.offset())

    def lean_outputs(self, X) -> EnsembleOutputs:
        """:meth:`ensemble_outputs` without the parts: α = (1 − ε)·D + ε·w formed as their sum
        is, number for number."""
        D, values = self._attention(X)
        return EnsembleOutputs(contaminate(D, self.w_, self.eps_), None, values,
                               offset=self.offset())

    def contamination(self) -> tuple[float, np.ndarray]:
        """(ε, w): the contamination weight and the trained (or uniform) tree weights w."""
        check_is_fitted(self)
        return float(self.eps_), np.asarray(self.w_, dtype=float)
