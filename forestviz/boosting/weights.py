"""AGBoost's attention weights (Konstantinov, Utkin & Kirpichenko, "AGBoost: Attention-based
Modification of Gradient Boosting Machine"; algorithms.md §2).

A gradient boosting machine with squared loss (F_0 = mean y, tree h_k fitted to the residuals,
F_k = F_{k−1} + ν·h_k) is read as a Nadaraya-Watson regression over its T trees (Eq. 14):

    ŷ(x) = F_0 + Σ_k α_k(x)·V_k(x),   V_k(x) = T·ν·h_k(x),
    α_k(x) = (1 − ε)·softmax_k(−γ^k·d_k(x) / (2τ)) + ε·w_k,   w ∈ Δ_T,

Eqs. 18-22 as reconstructed in algorithms.md §2: the value V_k is the tree's own prediction
scaled so that uniform weights α_k = 1/T give the GBM back exactly; the key of tree k is the
mean standardised training row A_k(x) of x's leaf and d_k(x) = ||x̃ − A_k(x)||²
(:class:`~forestviz.trees.leaf_stats.LeafStats`). The discount γ^k scales the attention
*score*, as in the authors' code **[resolved]**; ``discount_on="weight"`` takes the other
reading, α ∝ γ^k·exp(−d_k/(2τ)). The contamination weights w solve the ABRF-1 simplex QP with
target y − F_0 (:mod:`forestviz.attention.contamination`, one Gram matrix for the whole grid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

from forestviz.attention.contamination import grid_weights
from forestviz.attention.weights import median_distance
from forestviz.trees.leaf_stats import LeafStats

DISCOUNT_GRID = (0.5, 0.8, 0.9, 0.95, 0.99, 1.0)
"""Discount factors γ tried when ``discount="auto"`` (algorithms.md §2)."""


def attention_scores(d, tau, discount, discount_on="score", out=None) -> np.ndarray:
    """Attention scores of the softmax (n, T): −γ^k·d_k/(2τ) (``"score"``, the authors' code)
    or log(γ^k) − d_k/(2τ) (``"weight"``: α ∝ γ^k·exp(−d_k/(2τ))), k = 0..T−1; written to
    ``out`` (may be ``d``) when given."""
    k = np.arange(d.shape[1])
    if discount_on == "score":
        return np.multiply(d, -(discount**k) / (2.0 * tau), out=out)
    scores = np.multiply(d, -0.5 / tau, out=out)
    scores += k * np.log(discount)
    return scores


def attention_numerators(d, tau, discount, discount_on="score", out=None) -> np.ndarray:
    """exp(s_k − max_j s_j) of the :func:`attention_scores` s (n, T), the softmax numerators;
    computed in ``out`` (may be ``d``) when given."""
    E = attention_scores(d, tau, discount, discount_on, out)
    E -= E.max(axis=1, keepdims=True)
    return np.exp(E, out=E)


def attention_softmax(d, tau, discount, discount_on="score", out=None) -> np.ndarray:
    """D = softmax_k of :func:`attention_scores` (n, T); computed in ``out`` when given."""
    D = attention_numerators(d, tau, discount, discount_on, out)
    D /= D.sum(axis=1, keepdims=True)
    return D


@dataclass(frozen=True)
class Rows:
    """Leaf quantities of a set of rows under one ensemble: distances d (n, T), values
    V (n, T), targets y − F_0 (n,) and row weights (n,)."""

    d: np.ndarray
    V: np.ndarray
    target: np.ndarray
    weight: np.ndarray

    def softmax_predictions(self, tau, discount, discount_on) -> np.ndarray:
        """r = Σ_k softmax_k(scores)·V_k (n,), the ε = 0 prediction minus F_0."""
        return np.einsum("nk,nk->n", attention_softmax(self.d, tau, discount, discount_on),
                         self.V)


@dataclass(frozen=True)
class Ensemble:
    """A boosting ensemble fitted on some rows, its leaf statistics (``stats.leaf_values`` hold
    the scaled tree values V), those rows' leaf quantities and their Gram reduction."""

    init: float
    trees: list
    gbm: GradientBoostingRegressor | None
    stats: LeafStats
    rows: Rows
    gram: np.ndarray  # G = Vᵀ·diag(ω)·V (T, T)
    Vty: np.ndarray  # Vᵀ·diag(ω)·(y − F_0) (T,)

    @property
    def median_distance(self) -> float:
        """median d over the fitting rows and trees, the unit of τ (:func:`median_distance`)."""
        return median_distance(self.rows.d)

    def weights(self, tau, discount, discount_on, eps) -> np.ndarray:
        """Contamination weights w (T,) minimising Σ_s ω_s·(y_s − F_0 − (1−ε)·r_s −
        ε·V_s·w)² on the fitting rows (the ABRF-1 QP, certified by its Frank-Wolfe gap,
        :func:`~forestviz.attention.contamination.grid_weights`); uniform at ε = 0, where w
        has no effect."""
        r = self.rows.softmax_predictions(tau, discount, discount_on)
        Vtr = self.rows.V.T @ (self.rows.weight * r)
        return grid_weights(self.gram, self.Vty, Vtr, [eps])[0]
