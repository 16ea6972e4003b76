"""The product's training workflow without a user interface: the estimator factory of the
model families (named, with the settings, in :mod:`forestviz.app.families`), the
train/held-out split, held-out metrics next to the baselines, and the :class:`Bundle` every
page (and any script) reads. :func:`train_bundle` is what the app runs
in a worker process (:mod:`forestviz.app.jobs`); :func:`model_payload` and :func:`restore` are the
two halves of a model file (written and read by :mod:`forestviz.persistence.files`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.metrics import (
    accuracy_score,
    brier_score_loss,
    f1_score,
    mean_absolute_error,
    r2_score,
    recall_score,
    roc_auc_score,
)

from forestviz.app.families import (  # the names every caller knows from here
    ATTENTION_MODES,
    BASES,
    CLASSIFICATION_ONLY,
    FAMILIES,
    REGRESSION_ONLY,
    Settings,
)
from forestviz.app.families import default_settings as default_settings
from forestviz.app.families import families_for as families_for
from forestviz.attention.estimators import AttentionForestClassifier, AttentionForestRegressor
from forestviz.boosting.estimator import AttentionBoostingRegressor
from forestviz.enhanced.estimator import EnhancedForestClassifier
from forestviz.explain.columns import CATEGORICAL, ColumnMap
from forestviz.explain.summary import TrainingSummary
from forestviz.explain.uncertainty import IntervalModel, min_calibration_rows
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.io.export import csv_bytes
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.persistence.archive import ModelFileError
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.rows import split_rows

if TYPE_CHECKING:
    from forestviz.explain.treeviz import TreeContext

Progress = Callable[[str, float], None]

INTERVAL_CONFIDENCE = 0.9  # the level of a value's conformal interval
PAYLOAD_KEYS = {"settings", "choice", "dataset_name", "estimator", "preprocessor",
                "train_rows", "test_rows"}


def make_estimator(settings: Settings, task: str):
    """The unfitted estimator of ``settings.family`` for ``task``."""
    s, classify = settings, task == "classification"
    if s.family in CLASSIFICATION_ONLY and not classify:
        raise DataError(f"{FAMILIES[s.family]} needs a classification target.")
    if s.family in REGRESSION_ONLY and classify:
        raise DataError(f"{FAMILIES[s.family]} needs a numeric (regression) target.")
    seed = s.random_state
    if s.family == "vanilla":
        forest = {("random", True): RandomForestClassifier,
                  ("random", False): RandomForestRegressor,
                  ("extra", True): ExtraTreesClassifier,
                  ("extra", False): ExtraTreesRegressor}
        return forest[s.base, classify](s.n_estimators, min_samples_leaf=s.min_samples_leaf,
                                        max_depth=s.max_depth, random_state=seed)
    if s.family == "erf":
        return EnhancedForestClassifier(
            s.n_estimators, max_depth=6 if s.max_depth is None else s.max_depth,
            n_iterations=s.n_iterations, early_stopping=s.auto_tune, learning_rate=s.learning_rate,
            n_neighbors=s.n_neighbors, top_trees=s.top_trees, random_state=seed)
    if s.family == "agboost":
        return AttentionBoostingRegressor(
            s.n_estimators, base="gbm" if s.base == "random" else "extra",
            max_depth=3 if s.max_depth is None else s.max_depth,
            min_samples_leaf=s.min_samples_leaf, random_state=seed,
            **({} if s.auto_tune else {"eps": s.eps, "tau": s.tau, "discount": s.discount}))
    mode, loss = ATTENTION_MODES[s.family]
    tuned = {} if s.auto_tune else {"eps": s.eps, "tau": s.tau}
    model = AttentionForestClassifier if classify else AttentionForestRegressor
    return model(s.n_estimators, base=s.base, mode=mode, loss=loss, max_depth=s.max_depth,
                 min_samples_leaf=s.min_samples_leaf, random_state=seed, **tuned)


def baselines(task: str, settings: Settings) -> dict[str, object]:
    """Vanilla random forest and scikit-learn gradient boosting, the comparison models."""
    if task == "classification":
        return {"Vanilla RF (baseline)": RandomForestClassifier(
                    settings.n_estimators, random_state=settings.random_state),
                "Gradient boosting (baseline)": GradientBoostingClassifier(
                    random_state=settings.random_state)}
    return {"Vanilla RF (baseline)": RandomForestRegressor(
                settings.n_estimators, random_state=settings.random_state),
            "Gradient boosting (baseline)": GradientBoostingRegressor(
                random_state=settings.random_state)}


def scores(estimator, X, y, task: str, classes) -> dict[str, float]:
    """Held-out metrics: AUC / F1 / accuracy, and for two classes the sensitivity and
    specificity at the model's own decision rule and the Brier score (classification); R² / MAE
    (regression)."""
    if task == "regression":
        predicted = estimator.predict(X)
        return {"R²": r2_score(y, predicted), "MAE": mean_absolute_error(y, predicted)}
    proba = estimator.predict_proba(X)
    predicted = estimator.predict(X)
    binary = len(classes) == 2
    try:
        auc = (roc_auc_score(y == classes[1], proba[:, 1]) if binary
               else roc_auc_score(y, proba, multi_class="ovr", labels=list(classes)))
    except ValueError:  # a class missing from the held-out rows
        auc = np.nan
    f1 = (f1_score(y, predicted, pos_label=classes[1]) if binary
          else f1_score(y, predicted, average="macro"))
    found = {"AUC": auc, "F1": f1, "accuracy": accuracy_score(y, predicted)}
    if binary:  # at the model's own decision rule (ERF: Youden's threshold)
        positive = y == classes[1]
        found.update(sensitivity=recall_score(positive, predicted == classes[1],
                                              zero_division=np.nan),
                     specificity=recall_score(~positive, predicted != classes[1],
                                              zero_division=np.nan),
                     **{"Brier score": brier_score_loss(positive,
                                                        np.clip(proba[:, 1], 0.0, 1.0))})
    return found


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

    @property
    def name(self) -> str:
        return FAMILIES[self.settings.family]

    @property
    def n_trees(self) -> int:
        return self.test_weights.shape[1]

    @cached_property
    def context(self) -> TreeContext:
        """What the tree drawings read of the training rows, built on first use: training
        workers never import dtreeviz and matplotlib (``docs/performance.md``, "Cold start and
        page speed")."""
        from forestviz.explain.treeviz import TreeContext

        levels = [j for c in self.summary.columns.columns if c.kind == CATEGORICAL
                  for j in c.features]
        return TreeContext.from_data(self.X_train, self.y_train, feature_names=self.feature_names,
                                     target_name=self.target, class_names=self.class_names,
                                     indicators=levels)


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
        progress(f"{FAMILIES[settings.family]}: {stage}", 0.05 + 0.7 * min(max(fraction, 0), 1))

    fit_kwargs = {} if settings.family == "vanilla" else {"progress": model_progress}
    estimator.fit(X_train, y_train, **fit_kwargs)
    return assemble(dataset, choice, settings, estimator, preprocessor, train_rows, test_rows,
                    time.perf_counter() - started, progress)


def assemble(dataset, choice, settings, estimator, preprocessor, train_rows, test_rows,
             fit_seconds, progress: Progress) -> Bundle:
    """The bundle of a fitted estimator: held-out metrics, baselines and the explanation aids."""
    preprocessor, X_train, X_test = _prepare(dataset, train_rows, test_rows, preprocessor)
    y = dataset.y.to_numpy()
    y_train, y_test = y[train_rows], y[test_rows]
    classes = dataset.classes
    models = {FAMILIES[settings.family]: (estimator, fit_seconds)}
    for i, (name, baseline) in enumerate(baselines(dataset.task, settings).items()):
        progress(f"baseline: {name}", 0.75 + 0.1 * i)
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
                                 predictions[FAMILIES[settings.family]], y_test),
    )


