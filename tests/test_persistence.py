"""forestviz.persistence.files: round trips of every model family, the trusted set equal to what the
product writes, and the hostile corpus of ``hostile_models`` refused cheaply and harmlessly."""

import copy
import io
import itertools
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import tracemalloc
import zipfile
from pathlib import Path

import hostile_models
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from forestviz.attention import AttentionForestClassifier, AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.persistence import archive as model_archive
from forestviz.persistence import files as model_files
from forestviz.persistence.files import TRUSTED_NODES, TRUSTED_TYPES, ModelFileError, dumps, loads
from forestviz.trees.plain import DecidedExtraTreesClassifier, DecidedRandomForestClassifier

REPO = Path(__file__).resolve().parents[1]
MiB = 2**20
# s to refuse a hostile file under tracemalloc, a hang detector: 2.4-2.8 s for the slowest on a
# loaded 2-core machine, far less when quiet; a decompression bomb or a cycle would not end
REFUSAL_CEILING = 30.0
SMALL = {"n_estimators": 5, "min_samples_leaf": 5, "random_state": 0}
X_REG, Y_REG = make_friedman1(120, n_features=5, random_state=0)
X_CLF, Y_CLF = make_classification(120, n_features=5, n_informative=3, random_state=0)
X_MULTI, codes = make_classification(150, n_features=5, n_informative=3, n_classes=3,
                                     random_state=1)
Y_MULTI = np.array(["low", "mid", "high"], dtype=object)[codes]  # text labels, as the app has


def _attention_forests():
    """Every mode × loss × base. An L1 forest searches τ alone at a fixed ε (an LP per point
    of the search: 7 against 77 with ε searched too, 2.1 s against 7.5 s for the sixteen),
    which keeps its search results to save; the L2 forests search both."""
    for mode, loss, base in itertools.product(["abrf1", "abrf2", "abrf3", "softmax"],
                                              ["l1", "l2"], ["random", "extra"]):
        options = {**SMALL, "mode": mode, "loss": loss, "base": base,
                   **({"eps": 0.5} if loss == "l1" else {})}
        yield f"abrf-{mode}-{loss}-{base}-regressor", AttentionForestRegressor(**options), "reg"
        yield f"abrf-{mode}-{loss}-{base}-classifier", AttentionForestClassifier(**options), "clf"


MODELS = [
    *_attention_forests(),
    ("abrf-multiclass", AttentionForestClassifier(**SMALL), "multi"),
    ("erf", EnhancedForestClassifier(5, n_iterations=2, random_state=0), "clf"),
    ("erf-options", EnhancedForestClassifier(
        5, n_iterations=2, features_per_tree=True, sample_weighting=False,
        sample_probabilities=False, oob_ranking=True, model_weighting=False, random_state=0),
     "multi"),
    ("agboost-gbm", AttentionBoostingRegressor(**SMALL, base="gbm"), "reg"),
    ("agboost-extra", AttentionBoostingRegressor(**SMALL, base="extra"), "reg"),
    ("rf-classifier", RandomForestClassifier(**SMALL), "clf"),
    ("rf-regressor", RandomForestRegressor(**SMALL), "reg"),
    ("et-classifier", ExtraTreesClassifier(**SMALL), "clf"),
    ("et-regressor", ExtraTreesRegressor(**SMALL), "reg"),
    ("decided-rf", DecidedRandomForestClassifier(**SMALL), "clf"),
    ("decided-et", DecidedExtraTreesClassifier(**SMALL), "clf"),
]
DATA = {"reg": (X_REG, Y_REG), "clf": (X_CLF, Y_CLF), "multi": (X_MULTI, Y_MULTI)}


def patients(n=80, seed=0) -> pd.DataFrame:
    """Numeric, categorical and boolean columns with missing values, numbers written as text
    and a column with more levels than are kept."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "Glucose": rng.normal(120, 30, n).round(),
        "Sex": rng.choice(["female", "male"], n),
        "Smoker": rng.choice([True, False], n),
        "Income": [f"{v:,}" for v in rng.integers(10_000, 2_000_000, n)],
        "Ward": rng.choice([f"ward {i}" for i in range(15)], n),
    })
    frame.loc[::7, "Glucose"] = np.nan
    frame.loc[::5, "Sex"] = None
    return frame


@pytest.fixture(scope="module")
def fitted():
    """Every family fitted once: seconds (the L1 searches solve an LP per τ), so the tests
    using it are marked slow."""
    return {name: model.fit(*DATA[task]) for name, model, task in MODELS}


@pytest.fixture(scope="module")
def preprocessor():
    return TablePreprocessor(max_levels=5).fit(patients())  # 'Ward' keeps 5 of its 15 levels


def payload(estimator, preprocessor) -> dict:
    """A model file's content as the app writes it (forestviz.app.model_file.model_payload)."""
    return {
        "settings": {"family": "abrf1_qp", "n_estimators": 5, "auto_tune": True,
                     "test_size": 0.25, "max_depth": None},
        "choice": {"source": "bundled:pima_diabetes", "target": "Diabetes", "id_column": None,
                   "exclude": ["Ward"], "task": "auto"},
        "dataset_name": "Pima diabetes",
        "estimator": estimator,
        "preprocessor": preprocessor,
        "train_rows": np.arange(0, 80, 2),
        "test_rows": np.arange(1, 80, 2),
    }


