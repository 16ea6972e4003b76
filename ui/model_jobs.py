"""A job on the session's current model started by a button (the Forest page's refits and
cleaning rounds): it runs on the server's pool as this session's job, its progress shows while
it runs, and its result is kept in the session with the model it ran on, so that a result is
shown only next to that model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from forestviz.app.jobs import JobCancelled, WorkerDied
from ui import models
from ui.display import as_text


@dataclass(frozen=True)
class ModelJob:
    """What a page says of a job: the button's ``label``, the job's ``title`` (its progress),
    ``what`` in an outcome's line ("Refits cancelled."), ``advice`` after a failure, and the
    session keys of the running job and of its kept result; ``widget`` is the button's key."""

    label: str
    title: str
    what: str
    job_key: str
    result_key: str
    widget: str
    origin: str
    advice: str = ""


def run_on_demand(spec: ModelJob, bundle, make_job: Callable[[], tuple]):
    """The button of ``spec``; a click runs ``make_job()``'s (function, arguments) on
    ``bundle``. Returns the job's result once it has run on ``bundle``, else None (shown: its
    progress, or in one line why it ended without a result)."""
    if st.button(spec.label, key=spec.widget, disabled=models.in_progress(spec.job_key)):
        task, args = make_job()
        models.submit(spec.job_key, models.SessionJob, task, args, spec.title, bundle.choice,
                      bundle.settings, spec.origin, bundle)
    if models.in_progress(spec.job_key):
        models.job_status(spec.job_key)
    _keep_result(spec)
    stored = st.session_state.get(spec.result_key)
    if stored is None or stored[0] is not bundle:
        return None
    return stored[1]


def _keep_result(spec: ModelJob) -> None:
    """This session's finished job: its (model, result) kept, or what went wrong said in one
    line."""
    finished = models.take_finished(spec.job_key)
    if finished is None:
        return
    try:
        st.session_state[spec.result_key] = (finished.subject, finished.job.result())
    except JobCancelled:
        st.info(f"{spec.what} cancelled.", icon=":material/info:")
    except (ValueError, WorkerDied) as err:
        message = f"{spec.what} failed: {err}. {spec.advice}".strip()
        st.error(as_text(message), icon=":material/error:")
