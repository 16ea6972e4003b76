"""Untrusted model-file payloads (:class:`forestviz.persistence.model_file.ModelFile`): settings
the Train page never writes, and fit seconds that are not a plain time, refused or shown as
unknown; anything but row positions for the split refused."""

from dataclasses import asdict

import numpy as np
import pandas as pd
import pytest

from forestviz.app import model_file, workflow
from forestviz.io.bundled import bundled_choice, load_dataset
from forestviz.persistence import ModelFileError
from forestviz.persistence.model_file import ModelFile


@pytest.fixture(scope="module")
def payload():
    """A real model file's payload (a small forest on the bundled table)."""
    dataset = load_dataset("pima_diabetes")
    settings = workflow.Settings(family="vanilla", n_estimators=3)
    bundle = workflow.train_bundle(dataset, bundled_choice("pima_diabetes", dataset), settings,
                                   lambda *_: None)
    return ModelFile.of(bundle).payload()


def test_a_model_file_with_settings_the_train_page_never_writes_is_refused(payload):
    """A model file's settings are untrusted: they size the baselines a load fits."""
    assert ModelFile.parse(payload).settings == workflow.Settings(family="vanilla",
                                                                  n_estimators=3)
    for change in ({"family": "rm -rf"}, {"n_estimators": "many"}, {"n_estimators": True},
                   {"max_depth": 2.5}, {"test_size": 1.5}, {"base": "other"},
                   {"n_estimators": 0}):
        bad = {**payload, "settings": {**payload["settings"], **change}}
        with pytest.raises(ModelFileError, match="not ones the Train page writes"):
            ModelFile.parse(bad)


def test_a_model_files_fit_time_is_read_only_when_it_is_a_plain_time(payload):
    """The fit seconds a model file carries are untrusted: anything but a finite,
    non-negative float is shown as unknown."""
    for value, shown in ((1.25, 1.25), (0.0, 0.0), (-1.0, None), (float("inf"), None),
                         (float("nan"), None), ("1.0", None), (True, None), (None, None)):
        found = ModelFile.parse({**payload, "fit_seconds": value}).fit_seconds
        assert (np.isnan(found) if shown is None else found == shown), (value, found)
    assert np.isnan(ModelFile.parse({k: v for k, v in payload.items()
                                     if k != "fit_seconds"}).fit_seconds)  # older files


@pytest.mark.parametrize("rows", [np.array([0.5, 1.5]), np.array([["a"]]), np.arange(4)[:, None],
                                  "0,1"])
def test_a_split_that_is_not_row_positions_is_refused(payload, rows):
    with pytest.raises(ModelFileError, match="split is not a list of row positions"):
        ModelFile.parse({**payload, "train_rows": rows})


@pytest.mark.parametrize("change, says", [
    ({"estimator": None}, "holds no tree ensemble"),
    ({"preprocessor": None}, "no fitted column encoding"),
    ({"choice": {"source": "x"}}, "settings could not be read"),
    ({"settings": {"family": "erf", "trees": 3}}, "settings could not be read"),
])
def test_a_payload_without_its_parts_is_refused_in_one_line(payload, change, says):
    with pytest.raises(ModelFileError, match=says) as refused:
        ModelFile.parse({**payload, **change})
    assert "\n" not in str(refused.value)
    with pytest.raises(ModelFileError, match="not saved by forestviz's Train page"):
        ModelFile.parse({k: v for k, v in payload.items() if k != "test_rows"})


def test_a_file_round_trips_and_knows_its_data(payload):
    file = ModelFile.parse(payload)
    again = ModelFile.read(file.dumps())
    assert again.payload().keys() == payload.keys()
    assert asdict(again.settings) == payload["settings"] and again.choice == file.choice
    np.testing.assert_array_equal(again.test_rows, payload["test_rows"])
    again.check_choice(file.choice)
    with pytest.raises(ModelFileError, match="trained on the data set"):
        again.check_choice(ModelFile.parse({**payload, "choice": {
            **payload["choice"], "target": "Age (years)"}}).choice)


def test_a_model_file_restores_without_its_baselines_to_the_same_numbers(payload):
    """`forestviz report` without the appendix, which alone shows the baselines, does not fit
    them: the model's own held-out metrics and explanation aids are the same."""
    dataset = load_dataset("pima_diabetes")
    choice = bundled_choice("pima_diabetes", dataset)
    file = ModelFile.parse(payload)
    whole = model_file.restore(file, dataset, choice, lambda *_: None)
    alone = model_file.restore(file, dataset, choice, lambda *_: None, with_baselines=False)
    assert len(whole.results) == 1 + len(workflow.baselines(dataset.task, file.settings))
    pd.testing.assert_frame_equal(alone.results.drop(columns="fit seconds"),
                                  whole.results.drop(columns="fit seconds").iloc[:1])
    assert list(alone.test_predictions) == [whole.name]
    np.testing.assert_array_equal(alone.test_weights, whole.test_weights)
    grid = np.linspace(0, 1, 11)
    np.testing.assert_array_equal(alone.intervals.interval(grid), whole.intervals.interval(grid))
