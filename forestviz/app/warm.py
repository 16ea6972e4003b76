"""Imported once by the training workers' forkserver (``forestviz.app.jobs``): loads the library
and runs the default training on a small synthetic table, so the compiled kernels (numba) and
every lazily built piece are in memory before any worker is forked from it.

Measured with ``bench/jobs.py``: without it each job spent about 0.4 s loading them again
(the default Pima training took 0.87 s in a fresh worker against 0.46 s when warm).
"""

import numpy as np
import pandas as pd

from forestviz.app import workflow
from forestviz.io.dataset import DataChoice, Dataset


def warm() -> None:
    """Train the default classification and regression models on 60 synthetic rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    for task, y in (("classification", np.where(X[:, 0] > 0, "a", "b")),
                    ("regression", X[:, 0] + rng.normal(0, 0.1, 60))):
        frame = pd.DataFrame(X, columns=["w", "x", "y", "z"]).assign(target=y)
        dataset = Dataset.from_frame(frame, "target", task=task, name="warm-up")
        choice = DataChoice("warm-up", "target", None, (), task)
        settings = workflow.Settings(family=workflow.default_settings(task).family,
                                     n_estimators=10)
        workflow.train_bundle(dataset, choice, settings, progress=lambda *_: None)


warm()
