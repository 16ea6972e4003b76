"""The ε-contamination mix of tree weights (Utkin & Konstantinov, "Attention-based Random
Forest and Contamination Model", Eq. 14; algorithms.md §1), which the attention forests and
AGBoost predict with and the explanations draw (the simplex of ABRF Fig. 1):

    α_k(x) = (1 − ε)·D_k(x) + ε·w_k,

with D(x) the Softmax weights of the row and w ∈ Δ_T the trained tree weights.
:func:`contaminate` is the one place this mix is written (:func:`weight_parts` its two parts,
:func:`softmax_part_to_D` D back from the first).
"""

from __future__ import annotations

import numpy as np


def contaminate(D, w, eps):
    """The ε-contamination mix (1 − ε)·D + ε·w (Eq. 14), broadcasting: α from the Softmax
    weights D (..., T) and w (T,), or anything linear in α, e.g. the prediction
    (1 − ε)·Σ_k D_k·V_k + ε·Σ_k w_k·V_k from the two sums."""
    return (1.0 - eps) * D + eps * w


def weight_parts(D, w, eps) -> tuple[np.ndarray, np.ndarray]:
    """The two parts of α = :func:`contaminate` (D, w, ε): (1 − ε)·D and ε·w broadcast to D's
    shape (a copy), each (n, T)."""
    return (1.0 - eps) * D, np.broadcast_to(eps * w, D.shape).copy()


def softmax_part_to_D(part, eps):
    """The Softmax weights D back from their scaled part (1 − ε)·D (the first of
    :func:`weight_parts`); at ε = 1 the part is 0 and D is shown uniform, 1/T."""
    part = np.asarray(part, dtype=np.float64)
    return part / (1.0 - eps) if eps < 1.0 else np.full_like(part, 1.0 / part.shape[-1])
