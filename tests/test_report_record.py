"""The report as a record: data set, model and settings, held-out metrics next to the baselines,
date, forestviz version, row ID, values marked missing or edited by a what-if, the prediction
with its interval, the contributions and the similar rows side by side, read back from the HTML
and compared with the explanation's own numbers; the record fields of hostile names stay text;
the report stays under 2 MB; and the PDF holds the same (its text read with pypdf)."""

import html
import io
import re
import time
import tomllib
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.attention import AttentionForestClassifier
from forestviz.explain import explain
from forestviz.explain.report.document import to_html
from forestviz.explain.report.record import ReportContext, edited_values, settings_text
from forestviz.explain.row.narrative import interval_note
from forestviz.explain.row.summary import TrainingSummary
from forestviz.explain.row.tree_choice import equal_weights
from forestviz.io.dataset import Dataset
from forestviz.numbers import number_text

REPO = Path(__file__).resolve().parents[1]
CREATED = datetime(2026, 5, 4, 13, 2, 3, tzinfo=timezone(timedelta(hours=2)))
BMI = "<b>bmi</b>"
A4_POINTS = (595.28, 841.89)


class Document(HTMLParser):
    """The report's tables (``tables``: class, header cells, body rows of cell texts, body
    row classes) and the text of its headings, paragraphs and list items (``text``), entities
    decoded."""

    BLOCKS = ("p", "h1", "h2", "h3", "li")

    def __init__(self, document: str):
        super().__init__(convert_charrefs=True)
        self.tables, self.text = [], []
        self._cell = self._block = None
        self._in_head = False
        self.feed(document)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append({"class": attrs.get("class", ""), "head": [], "rows": [],
                                "row_classes": []})
        elif tag in ("thead", "tbody"):
            self._in_head = tag == "thead"
        elif tag == "tr":
            self._row, self._row_class = [], attrs.get("class", "")
        elif tag in ("td", "th"):
            self._cell = []
        elif tag in self.BLOCKS:
            self._block = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr":
            table = self.tables[-1]
            if self._in_head:
                table["head"] = self._row
            else:
                table["rows"].append(self._row)
                table["row_classes"].append(self._row_class)
        elif tag in self.BLOCKS and self._block is not None:
            self.text.append(" ".join("".join(self._block).split()))
            self._block = None

    def handle_data(self, data):
        for part in (self._cell, self._block):
            if part is not None:
                part.append(data)

    def table(self, css: str | None = None, *, head: str | None = None) -> dict:
        """The one table of class ``css``, or the one whose header starts with ``head``."""
        found = [t for t in self.tables if (css is None or t["class"] == css)
                 and (head is None or (t["head"] and t["head"][0] == head))]
        assert len(found) == 1, [t["head"][:3] for t in self.tables]
        return found[0]

    def record(self, css: str = "record") -> dict[str, str]:
        """The first page's record table (or the appendix's model table: ``css`` "record
        model")."""
        return {row[0]: row[1] for row in self.table(css)["rows"]}

    def column(self, table: dict, name: str) -> dict[str, str]:
        """First cell → the cell under ``name``, per body row."""
        at = table["head"].index(name)
        return {row[0]: row[at] for row in table["rows"]}


def shown(value: float) -> float:
    """A number as the report prints it (4 significant digits), read back."""
    return float(f"{value:.4g}")


def read(text: str) -> float:
    """A number printed for people ("−1,234.5": a true minus, thousands grouped), read back."""
    return float(text.replace("−", "-").replace(",", ""))


@pytest.fixture(scope="module")
def clinic():
    """A small ward table (hostile names, a missing glucose) with an attention forest trained
    on it through the Workbench, as the app trains."""
    rng = np.random.default_rng(0)
    n = 160
    x = rng.normal(size=n)
    frame = pd.DataFrame({
        "id": [f"<i>p{i}</i>" for i in range(n)], "glucose": (100 + 20 * x).round(1),
        BMI: rng.normal(30, 5, n).round(1), "ward": rng.choice(["north", "<s>south</s>"], n),
        "outcome": np.where(x + rng.normal(0, 0.5, n) > 0, "sick", "well")})
    frame.loc[3, "glucose"] = np.nan
    bench = Workbench(Dataset.from_frame(frame, "outcome", id_column="id",
                                         name="<u>ward data</u>"))
    bench.train(Settings(family="abrf1_qp", n_estimators=12, max_depth=3))
    return bench


