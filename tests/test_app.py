"""The Home and Data pages through Streamlit's AppTest: the default data set, bundled sets,
uploads, errors that keep the previous data set, and names from files shown as text."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from forestviz.io.bundled import DEFAULT_DATASET, list_datasets
from tests.test_dataset import cancer_csv_frame  # imported (compiled) at collection
from ui.display import as_text

# (cancer_csv_frame was imported inside a test, beside AppTest's threads, where Python
# 3.11.7's compile once raised "AST constructor recursion depth mismatch")
REPO = Path(__file__).resolve().parents[1]
PIMA = pd.read_csv(REPO / "data" / "pima_diabetes.csv")
HOSTILE = "<img src=x onerror=alert(1)>"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


def table(n: int = 30, *, target: str = "outcome", seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "sample": [f"S{i:03d}" for i in range(n)],
            "x1": rng.normal(size=n).round(3),
            "x2": rng.integers(0, 5, size=n),
            target: np.where(np.arange(n) % 3 == 0, "yes", "no"),
        }
    )


def csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def widget(widgets, label: str):
    (found,) = [w for w in widgets if w.label == label]
    return found


def texts(at: AppTest) -> list:
    """Every element whose body Streamlit renders as Markdown."""
    return [*at.markdown, *at.caption, *at.error, *at.info, *at.warning, *at.title, *at.subheader]


@pytest.fixture
def data_page() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
    at.switch_page("pages/data.py").run()
    assert not at.exception
    return at


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    if at.radio(key="source_kind").value != "upload":
        at.radio(key="source_kind").set_value("upload").run()
    at.file_uploader(key="upload_csv").set_value((name, data, "text/csv"))
    return at.run()


def test_home_loads_the_default_data_set():
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
    assert not at.exception
    dataset = at.session_state["dataset"]
    assert dataset.name == DEFAULT_DATASET == "pima_diabetes"
    assert len(dataset.frame) == len(PIMA) == 632
    assert dataset.target == "Diabetes" and dataset.task == "classification"
    assert widget(at.metric, "Rows").value == "632"
    assert any("one sample at a time" in m.value for m in at.markdown)


def test_data_page_shows_the_bundled_set_and_builds_the_dataset(data_page):
    at = data_page
    preview, schema = at.dataframe
    assert list(preview.value.columns) == list(PIMA.columns)
    assert preview.value.shape == (100, PIMA.shape[1])
    assert preview.value["Patient ID"].tolist() == PIMA["Patient ID"][:100].tolist()
    assert list(schema.value["column"]) == list(PIMA.columns)
    assert schema.value["missing"].tolist() == PIMA.isna().sum().tolist()
    assert widget(at.selectbox, "Target column").value == "Diabetes"
    assert widget(at.selectbox, "ID column").value == "Patient ID"
    dataset = at.session_state["dataset"]
    assert dataset.feature_columns == tuple(PIMA.columns[1:-1])
    assert dataset.classes == ("No", "Yes")

    widget(at.multiselect, "Excluded columns").set_value(["Pregnancies"]).run()
    assert not at.exception
    dataset = at.session_state["dataset"]
    assert dataset.feature_columns == tuple(PIMA.columns[2:-1])
    assert widget(at.metric, "Features").value == "6"

    widget(at.radio, "Task").set_value("regression").run()  # a Yes/No target
    assert not at.exception
    (error,) = at.error
    assert "cannot be predicted as a number" in error.value
    assert at.session_state["dataset"] is dataset

    other = next(info for info in list_datasets() if info.name != DEFAULT_DATASET)
    widget(at.selectbox, "Bundled data set").set_value(other.name).run()
    assert not at.exception
    assert at.session_state["dataset"].name == other.name
    assert at.session_state["dataset"].task == other.task


def test_upload_bad_uploads_and_a_new_upload(data_page):
    at = data_page
    good = table()
    upload(at, "trial.csv", csv(good))
    assert any("200 MB" in c.value for c in at.caption)
    assert not at.exception and not at.error
    dataset = at.session_state["dataset"]
    assert (dataset.name, dataset.target, dataset.id_column) == ("trial.csv", "outcome", "sample")
    assert dataset.feature_columns == ("x1", "x2") and dataset.classes == ("no", "yes")
    assert list(at.dataframe[0].value.columns) == list(good.columns)

    for name, data, message in [
        ("image.csv", PNG, "PNG image"),
        ("header.csv", b"a,b,c\n", "no rows"),
    ]:
        upload(at, name, data)
        assert not at.exception
        assert [message in e.value for e in at.error] == [True]
        assert at.session_state["dataset"] is dataset  # nothing is lost
        assert widget(at.metric, "Rows").value == "30"
        assert not at.dataframe  # the bad file is not previewed

    upload(at, "bigger.csv", csv(table(40, seed=1)))
    assert not at.exception and not at.error
    assert at.session_state["dataset"].name == "bigger.csv"
    assert len(at.session_state["dataset"].frame) == 40


def test_a_bad_choice_shows_the_error_and_keeps_the_dataset(data_page):
    at = upload(data_page, "trial.csv", csv(table()))
    dataset = at.session_state["dataset"]
    widget(at.selectbox, "Target column").set_value("sample").run()  # the ID as the target
    assert not at.exception
    (error,) = at.error
    assert "appears in only one row" in error.value
    assert at.session_state["dataset"] is dataset
    assert any("Nothing was lost" in c.value for c in at.caption)

    widget(at.selectbox, "Target column").set_value("x1").run()
    assert not at.exception and not at.error
    assert at.session_state["dataset"].target == "x1"
    assert at.session_state["dataset"].task == "regression"


def test_choices_survive_a_visit_to_another_page(data_page):
    at = upload(data_page, "trial.csv", csv(table()))
    widget(at.multiselect, "Excluded columns").set_value(["x2"]).run()
    dataset = at.session_state["dataset"]
    at.switch_page("pages/home.py").run()
    assert widget(at.metric, "Features").value == "1"
    at.switch_page("pages/data.py").run()
    assert not at.exception and not at.error
    assert widget(at.multiselect, "Excluded columns").value == ["x2"]
    assert at.session_state["dataset"] is dataset


def test_a_hostile_column_name_is_shown_as_text(data_page):
    hostile = table(target=HOSTILE)
    hostile[HOSTILE] = np.where(hostile[HOSTILE] == "yes", "<b>yes</b>", "*no*")
    at = upload(data_page, HOSTILE + ".csv", csv(hostile))
    assert not at.exception and not at.error
    dataset = at.session_state["dataset"]
    assert dataset.target == HOSTILE and dataset.classes == ("*no*", "<b>yes</b>")
    assert list(at.dataframe[0].value.columns) == list(hostile.columns)
    assert HOSTILE in at.dataframe[1].value["column"].tolist()
    assert widget(at.selectbox, "Target column").value == HOSTILE
    assert not any(element.proto.allow_html for element in [*at.markdown, *at.caption])
    values = [element.value for element in texts(at)]
    names = [value for value in values if "img" in value]  # target, file name
    assert len(names) >= 2 and all(as_text(HOSTILE) in value for value in names)
    assert any(as_text("Classes: *no*, <b>yes</b>") in value for value in values)


def test_as_text_escapes_every_markdown_character():
    text = HOSTILE + " **bold** [link](javascript:x) :red[red] $x$ `code` # \\ é"
    escaped = as_text(text)
    assert re.sub(r"\\(.)", r"\1", escaped) == text
    assert not re.search(r"[!-/:-@\[-`{-~]", re.sub(r"\\.", "", escaped))


@pytest.mark.slow
def test_an_uploads_target_is_the_column_named_as_the_outcome_or_a_guess_said_so(data_page):
    """Issue 26: the breast-cancer CSV (text column of three values last, 5 % blanks) had its
    last column as target; its "diagnosis" is, and the page says why. Without such a name
    the guess is called a guess."""
    at = upload(data_page, "cancer.csv", csv(cancer_csv_frame()))
    assert not at.exception and not at.error
    dataset = at.session_state["dataset"]
    assert (dataset.target, dataset.id_column, dataset.task) == ("diagnosis", "id",
                                                                 "classification")
    assert any("'diagnosis' was chosen by its name" in c.value.replace("\\", "")
               for c in at.caption)
    assert not at.warning
    renamed = cancer_csv_frame().rename(columns={"diagnosis": "kind"})
    at = upload(at, "unnamed.csv", csv(renamed))
    assert at.session_state["dataset"].target == "clinic"
    (warning,) = at.warning
    assert "is a guess" in warning.value.replace("\\", "")
