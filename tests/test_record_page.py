"""The one-page record read on its own (issue 35): it states the decision threshold that makes
the predicted class, the model's held-out performance with the number of rows (computed here
with scikit-learn on the model's held-out rows), and for a row the model learned from that its
prediction is optimistic (also through ``forestviz report``); and it stays one A4 page when the
model, the data set, the columns, the classes and the row carry long names."""

import html
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader
from sklearn.metrics import f1_score, roc_auc_score

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.cli.main import main
from forestviz.explain.report.document import to_html
from forestviz.explain.report.names import NEW_PATIENT
from forestviz.explain.report.record import TRAINING_ROW, ReportContext
from forestviz.io.csv_input import load_csv
from forestviz.io.dataset import Dataset
from forestviz.persistence.model_file import ModelFile
from forestviz.registry import FAMILIES
from tests.cli_tables import ID, cli_model, table  # noqa: F401 (fixtures)
from tests.test_report_record import Document

LONG = "Serum 25-hydroxyvitamin D concentration measured at the first visit (nmol/L) [lab]"


@pytest.fixture(scope="module")
def ward():
    """A table whose columns, classes and IDs have long names, with an attention forest
    trained on it as the app trains, and a new patient with two of its values missing."""
    rng = np.random.default_rng(1)
    n = 200
    x = rng.normal(size=n)
    columns = [f"{LONG} #{k}" for k in range(4)]
    frame = pd.DataFrame({c: (x * (k + 1) + rng.normal(size=n)).round(2)
                          for k, c in enumerate(columns)})
    frame["patient identifier as written in the hospital's admission system"] = [
        f"ADMISSION-{i:05d}-{'X' * 40}" for i in range(n)]
    frame["outcome"] = np.where(x + rng.normal(0, 0.7, n) > 0.8,
                                "readmitted within thirty days of discharge (any cause)",
                                "not readmitted within thirty days of discharge")
    dataset = Dataset.from_frame(
        frame, "outcome",
        id_column="patient identifier as written in the hospital's admission system",
        name="Regional hospital readmissions, all wards, extract of the quarterly audit.csv")
    bench = Workbench(dataset)
    bench.train(Settings(family="abrf1_qp", n_estimators=12, max_depth=3, random_state=0))
    values = dataset.X.iloc[0].copy()
    values.iloc[[0, 1]] = np.nan
    e = bench.explain(values=values, row_id=NEW_PATIENT)
    return bench, e, bench.glance(e)


def record(document: str) -> dict[str, str]:
    return Document(document).record()


def test_the_record_states_threshold_and_held_out_performance(ward):
    bench, e, g = ward
    model = bench.model
    estimator, classes = model.estimator, np.asarray(model.estimator.classes_)
    said = record(bench.report(e, glance=g))
    threshold = said["Decision threshold"]
    assert threshold.startswith(f"{estimator.threshold_:.3f}: ")
    assert e.threshold == estimator.threshold_
    positive = model.y_test == classes[1]
    auc = roc_auc_score(positive, estimator.predict_proba(model.X_test)[:, 1])
    f1 = f1_score(positive, estimator.predict(model.X_test) == classes[1])
    assert said["Held-out performance"] == (
        f"AUC {auc:.3f}, F1 {f1:.3f} on {len(model.test_rows):,} held-out rows")
    assert "Training row" not in said


def test_a_regression_record_gives_r2_and_mae():
    from sklearn.metrics import mean_absolute_error, r2_score

    from forestviz.io.bundled import load_dataset

    bench = Workbench(load_dataset("friedman1", n_samples=200))
    bench.train(Settings(family="vanilla", n_estimators=10, random_state=0))
    model = bench.model
    e = bench.explain(int(model.test_rows[0]))
    said = record(bench.report(e))
    predicted = model.estimator.predict(model.X_test)
    r2, mae = r2_score(model.y_test, predicted), mean_absolute_error(model.y_test, predicted)
    assert said["Held-out performance"] == (
        f"R² {r2:.3f}, MAE {e.value_texts(mae)[0]} on {len(model.test_rows):,} held-out rows")
    assert "Decision threshold" not in said


@pytest.mark.slow
def test_forestviz_report_says_a_training_row_is_optimistic(table, cli_model, tmp_path):  # noqa: F811
    model = ModelFile.read(cli_model.read_bytes())
    ids = load_csv(table.read_bytes())[ID].astype(str)
    held = ids.iloc[int(model.test_rows[0])]
    trained = ids.iloc[int(np.setdiff1d(np.arange(len(ids)), model.test_rows)[0])]
    out = tmp_path / "reports"
    assert main(["--quiet", "report", str(cli_model), str(table), "--rows", trained, held,
                 "--out", str(out)]) == 0
    pages = {p.name: p.read_text() for p in out.iterdir()}
    said = {row: [record(text) for name, text in pages.items() if f"-{row}-" in name]
            for row in (trained, held)}
    assert said[trained][0]["Training row"] == html.escape(TRAINING_ROW, quote=False)
    assert "Training row" not in said[held][0]


long_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                     min_size=41, max_size=300)


@pytest.mark.slow
@given(model=long_names, dataset=long_names, published=st.none() | long_names)
@example(model=FAMILIES["abrf2"].label, dataset=LONG, published=None)  # 2 pages before
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_the_record_stays_one_a4_page_with_long_names(ward, model, dataset, published):
    from forestviz.explain.report.pdf import html_to_pdf

    bench, e, g = ward
    metrics = bench.model.results.set_index("model").rename(
        index={bench.model.name: model})
    context = ReportContext(dataset=dataset, model=model, settings="trees: 12",
                            metrics=metrics, held_out_rows=len(bench.model.test_rows),
                            published=published, training_row=True)
    pdf = html_to_pdf(to_html(e, glance=g, context=context))
    reader = PdfReader(io.BytesIO(pdf))
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    assert len(reader.pages) == 1, text
    assert "Decision threshold" in text and "Held-out performance" in text
