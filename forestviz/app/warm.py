"""Imported once by the training workers' forkserver (``forestviz.app.jobs``): loads the library
(every model family's package) and runs the default classification training (Enhanced RF) on a
small synthetic table, so its compiled kernels (numba, from the cache ``make run`` fills) and
every lazily built piece are in memory before any worker is forked from it. The `Makefile`
imports it once after installing, which compiles the kernels into that cache. The families'
packages are imported here because the registry builds an estimator only when asked (importing
the attention and boosting estimators after the workflow takes 0.14–0.21 s, which every job
forked without them would pay again).

Measured with ``bench/jobs.py``: without it each job spent about 0.4 s loading them again
(the default Pima training took 0.87 s in a fresh worker against 0.46 s when warm). The
regression default (ABRF-1) gains nothing from a warm-up (0.21 s a first time, 0.26 s a second
on the same table), so it is not run: the first job would only wait longer for the forkserver.
"""

import numpy as np
import pandas as pd

from forestviz.app import workflow
from forestviz.io.dataset import DataChoice, Dataset


def warm() -> None:
    """Import every family's package and train the default classification model on 60
    synthetic rows."""
    workflow.load_families()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    frame = pd.DataFrame(X, columns=["w", "x", "y", "z"]).assign(
        target=np.where(X[:, 0] > 0, "a", "b"))
    dataset = Dataset.from_frame(frame, "target", task="classification", name="warm-up")
    choice = DataChoice("warm-up", "target", None, (), "classification")
    settings = workflow.Settings(family=workflow.default_settings("classification").family,
                                 n_estimators=10)
    workflow.train_bundle(dataset, choice, settings, progress=lambda *_: None)


warm()