def interval_model(task: str, estimator, outputs, y_test) -> IntervalModel | None:
    """The trained model's calibrated interval, fitted on the held-out rows (``outputs``: its
    predictions or P(class 1) there): split-conformal at ``INTERVAL_CONFIDENCE`` for a value,
    Venn-ABERS for a binary risk. The held-out metrics score the point predictions, which it
    leaves unchanged; only the interval's own coverage can no longer be measured on these
    rows. None for more than two classes, a held-out side with one outcome only, or too few
    held-out rows."""
    if task == "regression":
        if len(y_test) < min_calibration_rows(INTERVAL_CONFIDENCE):
            return None
        return IntervalModel.from_outputs(outputs, y_test, task=task,
                                          confidence=INTERVAL_CONFIDENCE)
    classes = np.asarray(estimator.classes_)
    if classes.size != 2 or np.unique(y_test).size != 2:
        return None
    return IntervalModel.from_outputs(outputs, y_test, task=task, positive=classes[1])


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


# ------------------------------------------------------------------------- model files
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
    if not _plausible(settings):
        raise ModelFileError("This model file's settings are not ones the Train page writes.")
    if saved != choice:
        raise ModelFileError(
            f"This model was trained on the data set '{payload['dataset_name']}' with target "
            f"'{saved.target}', not on the data set in use. Choose that data (same file, target "
            "and columns) on the Data page, then load the model again.")
    return settings


def _plausible(settings: Settings) -> bool:
    """Every setting of the type and range the Train page writes (a file's settings are
    untrusted: they size the baselines the load fits)."""
    kinds = {"family": str, "base": str, "auto_tune": bool, "max_depth": (int, type(None))}
    for name, value in asdict(settings).items():
        kind = kinds.get(name, type(getattr(Settings, name)))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            continue  # 1 for 1.0
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return False
    return (settings.family in FAMILIES and settings.base in BASES
            and 0 < settings.test_size < 1 and settings.n_estimators >= 1)


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
