"""Family facts have one home each (issue 40, item 3).

What a fitted model is (its name, its plain base model, whether its trees are boosting
corrections, its loss, whether it has ε and τ to set, its decision threshold) is its own
``describe()`` (:mod:`forestviz.trees.description`); what the Train page offers before a model
exists (label, bases, cleaning) is its registry entry (:mod:`forestviz.registry`); a search
table is read through :class:`~forestviz.trees.diagnostics.Search`'s named accessors.

Behaviour: every registered family, built as the app builds it, says what its fitted estimator
does. Static: no module above the model packages sniffs a model's capabilities (a fitted
attribute by ``getattr``, ``get_params()``, the search table's columns, the offset as "is
boosting") or writes a model's name of its own.
"""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_classification, make_friedman1

from forestviz.explain.row.explanation import explain
from forestviz.registry import CLASSIFICATION, FAMILIES
from forestviz.settings import Settings
from forestviz.trees.decision import decide
from forestviz.trees.diagnostics import Search
from forestviz.trees.ensemble import as_ensemble

REPO = Path(__file__).resolve().parents[1]
TREES = 8


def _cases():
    """(family key, base, task) of every registered family and task; every base of the
    family whose name depends on it (the plain forests)."""
    for key, family in FAMILIES.items():
        bases = list(family.bases or [None])
        for task in sorted(family.tasks):
            for base in bases if key == "vanilla" else bases[:1]:
                yield key, base, task


def _data(task):
    if task == CLASSIFICATION:
        return make_classification(160, 5, n_informative=3, random_state=1)
    X, y = make_friedman1(160, n_features=5, random_state=1)
    return X, y + 10.0  # a mean far from 0: an offset F_0 of 0 would be a coincidence


@pytest.fixture(scope="module", params=list(_cases()), ids=lambda case: "-".join(
    str(part) for part in case))
def fitted(request):
    key, base, task = request.param
    settings = Settings(family=key, n_estimators=TREES, random_state=0,
                        **({} if base is None else {"base": base}))
    X, y = _data(task)
    model = FAMILIES[key].build(settings, task == CLASSIFICATION).fit(X, y)
    return key, model, X, y


@pytest.mark.slow
def test_boosting_is_an_offset_the_trees_add_to(fitted):
    """``boosting``: the prediction is an offset F_0 plus the trees' weighted corrections; a
    forest's trees each predict the outcome (offset 0). The explanation carries the fact."""
    _, model, X, y = fitted
    ensemble = as_ensemble(model)
    said = ensemble.describe()
    assert said.boosting == (ensemble.offset() != 0.0)
    out = ensemble.ensemble_outputs(X[:5])
    if said.boosting:  # the trees' weighted terms alone are far from the outcome
        assert abs(np.mean(out.predictions() - out.offset)) < abs(out.offset)
    assert explain(model, X[0], X_train=X, y_train=y).boosting == said.boosting


@pytest.mark.slow
def test_a_family_cleans_exactly_when_its_fit_has_reweighting_rounds(fitted):
    key, model, *_ = fitted
    assert FAMILIES[key].cleans == (as_ensemble(model).diagnostics().rounds is not None)


@pytest.mark.slow
def test_the_threshold_is_the_rule_predict_decides_by(fitted):
    """A binary classifier's ``threshold`` is the cut its own ``predict`` uses; the explanation
    states that rule; a regression has none."""
    _, model, X, y = fitted
    said = as_ensemble(model).describe()
    if not is_classifier(model):
        assert said.threshold is None and said.rule is None
        return
    assert said.threshold is not None and 0.0 <= said.threshold <= 1.0  # Youden's J, 2 classes
    np.testing.assert_array_equal(
        model.predict(X), decide(model.predict_proba(X), model.classes_, said.threshold))
    e = explain(model, X[0], X_train=X, y_train=y)
    assert e.threshold == said.threshold and f"({said.rule})" in e.decision_rule


