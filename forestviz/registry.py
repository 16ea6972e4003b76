"""The model families, one :class:`Family` entry each: what the Train page lists, the command
line accepts, the app builds and a model file may hold.

Adding a family is its package (``forestviz/<paper>/``, on :mod:`forestviz.trees`) and one
entry of :data:`FAMILIES`; a training number it needs and no family has yet is one
:class:`~forestviz.parameters.Parameter` (with its Settings field). The estimators are imported
only when one is built (``build``), so the first page, the command line's argument parsing and
the model-file checks read this module without loading a model package, scikit-learn or the
solvers (``docs/performance.md``, "Cold start and page speed").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

CLASSIFICATION = "classification"
REGRESSION = "regression"
BOTH = frozenset({CLASSIFICATION, REGRESSION})
FOREST_BASES = {"random": "Random Forest", "extra": "Extra Trees"}
BOOSTING_BASES = {"random": "Gradient-boosted trees", "extra": "Extra-trees boosting"}


ABRF = "Utkin & Konstantinov, \"Attention-based random forest and contamination model\""
ERF = "Bertsimas & Stoumpou, \"Binary classification: is boosting stronger than bagging?\""
AGB = "\"AGBoost: attention-based modification of gradient boosting machine\""
"""The papers the families come from, as the glossary cites them."""


@dataclass(frozen=True)
class Family:
    """A model family.

    ``key``: its name in settings and model files; ``label``: how the pages and the report
    name it; ``tasks``: the targets it learns; ``option`` and ``option_words``: its name in the
    command line's ``--model`` and its words in that option's help (None: not offered there);
    ``bases``: the base ensembles the Train page offers (Settings ``base`` → label), or None
    with ``base_note`` saying why there is no choice; ``tunes``: whether it has a search that
    auto-tune turns on, and ``tuning_note`` what the page says when it is on;
    ``cleans``: whether its fit reweighs the training rows in rounds, so that the Forest page
    shows the rows it found hardest and offers its cleaning rounds (ERF Algorithm 2);
    ``build``: ``(settings, classify) → unfitted estimator``, importing its package when
    called; ``saves``: the classes its fitted models write to a model file (skops loader →
    full class names, :data:`forestviz.persistence.files.TRUSTED_NODES`); ``plain``, ``means``
    and ``source``: its glossary entry (:func:`forestviz.glossary.families`): the plain name
    the first screen uses, what it does, and the paper and equations it comes from."""

    key: str
    label: str
    tasks: frozenset[str]
    build: Callable[[object, bool], object]
    saves: Mapping[str, tuple[str, ...]]
    plain: str
    means: str
    source: str
    option: str | None = None
    option_words: str | None = None
    bases: Mapping[str, str] | None = None
    base_note: str | None = None
    tunes: bool = True
    tuning_note: str | None = None
    cleans: bool = False


def _depth(settings, default: int | None) -> int | None:
    return default if settings.max_depth is None else settings.max_depth


def _tuned(settings, *names: str) -> dict:
    """The searched parameters fixed to the settings' values when auto-tune is off."""
    return {} if settings.auto_tune else {name: getattr(settings, name) for name in names}


def _vanilla(settings, classify: bool):
    from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor

    from forestviz.trees.plain import DecidedExtraTreesClassifier, DecidedRandomForestClassifier

    forest = {("random", True): DecidedRandomForestClassifier,
              ("random", False): RandomForestRegressor,
              ("extra", True): DecidedExtraTreesClassifier,
              ("extra", False): ExtraTreesRegressor}
    return forest[settings.base, classify](
        settings.n_estimators, min_samples_leaf=settings.min_samples_leaf,
        max_depth=settings.max_depth, random_state=settings.random_state)


def _erf(settings, classify: bool):
    from forestviz.enhanced.estimator import EnhancedForestClassifier

    return EnhancedForestClassifier(
        settings.n_estimators, max_depth=_depth(settings, 6),
        n_iterations=settings.n_iterations, early_stopping=settings.auto_tune,
        learning_rate=settings.learning_rate, n_neighbors=settings.n_neighbors,
        top_trees=settings.top_trees, random_state=settings.random_state)


