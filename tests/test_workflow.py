"""The training workflow's handling of untrusted model-file payloads (forestviz.workflow)."""

from dataclasses import asdict

import numpy as np
import pytest

from forestviz.app import model_file, workflow
from forestviz.io.dataset import DataChoice
from forestviz.persistence import ModelFileError


def test_a_model_file_with_settings_the_train_page_never_writes_is_refused():
    """A model file's settings are untrusted: they size the baselines a load fits."""
    choice = DataChoice("upload:x", "y", None, (), "auto")
    base = {"settings": asdict(workflow.Settings()), "dataset_name": "x.csv",
            "choice": {**asdict(choice), "exclude": []}, "estimator": None,
            "preprocessor": None, "train_rows": np.arange(3), "test_rows": np.arange(3, 5)}
    assert model_file.check_payload(base, choice) == workflow.Settings()
    for change in ({"family": "rm -rf"}, {"n_estimators": "many"}, {"n_estimators": True},
                   {"max_depth": 2.5}, {"test_size": 1.5}, {"base": "other"},
                   {"n_estimators": 0}):
        bad = {**base, "settings": {**base["settings"], **change}}
        with pytest.raises(ModelFileError, match="not ones the Train page writes"):
            model_file.check_payload(bad, choice)


def test_a_model_files_fit_time_is_read_only_when_it_is_a_plain_time(monkeypatch):
    """The fit seconds a model file carries are untrusted: anything but a finite,
    non-negative float is shown as unknown."""
    seen = []
    monkeypatch.setattr(model_file, "check_payload",
                        lambda payload, choice: workflow.Settings())
    monkeypatch.setattr(model_file, "assemble", lambda *args: seen.append(args[7]))
    for value, shown in ((1.25, 1.25), (0.0, 0.0), (-1.0, None), (float("inf"), None),
                         (float("nan"), None), ("1.0", None), (True, None), (None, None)):
        seen.clear()
        model_file.restore({"fit_seconds": value, "estimator": None, "preprocessor": None,
                            "train_rows": None, "test_rows": None}, None, None, None)
        assert (np.isnan(seen[0]) if shown is None else seen[0] == shown), (value, seen)