def predictions(model, X) -> dict:
    methods = ("predict", "predict_proba", "tree_weights")
    return {m: getattr(model, m)(X) for m in methods if hasattr(model, m)}


def frames_of(model) -> dict:
    return {k: v for k, v in vars(model).items() if isinstance(v, pd.DataFrame)}


def written_nodes(data: bytes) -> set[tuple[str, str]]:
    """(loader, class) of every node in a model file's schema.json."""
    found = set()

    def walk(value):
        if isinstance(value, dict):
            if "__loader__" in value:
                found.add((value["__loader__"], f"{value['__module__']}.{value['__class__']}"))
            value = list(value.values())
        if isinstance(value, list):
            for child in value:
                walk(child)

    walk(json.loads(zipfile.ZipFile(io.BytesIO(data)).read("schema.json")))
    return found


# ---------------------------------------------------------------------------- round trips
@pytest.mark.slow
@pytest.mark.parametrize(("name", "task"), [(name, task) for name, _, task in MODELS])
def test_every_family_round_trips(fitted, name, task):
    model, X = fitted[name], DATA[task][0]
    frames_before = frames_of(model)
    keys_before = set(vars(model))
    loaded = loads(dumps(model))
    assert type(loaded) is type(model)
    expected, actual = predictions(model, X), predictions(loaded, X)
    assert expected.keys() == actual.keys() and "predict" in actual
    for method, values in expected.items():
        np.testing.assert_array_equal(actual[method], values, err_msg=method)
    assert set(vars(model)) == keys_before  # dumps leaves the caller's object alone
    assert all(vars(model)[key] is frame for key, frame in frames_before.items())
    assert frames_of(loaded).keys() == frames_before.keys()
    for key, frame in frames_before.items():
        pd.testing.assert_frame_equal(frames_of(loaded)[key], frame)


@pytest.mark.slow
def test_the_fixtures_have_dataframe_attributes(fitted):
    assert frames_of(fitted["abrf-abrf1-l2-random-regressor"]).keys() == {"search_results_"}
    assert frames_of(fitted["agboost-gbm"]).keys() == {"search_results_"}


@pytest.mark.slow
def test_a_frame_keeps_its_column_order_and_types(fitted):
    model = copy.copy(fitted["abrf-abrf1-l2-random-regressor"])
    model.table_ = pd.DataFrame({"z": [1.5, np.nan], "count": [1, 2], "label": ["a", None],
                                 "flag": [True, False]})
    pd.testing.assert_frame_equal(loads(dumps(model)).table_, model.table_)


@pytest.mark.slow
def test_a_frame_with_its_own_index_is_not_saved(fitted):
    model = copy.copy(fitted["abrf-abrf1-l2-random-regressor"])
    model.table_ = pd.DataFrame({"a": [1.0, 2.0]}, index=[5, 9])
    with pytest.raises(TypeError, match="default index"):
        dumps(model)


def test_the_preprocessor_round_trips(preprocessor):
    frame = patients(seed=1)
    frame.loc[[0, 1], "Ward"] = ["a ward never seen", None]  # unseen and missing levels
    loaded = loads(dumps(preprocessor))
    np.testing.assert_array_equal(loaded.transform(frame), preprocessor.transform(frame))
    assert loaded.get_feature_names_out().tolist() == preprocessor.get_feature_names_out().tolist()
    assert loaded.source_columns_.tolist() == preprocessor.source_columns_.tolist()
    assert loaded.notes_ == preprocessor.notes_ and preprocessor.other_levels_
    for name in ("medians_", "categories_", "other_levels_", "dropped_columns_"):
        assert getattr(loaded, name) == getattr(preprocessor, name)
    assert loaded.get_params() == preprocessor.get_params()
    pd.testing.assert_frame_equal(loaded.inverse_transform(loaded.transform(frame)),
                                  preprocessor.inverse_transform(preprocessor.transform(frame)))


