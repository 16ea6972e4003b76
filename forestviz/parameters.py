"""The numbers a training takes, each written once: its name (the field of
:class:`forestviz.app.families.Settings` and the estimator parameter it sets), default, the
values it may take, how the Train page asks for it, its command-line option and how the report
names it.

Two ranges, on purpose: a :class:`Domain` is every value that makes sense (what the estimators'
own checks in :mod:`forestviz.trees.checks`, a model file's settings and the command line
accept); a :class:`Widget` is the slice the Train page offers, with its step (a slider from 10
to the server's cap on trees, while any count of at least one is a forest). The model families
that read these numbers are in :mod:`forestviz.registry`. Like :mod:`forestviz.names`, this
module imports nothing of forestviz.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

from forestviz.numbers import bound_text


@dataclass(frozen=True)
class Domain:
    """The values a parameter may take: ints (``integer``) or real numbers (not bools) between
    ``low`` and ``high``, each bound included unless ``low_open`` / ``high_open``."""

    low: float
    high: float = math.inf
    integer: bool = False
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, value) -> bool:
        kind = Integral if self.integer else Real
        if not isinstance(value, kind) or isinstance(value, bool):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open or self.high == math.inf else (
            value <= self.high)
        return bool(above and below)

    def text(self, bound: float) -> str:
        """A bound as a message writes it: whole for an int domain (4294967295), else short."""
        return str(int(bound)) if self.integer else bound_text(bound)

    @property
    def words(self) -> str:
        """The domain as an error message says it: "an int >= 1", "a float in (0, 1]"."""
        kind = "an int" if self.integer else "a float"
        if self.high == math.inf:
            return f"{kind} {'>' if self.low_open else '>='} {self.text(self.low)}"
        opening = "(" if self.low_open else "["
        closing = ")" if self.high_open else "]"
        return f"{kind} in {opening}{self.text(self.low)}, {self.text(self.high)}{closing}"


@dataclass(frozen=True)
class Widget:
    """How the Train page asks for a parameter: a ``"slider"`` or a ``"number"`` input from
    ``low`` to ``high`` (or to the server's cap ``cap``, a field of
    :class:`forestviz.app.limits.Limits`), in the page's units (the value × ``scale``);
    ``none_as`` shows None as that number and reads it back as None."""

    kind: str
    key: str
    label: str
    low: float
    high: float | None = None
    step: float | None = None
    cap: str | None = None
    scale: int = 1
    none_as: int | None = None
    format: str | None = None
    help: str | None = None

    def shown(self, value):
        """``value`` in the page's units, of the type of ``low`` (int or float)."""
        if value is None:
            return self.none_as
        scaled = value * self.scale
        return round(scaled) if isinstance(self.low, int) else float(scaled)


@dataclass(frozen=True)
class Parameter:
    """A training parameter: ``name`` (its Settings field and, but for the held-out share, the
    estimator parameter it sets), ``default``, ``domain`` (None is allowed too when
    ``optional``), ``report`` (the report's name for the estimator parameter), ``widget`` (the
    Train page's input) and, when the command line sets it, ``option`` (its flag) with
    ``option_help``."""

    name: str
    default: int | float | None
    domain: Domain
    report: str | None
    widget: Widget
    optional: bool = False
    option: str | None = None
    option_help: str | None = None

    def accepts(self, value) -> bool:
        """Whether ``value`` is one this parameter may take."""
        return (self.optional and value is None) or value in self.domain

    def read(self, shown):
        """The parameter's value of the page's ``shown`` number (:meth:`Widget.shown`)."""
        if self.widget.none_as is not None and shown == self.widget.none_as:
            return None
        value = shown / self.widget.scale if self.widget.scale != 1 else shown
        return int(value) if self.domain.integer else float(value)


COUNT = Domain(1, integer=True)

TREES = Parameter(
    "n_estimators", default=100, domain=COUNT, report="trees",
    widget=Widget("slider", "train_trees", "Number of trees", 10, step=10, cap="max_trees"),
    option="--trees", option_help="number of trees")
TEST_SIZE = Parameter(
    "test_size", default=0.25, domain=Domain(0, 1, low_open=True, high_open=True), report=None,
    widget=Widget("slider", "train_test_size", "Held-out rows (%)", 10, 50, step=5, scale=100,
                  help="Rows kept aside (stratified by class) to compare models."))