@pytest.fixture(scope="module")
def whatif(clinic):
    """Row 3 (glucose missing) after a what-if that changed the BMI and the ward, its context
    and its report."""
    bench, position = clinic, 3
    before = bench.dataset.X.iloc[position]
    after = before.astype(object).copy()
    after[BMI] = 45.5
    after["ward"] = "north" if before["ward"] != "north" else "<s>south</s>"
    e = bench.explain(values=after, row_id=f"{bench.dataset.ids.iloc[position]} (edited)")
    context = ReportContext(dataset=bench.dataset.name, model=bench.model.name,
                            settings=settings_text(bench.model.estimator),
                            metrics=bench.comparison().table,
                            held_out_rows=len(bench.model.test_rows), created=CREATED)
    edited = edited_values(before, after)
    return before, after, e, context, edited, to_html(e, context=context, edited=edited,
                                                       appendix=True)


def test_edited_values_compare_numbers_as_numbers_and_missing_as_missing():
    before = pd.Series({"a": 6, "b": np.nan, "c": "x", "d": 1.5, "e": 2, "f": "01", "g": "n"})
    after = pd.Series({"a": 6.0, "b": None, "c": "y", "d": np.nan, "e": 3, "f": "1", "g": "n"},
                      dtype=object)
    assert edited_values(before, after) == {"c": "x", "d": 1.5, "e": 2, "f": "01"}
    assert edited_values(before, pd.Series({"b": 4.0})) == {"b": None}
    assert edited_values(before, before) == {}


def test_settings_are_said_in_words():
    said = settings_text(AttentionForestClassifier(12, max_depth=3, n_jobs=2))
    parts = dict(part.split(": ", 1) for part in said.split("; "))
    assert parts["trees"] == "12" and parts["maximum depth"] == "3"
    assert parts["contamination ε"] == parts["temperature τ"] == (
        "chosen on held-out training rows")
    assert "n jobs" not in parts and "n_jobs" not in said
    forest = dict(part.split(": ", 1) for part in settings_text(
        RandomForestClassifier(5, bootstrap=False)).split("; "))
    assert forest["maximum depth"] == "no limit" and forest["bootstrap"] == "no"
    assert forest["trees"] == "5"


def test_version_is_the_projects():
    with open(REPO / "pyproject.toml", "rb") as f:
        assert ReportContext().version == tomllib.load(f)["project"]["version"]


@pytest.mark.slow
def test_the_record_names_data_set_model_settings_date_version_and_row(clinic, whatif):
    before, after, e, context, edited, report = whatif
    record = Document(report).record()
    assert record["Row ID"] == f"{clinic.dataset.ids.iloc[3]} (edited)" == "<i>p3</i> (edited)"
    assert record["Data set"] == "<u>ward data</u>"
    assert record["Model"] == (f"{clinic.model.name}: {e.model_name} with {e.n_trees} trees")
    model = Document(report).record("record model")  # in the technical appendix
    assert model["Settings"] == settings_text(clinic.model.estimator)
    assert "trees: 12" in model["Settings"] and "maximum depth: 3" in model["Settings"]
    assert datetime.fromisoformat(record["Report created"]) == CREATED
    assert record["Report created"] == "2026-05-04 13:02:03+02:00"
    assert record["forestviz version"] == context.version
    assert record["Missing values"] == "glucose"
    assert record["Values edited (what-if)"] == (
        f"{BMI}: now 45.5, was {before[BMI]:.4g}; ward: now {after['ward']}, "
        f"was {before['ward']}")
    assert set(edited) == {BMI, "ward"}


def test_held_out_metrics_stand_next_to_the_baselines(clinic, whatif):
    """One column per model (however many metrics there are), one line per metric."""
    *_, context, _, report = whatif
    doc = Document(report)
    table = doc.table("metrics")
    metrics = context.metrics
    assert len(metrics) == 3  # the model and its two baselines
    assert table["head"] == ["metric", *metrics.index]
    assert [row[0] for row in table["rows"]] == [*metrics.columns, "this report's model"]
    for row, (metric, values) in zip(table["rows"], metrics.items(), strict=False):
        assert row[0] == metric
        assert [float(cell) for cell in row[1:]] == [shown(v) for v in values]
    assert table["rows"][-1][1:] == ["yes" if m == clinic.model.name else ""
                                     for m in metrics.index]
    rows = len(clinic.model.test_rows)
    assert (f"The model next to the baselines on the held-out rows ({rows} rows the model did "
            "not see while training): one column per model.") in doc.text


