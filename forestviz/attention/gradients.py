"""Trainable softmax attention of ABRF-2 (Eq. 23) and ABRF-3 (Eq. 24) of Utkin & Konstantinov,
"Attention-based Random Forest and Contamination Model", with analytic gradients.

Parameterisation (algorithms.md §1, **[resolved]**: the paper's simplex-constrained v and z
make v_k ≈ 1/T a fixed scale): tree temperatures v_k = exp(θ_k)/τ, feature weights
z = m·softmax(φ) (mean 1), contamination weights w = softmax(ψ). For a row s and tree k
with squared differences Q_skj = (x̃_sj − A_kj(x_s))²,

    a_sk = −v_k·Σ_j z_j²·Q_skj / 2,   D_s = softmax(a_s)   (negative distance **[resolved]**),
    α_sk = (1 − ε)·D_sk + ε·w_k,     ŷ_sc = Σ_k α_sk·V_skc,

and the loss is Σ_s ω_s·Σ_c (ŷ_sc − Y_sc)² + λ·(||θ||² + ||φ||²) with row weights ω summing
to 1 (ψ is not penalised: softmax(ψ) is shift-invariant and ABRF-3 starts ψ at log w of the
fitted ABRF-1). θ = φ = 0 (and ε = 0) is the Softmax model with temperature τ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import softmax

from forestviz.trees.contamination import contaminate


@dataclass(frozen=True)
class AttentionProblem:
    """Data of one ABRF-2/3 training or validation set.

    ``Q`` (n, T, m) squared differences, ``V`` (n, T, C) leaf values, ``Y`` (n, C) targets,
    ``weight`` (n,) row weights summing to 1, ``mask`` (n, T) trees allowed per row (the
    out-of-bag trees of a validation row) or None for all trees.
    """

    Q: np.ndarray
    V: np.ndarray
    Y: np.ndarray
    weight: np.ndarray
    tau: float
    eps: float
    mask: np.ndarray | None = None

    @property
    def n_trees(self) -> int:
        return self.Q.shape[1]

    @property
    def n_features(self) -> int:
        return self.Q.shape[2]

    def unpack(self, params):
        """(θ, φ, ψ) from the flat parameter vector."""
        T, m = self.n_trees, self.n_features
        return params[:T], params[T:T + m], params[T + m:]

    def forward(self, params):
        """Scores a, Softmax part D, weights w, feature weights z and predictions ŷ."""
        theta, phi, psi = self.unpack(params)
        v = np.exp(theta) / self.tau
        z = self.n_features * softmax(phi)
        a = -0.5 * v * np.einsum("skj,j->sk", self.Q, z * z)
        if self.mask is not None:
            a = np.where(self.mask, a, -np.inf)
        D = softmax(a, axis=1)
        w = softmax(psi) if psi.size else np.zeros(self.n_trees)
        w_rows = w
        if self.mask is not None:  # w renormalised over each row's trees
            w_rows = w * self.mask
            total = w_rows.sum(axis=1, keepdims=True)
            w_rows = np.divide(w_rows, total, out=np.zeros_like(w_rows), where=total > 0)
        alpha = contaminate(D, w_rows, self.eps)
        prediction = np.einsum("sk,skc->sc", alpha, self.V)
        return a, D, w, z, prediction

    def _penalised(self, params):
        """θ and φ (the penalised parameters) with ψ zeroed."""
        return np.where(np.arange(params.size) < self.n_trees + self.n_features, params, 0.0)

    def errors(self, params) -> np.ndarray:
        """Squared error of every row (summed over the columns of Y)."""
        return ((self.forward(params)[4] - self.Y) ** 2).sum(axis=1)

    def loss(self, params, penalty=0.0) -> float:
        """Weighted squared error (plus the L2 penalty on θ, φ)."""
        error = self.weight @ self.errors(params)
        penalised = self._penalised(params)
        return float(error + penalty * penalised @ penalised)

    def loss_and_grad(self, params, penalty=0.0) -> tuple[float, np.ndarray]:
        """Loss and its analytic gradient (chain rule through both softmaxes)."""
        if self.mask is not None:
            raise ValueError("gradients are defined for unmasked training problems")
        theta, _, psi = self.unpack(params)
        a, D, w, z, prediction = self.forward(params)
        residual = prediction - self.Y
        penalised = self._penalised(params)
        loss = float(np.einsum("s,sc->", self.weight, residual**2)
                     + penalty * penalised @ penalised)
        g_pred = 2.0 * self.weight[:, None] * residual  # dL/dŷ
        g_alpha = np.einsum("sc,skc->sk", g_pred, self.V)  # dL/dα
        g_D = (1.0 - self.eps) * g_alpha
        g_a = D * (g_D - np.einsum("sk,sk->s", D, g_D)[:, None])  # softmax backward
        g_theta = np.einsum("sk,sk->k", g_a, a)  # ∂a/∂θ_k = a_sk
        v = np.exp(theta) / self.tau
        g_zsq = -0.5 * np.einsum("sk,k,skj->j", g_a, v, self.Q)  # dL/d(z_j²)
        g_z = 2.0 * z * g_zsq
        s = z / self.n_features
        h = self.n_features * g_z  # dL/d softmax(φ)
        g_phi = s * (h - s @ h)
        parts = [g_theta, g_phi]
        if psi.size:
            g_w = self.eps * g_alpha.sum(axis=0)
            parts.append(w * (g_w - w @ g_w))
        return loss, np.concatenate(parts) + 2.0 * penalty * penalised


@dataclass(frozen=True)
class TrainingResult:
    """Best parameters, the iteration they came from and the validation-loss history."""

    params: np.ndarray
    best_iteration: int
    history: list


def train_attention(train: AttentionProblem, initial, *, validation=None, penalty=1e-3,
                    max_iter=200, patience=10, progress=None) -> TrainingResult:
    """L-BFGS on the analytic gradient from ``initial`` with early stopping.

    With a ``validation`` problem, the parameters with the lowest validation loss are kept and
    training stops after ``patience`` iterations without improvement; without one, L-BFGS runs
    ``max_iter`` iterations.
    """
    params = np.asarray(initial, dtype=np.float64).copy()
    best = {"params": params.copy(), "iteration": 0,
            "loss": validation.loss(params) if validation is not None else np.inf}
    history = [best["loss"]]

    def callback(intermediate_result):
        iteration = len(history)
        if progress is not None:
            progress(iteration / max_iter)
        if validation is None:
            history.append(float(intermediate_result.fun))
            return
        current = validation.loss(intermediate_result.x)
        history.append(current)
        if current < best["loss"]:
            best.update(params=intermediate_result.x.copy(), iteration=iteration, loss=current)
        elif iteration - best["iteration"] >= patience:
            raise StopIteration

    result = minimize(train.loss_and_grad, params, args=(penalty,), jac=True,
                      method="L-BFGS-B", callback=callback, options={"maxiter": max_iter})
    if validation is None:
        return TrainingResult(result.x, result.nit, history)
    return TrainingResult(best["params"], best["iteration"], history)