SEED = Parameter(
    "random_state", default=0, domain=Domain(0, 2**32 - 1, integer=True), report="random seed",
    widget=Widget("number", "train_seed", "Random seed", 0, 2**31 - 1),
    option="--seed", option_help="random seed of the split and the model")
MIN_LEAF = Parameter(
    "min_samples_leaf", default=5, domain=COUNT, report="minimum training rows per leaf",
    widget=Widget("number", "train_min_leaf", "Minimum rows per leaf", 1, 100))
MAX_DEPTH = Parameter(
    "max_depth", default=None, domain=COUNT, report="maximum depth",
    widget=Widget("number", "train_depth", "Maximum tree depth (0 = the family's default)", 0,
                  cap="max_depth", none_as=0),
    optional=True)
EPS = Parameter(
    "eps", default=0.5, domain=Domain(0, 1), report="contamination ε",
    widget=Widget("slider", "train_eps", "Contamination ε", 0.0, 1.0, step=0.05))
TAU = Parameter(
    "tau", default=5.0, domain=Domain(0, low_open=True), report="temperature τ",
    widget=Widget("number", "train_tau", "Temperature τ", 0.001, 1000.0, format="%.3f",
                  help="In squared standardised distance units."))
DISCOUNT = Parameter(
    "discount", default=0.9, domain=Domain(0, 1, low_open=True), report="discount γ",
    widget=Widget("slider", "train_discount", "AGBoost discount γ", 0.05, 1.0, step=0.05))
ROUNDS = Parameter(
    "n_iterations", default=5, domain=COUNT, report="rounds",
    widget=Widget("number", "train_iterations", "Reweighting rounds", 1, 50))
RATE = Parameter(
    "learning_rate", default=0.2, domain=Domain(0), report="learning rate",
    widget=Widget("number", "train_rate", "Learning rate λ", 0.0, 1.0, step=0.05))
NEIGHBOURS = Parameter(
    "n_neighbors", default=10, domain=COUNT, report="nearest rows M",
    widget=Widget("number", "train_neighbours", "Neighbours M", 1, 100))
TOP_TREES = Parameter(
    "top_trees", default=10, domain=COUNT, report="top trees L",
    widget=Widget("number", "train_top_trees", "Top trees L", 1, 100))

PARAMETERS = (TREES, TEST_SIZE, SEED, MIN_LEAF, MAX_DEPTH, EPS, TAU, DISCOUNT, ROUNDS, RATE,
              NEIGHBOURS, TOP_TREES)
"""Every training number, in the order of the Settings fields."""


@dataclass(frozen=True)
class Section:
    """A row of the Train page's "Advanced" inputs, under its ``caption``."""

    caption: str | None
    parameters: tuple[Parameter, ...]


SECTIONS = (
    Section(None, (MIN_LEAF, MAX_DEPTH, SEED)),
    Section("Attention models (used when auto-tune is off): α = (1 − ε)·softmax(−d/2τ) + ε·w.",
            (EPS, TAU, DISCOUNT)),
    Section("Enhanced RF (Algorithm 1 and model weighting).",
            (ROUNDS, RATE, NEIGHBOURS, TOP_TREES)),
)
"""The Train page's advanced inputs: the trees' shape and seed, then one row per kind of model
(a family with parameters of its own adds its row here)."""

REPORT_NAMES = {
    TREES.name: TREES.report, MAX_DEPTH.name: MAX_DEPTH.report,
    MIN_LEAF.name: MIN_LEAF.report, "max_features": "features tried per split",
    "base": "base trees", "mode": "attention", "loss": "loss", EPS.name: EPS.report,
    TAU.name: TAU.report, DISCOUNT.name: DISCOUNT.report, RATE.name: RATE.report,
    ROUNDS.name: ROUNDS.report, NEIGHBOURS.name: NEIGHBOURS.report,
    TOP_TREES.name: TOP_TREES.report,
    "validation_fraction": "share of the training rows held out to tune it",
    SEED.name: SEED.report, "distance": "distance", "early_stopping": "early stopping",
}
"""How a report names an estimator's parameters, in the order it lists them (the training
numbers above, and the parameters the families set from the family itself)."""
