"""The model-family registry (forestviz.registry, forestviz.parameters) is what the Train page,
the command line, Settings, model files and the estimators' own checks read: each agrees with
it, and a value is refused exactly when it is outside its parameter's domain."""

import argparse
import dataclasses
import math
import re

import numpy as np
import pytest

import forestviz
from forestviz import parameters as p
from forestviz.app import workflow
from forestviz.app.families import Settings
from forestviz.app.limits import Limits
from forestviz.attention.estimators import AttentionForestClassifier, AttentionForestRegressor
from forestviz.boosting.estimator import AttentionBoostingRegressor
from forestviz.cli.main import command_families, parser, whole_number
from forestviz.enhanced.estimator import EnhancedForestClassifier
from forestviz.io.csv_input import DataError
from forestviz.parameters import Domain
from forestviz.persistence.files import TRUSTED_NODES
from forestviz.registry import CLASSIFICATION, FAMILIES, REGRESSION, families_for, options
from tests.apptest_helpers import app, choose_bundled

TASK_TABLES = {CLASSIFICATION: "pima_diabetes", REGRESSION: "diabetes"}


def probes(domain: Domain) -> list:
    """Values on both sides of each bound of ``domain`` and values of the wrong kind."""
    step = 1 if domain.integer else 1e-9
    near = [domain.low - step, domain.low, domain.low + step]
    if math.isfinite(domain.high):
        near += [domain.high - step, domain.high, domain.high + step]
    else:
        near += [10**6, math.inf]
    kind = int if domain.integer else float
    return [kind(v) if math.isfinite(v) else v for v in near] + [
        math.nan, True, "1", None, 2.5 if domain.integer else np.float64(domain.low + 0.5)]


# -------------------------------------------------------------------------- the domains
@pytest.mark.parametrize(("domain", "inside", "outside", "words"), [
    (Domain(1, integer=True), [1, 7, np.int64(3)], [0, -1, 1.0, True, "2", None],
     "an int >= 1"),
    (Domain(0, 1), [0, 0.5, 1, np.float64(1.0)], [-1e-12, 1 + 1e-12, math.nan, False],
     "a float in [0, 1]"),
    (Domain(0, 1, low_open=True), [1e-12, 1], [0, 0.0, 1.5], "a float in (0, 1]"),
    (Domain(0, low_open=True), [1e-300, 1e300], [0, -1, math.inf, math.nan], "a float > 0"),
    (Domain(0, 1, low_open=True, high_open=True), [0.5], [0, 1], "a float in (0, 1)"),
    (Domain(0, 2**32 - 1, integer=True), [0, 2**32 - 1], [-1, 2**32], "an int in [0, 4294967295]"),
])
def test_a_domain_holds_exactly_the_values_between_its_bounds(domain, inside, outside, words):
    assert all(v in domain for v in inside), [v for v in inside if v not in domain]
    assert not any(v in domain for v in outside), [v for v in outside if v in domain]
    assert domain.words == words


def test_every_default_and_every_offered_value_is_in_the_domain():
    caps = Limits()
    for parameter in p.PARAMETERS:
        widget = parameter.widget
        high = widget.high if widget.cap is None else getattr(caps, widget.cap)
        assert parameter.accepts(parameter.default), parameter.name
        assert widget.low <= widget.shown(parameter.default) <= high, parameter.name
        for shown in (widget.low, high):
            assert parameter.accepts(parameter.read(shown)), (parameter.name, shown)
        assert parameter.read(widget.shown(parameter.default)) == parameter.default


# ------------------------------------------------------------------------------ Settings
def test_settings_has_one_field_per_parameter_with_its_default():
    fields = {f.name: f.default for f in dataclasses.fields(Settings)}
    assert fields.keys() - {"family", "base", "auto_tune"} == {q.name for q in p.PARAMETERS}
    for parameter in p.PARAMETERS:
        assert fields[parameter.name] == parameter.default, parameter.name


@pytest.mark.parametrize("parameter", p.PARAMETERS, ids=lambda q: q.name)
def test_settings_refuse_exactly_the_values_outside_a_parameters_domain(parameter):
    for value in probes(parameter.domain):
        if parameter.accepts(value):
            assert getattr(Settings(**{parameter.name: value}), parameter.name) is value
        else:
            with pytest.raises(ValueError, match=f"{parameter.name} must be"):
                Settings(**{parameter.name: value})


def test_settings_refuse_an_unknown_family_or_base():
    for change in ({"family": "gbm"}, {"family": ["erf"]}, {"base": "gbm"},
                   {"auto_tune": 1}):
        with pytest.raises(ValueError, match="must be"):
            Settings(**change)


# ------------------------------------------------------------------ the estimators' checks
CHECKED = {  # each estimator and the registry's numbers its own _check_params reads
    AttentionForestRegressor: (p.TREES, p.EPS, p.TAU),
    AttentionForestClassifier: (p.TREES, p.EPS, p.TAU),
    AttentionBoostingRegressor: (p.TREES, p.EPS, p.TAU, p.DISCOUNT),
    EnhancedForestClassifier: (p.TREES, p.ROUNDS, p.RATE, p.NEIGHBOURS, p.TOP_TREES),
}


SEARCHED = {"eps", "tau", "discount"}  # "auto": chosen by the fit's search


@pytest.mark.parametrize(("model", "parameter"),
                         [(m, q) for m, checked in CHECKED.items() for q in checked],
                         ids=lambda x: getattr(x, "__name__", getattr(x, "name", "")))
