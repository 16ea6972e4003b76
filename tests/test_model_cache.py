"""Trainings on bundled tables kept on disk (forestviz.app.model_cache): a stored model loads
back to the bundle the training gave, every input of the training changes the file's name,
uploads are never written, a damaged file is dropped (the caller trains again) and the
directory keeps the newest files only."""

import os
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from forestviz.app import model_cache, workflow
from forestviz.io.bundled import bundled_choice, load_dataset
from forestviz.io.dataset import Dataset


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(model_cache.CACHE_ENV, str(tmp_path / "models"))
    return tmp_path / "models"


@pytest.fixture(scope="module")
def pima():
    dataset = load_dataset("pima_diabetes")
    settings = replace(workflow.default_settings(dataset.task), n_estimators=12)
    return dataset, bundled_choice("pima_diabetes", dataset), settings


@pytest.fixture(scope="module")
def trained(pima):
    return workflow.train_bundle(*pima, progress=lambda *_: None)


def test_a_stored_model_loads_back_to_the_trained_bundle(cache_dir, pima, trained):
    dataset, choice, settings = pima
    assert model_cache.load(dataset, choice, settings) is None
    path = model_cache.store(trained, dataset)
    assert path == model_cache.path_of(dataset, choice, settings) and path.parent == cache_dir
    loaded = model_cache.load(dataset, choice, settings)
    assert loaded.settings == settings and loaded.choice == choice
    np.testing.assert_array_equal(loaded.test_weights, trained.test_weights)
    np.testing.assert_array_equal(loaded.test_rows, trained.test_rows)
    for name, predictions in trained.test_predictions.items():
        np.testing.assert_array_equal(loaded.test_predictions[name], predictions)
    # the held-out metrics and the model's own fit time are the training's; the baselines
    # are fitted anew, so only their fit time differs
    metrics = [c for c in trained.results.columns if c != "fit seconds"]
    pd.testing.assert_frame_equal(loaded.results[metrics], trained.results[metrics])
    assert loaded.results["fit seconds"].iloc[0] == trained.results["fit seconds"].iloc[0]


def test_every_input_of_a_training_changes_the_file_name(pima):
    dataset, choice, settings = pima
    key = model_cache.key(dataset, choice, settings)
    assert model_cache.key(load_dataset("pima_diabetes"), choice, settings) == key
    frame = dataset.frame.copy()
    frame.iloc[0, 1] = frame.iloc[1, 1]  # one cell
    edited = Dataset.from_frame(frame, dataset.target, task=dataset.task, name=dataset.name,
                                id_column=dataset.id_column)
    renamed = dataset.frame.rename(columns={dataset.frame.columns[1]: "other name"})
    others = {
        model_cache.key(edited, choice, settings),
        model_cache.key(Dataset.from_frame(renamed, dataset.target, task=dataset.task,
                                           name=dataset.name, id_column=dataset.id_column),
                        choice, settings),
        model_cache.key(dataset, replace(choice, exclude=(dataset.feature_columns[0],)),
                        settings),
        model_cache.key(dataset, choice, replace(settings, random_state=1)),
        model_cache.key(dataset, choice, replace(settings, n_estimators=13)),
    }
    assert key not in others and len(others) == 5


def test_a_training_on_an_upload_is_never_written(cache_dir, pima, trained):
    upload = replace(trained, choice=replace(trained.choice, source="upload:abc"))
    assert model_cache.store(upload, pima[0]) is None
    assert not cache_dir.exists()


def test_a_damaged_file_is_dropped_and_the_caller_trains(cache_dir, pima, trained):
    dataset, choice, settings = pima
    path = model_cache.store(trained, dataset)
    path.write_bytes(path.read_bytes()[:1000])
    assert model_cache.load(dataset, choice, settings) is None
    assert not path.exists()


def test_a_directory_that_cannot_be_written_keeps_nothing(tmp_path, monkeypatch, pima, trained):
    (tmp_path / "a file").write_text("not a directory")
    monkeypatch.setenv(model_cache.CACHE_ENV, str(tmp_path / "a file" / "models"))
    assert model_cache.store(trained, pima[0]) is None


def test_only_the_newest_files_are_kept(cache_dir, pima, trained):
    dataset = pima[0]
    cache_dir.mkdir()
    for k in range(model_cache.KEEP + 3):
        old = cache_dir / f"{k:032x}{model_cache.SUFFIX}"
        old.write_bytes(b"old")
        stamp = 1_700_000_000 + k
        os.utime(old, (stamp, stamp))
    path = model_cache.store(trained, dataset)
    kept = sorted(cache_dir.glob(f"*{model_cache.SUFFIX}"))
    assert len(kept) == model_cache.KEEP and path in kept
    assert [p.name for p in kept if p != path] == [
        f"{k:032x}{model_cache.SUFFIX}" for k in range(4, model_cache.KEEP + 3)]