@pytest.mark.slow
def test_loss_and_attention_are_the_estimators_own(fitted):
    """``loss`` is the loss the estimator was built for (squared error unless it takes one);
    ``attention``: ε and τ are parameters a refit sets (the attention lens's refit)."""
    key, model, X, y = fitted
    said = as_ensemble(model).describe()
    params = model.get_params()
    assert said.loss == params.get("loss", "l2")
    assert said.loss == ("l1" if key == "abrf1_lp" else "l2")
    assert said.attention == ({"eps", "tau"} <= params.keys())
    if said.attention:
        refit = clone(model).set_params(eps=0.5, tau=2.0).fit(X, y)
        chosen = as_ensemble(refit).diagnostics().search.chosen()
        # Softmax and ABRF-2 have no contamination part: their ε stays 0
        assert chosen.is_base or (chosen.tau == 2.0 and chosen.eps in (0.5, 0.0))


@pytest.mark.slow
def test_the_name_shown_is_the_models_own(fitted):
    """The page's "Model:" line and the record's model row print the explanation's name: the
    model's ``describe().name``, with its plain base model when the search kept it."""
    _, model, X, y = fitted
    ensemble = as_ensemble(model)
    said = ensemble.describe()
    shown = explain(model, X[0], X_train=X, y_train=y).model_name
    if ensemble.diagnostics().selected_base:
        assert shown.startswith(f"{said.name}, which kept its plain {said.base} ")
        assert said.plain == f"the plain {said.base}"
    else:
        assert shown == said.name


# ----------------------------------------------------------------- no second home
HOMES = ("forestviz/attention", "forestviz/boosting", "forestviz/enhanced", "forestviz/trees",
         "forestviz/selection", "forestviz/persistence", "forestviz/registry.py")
"""The model packages and the registry: the only modules that may read a model's own
attributes and write its facts."""
FITTED = {"threshold_", "validation_indices_", "search_results_", "selected_base_", "eps_",
          "tau_", "discount_", "history_", "offset", "loss", "mode", "eps", "tau",
          "predict_proba", "rounds"}
"""Attributes whose presence or value said what a model is, before ``describe()``."""


def _callers() -> list[Path]:
    found = [p for folder in ("forestviz", "ui", "pages") for p in (REPO / folder).rglob("*.py")]
    return [p for p in [*found, REPO / "app.py"]
            if not str(p.relative_to(REPO)).startswith(HOMES)]


def _is_search_table(node) -> bool:
    """``search.table`` or ``<x>.search.table``."""
    return isinstance(node, ast.Attribute) and node.attr == "table" and (
        (isinstance(node.value, ast.Name) and node.value.id == "search")
        or (isinstance(node.value, ast.Attribute) and node.value.attr == "search"))