def _agboost(settings, classify: bool):
    from forestviz.boosting.estimator import AttentionBoostingRegressor

    return AttentionBoostingRegressor(
        settings.n_estimators, base="gbm" if settings.base == "random" else "extra",
        max_depth=_depth(settings, 3), min_samples_leaf=settings.min_samples_leaf,
        random_state=settings.random_state, **_tuned(settings, "eps", "tau", "discount"))


def _attention(mode: str, loss: str) -> Callable[[object, bool], object]:
    """The builder of an attention forest of ``mode`` and ``loss``."""

    def build(settings, classify: bool):
        from forestviz.attention.estimators import (
            AttentionForestClassifier,
            AttentionForestRegressor,
        )

        model = AttentionForestClassifier if classify else AttentionForestRegressor
        return model(settings.n_estimators, base=settings.base, mode=mode, loss=loss,
                     max_depth=settings.max_depth, min_samples_leaf=settings.min_samples_leaf,
                     random_state=settings.random_state, **_tuned(settings, "eps", "tau"))

    return build


_TREES = ("sklearn.tree._classes.DecisionTreeClassifier",
          "sklearn.tree._classes.DecisionTreeRegressor",
          "sklearn.tree._classes.ExtraTreeClassifier",
          "sklearn.tree._classes.ExtraTreeRegressor")
_FORESTS = ("sklearn.ensemble._forest.ExtraTreesClassifier",
            "sklearn.ensemble._forest.ExtraTreesRegressor",
            "sklearn.ensemble._forest.RandomForestClassifier",
            "sklearn.ensemble._forest.RandomForestRegressor", *_TREES)
_ATTENTION_SAVES = {"ObjectNode": (
    "forestviz.attention.estimators.AttentionForestClassifier",
    "forestviz.attention.estimators.AttentionForestRegressor",
    "forestviz.trees.leaf_stats.LeafStats", *_FORESTS)}


def _attention_family(key: str, label: str, mode: str, loss: str, words: tuple[str, str, str],
                      option: str | None = None, option_words: str = "attention RF",
                      tuning_note: str | None = None):
    plain, means, source = words
    return Family(key, label, BOTH, _attention(mode, loss), _ATTENTION_SAVES, plain=plain,
                  means=means, source=source, option=option,
                  option_words=option_words if option else None, bases=FOREST_BASES,
                  tuning_note=tuning_note)


