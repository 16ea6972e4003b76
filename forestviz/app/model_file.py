"""The two halves of a model file: :func:`model_payload` (what the Train page's file holds,
written by :mod:`forestviz.persistence`) and :func:`restore` (a file read back onto the data set
in use, after :func:`check_payload` made sure it is a payload of this data set's choice).
"""

from __future__ import annotations

import math
from dataclasses import asdict

from forestviz.app.families import Settings
from forestviz.app.workflow import Bundle, Progress, assemble
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.persistence.archive import ModelFileError

PAYLOAD_KEYS = {"settings", "choice", "dataset_name", "estimator", "preprocessor",
                "train_rows", "test_rows"}


def model_payload(bundle: Bundle) -> dict:
    """What a model file holds (write it with ``persistence.dumps``): the fitted estimator and
    preprocessor, the settings, the data-set choice, the split and the fit's seconds."""
    return {
        "fit_seconds": float(bundle.results["fit seconds"].iloc[0]),
        "settings": asdict(bundle.settings),
        "choice": {**asdict(bundle.choice), "exclude": list(bundle.choice.exclude)},
        "dataset_name": bundle.dataset_name,
        "estimator": bundle.estimator,
        "preprocessor": bundle.preprocessor,
        "train_rows": bundle.train_rows,
        "test_rows": bundle.test_rows,
    }


def check_payload(payload, choice: DataChoice) -> Settings:
    """The settings of a loaded model file (``persistence.loads``) once it is known to be a
    model payload trained on the data set ``choice``; ModelFileError otherwise."""
    if not isinstance(payload, dict) or not payload.keys() >= PAYLOAD_KEYS:
        raise ModelFileError("This model file was not saved by forestviz's Train page.")
    try:
        saved = DataChoice(**{**payload["choice"],
                              "exclude": tuple(payload["choice"]["exclude"])})
        settings = Settings(**payload["settings"])
    except (TypeError, KeyError) as err:
        raise ModelFileError(f"This model file's settings could not be read: {err}") from err
    except ValueError as err:  # a value outside its parameter's domain (forestviz.parameters)
        raise ModelFileError("This model file's settings are not ones the Train page "
                             "writes.") from err
    if saved != choice:
        raise ModelFileError(
            f"This model was trained on the data set '{payload['dataset_name']}' with target "
            f"'{saved.target}', not on the data set in use. Choose that data (same file, target "
            "and columns) on the Data page, then load the model again.")
    return settings


def restore(payload, dataset: Dataset, choice: DataChoice, progress: Progress) -> Bundle:
    """The bundle of a loaded model file on the data set in use (held-out metrics and the
    baselines are computed anew); ModelFileError when the file does not fit it."""
    settings = check_payload(payload, choice)
    seconds = payload.get("fit_seconds")  # untrusted; older model files have none
    if not (isinstance(seconds, float) and 0 <= seconds < math.inf):
        seconds = math.nan
    try:
        return assemble(dataset, choice, settings, payload["estimator"],
                        payload["preprocessor"], payload["train_rows"], payload["test_rows"],
                        seconds, progress)
    except (TypeError, ValueError, IndexError, AttributeError) as err:
        raise ModelFileError(f"This model file does not fit the data set in use: {err}") from err
