"""Driving the app through Streamlit's AppTest: start it, train, read its metrics and charts,
upload a table or choose a bundled one."""

import json
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
from streamlit.testing.v1 import AppTest

from forestviz.app import workflow
from ui.display import as_label

REPO = Path(__file__).resolve().parents[1]


def app() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).run()
    assert not at.exception
    return at


def finish_jobs(at: AppTest, timeout: float = 180.0) -> AppTest:
    """Rerun the app (as the page's polling fragment does) until this session's background
    jobs have finished and their outcome has been collected."""
    deadline = time.monotonic() + timeout
    while any(key in at.session_state for key in ("training", "cleaning_job", "refit_job")):
        assert time.monotonic() < deadline, "a background job did not finish"
        time.sleep(0.1)
        at.run()
    return at


def train(at: AppTest, family: str, *, trees: int = 20, auto: bool = True,
          errors: int = 0, timeout: float = 180.0) -> workflow.Bundle:
    task = at.session_state["dataset"].task
    at.switch_page("pages/train.py").run()
    at.selectbox(key=f"train_family@{task}").set_value(family).run()
    at.slider(key="train_trees").set_value(trees)
    if family != "vanilla":
        at.toggle(key="train_auto").set_value(auto)
    at.button(key="train_button").click().run()
    finish_jobs(at, timeout)
    assert not at.exception, at.exception
    assert len(at.error) == errors, [e.value for e in at.error]
    return at.session_state["model"]


def metric(at: AppTest, label: str) -> str:
    (found,) = [m for m in at.metric if m.label == as_label(label)]
    return found.value


def chart_titles(at: AppTest) -> list[str]:
    """Title and subtitle of every plotly chart on the page."""
    layouts = [json.loads(c.proto.spec)["layout"] for c in at.get("plotly_chart")]
    return [f"{layout['title']['text']} {layout['title'].get('subtitle', {}).get('text', '')}"
            .replace("<br>", " ") for layout in layouts]


def upload_csv(at: AppTest, name: str, data: bytes) -> AppTest:
    at.switch_page("pages/data.py").run()
    if at.radio(key="source_kind").value != "upload":
        at.radio(key="source_kind").set_value("upload").run()
    at.file_uploader(key="upload_csv").set_value((name, data, "text/csv"))
    return at.run()


def choose_bundled(at: AppTest, name: str) -> AppTest:
    at.switch_page("pages/data.py").run()
    at.selectbox(key="bundled_name").set_value(name).run()
    assert at.session_state["dataset"].name == name
    return at


def shown_cells(element) -> pd.DataFrame:
    """The cells of an ``st.dataframe`` as the browser shows them: a Styler's display texts
    where it set them, else the values, a missing one as "None" (as Streamlit 1.67 draws it)."""
    styler = element.proto.arrow_data.styler
    if styler.display_values:
        return pa.ipc.open_stream(styler.display_values).read_pandas()
    return element.value.astype(object).where(element.value.notna(), "None")


def new_patient_form(at: AppTest) -> tuple[workflow.Bundle, object, str]:
    """The Home button's model trained and the Explain page's New-patient form open: (the
    model, the data set, the form's key prefix)."""
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    bundle, dataset = at.session_state["model"], at.session_state["dataset"]
    at.radio(key="explain_picker").set_value("new").run()
    return bundle, dataset, f"explain_new@{dataset.name}"