def test_prediction_interval_and_contributions_are_the_explanations(whatif):
    *_, e, _, _, report = whatif
    doc = Document(report)
    probabilities = doc.column(doc.table(head="class"), "probability")
    assert {c: read(p) for c, p in probabilities.items()} == {
        str(c): shown(p) for c, p in zip(e.classes, e.prediction, strict=True)}
    low, high = e.interval
    said = [t for t in doc.text if t.startswith("Calibrated ")]
    # on the first page, and under "How the forest reached it" as the page says it there
    assert said == 2 * [f"Calibrated {e.calibrated_risk:.2f}, {e.interval_name} {low:.2f}–"
                        f"{high:.2f}: {interval_note(e)}."]
    table = doc.table("numbers-contributions")  # the waterfall's numbers, as the page's
    total = e.contributions.total[:, 1]
    steps = {row[0]: row[1] for row in table["rows"]}
    base = float(e.contributions.base_value[1])
    assert read(steps["base value"]) == float(f"{base:.3g}")
    assert {c: read(steps[c]) for c in e.contributions.feature_names} == {
        c: float(f"{t:.3g}") for c, t in zip(e.contributions.feature_names, total, strict=True)}
    sentence = next(t for t in doc.text if t.startswith("Contributions: what each column adds"))
    numbers = re.search(r"tree weights\), ([0-9.e-]+), to ([0-9.e-]+)", sentence)
    assert float(numbers[1]) == shown(base)
    assert float(numbers[2]) == shown(e.prediction[1])  # base + Σ = the prediction


def test_values_are_marked_missing_or_edited(whatif):
    before, after, *_, report = whatif
    doc = Document(report)
    features = doc.table("features")
    marks = doc.column(features, "marks")
    expected = {"glucose": "missing", BMI: f"edited (was {before[BMI]:.4g})",
                "ward": f"edited (was {before['ward']})"}
    assert marks == expected
    assert features["row_classes"] == ["edited" if "edited" in expected[row[0]] else ""
                                       for row in features["rows"]]
    entered = doc.table("entered")
    assert [row[0] for row in entered["rows"]] == list(after.index)
    assert doc.column(entered, "marks") == expected
    assert doc.column(entered, "value") == {"glucose": "—", BMI: "45.5",
                                             "ward": after["ward"]}


def test_a_row_without_edits_or_context_still_dates_and_versions_its_report(clinic):
    e = clinic.explain(5)
    started = datetime.now().astimezone()
    doc = Document(to_html(e, appendix=True))
    record = doc.record()
    assert set(record) == {"Row ID", "Model", "Decision threshold", "Report created",
                           "forestviz version", "Missing values", "Values edited (what-if)"}
    model = doc.record("record model")
    assert set(model) == {"Contamination ε (learned)"}
    created = datetime.fromisoformat(record["Report created"])
    assert started - timedelta(seconds=1) <= created <= datetime.now().astimezone()
    assert record["Values edited (what-if)"] == "none" and record["Missing values"] == "none"
    assert float(model["Contamination ε (learned)"]) == float(f"{e.eps:.3f}")
    assert not [t for t in doc.tables if t["class"] == "metrics"]
    assert all(t["class"] != "features" or "edited" not in "".join(t["row_classes"])
               for t in doc.tables)


def test_hostile_record_fields_stay_text(whatif):
    *_, e, context, _, _ = whatif
    evil = "<script>alert(1)</script>"
    metrics = context.metrics.rename(index={context.model: evil})
    hostile = ReportContext(dataset=evil, model=evil, settings=evil, metrics=metrics,
                            version=evil)
    report = to_html(e, context=hostile, edited={evil: evil})
    assert evil not in report and "<script" not in report
    assert report.count(html.escape(evil)) >= 6  # data set, model, settings, metrics, version
    record = Document(report).record()
    assert record["Data set"] == evil and record["forestviz version"] == evil