def test_each_estimator_refuses_exactly_the_registrys_out_of_range_values(model, parameter):
    searched = parameter.name in SEARCHED
    expected = f"'auto' or {parameter.domain.words}" if searched else parameter.domain.words
    for value in probes(parameter.domain) + (["auto"] if searched else []):
        estimator = model(**{parameter.name: value})
        if value in parameter.domain or value == "auto":
            estimator._check_params()
        else:
            with pytest.raises(ValueError, match=re.escape(f"{parameter.name} must be "
                                                           f"{expected}, got")):
                estimator._check_params()


def test_every_family_builds_its_estimator_for_its_tasks_only():
    for key, family in FAMILIES.items():
        settings = Settings(family=key, n_estimators=7, random_state=3)
        for task in (CLASSIFICATION, REGRESSION):
            if task not in family.tasks:
                with pytest.raises(DataError, match=re.escape(f"{family.label} needs")):
                    workflow.make_estimator(settings, task)
                continue
            estimator = workflow.make_estimator(settings, task)
            assert estimator.get_params()["n_estimators"] == 7
            assert estimator.get_params()["random_state"] == 3
            kind = type(estimator)
            if kind.__module__.startswith("forestviz."):  # the package exports it
                assert getattr(forestviz, kind.__name__) is kind
                assert f"{kind.__module__}.{kind.__name__}" in family.saves["ObjectNode"]


def test_model_files_trust_every_class_a_family_saves():
    for family in FAMILIES.values():
        for loader, names in family.saves.items():
            assert set(names) <= set(TRUSTED_NODES[loader]), (family.key, loader)


# ------------------------------------------------------------------------ the command line
TRAIN = ["train", "table.csv", "--target", "y", "--out", "model.skops"]


def _whole(value) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and float(value).is_integer())


def test_the_command_lines_numbers_are_the_registrys(capsys):
    top = parser()
    offered = [q for q in p.PARAMETERS if q.option is not None]
    assert [q.option for q in offered] == ["--trees", "--seed"]
    defaults = top.parse_args(TRAIN)
    for parameter in offered:
        assert getattr(defaults, parameter.name) == parameter.default
        for value in filter(_whole, probes(parameter.domain)):  # argparse reads whole numbers
            given = [*TRAIN, parameter.option, str(int(value))]
            if value in parameter.domain:
                assert getattr(top.parse_args(given), parameter.name) == value
            else:
                with pytest.raises(SystemExit):
                    top.parse_args(given)
                assert "expected a whole number" in capsys.readouterr().err


def test_the_command_lines_families_are_the_registrys(capsys):
    top = parser()
    for family in command_families():
        assert options()[family.option] == family.key
        assert top.parse_args([*TRAIN, "--model", family.option]).model == family.option
    assert sorted(options().values()) == sorted(k for k, f in FAMILIES.items() if f.option)
    with pytest.raises(SystemExit):
        top.parse_args(["train", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert f"--model {{{','.join(f.option for f in command_families())}}}" in shown
    for family in command_families():
        assert f"{family.option_words}" in shown
    for parameter in p.PARAMETERS:
        if parameter.option is not None:
            assert f"{parameter.option_help} (default {parameter.default})" in shown


def test_a_whole_number_outside_the_domain_is_refused_in_one_line():
    parse = whole_number(p.SEED.domain)
    assert parse("4294967295") == 2**32 - 1
    for text in ("-1", "4294967296"):
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(
                f"expected a whole number from 0 to 4294967295, got '{text}'")):
            parse(text)
    for text in ("1.5", "seven"):
        with pytest.raises(argparse.ArgumentTypeError,
                           match=re.escape(f"expected a whole number, got '{text}'")):
            parse(text)


# -------------------------------------------------------------------------- the Train page
def _shown(element):
    value = element.value
    return value[0] if isinstance(value, list | tuple) else value


@pytest.mark.slow
def test_the_train_pages_widgets_are_the_registrys():
    caps = Limits.from_env()
    at = app()
    for task, table in TASK_TABLES.items():
        choose_bundled(at, table)
        at.switch_page("pages/train.py").run()
        chooser = at.selectbox(key=f"train_family@{task}")
        assert chooser.options == [FAMILIES[k].label for k in families_for(task)]
        for key in families_for(task):
            at.selectbox(key=f"train_family@{task}").set_value(key).run()
            family = FAMILIES[key]
            bases = [r for r in at.radio if r.key == "train_base"]
            if family.bases is None:
                assert not bases
                assert family.base_note in [c.value for c in at.caption]
            else:
                assert bases[0].options == list(family.bases.values())
            assert at.toggle(key="train_auto").disabled == (not family.tunes)
            for parameter in p.PARAMETERS:
                widget = parameter.widget
                element = (at.slider if widget.kind == "slider" else at.number_input)(
                    key=widget.key)
                high = widget.high if widget.cap is None else getattr(caps, widget.cap)
                assert (element.label, element.min, element.max) == (
                    widget.label, widget.low, high), parameter.name
                assert _shown(element) == widget.shown(parameter.default), parameter.name
                assert element.help == (widget.help or ""), parameter.name
                if widget.step is not None:
                    assert element.step == widget.step, parameter.name
                if widget.format is not None:
                    assert element.proto.format == widget.format, parameter.name
        captions = [c.value for c in at.caption]
        for section in p.SECTIONS:
            assert section.caption is None or section.caption in captions
