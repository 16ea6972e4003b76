"""A model file offered for loading (forestviz.app.model_upload): read, matched to the data set
in use, and known again by its digest."""

import hashlib
from dataclasses import asdict, replace

import pytest

from forestviz.app import model_upload, workflow
from forestviz.io.bundled import bundled_choice, load_dataset
from forestviz.persistence import ModelFileError
from forestviz.persistence.model_file import ModelFile, digest


@pytest.fixture(scope="module")
def saved():
    dataset = load_dataset("pima_diabetes")
    choice = bundled_choice("pima_diabetes", dataset)
    settings = workflow.Settings(family="vanilla", n_estimators=5)
    bundle = workflow.train_bundle(dataset, choice, settings, progress=lambda *_: None)
    return ModelFile.of(bundle).dumps(), choice, settings


def test_a_saved_model_reads_back_with_its_settings(saved):
    data, choice, settings = saved
    upload = model_upload.read_model_upload(data, choice)
    assert upload.file.settings == settings
    assert upload.digest == hashlib.sha256(data).hexdigest() == digest(data)
    assert upload.file.payload()["settings"] == asdict(settings)


def test_a_model_of_other_data_or_damaged_bytes_is_refused_in_one_line(saved):
    data, choice, _ = saved
    with pytest.raises(ModelFileError, match="trained on the data set"):
        model_upload.read_model_upload(data, replace(choice, target="Age"))
    with pytest.raises(ModelFileError):
        model_upload.read_model_upload(data[: len(data) // 2], choice)
