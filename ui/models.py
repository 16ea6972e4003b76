"""The session's trained model and its training job.

The workflow itself (families, split, metrics, the :class:`~forestviz.app.workflow.Bundle`) is
:mod:`forestviz.app.workflow`; here it is run as a background job of the server-wide
:class:`~forestviz.app.jobs.JobPool` (:mod:`ui.server`), its progress is polled by a fragment
with a Cancel button (Home, whose training ends in a change of page, waits in its own run:
:func:`wait_for_training`), and the finished bundle is kept in ``st.session_state`` (dropped
when the session's data set changes). The previous model stays in place until a new one has
finished. A model the server has already (:func:`ui.server.shared_models`; the default model of
:func:`ui.server.default_training`) is taken at once, as the session's own.

The first page imports none of the model packages: :mod:`forestviz.app.workflow` and the
Workbench are imported where a training starts or ends (``docs/performance.md``, "Cold start
and page speed").
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import streamlit as st

from forestviz.app.families import Settings
from forestviz.app.jobs import Job, JobCancelled, PoolBusy, WorkerDied
from forestviz.app.training_plan import Follow, Reuse, decide_training
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.registry import FAMILIES
from ui import library, timers
from ui.display import as_text
from ui.server import default_training, job_pool, shared_models
from ui.state import CHOICE, DATASET, MODEL, MODELS, limits

if TYPE_CHECKING:
    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Bundle
    from forestviz.persistence.model_file import ModelFile

ROW = "explain_row"  # position in the data set of the row the Explain page shows
LESSON = "lesson_step"  # the open step of Home's lesson (ui.lesson_view), from 1
# per model (a weak key: a dropped model takes its marks along), the columns the user marked
# as unable to change (Workbench.fixed_columns)
FIXED = "fixed_columns"
TRAINING = "training"  # the session's training SessionJob until its outcome is collected
OUTCOME = "training_outcome"  # (kind, message) of the last finished training, shown once
# how often a session's page asks about its job: every poll is a run on the server, and polls
# every 0.3 s made another session's row change 3-4x slower (tests/test_browser_server.py)
POLL_SECONDS = 1.0
CANCEL_WAIT = 1.5  # s: SIGTERM, then SIGKILL after forestviz.app.worker.KILL_GRACE
# s a click on Home's button waits, in its own run, for the server's default model (its
# progress shown) before it follows it by polls: loaded from the installation's model file it
# is ready within seconds of the first page; trained, within about five
FOLLOW_WAIT = 10.0
SHARED_DONE = ("Trained. (The same data and settings were trained here before: that model is "
               "used.)")


@dataclass(frozen=True, eq=False)
class SessionJob:
    """A background job of this session: what it is (``title``), the data set and settings it
    works on, where it was started (``origin``: a page name) and the model it concerns."""

    job: Job
    title: str
    choice: DataChoice
    settings: Settings
    origin: str
    subject: object = None
    warning: str | None = None  # a loaded model file's origin warning (ui.library)


def current_model() -> Bundle | None:
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
    from forestviz.app.workbench import Workbench

    return Workbench(st.session_state[DATASET], st.session_state[CHOICE], model=bundle,
                     trained=st.session_state.get(MODELS),
                     fixed=st.session_state.setdefault(FIXED, WeakKeyDictionary()))


def model_picker(bench: Workbench, label: str, key: str) -> None:
    """A choice of the session's trained models (when there are several).

    The session's current model (:data:`MODEL`) has one owner: the last model trained or
    loaded, or the one last picked. The picker only shows it: its widget value is set to the
    current model on every run (a widget keeps the value it had, and a keyed selectbox ignores
    ``index`` once it exists: after a third training it showed, and set back, the previous
    model), and a pick sets :data:`MODEL` in the picker's callback, before the page runs, so
    that all of the page shows the picked model."""
    if len(bench.trained) < 2:
        return
    st.session_state[key] = bench.label
    st.selectbox(label, list(bench.trained), key=key, on_change=_pick, args=(key,),
                 help="Every model trained on this data set in this session.")


def _pick(key: str) -> None:
    """The model picker ``key``'s callback: its choice becomes the current model."""
    bench = workbench()
    if bench is not None and st.session_state[key] in bench.trained:
        st.session_state[MODEL] = bench.use(st.session_state[key])


def start_training(dataset: Dataset, choice: DataChoice, settings: Settings,
                   origin: str, file: ModelFile | None = None, warning: str | None = None) -> bool:
    """Queue a training job for this session (one at a time): ``train_bundle``, or with a
    loaded model ``file`` its ``restore`` (which fits the baselines; the model
    then carries ``warning``, the file's origin warning, onto every page and report). A training
    this server has done already (:func:`shared_models`) is taken at once (and Home's button
    opens its explanation). False, after showing why, when the request is over a cap or the
    server is busy."""
    if in_progress(TRAINING):
        st.warning("A model is training already: wait for it or cancel it first.",
                   icon=":material/hourglass:")
        return False
    decide = partial(decide_training, dataset, choice, settings, limits(), file=file,
                     shared=shared_models(), default=default_training())
    try:
        plan = decide()
        if isinstance(plan, Follow) and _wait_with_progress(plan.job, FOLLOW_WAIT):
            plan = decide()  # it finished meanwhile: its model, or a training of this session's
    except ValueError as err:
        st.error(as_text(err), icon=":material/error:")
        return False
    if isinstance(plan, Reuse):
        _keep(plan.bundle, SHARED_DONE)
        _arrive(origin)
        return True
    if isinstance(plan, Follow):
        st.session_state[TRAINING] = SessionJob(plan.job, FAMILIES[settings.family].label,
                                                choice, settings, origin)
        st.session_state.pop(OUTCOME, None)
        return True
    record = partial(SessionJob, warning=warning)
    started = submit(TRAINING, record, plan.task, plan.args, plan.title, choice, settings,
                     origin)
    if started:
        st.session_state.pop(OUTCOME, None)
    return started


