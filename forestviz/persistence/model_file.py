"""A forestviz model file as one type: what the Train page's "Save the model", `forestviz
train` and a published blob hold, parsed and checked once, below the app and the batch
explainer that both read it.

A file's payload (``dumps``/``loads`` of :mod:`forestviz.persistence.files`) is a dict of the
fitted estimator and column encoding, the settings, the data-set choice, the split and the
fit's seconds. :meth:`ModelFile.parse` takes it only when every key is there, the choice and
the settings are ones the Train page writes, the estimator is a weighted tree ensemble and
the encoding a fitted :class:`~forestviz.io.preprocessing.TablePreprocessor` of the same
width; anything else is a :class:`~forestviz.persistence.archive.ModelFileError` (one line for
the user). :meth:`ModelFile.check_choice` says whether it was trained on the data set in use.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass

import numpy as np

from forestviz.io.dataset import DataChoice
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.persistence.archive import ModelFileError
from forestviz.settings import Settings

PAYLOAD_KEYS = frozenset({"settings", "choice", "dataset_name", "estimator", "preprocessor",
                          "train_rows", "test_rows"})


@dataclass(frozen=True, eq=False)
class ModelFile:
    """A checked model file: the fitted ``estimator`` and ``preprocessor``, the ``settings``,
    the data-set ``choice`` it was trained on and that data set's name, its split (positions
    in that data set) and the fit's seconds (NaN when the file does not say)."""

    estimator: object
    preprocessor: TablePreprocessor
    settings: Settings
    choice: DataChoice
    dataset_name: str
    train_rows: np.ndarray
    test_rows: np.ndarray
    fit_seconds: float = math.nan

    @classmethod
    def of(cls, bundle) -> ModelFile:
        """The file of a trained model (a :class:`forestviz.app.workflow.Bundle`)."""
        return cls(bundle.estimator, bundle.preprocessor, bundle.settings, bundle.choice,
                   bundle.dataset_name, np.asarray(bundle.train_rows),
                   np.asarray(bundle.test_rows), float(bundle.results["fit seconds"].iloc[0]))

    @classmethod
    def read(cls, data: bytes) -> ModelFile:
        """The model file of ``data`` (:func:`forestviz.persistence.files.loads`, then
        :meth:`parse`)."""
        from forestviz.persistence.files import loads

        return cls.parse(loads(data))

    @classmethod
    def parse(cls, payload) -> ModelFile:
        """A loaded payload checked (module docstring); ModelFileError otherwise."""
        from forestviz.trees.ensemble import as_ensemble

        if not isinstance(payload, dict) or not payload.keys() >= PAYLOAD_KEYS:
            raise ModelFileError("This model file was not saved by forestviz's Train page.")
        try:
            choice = DataChoice(**{**payload["choice"],
                                   "exclude": tuple(payload["choice"]["exclude"])})
            settings = Settings(**payload["settings"])
        except (TypeError, KeyError) as err:
            raise ModelFileError(f"This model file's settings could not be read: {err}") from err
        except ValueError as err:  # a value outside its parameter's domain
            raise ModelFileError("This model file's settings are not ones the Train page "
                                 "writes.") from err
        estimator, pre = payload["estimator"], payload["preprocessor"]
        try:
            as_ensemble(estimator)
        except TypeError as err:
            raise ModelFileError(f"This model file holds no tree ensemble: {err}") from err
        if not isinstance(pre, TablePreprocessor) or not hasattr(pre, "source_columns_"):
            raise ModelFileError("This model file holds no fitted column encoding.")
        if len(pre.source_columns_) != estimator.n_features_in_:
            raise ModelFileError("This model file's encoding and model do not fit together.")
        seconds = payload.get("fit_seconds")  # older model files have none
        return cls(estimator, pre, settings, choice, str(payload["dataset_name"]),
                   _positions(payload["train_rows"]), _positions(payload["test_rows"]),
                   seconds if isinstance(seconds, float) and 0 <= seconds < math.inf
                   else math.nan)

    def payload(self) -> dict:
        """What the file holds (:meth:`parse` reads it back)."""
        return {"fit_seconds": self.fit_seconds, "settings": asdict(self.settings),
                "choice": {**asdict(self.choice), "exclude": list(self.choice.exclude)},
                "dataset_name": self.dataset_name, "estimator": self.estimator,
                "preprocessor": self.preprocessor, "train_rows": self.train_rows,
                "test_rows": self.test_rows}

    def dumps(self) -> bytes:
        """The file's bytes (:func:`forestviz.persistence.files.dumps`)."""
        from forestviz.persistence.files import dumps

        return dumps(self.payload())

    @property
    def n_rows(self) -> int:
        """Rows of the data set it was trained on (training and held out)."""
        return len(self.train_rows) + len(self.test_rows)

    @property
    def trained_on(self) -> str:
        """Where its training table came from, in words."""
        kind, _, key = self.choice.source.partition(":")
        if kind in ("bundled", "table"):
            return f"the table '{key}'"
        return f"'{self.dataset_name}' (SHA-256 {key[:12]}…)"

    def check_choice(self, choice: DataChoice) -> None:
        """ModelFileError (one line) unless it was trained on the data set ``choice``."""
        if self.choice != choice:
            raise ModelFileError(
                f"This model was trained on the data set '{self.dataset_name}' with target "
                f"'{self.choice.target}', not on the data set in use. Choose that data (same "
                "file, target and columns) on the Data page, then load the model again.")


def digest(data: bytes) -> str:
    """A file's SHA-256, in hexadecimal (the same file is not loaded twice)."""
    return hashlib.sha256(data).hexdigest()


def _positions(rows) -> np.ndarray:
    """Row positions as integers; ModelFileError for anything else."""
    found = np.asarray(rows)
    if found.ndim != 1 or (found.size and found.dtype.kind not in "iu"):
        raise ModelFileError("This model file's split is not a list of row positions.")
    return found.astype(np.intp, copy=False)
