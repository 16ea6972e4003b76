"""The attention weights of the ABRF models (Utkin & Konstantinov, "Attention-based Random
Forest and Contamination Model", Eqs. 14, 16, 23 and 24; algorithms.md §1).

The weight of tree k for a row x is (Eq. 14, with the Softmax part D of Eq. 16)

    α_k(x) = (1 − ε)·D_k(x) + ε·w_k,   D(x) = softmax_k(−v_k·||(x̃ − A_k(x)) ∘ z||² / 2),

with A_k(x) the mean standardised training row of x's leaf in tree k
(:class:`~forestviz.trees.leaf_stats.LeafStats`). The mix itself is
:func:`forestviz.trees.contamination.contaminate` (explanations draw it too); AGBoost uses the
same α. The Softmax model is ε = 0, v = 1/τ, z = 1; ABRF-1 adds the
contamination weights w ∈ Δ_T fitted by the QP of Eq. 15 (L2 loss) or the LP of Eqs. 20-22
(L1 loss, :mod:`forestviz.attention.simplex`); ABRF-2 trains v and z (Eq. 23, ε = 0); ABRF-3
trains v, z and w jointly at the ε chosen for ABRF-1 (Eq. 24,
:mod:`forestviz.attention.gradients`). Resolved typos followed here (algorithms.md §1): the
softmax takes the *negative* distance (Eqs. 14, 16, 23, 24 print the positive one);
classification uses the tree-level class frequencies p_k(x_s) in the loss (Eq. 29 prints the
forest-level p(x_s)); v and z are not put on simplices but parameterised as v = exp(θ)/τ,
z = m·softmax(φ).
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from forestviz.trees.threads import SMALL_BATCH

PREDICT_BLOCK = 2048
"""Rows per block in predict: besides the (n, T) leaf ids, peak memory is O(block × T)."""


def median_distance(d) -> float:
    """The unit of τ, τ = κ·median d: the median of the distances ``d`` of the rows fitting w
    over all trees, falling back to their mean and then to 1 when it is 0."""
    return float(next((v for v in (np.median(d), d.mean()) if v > 0), 1.0))


def softmax_weights(scores, mask=None):
    """Row-wise softmax of attention scores (−v·d/2), restricted to ``mask`` if given."""
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return softmax(scores, axis=1)


def combine(D, V):
    """Σ_k α_k·V_k per row: (n, T) × (n, T, C) → (n, C)."""
    return np.einsum("sk,skc->sc", D, V)


def stack(V):
    """(n, T, C) → (n·C, T): one row per (sample, class) as in the paper's Eq. 30."""
    return V.transpose(0, 2, 1).reshape(-1, V.shape[1])


def distances(stats, leaves, X, leaf_norms, zsq):
    """Σ_j z_j²·(x̃_j − A_kj(x))² (n, T) as ||z∘x̃||² − 2·(z²∘x̃)·A + Σ z²A² (algorithms.md §0).

    The cross terms are one ``einsum`` reduction over m per row and tree, in the same order
    whatever the batch: for a few rows over the gathered (n, T, m) keys at once; for more, tree
    by tree, tree k's keys A_k(x) gathered into one reused (n, m) buffer while they sit in
    cache (the (n, T, m) gather moved every key through memory: 1.54 s against 0.40 s for
    60,000 rows of 200 deep trees, m = 20, docs/performance.md, "Batch explanation")."""
    Xs = stats.standardize(X)
    xz = Xs * zsq
    own = np.einsum("nm,nm->n", xz, Xs)[:, None]
    if leaves.shape[0] <= SMALL_BATCH:
        cross = np.einsum("ntm,nm->nt", stats.leaf_means[leaves], xz)
    else:
        cross = np.empty(leaves.shape)
        keys = np.empty(Xs.shape)
        for k in range(leaves.shape[1]):
            np.take(stats.leaf_means, leaves[:, k], axis=0, out=keys, mode="clip")  # unbuffered
            np.einsum("nm,nm->n", keys, xz, out=cross[:, k])
    return np.maximum(own - 2.0 * cross + leaf_norms[leaves], 0.0)