def _wait_with_progress(job: Job, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``job`` in this run, its progress shown; True once it has
    finished."""
    if job.wait(0):
        return True
    bar, deadline = st.progress(0.0), time.monotonic() + seconds
    while not job.wait(0.1):
        if time.monotonic() > deadline:
            return False
        bar.progress(min(max(job.fraction, 0.0), 1.0), text=as_text(job.stage))
    return True


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
    return record is not None and record.job.unfinished


def take_finished(key: str) -> SessionJob | None:
    """This session's job ``key`` once it has finished (removed from the session), else None."""
    record = st.session_state.get(key)
    if record is None or record.job.unfinished:
        return None
    del st.session_state[key]
    return record


def collect_training() -> SessionJob | None:
    """Move a finished training's model into the session (or its failure into a message)
    and return its record; None while nothing has finished."""
    training = take_finished(TRAINING)
    if training is None:
        return None
    from forestviz.persistence.archive import ModelFileError

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
    if training.choice != st.session_state.get(CHOICE):
        st.session_state[OUTCOME] = ("info", "The model finished training on a data set that "
                                             "is no longer in use, so it was not kept.")
        return None
    if training.origin != "load":
        shared_models().put(bundle)
    elif training.warning is not None:
        bundle = replace(bundle, origin_warning=training.warning)
    _keep(bundle, "Model loaded." if training.origin == "load" else "Trained.")
    return training


def _keep(bundle: Bundle, done: str) -> None:
    """Make ``bundle`` (trained on the data set in use) the session's current model, beside
    its other models (bounded), and say ``done``."""
    from forestviz.app.workbench import Workbench

    bench = Workbench(st.session_state[DATASET], bundle.choice,
                      trained=st.session_state.get(MODELS))
    bench.adopt(bundle)
    st.session_state[MODELS] = bench.trained
    st.session_state[MODEL] = bundle
    st.session_state[OUTCOME] = ("success", f"{done} Open the Explain page to look inside "
                                            "single predictions.")


def _arrive(origin: str) -> None:
    """After a training from Home's button: open the explanation of the riskiest held-out
    row (the explanation itself says it worked); from Home's lesson, its first step."""
    if origin == "lesson":
        st.session_state[LESSON] = 1
        st.session_state.pop(OUTCOME, None)
    if origin == "home":
        st.session_state[ROW] = workbench().highest_risk_row()
        st.session_state.pop(OUTCOME, None)
        st.switch_page("pages/explain.py")


def follow_jobs(*, progress_in_sidebar: bool = True) -> None:
    """Every page's first call: take in a finished training (Home's one-click training then
    opens its explanation) and show a running one's progress in the sidebar, unless the page
    shows it itself (``progress_in_sidebar=False``); then what every page says first
    (:func:`ui.library.notices`: memory-only mode, the current model's origin warning)."""
    finished = collect_training()
    if finished is not None:
        _arrive(finished.origin)
    library.notices(current_model())
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
    record.job.touch()
    if not record.job.unfinished:
        timers.rerun_page()
    st.progress(*_progress(record))
    st.button("Cancel", key=f"cancel_{key}", on_click=_cancel, args=(record.job,),
              icon=":material/cancel:")


def wait_for_training() -> None:
    """Home's wait for this session's training, in the page's own run, its progress and a
    Cancel button shown; then the whole app runs again (and Home's button opens the
    explanation).

    Home waits here rather than by :func:`job_status`'s polls because what follows is a change
    of page. A poll's tick that the browser sends as the page changes reaches the server
    carrying the old page; Streamlit runs it after the new page's run, and the browser, told
    the old page is back, clears the new page and draws nothing (a blank Explain page, seen in
    the browser tests under load). A run that waits leaves the browser no timer to send one.
    Any click (Cancel, a link, a widget) stops this run as it stops every run."""
    record = st.session_state.get(TRAINING)
    if record is None:
        return
    bar = st.progress(*_progress(record))
    st.button("Cancel", key=f"cancel_{TRAINING}", on_click=_cancel, args=(record.job,),
              icon=":material/cancel:")
    while record.job.unfinished:
        record.job.touch()
        bar.progress(*_progress(record))  # also where a click stops this run
        record.job.wait(POLL_SECONDS / 4)
    st.rerun(scope="app")


def _progress(record: SessionJob) -> tuple[float, str]:
    """A job's progress bar: its fraction and its stage, or its place in the server's queue."""
    job = record.job
    if job.state == "queued":
        ahead = job_pool().ahead_of(job)
        text = f"{record.title}: waiting for a free worker ({ahead} job(s) ahead on this server)…"
    elif job.state == "starting":
        text = f"{record.title}: {job.stage}…"
    else:
        text = f"{job.stage} ({job.fraction:.0%})"
    return min(max(job.fraction, 0.0), 1.0), as_text(text)


def _cancel(job: Job) -> None:
    """Cancel ``job`` and wait (briefly) until its worker is gone, so the rerun that follows
    the click already shows the outcome."""
    job.cancel()
    job.wait(CANCEL_WAIT)
