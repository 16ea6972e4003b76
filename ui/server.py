"""What the server keeps for every session: the training workers, the background imports and
the models trained on bundled tables, the default model first.

The first page imports none of the model packages. :func:`default_training` imports them in a
background thread, loads the default model (or trains it) and prepares the explanation Home's
button opens, so what any later model and the Explain page need is imported too. The app's
command (:mod:`ui.launch`) starts it with the server, while the browser loads the first page;
under a plain ``streamlit run app.py`` the first page's run starts it once the page is out
(``docs/performance.md``, "Cold start and page speed").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from forestviz.app.families import Settings, default_settings
from forestviz.app.jobs import SERVER_PRELOAD, JobPool, in_thread
from forestviz.app.training_plan import DefaultTraining, SharedModels
from forestviz.io.bundled import DEFAULT_DATASET, bundled_choice
from forestviz.io.dataset import DataChoice, Dataset
from ui.state import bundled_dataset, limits

if TYPE_CHECKING:
    from forestviz.app.workflow import Bundle

RENEW_SECONDS = 1.0  # how often the server, waiting for its own training, renews its lease
# s from the default model's arrival to the start of the training workers' forkserver: its
# imports and warm-up (2-3 s of CPU) would otherwise share the two cores with the first
# explanation's page run and the browser drawing it (measured: 0.3-0.4 s of Home's 1.4-1.8 s)
WARM_UP_DELAY = 5.0


@st.cache_resource(show_spinner="Starting the training workers…")
def job_pool() -> JobPool:
    """The worker pool every session shares (its size is ``limits().training_jobs``)."""
    caps = limits()
    return JobPool(max_running=caps.training_jobs, max_queued=caps.queued_jobs,
                   lease=caps.job_lease_seconds, preload=SERVER_PRELOAD)


@st.cache_resource(show_spinner=False)
def shared_models() -> SharedModels:
    """The models trained on this server's bundled data sets (:class:`SharedModels`); every
    session that uses one keeps it as its own."""
    return SharedModels()


@st.cache_resource(show_spinner=False)
def default_training() -> DefaultTraining:
    """The default model on the default data set, once per server, in the background from the
    server's start (:mod:`ui.launch`) or its first page on (issue 16: "train the default model
    once and cache it across sessions"):
    loaded from the installation's model file when there is one (``make run`` builds it;
    :mod:`forestviz.app.model_cache`), else trained on the pool and then stored. Its model goes
    to :func:`shared_models`; a session that asks for it meanwhile follows this job."""
    dataset = bundled_dataset(DEFAULT_DATASET)
    choice, settings = bundled_choice(DEFAULT_DATASET, dataset), default_settings(dataset.task)
    job = in_thread(_load_or_train, dataset, choice, settings, job_pool(), shared_models())
    return DefaultTraining(job, choice, settings)


def _load_or_train(dataset: Dataset, choice: DataChoice, settings: Settings, pool: JobPool,
                   shared: SharedModels, progress) -> Bundle:
    from forestviz.app import model_cache

    bundle = model_cache.load(dataset, choice, settings, progress)
    if bundle is None:
        job = pool.submit("forestviz.app.workflow:train_bundle", dataset, choice, settings)
        try:
            while not job.wait(timeout=RENEW_SECONDS):
                job.touch()  # the server itself waits for it: keep its lease
                progress(job.stage, job.fraction)  # raises JobCancelled once cancelled
        finally:
            job.cancel()  # a no-op once it has finished
        bundle = job.result()
        model_cache.store(bundle, dataset)
    progress("preparing the first explanation", 0.9)
    _prepare_first_explanation(bundle, dataset)
    shared.put(bundle)
    pool.warm_up(WARM_UP_DELAY)  # only now (they would slow the above), and a little later
    return bundle


def _prepare_first_explanation(bundle: Bundle, dataset: Dataset) -> None:
    """What Home's button opens, made once in advance, as the Explain page makes it: the
    riskiest held-out row's Explain view (its figures go to the row cache,
    :mod:`forestviz.app.row_cache`, which the page's run then finds) and its tree drawings (to
    the drawing cache)."""
    from forestviz.app.workbench import Workbench
    from forestviz.explain import plots
    from forestviz.explain.drawing.tree_drawings import tree_drawings

    bench = Workbench(dataset, bundle.choice, model=bundle)
    position = bench.highest_risk_row()
    explanation = bench.explain(values=dataset.X.iloc[position],
                                row_id=str(dataset.ids.iloc[position]))
    shown = bench.explain_view(explanation, bench.glance(explanation), width=plots.WIDTH)
    tree_drawings(bundle.estimator, explanation, bundle.context, trees=shown.trees)
