"""The model families the app trains and the settings the Train page asks, without importing
any of them: the first page reads these (the Home button's default model), and the model
packages, scikit-learn and the solvers are imported only by :mod:`forestviz.app.workflow`,
once something is trained (``docs/performance.md``, "Cold start and page speed")."""

from __future__ import annotations

from dataclasses import dataclass

FAMILIES = {
    "vanilla": "Vanilla RF (plain average of the trees)",
    "erf": "Enhanced RF (ERF)",
    "abrf1_qp": "Attention RF: ABRF-1, QP (L2 loss)",
    "abrf1_lp": "Attention RF: ABRF-1, LP (L1 loss)",
    "abrf2": "Attention RF: ABRF-2 (trained temperatures and feature weights)",
    "abrf3": "Attention RF: ABRF-3 (ABRF-1 and ABRF-2 together)",
    "softmax": "Attention RF: Softmax (no training of the weights)",
    "agboost": "AGBoost (attention over gradient-boosted trees)",
}
CLASSIFICATION_ONLY = {"erf"}
REGRESSION_ONLY = {"agboost"}
ATTENTION_MODES = {"abrf1_qp": ("abrf1", "l2"), "abrf1_lp": ("abrf1", "l1"),
                   "abrf2": ("abrf2", "l2"), "abrf3": ("abrf3", "l2"), "softmax": ("softmax", "l2")}
BASES = {"random": "Random Forest", "extra": "Extra Trees"}


def families_for(task: str) -> list[str]:
    """The model families that can learn a ``task`` ("classification" / "regression")."""
    excluded = REGRESSION_ONLY if task == "classification" else CLASSIFICATION_ONLY
    return [family for family in FAMILIES if family not in excluded]


@dataclass(frozen=True)
class Settings:
    """Everything the Train page asks; defaults train in seconds on the 632-row Pima table."""

    family: str = "erf"
    base: str = "random"
    n_estimators: int = 100
    auto_tune: bool = True
    test_size: float = 0.25
    random_state: int = 0
    min_samples_leaf: int = 5
    max_depth: int | None = None  # None: the family's default (ERF: 6)
    eps: float = 0.5  # ABRF / AGBoost contamination ε when not auto-tuned
    tau: float = 5.0  # ABRF / AGBoost temperature τ (squared standardised distance units)
    discount: float = 0.9  # AGBoost discount γ when not auto-tuned
    n_iterations: int = 5  # ERF Algorithm 1 rounds
    learning_rate: float = 0.2  # ERF λ
    n_neighbors: int = 10  # ERF M
    top_trees: int = 10  # ERF L


def default_settings(task: str) -> Settings:
    """Quick defaults: ERF for classification (Youden threshold), ABRF-1 for regression."""
    return Settings(family="erf" if task == "classification" else "abrf1_qp")


@dataclass(frozen=True)
class Demo:
    """A bundled table and the settings Home trains on it with one click, and why."""

    dataset: str
    settings: Settings
    why: str


# Friedman 2 at the ABRF paper's size (100 rows): y = (x1² + (x2·x3 − 1/(x2·x4))²)^½ ranges
# over two orders of magnitude across the input box; with 75 training rows and leaves of at
# least 10 rows each tree's leaf is wide, and the trees whose leaf is centred near the row
# predict it far better than the rest. docs/reproduction.md: attention chosen on 20 of 20
# splits, +0.13 R² over its own forest (ABRF-2).
ATTENTION_DEMO = Demo(
    dataset="friedman2",
    settings=Settings(family="abrf2", n_estimators=100, min_samples_leaf=10, random_state=0),
    why="Friedman 2 at the ABRF paper's size (100 rows): the target spans two orders of "
        "magnitude and each tree's leaves are wide, so the trees whose leaf is centred near a "
        "row predict it much better than the others. Attention finds them: on held-out rows "
        "it beats the same trees averaged equally, which a plain average cannot do.")
