"""A training's progress line on the pages (``ui.models._progress``) says what its job is doing:
starting its worker process (named, with no share done, which would read as work begun), then
its stage and the share done (as plain text: ``ui.display.as_text``)."""

from forestviz.app.jobs import Job
from ui import models
from ui.display import as_text


def line(state: str, stage: str, fraction: float) -> tuple[float, str]:
    job = Job(len, (), {}, lease=60.0)
    job.state, job.stage, job.fraction = state, stage, fraction
    return models._progress(models.SessionJob(job, "Enhanced RF (ERF)", None, None, "train"))


def test_a_starting_job_names_its_model_and_what_it_waits_for():
    assert line("starting", "starting a worker process", 0.0) == (
        0.0, as_text("Enhanced RF (ERF): starting a worker process…"))


def test_a_running_job_shows_its_stage_and_share_done():
    assert line("running", "Enhanced RF (ERF): iteration 2/5", 0.11) == (
        0.11, as_text("Enhanced RF (ERF): iteration 2/5 (11%)"))
