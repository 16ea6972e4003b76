"""The session's trained model and its training job.

The workflow itself (families, split, metrics, the :class:`~forestviz.app.workflow.Bundle`) is
:mod:`forestviz.app.workflow`; here it is run as a background job of the server-wide
:class:`~forestviz.app.jobs.JobPool`, its progress is polled by a fragment with a Cancel button,
and the finished bundle is kept in ``st.session_state`` only (dropped when the session's data
set changes). The previous model stays in place until a new one has finished.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from forestviz.app import workflow
from forestviz.app.jobs import Job, JobCancelled, JobPool, PoolBusy, WorkerDied
from forestviz.app.workbench import Workbench
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.persistence.files import ModelFileError
from ui.display import as_text
from ui.state import CHOICE, DATASET, limits

MODEL = "model"  # the session's current Bundle
MODELS = "models"  # every model trained on the data set in use: label → Bundle
ROW = "explain_row"  # position in the data set of the row the Explain page shows
TRAINING = "training"  # the session's training SessionJob until its outcome is collected
OUTCOME = "training_outcome"  # (kind, message) of the last finished training, shown once
POLL_SECONDS = 1.0
CANCEL_WAIT = 1.5  # s: SIGTERM, then SIGKILL after forestviz.jobs.KILL_GRACE


@dataclass(frozen=True, eq=False)
class SessionJob:
    """A background job of this session: what it is (``title``), the data set and settings it
    works on, where it was started (``origin``: a page name) and the model it concerns."""

    job: Job
    title: str
    choice: DataChoice
    settings: workflow.Settings
    origin: str
    subject: object = None


@st.cache_resource(show_spinner="Starting the training workers…")
def job_pool() -> JobPool:
    """The worker pool every session shares (its size is ``limits().training_jobs``)."""
    caps = limits()
    pool = JobPool(max_running=caps.training_jobs, max_queued=caps.queued_jobs,
                   lease=caps.job_lease_seconds, preload=("forestviz.app.warm",))
    pool.warm_up()
    return pool


def current_model() -> workflow.Bundle | None:
    """The session's trained model if it belongs to the data set in use (else it is dropped)."""
    bundle = st.session_state.get(MODEL)
    if bundle is not None and bundle.choice != st.session_state.get(CHOICE):
        del st.session_state[MODEL]
        st.session_state.pop(MODELS, None)
        return None
    return bundle


def workbench() -> Workbench | None:
    """The session's data set and trained model as a :class:`Workbench`, or None before a
    model has been trained on the data set in use."""
    bundle = current_model()
    if bundle is None:
        return None
    return Workbench(st.session_state[DATASET], st.session_state[CHOICE], model=bundle,
                     trained=st.session_state.get(MODELS))


def model_picker(bench: Workbench, label: str, key: str) -> bool:
    """A choice of the session's trained models (when there are several); True when the
    choice changed the current model."""
    if len(bench.trained) < 2:
        return False
    names = list(bench.trained)
    chosen = st.selectbox(label, names, index=names.index(bench.label), key=key,
                          help="Every model trained on this data set in this session.")
    if chosen == bench.label:
        return False
    st.session_state[MODEL] = bench.use(chosen)
    return True


def start_training(dataset: Dataset, choice: DataChoice, settings: workflow.Settings,
                   origin: str, payload: dict | None = None) -> bool:
    """Queue a training job for this session (one at a time): ``train_bundle``, or with a
    loaded model file's ``payload`` its ``restore`` (which fits the baselines). False, after
    showing why, when the request is over a cap or the server is busy."""
    if in_progress(TRAINING):
        st.warning("A model is training already: wait for it or cancel it first.",
                   icon=":material/hourglass:")
        return False
    n_rows = len(dataset.frame) - math.ceil(settings.test_size * len(dataset.frame))
    task, args = ((workflow.train_bundle, (dataset, choice, settings)) if payload is None
                  else (workflow.restore, (payload, dataset, choice)))
    try:
        limits().check_training(n_rows=n_rows, n_trees=settings.n_estimators,
                                max_depth=settings.max_depth)
    except ValueError as err:
        st.error(as_text(err), icon=":material/error:")
        return False
    title = workflow.FAMILIES[settings.family]
    started = submit(TRAINING, SessionJob, task, args, title, choice, settings, origin)
    if started:
        st.session_state.pop(OUTCOME, None)
    return started


