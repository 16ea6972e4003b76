"""A model file made ready to explain many rows: the fitted estimator and preprocessor of a
model file (:class:`forestviz.persistence.model_file.ModelFile`), the decision rule of
:func:`forestviz.explain.explain`, and what is rebuilt from the training table when it is at
hand: the calibrated interval (fitted on the held-out rows, as :func:`model_file.restore` does)
and familiar ground (:mod:`forestviz.explain.row.familiar`, built as the app's bundle builds it).

A :class:`BatchModel` is plain data and pickles: the command line sends it once to every Dask
worker (:mod:`forestviz.batch.run`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from sklearn.base import is_classifier

from forestviz.explain.counterfactual import Space
from forestviz.explain.counterfactual.asked import check_goal, space_of
from forestviz.explain.row.columns import ColumnMap
from forestviz.explain.row.contributions import ContributionModel
from forestviz.explain.row.familiar import FamiliarGround, numeric_features
from forestviz.explain.row.uncertainty import IntervalModel, interval_model
from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.dataset import Dataset
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.persistence.archive import MAX_FILE_BYTES, ModelFileError
from forestviz.persistence.model_file import ModelFile
from forestviz.trees.ensemble import as_ensemble


@dataclass(frozen=True)
class Counterfactuals:
    """What would change each row's answer, asked in ``space`` (the training rows' values,
    the columns that cannot change), for a regression by ``change``."""

    space: Space
    change: float | None = None


@dataclass(frozen=True, eq=False)
class BatchModel:
    """A saved model's parts for explaining rows in bulk.

    ``file``: the checked model file (its estimator, encoding, settings, data-set choice and
    split). ``columns``: the table columns the preprocessor was fitted on; ``used``: those it
    encodes (the others were dropped as free text or empty); ``sources[j]``: the user column of
    encoded feature j. ``classes`` (classification) in the order of the model's probabilities;
    ``threshold``: P(``classes[1]``) at or above it predicts ``classes[1]`` (ERF: Youden's J;
    other binary models 0.5; None for regression and more than two classes, where the largest
    probability decides). ``intervals``: the calibrated interval, or None when the training
    table was not given or the model has none; ``familiar``: how unusual a row is for the
    model (:class:`~forestviz.explain.row.familiar.FamiliarGround`), None without the training
    table. ``contributions``: the model's :class:`ContributionModel` once
    :meth:`with_contributions` built it; ``counterfactual``: what would change each row's
    answer is asked for (:meth:`with_counterfactuals`).
    """

    file: ModelFile
    task: str
    classes: np.ndarray | None
    threshold: float | None
    argmax: bool
    columns: tuple[str, ...]
    used: tuple[str, ...]
    numeric: frozenset[str]
    sources: tuple[str, ...]
    intervals: IntervalModel | None = None
    familiar: FamiliarGround | None = None
    contributions: ContributionModel | None = None
    counterfactual: Counterfactuals | None = None

    @property
    def estimator(self):
        return self.file.estimator

    @property
    def preprocessor(self) -> TablePreprocessor:
        return self.file.preprocessor

    @classmethod
    def from_file(cls, file: ModelFile) -> BatchModel:
        """The batch model of a checked model ``file``."""
        estimator, pre = file.estimator, file.preprocessor
        classify = is_classifier(estimator)
        classes = np.asarray(estimator.classes_) if classify else None
        threshold = as_ensemble(estimator).describe().threshold
        binary = classify and classes.size == 2
        explicit = binary and threshold is not None
        columns = tuple(str(c) for c in pre.feature_names_in_)
        return cls(
            file=file, task="classification" if classify else "regression", classes=classes,
            threshold=threshold if explicit else 0.5 if binary else None,
            argmax=not explicit,
            columns=columns, used=tuple(c for c in columns if c not in pre.dropped_columns_),
            numeric=frozenset(map(str, pre.medians_)),
            sources=tuple(str(s) for s in pre.source_columns_))

    def with_contributions(self) -> BatchModel:
        """This model with its :class:`ContributionModel` (per-column contributions)."""
        if self.contributions is not None:
            return self
        names = [str(n) for n in self.preprocessor.get_feature_names_out()]
        return replace(self, contributions=ContributionModel.from_model(
            self.estimator, feature_names=names))

    def with_training(self, dataset: Dataset) -> BatchModel:
        """This model with its calibrated interval, fitted on the held-out rows of the
        training ``dataset`` as the app does when it loads the file
        (:func:`forestviz.explain.row.uncertainty.interval_model` on the model's outputs there), and
        its familiar ground, as the app's bundle builds it (:attr:`Bundle.familiar`)."""
        try:
            original = dataset.X.iloc[self.file.train_rows]
            X_train = self.preprocessor.transform(original)
            columns = ColumnMap.from_preprocessor(self.preprocessor, original)
            X_test = self.preprocessor.transform(dataset.X.iloc[self.file.test_rows])
            y_test = dataset.y.to_numpy()[self.file.test_rows]
        except (IndexError, ValueError, KeyError, TypeError) as err:
            raise ModelFileError(f"The training table does not fit this model: {err}") from err
        outputs = (self.estimator.predict(X_test) if self.task == "regression"
                   else self.estimator.predict_proba(X_test)[:, -1])
        if not np.isfinite(outputs).all():  # the model's first use: one line, no traceback
            raise ModelFileError("This model file was refused: its predictions on the rows it "
                                 "held out are not all finite numbers.")
        intervals = interval_model(dataset.task, self.estimator, outputs, y_test)
        familiar = FamiliarGround(self.estimator, X_train,
                                  numeric_features(columns)).calibrate(X_test)
        return replace(self, intervals=intervals, familiar=familiar)

    def with_counterfactuals(self, dataset: Dataset, fixed=(),
                             change: float | None = None) -> BatchModel:
        """This model asking, for each row, what would change its answer
        (:func:`forestviz.explain.counterfactual.asked.counterfactual_of`) in the space of its
        training rows in ``dataset``, as the app's bundle builds it, the columns ``fixed`` kept: its
        other class, or (a regression, where ``change`` is required) its prediction moved by
        ``change``. DataError (one line) for a column the model does not have, a change
        missing or given to a classifier."""
        check_goal(self.task == "classification", change)
        original = dataset.X.iloc[self.file.train_rows]
        space = space_of(self.preprocessor.transform(original),
                         ColumnMap.from_preprocessor(self.preprocessor, original), fixed)
        return replace(self, counterfactual=Counterfactuals(space, change))


def read_model(path) -> BatchModel:
    """The :class:`BatchModel` of a model file on disk (ModelFileError or DataError)."""
    return BatchModel.from_file(ModelFile.read(read_bytes(path, MAX_FILE_BYTES, "model file")))


def read_bytes(path, limit: int, what: str) -> bytes:
    """A file's bytes, refused in plain words when missing, unreadable or over ``limit``."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > limit:
            raise DataError(f"The {what} '{path.name}' is larger than {limit / 2**20:,.0f} MB.")
        return path.read_bytes()
    except FileNotFoundError as err:
        raise DataError(f"There is no {what} '{path}'. Check the path and try again.") from err
    except IsADirectoryError as err:
        raise DataError(f"'{path}' is a folder, not a {what}.") from err
    except OSError as err:
        raise DataError(f"The {what} '{path}' could not be read ({err.strerror or err}).") from err


def training_dataset(model: ModelFile, data: bytes | None = None,
                     name: str = "uploaded") -> Dataset | None:
    """The data set the model file ``model`` was trained on, as the app builds it: a bundled
    table by name (``bundled:`` from the app, ``table:`` from a script's :class:`Workbench`), or
    the CSV ``data`` when it is the very file (same SHA-256) the model was trained on. None when
    ``data`` is not that file (or not given), or the table found has another number of rows than
    the model's split (a synthetic table drawn at another size); DataError when its columns no
    longer fit."""
    from forestviz.io.bundled import list_datasets, load_dataset

    kind, _, key = model.choice.source.partition(":")
    choice = model.choice
    if kind in ("bundled", "table") and key in {info.name for info in list_datasets()}:
        found = load_dataset(key)
    elif kind != "upload" or data is None or hashlib.sha256(data).hexdigest() != key:
        return None
    else:
        found = Dataset.from_frame(load_csv(data), choice.target,
                                   task=None if choice.task == "auto" else choice.task,
                                   id_column=choice.id_column, exclude=choice.exclude, name=name)
    return found if len(found.frame) == model.n_rows else None
