"""The Train page's settings, checked against the model-family registry without importing
any model. Like :mod:`forestviz.parameters` and :mod:`forestviz.registry`, this module sits
under every package: a model file (:mod:`forestviz.persistence.model_file`) holds them, the
app trains with them, the command line reads them from its flags. The families themselves, and
the ranges and defaults of every number, are in :mod:`forestviz.registry` and
:mod:`forestviz.parameters`."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from forestviz import parameters as p
from forestviz.registry import FAMILIES

DEFAULT_BASE = "random"


@dataclass(frozen=True)
class Settings:
    """Everything the Train page asks; defaults train in seconds on the 632-row Pima table.
    One field per :data:`forestviz.parameters.PARAMETERS` entry besides the family, the base
    ensemble and auto-tune; a value outside its parameter's domain raises ValueError."""

    family: str = "erf"
    base: str = DEFAULT_BASE  # one of the family's bases (forestviz.registry.Family.bases)
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
    the family is known and the base one it offers (the default for a family that offers
    none), auto-tune a bool, every number in its parameter's domain."""
    if not (isinstance(values["family"], str) and values["family"] in FAMILIES):
        return f"family must be one of {sorted(FAMILIES)}, got {values['family']!r}"
    bases = FAMILIES[values["family"]].bases or {DEFAULT_BASE: ""}  # none offered: the default
    if not (isinstance(values["base"], str) and values["base"] in bases):
        return f"base must be one of {sorted(bases)}, got {values['base']!r}"
    if not isinstance(values["auto_tune"], bool):
        return f"auto_tune must be True or False, got {values['auto_tune']!r}"
    for parameter in p.PARAMETERS:
        value = values[parameter.name]
        if not parameter.accepts(value):
            optional = " or None" if parameter.optional else ""
            return f"{parameter.name} must be {parameter.domain.words}{optional}, got {value!r}"
    return None
