"""The training workflow's handling of untrusted model-file payloads (forestviz.workflow)."""

from dataclasses import asdict

import numpy as np
import pytest

from forestviz.app import workflow
from forestviz.io.dataset import DataChoice
from forestviz.persistence import ModelFileError


def test_a_model_file_with_settings_the_train_page_never_writes_is_refused():
    """A model file's settings are untrusted: they size the baselines a load fits."""
    choice = DataChoice("upload:x", "y", None, (), "auto")
    base = {"settings": asdict(workflow.Settings()), "dataset_name": "x.csv",
            "choice": {**asdict(choice), "exclude": []}, "estimator": None,
            "preprocessor": None, "train_rows": np.arange(3), "test_rows": np.arange(3, 5)}
    assert workflow.check_payload(base, choice) == workflow.Settings()
    for change in ({"family": "rm -rf"}, {"n_estimators": "many"}, {"n_estimators": True},
                   {"max_depth": 2.5}, {"test_size": 1.5}, {"base": "other"},
                   {"n_estimators": 0}):
        bad = {**base, "settings": {**base["settings"], **change}}
        with pytest.raises(ModelFileError, match="not ones the Train page writes"):
            workflow.check_payload(bad, choice)