def test_the_preprocessor_is_saved_as_plain_data(preprocessor):
    """Its file holds names, medians and levels, no scikit-learn encoder: the ColumnTransformer
    is fitted again when the file is read."""
    written = written_nodes(dumps(preprocessor))
    assert ("ObjectNode", "forestviz.io.preprocessing.TablePreprocessor") in written
    assert not [name for _, name in written if name.startswith("sklearn.")]
    assert loads(dumps(preprocessor)).column_transformer_ is not preprocessor.column_transformer_


@pytest.mark.slow
def test_the_app_payload_round_trips(fitted, preprocessor):
    estimator = fitted["abrf-abrf1-l2-random-regressor"]
    saved = payload(estimator, preprocessor)
    before = dict(saved)
    loaded = loads(dumps(saved))
    assert saved == before and saved["estimator"] is estimator
    assert loaded.keys() == saved.keys()
    for key in ("settings", "choice", "dataset_name"):
        assert loaded[key] == saved[key]
    for key in ("train_rows", "test_rows"):
        np.testing.assert_array_equal(loaded[key], saved[key])
        assert loaded[key].dtype == saved[key].dtype
    np.testing.assert_array_equal(loaded["estimator"].predict(X_REG), estimator.predict(X_REG))
    pd.testing.assert_frame_equal(loaded["estimator"].search_results_,
                                  estimator.search_results_)
    frame = patients(seed=2)
    np.testing.assert_array_equal(loaded["preprocessor"].transform(frame),
                                  preprocessor.transform(frame))


@pytest.mark.slow
def test_other_objects_are_not_saved(fitted):
    with pytest.raises(TypeError, match=r"pandas\.Series \(as a ObjectNode\)"):
        dumps({"estimator": fitted["rf-regressor"], "column": pd.Series([1.0, 2.0])})
    with pytest.raises(TypeError, match=r"builtins\.len"):
        dumps({"function": len})
    with pytest.raises(TypeError, match=r"builtins\.int \(as a TypeNode\)"):
        dumps({1: "a key that is not text"})


@pytest.mark.slow
def test_the_envelope_names_format_and_version(fitted):
    data = dumps(fitted["rf-regressor"])
    envelope = sio.loads(data, trusted=sorted(TRUSTED_TYPES))
    assert envelope["format"] == model_files.FILE_FORMAT == "forestviz-model/7"
    assert envelope["forestviz_version"] == "0.1.0"
    assert json.loads(zipfile.ZipFile(io.BytesIO(data)).read("schema.json"))["protocol"] \
        == model_archive.SKOPS_PROTOCOL


# Where format 3 (the flat module layout) kept the classes forestviz writes.
FLAT_LAYOUT = {"AttentionForestRegressor": "forestviz.attention", "FlatTrees": "forestviz.forest",
               "LeafMasks": "forestviz.forest", "LeafStats": "forestviz.forest",
               "TablePreprocessor": "forestviz.preprocessing"}


def test_a_file_of_the_flat_layout_asks_to_train_again(legit):
    """A file saved before the package layout names its classes by their old modules, which
    this version never writes: it gets the "another version" message, not a refusal."""
    def as_saved_by_format_3(schema):
        schema["content"]["format"]["content"] = json.dumps("forestviz-model/3")
        for found in hostile_models.nodes_where(schema, lambda n: str(
                n.get("__module__")).startswith("forestviz.")):
            found["__module__"] = FLAT_LAYOUT[found["__class__"]]

    old = hostile_models.edit(legit, as_saved_by_format_3)
    assert any(name.startswith("forestviz.forest.") for _, name in written_nodes(old))
    with pytest.raises(ModelFileError, match=r"saved by another version of forestviz \(file "
                       r"format forestviz-model/3, forestviz 0\.1\.0\).*Train the model again"):
        loads(old)


@pytest.mark.parametrize("version", [4, 6])
def test_a_file_of_an_older_format_asks_to_train_again(legit, version):
    """Format 4 held the hand-written preprocessor's attributes, format 6 the derived arrays
    (flat nodes, leaf masks) that are now rebuilt: "train again", not a crash."""
    def as_saved_by(schema):
        schema["content"]["format"]["content"] = json.dumps(f"forestviz-model/{version}")

    with pytest.raises(ModelFileError, match=rf"file format forestviz-model/{version}.*reads "
                       r"forestviz-model/7\. Train the model again"):
        loads(hostile_models.edit(legit, as_saved_by))


