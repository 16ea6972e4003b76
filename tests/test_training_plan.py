"""The training plan (forestviz.app.training_plan): the rows a training is capped by are the
rows the split trains on, the caps refuse in one line, and the named tasks are the workflow's
functions."""

import importlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forestviz.app.families import Settings
from forestviz.app.limits import Limits
from forestviz.app.training_plan import plan_training
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
