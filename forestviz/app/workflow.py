"""The product's training workflow without a user interface: the estimator of the chosen
model family (its :mod:`forestviz.registry` entry builds it from the
:mod:`forestviz.app.families` settings), the train/held-out split, the held-out measures next
to the baselines' (:mod:`forestviz.app.held_out`), and the :class:`Bundle` every page (and any
script) reads.
:func:`train_bundle` is what the app runs in a worker process (:mod:`forestviz.app.jobs`);
:mod:`forestviz.app.model_file` writes a bundle into a model file and reads it back.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor

from forestviz.app.families import default_settings as default_settings
from forestviz.app.held_out import scores
from forestviz.explain.row.columns import CATEGORICAL, ColumnMap
from forestviz.explain.row.familiar import FamiliarGround, numeric_features
from forestviz.explain.row.summary import TrainingSummary
from forestviz.explain.row.uncertainty import IntervalModel, interval_model
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.io.export import csv_bytes
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.registry import CLASSIFICATION, FAMILIES
from forestviz.settings import Settings  # the names every caller knows from here
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.plain import DecidedGradientBoostingClassifier, DecidedRandomForestClassifier
from forestviz.trees.rows import split_rows

if TYPE_CHECKING:
    from forestviz.explain.drawing.treeviz import TreeContext

Progress = Callable[[str, float], None]

def make_estimator(settings: Settings, task: str):
    """The unfitted estimator of ``settings.family`` for ``task`` (its registry entry's
    ``build``); DataError when the family cannot learn that task."""
    family = FAMILIES[settings.family]
    if task not in family.tasks:
        needs = ("a classification target" if CLASSIFICATION in family.tasks
                 else "a numeric (regression) target")
        raise DataError(f"{family.label} needs {needs}.")
    return family.build(settings, task == CLASSIFICATION)


def load_families() -> None:
    """Import every family's package, as building each family's estimator once does: the
    registry imports a package only then, and a process that will train or show any model (the
    workers' forkserver, the server once it starts) loads them all ahead of the first one."""
    for key, family in FAMILIES.items():
        for task in family.tasks:
            make_estimator(Settings(family=key), task)


def baselines(task: str, settings: Settings) -> dict[str, object]:
    """Vanilla random forest and scikit-learn gradient boosting, the comparison models; a
    classifier decides by the product's one rule (:mod:`forestviz.trees.decision`)."""
    if task == "classification":
        return {"Vanilla RF (baseline)": DecidedRandomForestClassifier(
                    settings.n_estimators, random_state=settings.random_state),
                "Gradient boosting (baseline)": DecidedGradientBoostingClassifier(
                    random_state=settings.random_state)}
    return {"Vanilla RF (baseline)": RandomForestRegressor(
                settings.n_estimators, random_state=settings.random_state),
            "Gradient boosting (baseline)": GradientBoostingRegressor(
                random_state=settings.random_state)}


@dataclass(frozen=True, eq=False)
class Bundle:
    """A trained model with everything the Explain and Forest pages need."""

    settings: Settings
    estimator: object
    preprocessor: TablePreprocessor
    choice: DataChoice  # the session's data-set choice it was trained on
    dataset_name: str
    task: str
    target: str
    feature_names: tuple[str, ...]
    class_names: tuple[str, ...] | None
    train_rows: np.ndarray
    test_rows: np.ndarray
    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    ids_train: np.ndarray
    ids_test: np.ndarray
    results: pd.DataFrame  # one row per model: held-out metrics and fit seconds
    test_predictions: dict[str, np.ndarray]  # model name → predictions or P(class 1)
    test_weights: np.ndarray  # (n_test, T) tree weights of the trained model
    summary: TrainingSummary  # explanations: medians, nearest rows, decision paths
    intervals: IntervalModel | None  # on the held-out rows (None: see interval_model)
    # a model loaded from a file without this server's valid signature: the line every page
    # and report that uses it shows (forestviz.store.signing.Verdict.warning)
    origin_warning: str | None = None
    # the columns its publisher marked as unable to change (the counterfactual's, read from a
    # published model; forestviz.app.counterfactuals)
    fixed: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return FAMILIES[self.settings.family].label

    @property
    def n_trees(self) -> int:
        return self.test_weights.shape[1]

    @cached_property
    def context(self) -> TreeContext:
        """What the tree drawings read of the training rows, built on first use: training
        workers never import dtreeviz and matplotlib (``docs/performance.md``, "Cold start and
        page speed")."""
        from forestviz.explain.drawing.treeviz import TreeContext

        levels = [j for c in self.summary.columns.columns if c.kind == CATEGORICAL
                  for j in c.features]
        return TreeContext.from_data(self.X_train, self.y_train, feature_names=self.feature_names,
                                     target_name=self.target, class_names=self.class_names,
                                     indicators=levels)

    @cached_property
    def familiar(self) -> FamiliarGround:
        """How unusual a row is for this model (:mod:`forestviz.explain.row.familiar`), built on
        first use from the estimator and its training and held-out rows: what a model file
        and a published model keep, so a model read back rebuilds the same state."""
        return FamiliarGround(self.estimator, self.X_train,
                              numeric_features(self.summary.columns)).calibrate(self.X_test)


def _prepare(dataset: Dataset, train_rows, test_rows, preprocessor=None):
    X = dataset.X
    if preprocessor is None:
        preprocessor = TablePreprocessor().fit(X.iloc[train_rows])
    return (preprocessor, preprocessor.transform(X.iloc[train_rows]),
            preprocessor.transform(X.iloc[test_rows]))


def train_bundle(dataset: Dataset, choice: DataChoice, settings: Settings,
                 progress: Progress) -> Bundle:
    """Split, encode, fit the chosen model (its ``progress`` stages pass through, scaled to
    the first 75 %), then the baselines; raises DataError for a target the family can't learn."""
    estimator = make_estimator(settings, dataset.task)
    progress("preparing the features", 0.0)
    train_rows, test_rows = split_rows(dataset.y.to_numpy(), settings.test_size,
                                       settings.random_state,
                                       stratify=dataset.task == "classification")
    preprocessor, X_train, _ = _prepare(dataset, train_rows, test_rows)
    y_train = dataset.y.to_numpy()[train_rows]
    started = time.perf_counter()

    def model_progress(stage: str, fraction: float) -> None:
        label = FAMILIES[settings.family].label
        progress(f"{label}: {stage}", 0.05 + 0.7 * min(max(fraction, 0), 1))

    # forestviz's estimators report their stages (forestviz.trees.checks); scikit-learn's do not
    reports = "progress" in inspect.signature(estimator.fit).parameters
    fit_kwargs = {"progress": model_progress} if reports else {}
    estimator.fit(X_train, y_train, **fit_kwargs)
    return assemble(dataset, choice, settings, estimator, preprocessor, train_rows, test_rows,
                    time.perf_counter() - started, progress)


def assemble(dataset, choice, settings, estimator, preprocessor, train_rows, test_rows,
             fit_seconds, progress: Progress, *, with_baselines: bool = True) -> Bundle:
    """The bundle of a fitted estimator: held-out metrics, baselines (unless not
    ``with_baselines``: the metrics table then holds the model alone) and the explanation
    aids."""
    preprocessor, X_train, X_test = _prepare(dataset, train_rows, test_rows, preprocessor)
    y = dataset.y.to_numpy()
    y_train, y_test = y[train_rows], y[test_rows]
    classes = dataset.classes
    models = {FAMILIES[settings.family].label: (estimator, fit_seconds)}
    fitted = baselines(dataset.task, settings) if with_baselines else {}
    for i, (name, baseline) in enumerate(fitted.items()):
        progress(f"fitting {name}", 0.75 + 0.1 * i)
        started = time.perf_counter()
        models[name] = (baseline.fit(X_train, y_train), time.perf_counter() - started)
    progress("scoring the held-out rows", 0.95)
    rows, predictions = [], {}
    for name, (model, seconds) in models.items():
        rows.append({"model": name, **scores(model, X_test, y_test, dataset.task, classes),
                     "fit seconds": seconds})
        predictions[name] = (model.predict(X_test) if dataset.task == "regression"
                             else model.predict_proba(X_test)[:, -1])
    bundle = scored_bundle(dataset, choice, settings, estimator, preprocessor,
                           (train_rows, test_rows), pd.DataFrame(rows), predictions,
                           encoded=(X_train, X_test))
    progress("done", 1.0)
    return bundle


def scored_bundle(dataset, choice, settings, estimator, preprocessor, split, results,
                  predictions, encoded=None) -> Bundle:
    """The bundle of a fitted estimator whose held-out ``results`` (the metrics table) and
    ``predictions`` (model name → held-out predictions or P(class 1)) are known: the
    explanation aids are built, nothing is fitted (a published model opens through this,
    :mod:`forestviz.store.published`). ``split``: (training rows, held-out rows);
    ``encoded``: their encoded features when already at hand."""
    train_rows, test_rows = split
    if encoded is None:
        _, X_train, X_test = _prepare(dataset, train_rows, test_rows, preprocessor)
    else:
        X_train, X_test = encoded
    y = dataset.y.to_numpy()
    y_train, y_test = y[train_rows], y[test_rows]
    classes = dataset.classes
    names = tuple(str(n) for n in preprocessor.get_feature_names_out())
    ids = dataset.ids.to_numpy(dtype=str)
    return Bundle(
        settings=settings, estimator=estimator, preprocessor=preprocessor, choice=choice,
        dataset_name=dataset.name, task=dataset.task, target=dataset.target,
        feature_names=names, class_names=None if classes is None else tuple(map(str, classes)),
        train_rows=train_rows, test_rows=test_rows, X_train=X_train, X_test=X_test,
        y_train=y_train, y_test=y_test, ids_train=ids[train_rows], ids_test=ids[test_rows],
        results=results, test_predictions=predictions,
        test_weights=as_ensemble(estimator).tree_weights(X_test),
        summary=TrainingSummary.from_data(
            estimator, X_train, y_train, feature_names=names, ids=ids[train_rows],
            original=dataset.X.iloc[train_rows],
            columns=ColumnMap.from_preprocessor(preprocessor, dataset.X.iloc[train_rows])),
        intervals=interval_model(dataset.task, estimator,
                                 predictions[FAMILIES[settings.family].label], y_test),
    )


def predictions_csv(bundle: Bundle) -> bytes:
    """Held-out rows: ID, actual, prediction (and class probabilities), then per-tree weights;
    text from the uploaded file is neutralised against spreadsheet formulas (:mod:`export`)."""
    estimator, X = bundle.estimator, bundle.X_test
    frame = pd.DataFrame({"id": bundle.ids_test, "actual": bundle.y_test,
                          "predicted": estimator.predict(X)})
    if bundle.task == "classification":
        proba = estimator.predict_proba(X)
        for j, name in enumerate(bundle.class_names):
            frame[f"P({name})"] = proba[:, j]
    weights = pd.DataFrame(bundle.test_weights,
                           columns=[f"weight tree {k + 1}" for k in range(bundle.n_trees)])
    return csv_bytes(pd.concat([frame, weights], axis=1))
