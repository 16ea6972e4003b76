"""A training request as the server runs it, decided here and only submitted by a page: a model
the server has trained already on the same data and settings (:class:`Reuse`), the server's
default training under way (:class:`Follow`), or a new plan (:class:`TrainingPlan`): which
worker task (a new training, or a loaded model file's restoring), with which arguments, under
which title, within the server's caps (:class:`~forestviz.app.limits.Limits`).

Importing it imports no model package, nor scikit-learn (the first page imports it): the task
is named (``"module:function"``), imported by the worker alone
(:meth:`forestviz.app.jobs.JobPool.submit`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cachetools

from forestviz.app.families import Settings
from forestviz.app.jobs import Job
from forestviz.app.limits import Limits
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.registry import FAMILIES

if TYPE_CHECKING:
    from forestviz.app.workflow import Bundle
    from forestviz.persistence.model_file import ModelFile

TRAIN = "forestviz.app.workflow:train_bundle"
RESTORE = "forestviz.app.model_file:restore"
SHARED_MODELS = 4  # models kept for the whole server (by data set and settings)


@dataclass(frozen=True, eq=False)
class TrainingPlan:
    """``task(*args)`` in a worker (``task`` named ``"module:function"``), shown as ``title``;
    ``n_train_rows``: the rows it trains on, the count the caps were checked against."""

    task: str
    args: tuple
    title: str
    n_train_rows: int


def plan_training(dataset: Dataset, choice: DataChoice, settings: Settings, limits: Limits,
                  file: ModelFile | None = None) -> TrainingPlan:
    """The plan for training ``settings`` on ``dataset`` (or, with a model ``file``,
    restoring it); ValueError in one plain sentence when it is over one of ``limits``' caps."""
    from forestviz.trees.rows import held_out_count  # scikit-learn: not on the first page

    n_rows = len(dataset.frame)
    n_train = n_rows - held_out_count(n_rows, settings.test_size)
    limits.check_training(n_rows=n_train, n_trees=settings.n_estimators,
                          max_depth=settings.max_depth)
    task, args = ((TRAIN, (dataset, choice, settings)) if file is None
                  else (RESTORE, (file, dataset, choice)))
    return TrainingPlan(task, args, FAMILIES[settings.family].label, n_train)


class SharedModels:
    """The models trained on a server's bundled tables, by (data set choice, settings), the
    last :data:`SHARED_MODELS` (a :class:`cachetools.LRUCache` behind a lock: sessions run in
    threads of their own). Models of uploaded tables are not kept: an upload and what was learnt
    from it end with its session, and a bundled table's models are small."""

    def __init__(self):
        self._lock, self._models = threading.Lock(), cachetools.LRUCache(SHARED_MODELS)

    def get(self, choice: DataChoice, settings: Settings) -> Bundle | None:
        with self._lock:
            return self._models.get((choice, settings))

    def put(self, bundle: Bundle) -> None:
        if bundle.choice.source.startswith("bundled:"):
            with self._lock:
                self._models[bundle.choice, bundle.settings] = bundle


@dataclass(frozen=True, eq=False)
class Reuse:
    """A model the server has trained on the same data and settings: the session takes it."""

    bundle: Bundle


@dataclass(frozen=True, eq=False)
class Follow:
    """The server's default training of the same data and settings, queued or running: the
    session follows it instead of training the same model again."""

    job: Job


@dataclass(frozen=True, eq=False)
class DefaultTraining:
    """The server's default model: the ``job`` that loads or trains it, on ``choice`` with
    ``settings``."""

    job: Job
    choice: DataChoice
    settings: Settings


def decide_training(dataset: Dataset, choice: DataChoice, settings: Settings, limits: Limits, *,
                    file: ModelFile | None = None, shared: SharedModels | None = None,
                    default: DefaultTraining | None = None) -> Reuse | Follow | TrainingPlan:
    """What a request to train ``settings`` on ``dataset`` (or to restore a model ``file``)
    becomes: a model of ``shared`` with the same data and settings; else the ``default``
    training's model when it is that training (finished: its model; queued or running: follow
    it); else a new :class:`TrainingPlan` (:func:`plan_training`, ValueError over a cap). A
    model file is always restored; a default training that failed or was cancelled is planned
    anew."""
    if file is None:
        trained = None if shared is None else shared.get(choice, settings)
        if trained is not None:
            return Reuse(trained)
        if default is not None and (default.choice, default.settings) == (choice, settings):
            if default.job.finished_ok:
                return Reuse(default.job.result())
            if default.job.unfinished:
                return Follow(default.job)
    return plan_training(dataset, choice, settings, limits, file)