def _is_offset(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "offset"


def _truth_of_offset(node) -> bool:
    """``if x.offset``, ``not x.offset``, ``a or x.offset``: the offset read as "is boosting"."""
    if isinstance(node, ast.BoolOp):
        return any(_is_offset(value) for value in node.values)
    test = getattr(node, "test", None) if isinstance(node, ast.If | ast.IfExp | ast.While) else None
    if isinstance(test, ast.UnaryOp):
        test = test.operand
    return _is_offset(test)


def sniffs(tree: ast.AST) -> list[str]:
    """Each capability probe in a module's syntax tree, as "line: what"."""
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if (name in ("getattr", "hasattr") and len(node.args) > 1
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value in FITTED):
                found.append(f"{line}: {name}(…, {node.args[1].value!r})")
            if (isinstance(node.func, ast.Attribute) and node.func.attr == "get_params"
                    and not node.args and not node.keywords):
                found.append(f"{line}: get_params()")
            if name == "bool" and node.args and _is_offset(node.args[0]):
                found.append(f"{line}: bool(….offset)")
        elif isinstance(node, ast.Compare) and any(
                isinstance(op, ast.In | ast.NotIn) for op in node.ops) and any(
                _is_search_table(side) for side in node.comparators):
            found.append(f"{line}: a column name in search.table")
        elif isinstance(node, ast.Subscript) and _is_search_table(node.value):
            found.append(f"{line}: search.table[…]")
        elif _truth_of_offset(node):
            found.append(f"{line}: the offset as a truth value")
    return found


def test_the_sniff_check_finds_the_old_probes():
    """The check itself, on the probes the code had before the facts moved."""
    old = ast.parse(
        'threshold = getattr(model, "threshold_", None)\n'
        'held = getattr(model, "validation_indices_", True) is not None\n'
        'loss = model.estimator.get_params().get("loss", "l2")\n'
        'ok = "eps" not in model.get_params()\n'
        'boosting = bool(e.offset)\n'
        'says = "V" if e.offset else "tree"\n'
        'if s is None or e.offset:\n    pass\n'
        'tuned = "tau" in search.table\n'
        'losses = found.search.table["validation_loss"]\n')
    assert len(sniffs(old)) == 9
    assert sniffs(ast.parse('names = getattr(model, "feature_names_in_", None)\n'
                            'x = e.offset + 1\nparams = model.get_params(deep=False)\n')) == []


def test_no_caller_sniffs_what_a_model_is():
    found = {str(p.relative_to(REPO)): sniffs(ast.parse(p.read_text(encoding="utf-8")))
             for p in _callers()}
    assert {path: said for path, said in found.items() if said} == {}


def _constants(path: Path) -> set[str]:
    return {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def _everywhere() -> dict[str, set[str]]:
    return {str(p.relative_to(REPO)): _constants(p) for folder in ("forestviz", "ui", "pages")
            for p in (REPO / folder).rglob("*.py")}


@pytest.mark.slow
def test_a_models_name_has_one_home(fitted):
    """A model's name is written once, in the module that describes it: no table of names
    keyed by class name elsewhere."""
    said = as_ensemble(fitted[1]).describe()
    writers = {path for path, constants in _everywhere().items() if said.name in constants}
    assert len(writers) == 1 and next(iter(writers)).startswith(HOMES[:4]), writers


def test_a_familys_label_is_written_only_in_the_registry():
    labels = {family.label for family in FAMILIES.values()}
    assert {path for path, constants in _everywhere().items()
            if constants & labels} == {"forestviz/registry.py"}


# ----------------------------------------------------------------- the search's accessors
@st.composite
def search_tables(draw):
    """A search table as the searches write it: base rows first, then attention settings, one
    selected; losses NaN (set by hand) or drawn, with ties."""
    n_bases, n_grid = draw(st.integers(1, 2)), draw(st.integers(1, 6))
    n = n_bases + n_grid
    scored = draw(st.booleans())
    loss = st.sampled_from([0.1, 0.2, 0.3]) if scored else st.just(np.nan)
    grid = [draw(st.sampled_from([0.0, 0.5, 1.0])) for _ in range(n_grid)]
    return pd.DataFrame({
        "candidate": ["base", "base (leaf means)"][:n_bases] + ["attention"] * n_grid,
        "eps": [np.nan] * n_bases + grid, "tau": [np.nan] * n_bases + [1.0] * n_grid,
        "validation_loss": draw(st.lists(loss, min_size=n, max_size=n)),
        "standard_error": 0.01, "difference_to_best": 0.0, "difference_se": 0.0, "n_rows": 9,
        "selected": np.arange(n) == draw(st.integers(0, n - 1))})


@given(search_tables())
@example(pd.DataFrame({"candidate": ["base", "attention", "attention"], "eps": [np.nan, 0, 1],
                       "tau": [np.nan, 1.0, 1.0], "validation_loss": [0.2, 0.1, 0.1],
                       "standard_error": 0.01, "difference_to_best": 0.0,
                       "difference_se": 0.0, "n_rows": 9,
                       "selected": [False, False, True]}))  # a tie: the first is the best
@pytest.mark.slow
def test_the_searchs_accessors_read_its_table(table):
    """Each accessor against pandas on the same table: the chosen row, the base row, the
    lowest loss among the settings and among the base models (the first of a tie), whether
    anything was scored."""
    search = Search(table, bool(table["selected"].iloc[0]))
    assert search.chosen().position == int(np.flatnonzero(table["selected"])[0])
    assert search.base().position == 0 and search.by_settings and not search.by_rounds
    assert search.scored == bool(table["validation_loss"].notna().any())
    for base, rows in ((False, table[table["candidate"] == "attention"]),
                       (True, table[table["candidate"] != "attention"])):
        best = search.best(base=base)
        if search.scored and rows["validation_loss"].notna().any():
            assert best.position == rows["validation_loss"].idxmin()
        assert best.validation_loss == pytest.approx(
            rows["validation_loss"].min(), nan_ok=True)
    chosen = table.loc[table["selected"]].iloc[0]
    assert search.chosen().eps == (None if np.isnan(chosen["eps"]) else chosen["eps"])
