"""The training plan (forestviz.app.training_plan): the rows a training is capped by are the
rows the split trains on, the caps refuse in one line, and the named tasks are the workflow's
functions; a request the server has trained already is reused, one its default training is
under way for is followed, every other planned (decide_training, on real thread jobs)."""

import importlib
import threading
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forestviz.app.families import Settings
from forestviz.app.jobs import in_thread
from forestviz.app.limits import Limits
from forestviz.app.training_plan import (
    SHARED_MODELS,
    DefaultTraining,
    Follow,
    Reuse,
    SharedModels,
    TrainingPlan,
    decide_training,
    plan_training,
)
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.trees.rows import split_rows


def table(n_rows: int) -> tuple[Dataset, DataChoice]:
    frame = pd.DataFrame({"x": np.arange(n_rows, dtype=float),
                          "y": np.linspace(0.0, 1.0, n_rows)})
    dataset = Dataset.from_frame(frame, "y", task="regression", name="t")
    return dataset, DataChoice("table:t", "y", None, (), "regression")


@settings(max_examples=30, deadline=None)
@given(n_rows=st.integers(10, 3000), percent=st.integers(2, 10))
def test_the_capped_rows_are_the_rows_the_split_trains_on(n_rows, percent):
    dataset, choice = table(n_rows)
    chosen = Settings(family="vanilla", test_size=percent * 5 / 100)
    plan = plan_training(dataset, choice, chosen, Limits())
    train, _ = split_rows(dataset.y.to_numpy(), chosen.test_size, stratify=False)
    assert plan.n_train_rows == len(train)


def test_over_a_cap_is_one_line_and_the_tasks_are_the_workflows_functions():
    dataset, choice = table(200)
    chosen = Settings(family="softmax", n_estimators=100)
    tight = Limits(max_row_trees=150 * 100 - 1)  # 150 training rows at 25 % held out
    with pytest.raises(ValueError) as refused:
        plan_training(dataset, choice, chosen, tight)
    assert "\n" not in str(refused.value) and "at most 99 trees" in str(refused.value)
    plan = plan_training(dataset, choice, chosen, Limits(max_row_trees=150 * 100))
    assert plan.title == "Attention RF: Softmax (no training of the weights)"
    assert plan.args == (dataset, choice, chosen)
    restore = plan_training(dataset, choice, chosen, Limits(), file="a model file")
    assert restore.args == ("a model file", dataset, choice)
    from forestviz.app import model_file, workflow
    for made, function in ((plan, workflow.train_bundle), (restore, model_file.restore)):
        module, name = made.task.split(":")
        assert getattr(importlib.import_module(module), name) is function


class Trained:
    """What :class:`SharedModels` keys a model by, as a Bundle has it."""

    def __init__(self, choice, settings):
        self.choice, self.settings = choice, settings


def finished(value=None, error=None):
    def run(progress):
        if error is not None:
            raise error
        return value
    job = in_thread(run)
    assert job.wait(30)
    return job


def test_a_training_the_server_has_is_reused_and_one_under_way_followed():
    dataset, _ = table(200)
    choice = DataChoice("bundled:t", "y", None, (), "regression")
    chosen, other = Settings(family="vanilla"), Settings(family="vanilla", n_estimators=50)
    shared = SharedModels()
    model = Trained(choice, chosen)
    shared.put(model)

    def decide(settings, **given):
        return decide_training(dataset, choice, settings, Limits(), shared=shared, **given)

    assert decide(chosen).bundle is model and isinstance(decide(chosen), Reuse)
    assert isinstance(decide(other), TrainingPlan)  # other settings: a training of its own
    assert isinstance(decide(chosen, file="a model file"), TrainingPlan)  # a file is restored
    # the default training of the same data and settings: followed while it runs, its model
    # once it is done, planned anew when it failed; another request is planned
    release = threading.Event()
    running = in_thread(lambda progress: release.wait(30))
    default = DefaultTraining(running, choice, other)
    assert decide(other, default=default).job is running
    assert isinstance(decide(chosen, default=default), Reuse)  # the shared one first
    assert isinstance(decide(Settings(family="vanilla", n_estimators=60), default=default),
                      TrainingPlan)
    release.set()
    assert running.wait(30)
    ended = decide(other, default=default)
    assert isinstance(ended, Reuse) and ended.bundle is True
    done = replace(default, job=finished("the default model"))
    assert decide(other, default=done).bundle == "the default model"
    failed = replace(default, job=finished(error=RuntimeError("no")))
    assert isinstance(decide(other, default=failed), TrainingPlan)
    assert not isinstance(decide(other, default=default), Follow)


def test_only_bundled_tables_models_are_kept_and_the_last_few():
    shared = SharedModels()
    upload = DataChoice("table:t", "y", None, (), "regression")
    shared.put(Trained(upload, Settings()))
    assert shared.get(upload, Settings()) is None
    choice = DataChoice("bundled:t", "y", None, (), "regression")
    kept = [Trained(choice, Settings(n_estimators=n)) for n in range(10, 20)]
    for model in kept:
        shared.put(model)
    assert [shared.get(choice, m.settings) for m in kept] == \
        [None] * (len(kept) - SHARED_MODELS) + kept[-SHARED_MODELS:]
