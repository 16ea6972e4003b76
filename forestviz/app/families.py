"""The Train page's settings, checked against the model-family registry without importing
any model: the first page reads these (the Home button's default model), and the model
packages, scikit-learn and the solvers are imported only once something is trained
(``docs/performance.md``, "Cold start and page speed"). The families themselves, and the
ranges and defaults of every number, are in :mod:`forestviz.registry` and
:mod:`forestviz.parameters`."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from forestviz import parameters as p
from forestviz.registry import FAMILIES, FOREST_BASES


@dataclass(frozen=True)
class Settings:
    """Everything the Train page asks; defaults train in seconds on the 632-row Pima table.
    One field per :data:`forestviz.parameters.PARAMETERS` entry besides the family, the base
    ensemble and auto-tune; a value outside its parameter's domain raises ValueError."""

    family: str = "erf"
    base: str = "random"
    n_estimators: int = p.TREES.default
    auto_tune: bool = True
    test_size: float = p.TEST_SIZE.default
    random_state: int = p.SEED.default
    min_samples_leaf: int = p.MIN_LEAF.default
    max_depth: int | None = p.MAX_DEPTH.default  # None: the family's default (ERF: 6)
    eps: float = p.EPS.default  # ABRF / AGBoost contamination ε when not auto-tuned
    tau: float = p.TAU.default  # ABRF / AGBoost temperature τ (squared standardised distance)
    discount: float = p.DISCOUNT.default  # AGBoost discount γ when not auto-tuned
    n_iterations: int = p.ROUNDS.default  # ERF Algorithm 1 rounds
    learning_rate: float = p.RATE.default  # ERF λ
    n_neighbors: int = p.NEIGHBOURS.default  # ERF M
    top_trees: int = p.TOP_TREES.default  # ERF L

    def __post_init__(self) -> None:
        problem = settings_problem(asdict(self))
        if problem is not None:
            raise ValueError(problem)


def settings_problem(values: dict) -> str | None:
    """What is wrong with Settings ``values`` (field → value) in words, None when nothing is:
    the family and base are known, auto-tune a bool, every number in its parameter's domain."""
    if not (isinstance(values["family"], str) and values["family"] in FAMILIES):
        return f"family must be one of {sorted(FAMILIES)}, got {values['family']!r}"
    if not (isinstance(values["base"], str) and values["base"] in FOREST_BASES):
        return f"base must be one of {sorted(FOREST_BASES)}, got {values['base']!r}"
    if not isinstance(values["auto_tune"], bool):
        return f"auto_tune must be True or False, got {values['auto_tune']!r}"
    for parameter in p.PARAMETERS:
        value = values[parameter.name]
        if not parameter.accepts(value):
            optional = " or None" if parameter.optional else ""
            return f"{parameter.name} must be {parameter.domain.words}{optional}, got {value!r}"
    return None


def default_settings(task: str) -> Settings:
    """Quick defaults: ERF for classification (Youden threshold), ABRF-1 for regression."""
    return Settings(family="erf" if task == "classification" else "abrf1_qp")


# Home's "Train the default model and explain a row" on the bundled table: seconds from the
# click to the explanation's first screen (its summary) in Chromium, on a quiet server (load
# ≤ 2) and on a busy one (load 5–8), as measured (bench/home_first_screen.py,
# docs/performance.md, "Home's promise"); Home's caption says them
DEFAULT_FIRST_SCREEN_SECONDS = (7, 15)


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