def submit(key: str, record, fn, args, *details) -> bool:
    """Run ``fn(*args)`` on the server's pool as this session's job ``key``; False after
    showing why when the server is busy."""
    try:
        job = job_pool().submit(fn, *args)
    except PoolBusy as err:
        st.error(as_text(err), icon=":material/error:")
        return False
    st.session_state[key] = record(job, *details)
    return True


def in_progress(key: str) -> bool:
    """Whether this session's job ``key`` is waiting or running."""
    record = st.session_state.get(key)
    return record is not None and record.job.state in ("queued", "running")


def take_finished(key: str) -> SessionJob | None:
    """This session's job ``key`` once it has finished (removed from the session), else None."""
    record = st.session_state.get(key)
    if record is None or record.job.state in ("queued", "running"):
        return None
    del st.session_state[key]
    return record


def collect_training() -> SessionJob | None:
    """Move a finished training's model into the session (or its failure into a message)
    and return its record; None while nothing has finished."""
    training = take_finished(TRAINING)
    if training is None:
        return None
    try:
        bundle = training.job.result()
    except JobCancelled:
        st.session_state[OUTCOME] = ("info", "Training cancelled; the previous model (if any) "
                                             "is still in use.")
        return None
    except WorkerDied as err:
        st.session_state[OUTCOME] = ("error", f"Training stopped: {err}. Try fewer trees or "
                                              "fewer rows.")
        return None
    except (DataError, ModelFileError) as err:
        st.session_state[OUTCOME] = ("error", str(err))
        return None
    except (ValueError, ArithmeticError, RuntimeError, MemoryError) as err:
        st.session_state[OUTCOME] = ("error", f"Training failed: {err}. Try fewer trees, another "
                                              "model family or check the target column on the "
                                              "Data page.")
        return None
    if training.choice == st.session_state.get(CHOICE):
        bench = Workbench(st.session_state[DATASET], training.choice,
                          trained=st.session_state.get(MODELS))
        bench.adopt(bundle)  # kept beside the session's other models (bounded)
        st.session_state[MODELS] = bench.trained
        st.session_state[MODEL] = bundle
        done = "Model loaded." if training.origin == "load" else "Trained."
        st.session_state[OUTCOME] = ("success", f"{done} Open the Explain page to look inside "
                                                "single predictions.")
    else:
        st.session_state[OUTCOME] = ("info", "The model finished training on a data set that "
                                             "is no longer in use, so it was not kept.")
        return None
    return training


def follow_jobs(*, progress_in_sidebar: bool = True) -> None:
    """Every page's first call: take in a finished training (Home's one-click training then
    opens its explanation) and show a running one's progress in the sidebar, unless the page
    shows it itself (``progress_in_sidebar=False``)."""
    finished = collect_training()
    if finished is not None and finished.origin == "home":
        st.session_state[ROW] = workbench().highest_risk_row()
        st.session_state.pop(OUTCOME, None)  # the explanation itself says it worked
        st.switch_page("pages/explain.py")
    if progress_in_sidebar and training_in_progress():
        with st.sidebar:
            job_status()


def show_outcome() -> None:
    """The message of the last finished training, once."""
    outcome = st.session_state.pop(OUTCOME, None)
    if outcome is None:
        return
    kind, message = outcome
    show = {"success": st.success, "info": st.info, "error": st.error}[kind]
    icon = {"success": ":material/check:", "info": ":material/info:",
            "error": ":material/error:"}[kind]
    show(as_text(message), icon=icon)


def training_in_progress() -> bool:
    return in_progress(TRAINING)


@st.fragment(run_every=POLL_SECONDS)
def job_status(key: str = TRAINING) -> None:
    """Progress of this session's job ``key`` with a Cancel button; reruns the whole app once
    the job has finished, so every page sees its outcome."""
    record = st.session_state.get(key)
    if record is None:
        return
    job = record.job
    job.touch()
    if job.state not in ("queued", "running"):
        st.rerun(scope="app")
    if job.state == "queued":
        ahead = job_pool().ahead_of(job)
        text = f"{record.title}: waiting for a free worker ({ahead} job(s) ahead on this server)…"
    else:
        text = f"{job.stage} ({job.fraction:.0%})"
    st.progress(min(max(job.fraction, 0.0), 1.0), text=as_text(text))
    st.button("Cancel", key=f"cancel_{key}", on_click=_cancel, args=(job,),
              icon=":material/cancel:")


def _cancel(job: Job) -> None:
    """Cancel ``job`` and wait (briefly) until its worker is gone, so the rerun that follows
    the click already shows the outcome."""
    job.cancel()
    job.wait(CANCEL_WAIT)