FAMILIES: dict[str, Family] = {family.key: family for family in (
    Family("vanilla", "Vanilla RF (plain average of the trees)", BOTH, _vanilla,
           {"ObjectNode": (*_FORESTS, "forestviz.trees.plain.DecidedExtraTreesClassifier",
                           "forestviz.trees.plain.DecidedRandomForestClassifier")},
           plain="plain random forest",
           means="every tree counts the same: the prediction is the average of the trees "
                 "(scikit-learn's random forest or extra trees).",
           source="Breiman, \"Random Forests\" (2001)",
           option="rf", option_words="vanilla random forest",
           bases=FOREST_BASES, tunes=False),
    Family("erf", "Enhanced RF (ERF)", frozenset({CLASSIFICATION}), _erf,
           {"ObjectNode": ("forestviz.enhanced.estimator.EnhancedForestClassifier",
                           "forestviz.enhanced.neighbors.TrainingNeighbors",
                           "forestviz.trees.leaf_values.LeafTable",
                           "sklearn.tree._classes.DecisionTreeClassifier")},
           plain="Enhanced RF",
           means="a forest retrained over rounds that give more weight to the training rows it "
                 "misjudges, deciding by Youden's J; each row's tree scores S show which trees "
                 "explain it.",
           source=ERF, option="erf", option_words="Enhanced RF",
           base_note="The Enhanced RF grows its own bootstrap forest of depth-limited trees.",
           cleans=True),
    _attention_family("abrf1_qp", "Attention RF: ABRF-1, QP (L2 loss)", "abrf1", "l2",
                      ("attention forest, ABRF-1", "the tree weights α = (1 − ε)·D + ε·w, with "
                       "w trained by a quadratic program (squared error).",
                       f"{ABRF}, eqs 13–21"), option="abrf1"),
    _attention_family("abrf1_lp", "Attention RF: ABRF-1, LP (L1 loss)", "abrf1", "l1",
                      ("attention forest, ABRF-1 (LP)", "as ABRF-1, with w trained by a linear "
                       "program (absolute error).", f"{ABRF}, eq 22"),
                      tuning_note="The LP variant solves one linear program per grid point: "
                                  "several times slower than the QP."),
    _attention_family("abrf2", "Attention RF: ABRF-2 (trained temperatures and feature "
                      "weights)", "abrf2", "l2",
                      ("attention forest, ABRF-2", "Softmax attention with a trained "
                       "temperature per tree and a trained weight per column (ε = 0).",
                       f"{ABRF}, eq 23"), option="abrf2"),
    _attention_family("abrf3", "Attention RF: ABRF-3 (ABRF-1 and ABRF-2 together)", "abrf3",
                      "l2", ("attention forest, ABRF-3", "ABRF-2's attention mixed with trained "
                             "weights w by the contamination ε.", f"{ABRF}, eq 24"),
                      option="abrf3"),
    _attention_family("softmax", "Attention RF: Softmax (no training of the weights)",
                      "softmax", "l2",
                      ("attention forest without training", "the Softmax weights D alone: "
                       "nothing is trained (ε = 0).", f"{ABRF}, eq 14"), option="softmax",
                      option_words="attention RF without trained weights"),
    Family("agboost", "AGBoost (attention over gradient-boosted trees)",
           frozenset({REGRESSION}), _agboost,
           {"LossNode": ("sklearn._loss._loss.CyHalfSquaredError",),
            "ObjectNode": ("forestviz.boosting.estimator.AttentionBoostingRegressor",
                           "forestviz.trees.leaf_stats.LeafStats",
                           "sklearn._loss.link.IdentityLink", "sklearn._loss.link.Interval",
                           "sklearn._loss.loss.HalfSquaredError",
                           "sklearn.dummy.DummyRegressor",
                           "sklearn.ensemble._gb.GradientBoostingRegressor",
                           "sklearn.tree._classes.DecisionTreeRegressor",
                           "sklearn.tree._classes.ExtraTreeRegressor"),
            "RandomStateNode": ("numpy.random.mtrand.RandomState",)},
           plain="attention over boosting",
           means="gradient-boosted trees whose trees get per-row attention weights, discounted "
                 "by γ for later trees (numbers only).",
           source=AGB, option="agboost", option_words="attention boosting (numbers only)",
           bases=BOOSTING_BASES),
)}
"""Every model family, in the order the Train page lists them."""
AUTO_TUNE_HELP = (
    "Attention models: search ε and τ (and γ for AGBoost) on held-out training rows. "
    "Enhanced RF: stop the reweighting rounds when the validation AUC drops.")
"""What auto-tune does in each family that ``tunes``, as the Train page's toggle says it."""


def families_for(task: str) -> list[str]:
    """The keys of the families that can learn a ``task`` ("classification" / "regression")."""
    return [key for key, family in FAMILIES.items() if task in family.tasks]


def options() -> dict[str, str]:
    """The command line's ``--model`` names → family keys."""
    return {f.option: key for key, f in FAMILIES.items() if f.option is not None}


def saved_classes() -> dict[str, tuple[str, ...]]:
    """Every (skops loader → class names, sorted) the families' models write."""
    found: dict[str, set[str]] = {}
    for family in FAMILIES.values():
        for loader, names in family.saves.items():
            found.setdefault(loader, set()).update(names)
    return {loader: tuple(sorted(names)) for loader, names in sorted(found.items())}