@pytest.mark.slow
def test_similar_rows_stand_side_by_side_however_many_columns():
    """40 columns: the similar rows' table has a line per column and a column per row."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 40))
    y = np.where(X[:, 0] > 0, "a", "b")
    names = [f"lab value {j}" for j in range(40)]
    model = RandomForestClassifier(5, max_depth=3, random_state=0).fit(X, y)
    summary = TrainingSummary.from_data(model, X, y, feature_names=names,
                                        ids=np.array([f"r{i}" for i in range(120)]))
    e = explain(model, X[7], summary=summary, row_id="r7", n_neighbors=5)
    table = Document(to_html(e, appendix=True)).table("side")
    neighbors = e.neighbors
    assert table["head"] == ["column", "this row", *neighbors["id"]]
    assert [row[0] for row in table["rows"]] == ["id", "distance", "outcome", *names]
    distances = table["rows"][1]
    assert [read(d) for d in distances[2:]] == [shown(d) for d in neighbors["distance"]]
    assert all(len(row) == 2 + len(neighbors) for row in table["rows"])
    values = {row[0]: row for row in table["rows"]}
    assert values["lab value 0"][1] == number_text(X[7, 0], X[:, 0].std())  # to its spread
    assert [read(v) for v in values["lab value 0"][2:]] == [
        shown(v) for v in neighbors["lab value 0"]]


@pytest.mark.slow
def test_pdf_holds_the_record(whatif):
    """The PDF is the report printed on A4: its text has the record, the prediction, the
    interval, the metrics and the marks."""
    from pypdf import PdfReader

    from forestviz.explain.report.pdf import to_pdf

    before, _, e, context, edited, _ = whatif
    started = time.perf_counter()
    pdf = to_pdf(e, context=context, edited=edited, appendix=True)
    seconds = time.perf_counter() - started
    reader = PdfReader(io.BytesIO(pdf))
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx(
            A4_POINTS, abs=0.5)
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    assert reader.metadata.title == f"forestviz explanation of row {e.row_id}"
    for said in (f"Explanation of row {e.row_id}", "Data set <u>ward data</u>",
                 f"forestviz version {context.version}",
                 "Report created 2026-05-04 13:02:03+02:00",
                 f"{BMI}: now 45.5, was {before[BMI]:.4g}",
                 f"edited (was {before[BMI]:.4g})", f"edited (was {before['ward']})",
                 f"{e.interval_name} {e.interval[0]:.2f}–{e.interval[1]:.2f}",
                 f"sick {e.prediction[list(e.classes).index('sick')]:.4g}",
                 "page 1 of", "training median"):
        assert said in text, said  # a header breaks only between words ("trainin g" no more)
    # the simplex (ABRF Fig. 1) where the page shows it: only when the tree weights differ
    assert ("ABRF Fig. 1" in text) == (not equal_weights(e.tree_weights))
    for metric, values in context.metrics.items():  # a line per metric, a column per model
        assert f"{metric} {' '.join(f'{v:.4g}' for v in values)}" in text, metric
    print(f"PDF: {len(pdf):,} bytes, {len(reader.pages)} pages, {seconds:.1f} s")


@pytest.mark.slow
def test_a_hundred_trees_and_thirty_columns_stay_under_two_megabytes(require_dot):
    """The bundled breast cancer table (30 columns), 100 trees, five path drawings: the HTML
    report is under 2 MB and its PDF prints on A4."""
    from pypdf import PdfReader

    from forestviz.explain.drawing.tree_drawings import tree_drawings
    from forestviz.explain.report.pdf import html_to_pdf
    from forestviz.io.bundled import load_dataset

    bench = Workbench(load_dataset("breast_cancer"))
    bench.train(Settings(family="vanilla", n_estimators=100))
    e = bench.explain(bench.highest_risk_row())
    context = ReportContext(dataset=bench.dataset.name, model=bench.model.name,
                            settings=settings_text(bench.model.estimator),
                            metrics=bench.comparison().table)
    drawings = tree_drawings(bench.model.estimator, e, bench.model.context)
    started = time.perf_counter()
    report = to_html(e, appendix=True, tree_svgs=drawings, context=context)
    made = time.perf_counter() - started
    size = len(report.encode())
    assert size < 2_000_000, size
    assert report.count('<img class="tree"') == 5 and "<script" not in report
    assert len(Document(report).table("side")["head"]) == 2 + len(e.neighbors)
    started = time.perf_counter()
    pdf = html_to_pdf(report)
    printed = time.perf_counter() - started
    pages = PdfReader(io.BytesIO(pdf)).pages
    assert all((float(p.mediabox.width), float(p.mediabox.height)) == pytest.approx(
        A4_POINTS, abs=0.5) for p in pages)
    print(f"HTML: {size:,} bytes in {made:.1f} s; PDF: {len(pdf):,} bytes, {len(pages)} pages "
          f"in {printed:.1f} s")
