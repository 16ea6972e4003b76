"""The report's first page (forestviz.explain.report.summary): the Explain page's Glance for the
record, one A4 page of at most 300 KB on the bundled Pima table and on a regression table, with
the prediction, the interval, the reasons both ways and the missing-value alarm in the Glance's
own numbers; the technical appendix only when asked for; file names for a held-out row, a
what-if and a new patient."""

import io
from dataclasses import replace

import numpy as np
import pytest
from pypdf import PdfReader

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.report.names import NEW_PATIENT, report_file_name
from forestviz.explain.row.reasons import signed
from forestviz.io.bundled import load_dataset

MAX_BYTES = 300_000
APPENDIX = ("Technical appendix", "Held-out metrics")


@pytest.fixture(scope="module", params=["pima_diabetes", "friedman1"])
def case(request):
    """A trained workbench and the explanation of its riskiest held-out row with two of its
    values blanked (so the alarm has missing values to check)."""
    dataset = (load_dataset("friedman1", n_samples=300) if request.param == "friedman1"
               else load_dataset(request.param))
    bench = Workbench(dataset)
    bench.train(Settings(family="abrf1_qp", n_estimators=30, random_state=0))
    position = bench.highest_risk_row()
    values = dataset.X.iloc[position].copy()
    values.iloc[[0, 1]] = np.nan
    e = bench.explain(values=values, row_id=str(dataset.ids.iloc[position]))
    return bench, e, bench.glance(e)


def pdf_text(pdf: bytes) -> tuple[int, str]:
    """(pages, the text of every page with its white space made single spaces)."""
    reader = PdfReader(io.BytesIO(pdf))
    return len(reader.pages), " ".join(" ".join(p.extract_text().split()) for p in reader.pages)


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.slow
def test_the_summary_is_one_a4_page_with_the_glance_s_numbers(case):
    bench, e, g = case
    pdf = bench.report(e, pdf=True, glance=g)
    pages, text = pdf_text(pdf)
    assert pages == 1 and len(pdf) <= MAX_BYTES
    assert flat(g.headline) in text and flat(g.argument) in text
    if e.task == "classification":
        assert f"{g.value:.2f}" in text and str(e.predicted_class) in text
        low, high = f"{e.interval[0]:.2f}", f"{e.interval[1]:.2f}"
    else:
        assert e.value_texts(g.value)[0] in text
        low, high = e.value_texts(*e.interval)
    assert f"{low}–{high}" in text
    # both sides: the strongest column each way, with its push as the Glance says it
    assert g.reasons.raising and g.reasons.lowering
    for side in (g.reasons.raising, g.reasons.lowering):
        assert side[0].column in text and f"({signed(side[0].contribution)})" in text
    assert len(g.checks) == 2  # the blanked values: each check's sentence, alarm or note
    for check in g.checks:
        assert flat(check.sentence) in text
    assert flat(g.similar) in text
    for section in APPENDIX:
        assert section not in text


@pytest.mark.slow
def test_the_appendix_follows_only_when_asked_for(case):
    bench, e, g = case
    html = bench.report(e, glance=g)
    assert '<img class="tree"' not in html and "Technical appendix" not in html
    full = bench.report(e, glance=g, appendix=True)
    choice = bench.tree_choice(e)
    assert full.count('<img class="tree"') == len(choice.trees)  # drawn by the workbench
    assert full.index("Reasons both ways") < full.index("Technical appendix")
    pages, text = pdf_text(bench.report(e, pdf=True, glance=g, appendix=True))
    assert pages > 1
    view = bench.explain_view(e, g)  # then the Explain page's sections, under its titles
    assert view.titles[1] == choice.heading
    for section in (*APPENDIX, *view.titles):
        assert section in text


@pytest.mark.slow
def test_the_report_renders_the_glance_it_is_given(case):
    """The page hands the report its own Glance: the report says its sentences, not others."""
    bench, e, g = case
    mine = replace(g, argument="The page's own argument.", similar="The page's similar rows")
    html = bench.report(e, glance=mine)
    assert "The page&#x27;s own argument." in html and "The page&#x27;s similar rows." in html
    assert g.argument not in html


def test_file_names_say_row_model_date_and_what_if(case):
    bench, e, _ = case
    model = bench.model.name
    assert bench.report_name(e, "pdf") == report_file_name(e.row_id, model, "pdf")
    assert bench.report_name(e, "pdf").startswith(f"forestviz-{e.row_id}-")
    edited = bench.explain(values=bench.dataset.X.iloc[0], row_id=f"{e.row_id} (edited)")
    assert bench.report_name(edited, "html", edited=True) == report_file_name(
        e.row_id, model, "html", edited=True)
    assert f"forestviz-{e.row_id}-edited-" in bench.report_name(edited, "html", edited=True)
    new = bench.explain(values=bench.dataset.X.iloc[0] * np.nan, row_id=NEW_PATIENT)
    assert bench.report_name(new, "pdf").startswith("forestviz-new-patient-")
    assert "Explanation of a new patient" in bench.report(new)
