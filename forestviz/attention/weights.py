"""The attention weights of the ABRF models (Utkin & Konstantinov, "Attention-based Random
Forest and Contamination Model", eqs (13)-(24); algorithms.md §1).

The weight of tree k for a row x is

    α_k(x) = (1 − ε)·D_k(x) + ε·w_k,   D(x) = softmax_k(−v_k·||(x̃ − A_k(x)) ∘ z||² / 2),

with A_k(x) the mean standardised training row of x's leaf in tree k
(:class:`~forestviz.trees.leaf_stats.LeafStats`). The Softmax model is ε = 0, v = 1/τ, z = 1;
ABRF-1 adds the contamination weights w ∈ Δ_T fitted by a QP (L2 loss, eqs (17)-(19)) or an LP
(L1 loss, eqs (20)-(22), :mod:`forestviz.attention.simplex`); ABRF-2 trains v and z (eq 23,
ε = 0); ABRF-3 trains v, z and w jointly at the ε chosen for ABRF-1 (eq 24,
:mod:`forestviz.attention.gradients`). Resolved typos followed here (algorithms.md §1): the
softmax takes the *negative* distance (eqs 14, 16, 23, 24 print the positive one);
classification uses the tree-level class frequencies p_k(x_s) in the loss (eq 29 prints the
forest-level p(x_s)); v and z are not put on simplices but parameterised as v = exp(θ)/τ,
z = m·softmax(φ).
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

PREDICT_BLOCK = 2048
"""Rows per block in predict: besides the (n, T) leaf ids, peak memory is O(block × T × m)."""


def softmax_weights(scores, mask=None):
    """Row-wise softmax of attention scores (−v·d/2), restricted to ``mask`` if given."""
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return softmax(scores, axis=1)


def combine(D, V):
    """Σ_k α_k·V_k per row: (n, T) × (n, T, C) → (n, C)."""
    return np.einsum("sk,skc->sc", D, V)


def stack(V):
    """(n, T, C) → (n·C, T): one row per (sample, class) as in the paper's eq (30)."""
    return V.transpose(0, 2, 1).reshape(-1, V.shape[1])


def distances(stats, leaves, X, leaf_norms, zsq):
    """Σ_j z_j²·(x̃_j − A_kj(x))² (n, T) as ||z∘x̃||² − 2·(z²∘x̃)·A + Σ z²A² (algorithms.md §0),
    in row chunks of ``PREDICT_BLOCK`` so the (chunk, T, m) gather stays small."""
    Xs = stats.standardize(X)
    d = np.empty(leaves.shape)
    for start in range(0, X.shape[0], PREDICT_BLOCK):
        rows = slice(start, start + PREDICT_BLOCK)
        ids, xz = leaves[rows], Xs[rows] * zsq
        cross = np.einsum("ntm,nm->nt", stats.leaf_means[ids], xz)
        own = np.einsum("nm,nm->n", xz, Xs[rows])[:, None]
        d[rows] = np.maximum(own - 2.0 * cross + leaf_norms[ids], 0.0)
    return d

