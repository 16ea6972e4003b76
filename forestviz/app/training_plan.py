"""A training request as the server runs it, decided here and only submitted by a page: which
worker task (a new training, or a loaded model file's restoring), with which arguments, under
which title, within the server's caps (:class:`~forestviz.app.limits.Limits`).

Importing it imports no model package: the task is named (``"module:function"``), imported by
the worker alone (:meth:`forestviz.app.jobs.JobPool.submit`).
"""

from __future__ import annotations

from dataclasses import dataclass

from forestviz.app.families import Settings
from forestviz.app.limits import Limits
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.persistence.model_file import ModelFile
from forestviz.registry import FAMILIES
from forestviz.trees.rows import held_out_count

TRAIN = "forestviz.app.workflow:train_bundle"
RESTORE = "forestviz.app.model_file:restore"


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
    n_rows = len(dataset.frame)
    n_train = n_rows - held_out_count(n_rows, settings.test_size)
    limits.check_training(n_rows=n_train, n_trees=settings.n_estimators,
                          max_depth=settings.max_depth)
    task, args = ((TRAIN, (dataset, choice, settings)) if file is None
                  else (RESTORE, (file, dataset, choice)))
    return TrainingPlan(task, args, FAMILIES[settings.family].label, n_train)