# -------------------------------------------------------------------------- trusted set
@pytest.mark.slow
def test_the_trusted_set_is_exactly_what_forestviz_writes(fitted, preprocessor):
    written = set()
    for name, _, task in MODELS:  # saved after predicting, as the app does
        predictions(fitted[name], DATA[task][0])
        written |= written_nodes(dumps(fitted[name]))
    written |= written_nodes(dumps(preprocessor))
    written |= written_nodes(dumps(payload(fitted["erf"], preprocessor)))
    trusted = {(loader, name) for loader, names in TRUSTED_NODES.items() for name in names}
    assert written == trusted
    assert {name for _, name in trusted} == TRUSTED_TYPES
    for names in TRUSTED_NODES.values():
        assert list(names) == sorted(set(names))


def test_an_erf_with_a_kd_tree_can_be_saved():
    """ERF's neighbour index drops its KD-tree from the saved state and rebuilds it on use."""
    X, y = make_classification(120, n_features=3, n_informative=2, n_redundant=0,
                               random_state=0)
    model = EnhancedForestClassifier(5, n_iterations=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(loads(dumps(model)).predict_proba(X), model.predict_proba(X))


# ------------------------------------------------------------------------- hostile corpus
@pytest.fixture(scope="module")
def legit(preprocessor) -> bytes:
    """A small model file of the app's shape, the base every hostile file is made from."""
    small = AttentionForestRegressor(2, min_samples_leaf=5, random_state=0).fit(X_REG, Y_REG)
    return dumps(payload(small, preprocessor))


def listing(directory) -> set[str]:
    return set(os.listdir(directory))


@pytest.mark.parametrize("name", sorted(hostile_models.BUILDERS))
def test_a_hostile_file_is_refused_cheaply_and_harmlessly(name, legit, tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    data = hostile_models.build(name, legit, str(marker))
    monkeypatch.chdir(tmp_path)
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    before = listing(tmp_path)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ModelFileError) as refused:
            loads(data)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seconds < REFUSAL_CEILING
    assert peak < hostile_models.MEMORY_BOUND.get(name, 200 * MiB)
    assert not marker.exists()
    assert listing(tmp_path) == before and not listing(private_tmp)
    for offender in hostile_models.OFFENDERS.get(name, ()):
        assert offender in str(refused.value)


@pytest.mark.parametrize("name", sorted(hostile_models.EXECUTING))
def test_the_executing_files_do_run_code_when_trusted_by_name(name, legit, tmp_path,
                                                              monkeypatch):
    """Control: skops trusting the names it reports (as the old prefix rule did for sklearn.*)
    runs each payload, so the refusals above are real."""
    marker = tmp_path / "marker"
    data = hostile_models.build(name, legit, str(marker))
    monkeypatch.chdir(tmp_path)
    untrusted = sio.get_untrusted_types(data=data)
    assert hostile_models.OFFENDERS[name][0] in untrusted
    sio.loads(data, trusted=untrusted)
    assert marker.exists() or marker.with_suffix(".npy").exists()


def test_a_file_over_the_size_cap_is_refused_before_reading(legit, monkeypatch):
    monkeypatch.setattr(model_archive, "MAX_FILE_BYTES", len(legit) - 1)
    with pytest.raises(ModelFileError, match="at most"):
        loads(legit)


def test_a_legit_file_passes(legit):
    assert loads(legit).keys() == payload(None, None).keys()


@pytest.mark.slow
def test_reading_model_files_leaves_scikit_learn_untouched():
    """Importing the model-file code and saving and loading a model never assign to
    ``sklearn.utils.all_estimators`` (not even for a while), so every other user of
    scikit-learn in the process sees its own function (a fresh process: here skops may be
    imported already)."""
    check = textwrap.dedent("""
        import types
        import numpy as np
        import sklearn.utils
        from sklearn.utils.discovery import all_estimators

        written = []

        class Watched(types.ModuleType):
            def __setattr__(self, name, value):
                written.append(name)
                super().__setattr__(name, value)

        sklearn.utils.__class__ = Watched
        from forestviz.attention import AttentionForestRegressor
        from forestviz.persistence import dumps, loads

        X = np.random.default_rng(0).normal(size=(40, 3))
        model = AttentionForestRegressor(2, random_state=0).fit(X, X[:, 0])
        again = loads(dumps({"model": model}))["model"]
        assert np.allclose(again.predict(X), model.predict(X))
        assert "all_estimators" not in written, written
        assert sklearn.utils.all_estimators is all_estimators
    """)
    subprocess.run([sys.executable, "-c", check], check=True, cwd=REPO)
