"""Whole flows in Debian Chromium against the real server: the default data set to an
explanation, a hostile upload through Enhanced RF to an explanation, a malformed file, and two
browser sessions at once. Screenshots go to the temporary artifacts directory."""

import html
import re
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from forestviz import __version__
from forestviz.numbers import plain_number
from tests.browser_helpers import run_ended, scroll_to, still_context
from tests.test_report_record import Document

pytestmark = pytest.mark.browser

HOSTILE = "<img src=x onerror=alert(1)>"
TIMEOUT = 60_000  # ms: a first run imports scikit-learn; training shares two busy cores
# ms for a training, a hang detector: the worker runs at nice 10, about a tenth of a CPU beside
# a busy program (AGBoost on the 442-row diabetes table: 5-6 s quiet, 73 s seen on a loaded
# machine under the old scheduling)
TRAIN_TIMEOUT = 300_000


def go_to(page: Page, name: str, timeout: float = TIMEOUT) -> None:
    """Open the page ``name`` from the side bar and wait for its run to end."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click(
        timeout=timeout)
    expect(page.get_by_role("heading", name=name, exact=True)).to_be_visible(timeout=timeout)
    run_ended(page, timeout)


def upload(page: Page, path) -> None:
    go_to(page, "Data")
    main = page.get_by_test_id("stMain")
    main.get_by_text("Upload a CSV").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(path)


def upload_table(page: Page, path, target: str) -> None:
    """Upload ``path`` on the Data page and wait until its target column is chosen."""
    upload(page, path)
    expect(page.get_by_test_id("stMain").get_by_role("combobox", name="Target column")
           ).to_have_value(target, timeout=TIMEOUT)


def train(page: Page) -> None:
    go_to(page, "Train")
    main = page.get_by_test_id("stMain")
    main.get_by_role("button", name="Train", exact=True).click()
    expect(main.get_by_text("Trained.")).to_be_visible(timeout=TRAIN_TIMEOUT)


def expect_explanation(page: Page, probability: str) -> None:
    """The summary (its probability tile and the waterfall of reasons both ways), the heading
    of the trees shown and a tree drawing; with unequal tree weights also the weight chart,
    the KDE and the simplex (with equal weights the page draws none: a hundred equal bars say
    nothing)."""
    main = page.get_by_test_id("stMain")
    summary = page.locator(".st-key-explain_summary")
    expect(summary.get_by_test_id("stMetric").filter(has_text=probability)).to_be_visible(
        timeout=TIMEOUT)
    expect(summary.locator(".js-plotly-plot").filter(has_text="Reasons both ways")
           ).to_be_visible(timeout=TIMEOUT)
    heading = main.get_by_test_id("stHeading").filter(has_text=re.compile(r"^The \d+ trees"))
    expect(heading.first).to_be_visible(timeout=TIMEOUT)
    if "carry this prediction" in heading.first.inner_text():  # chosen by weight: unequal
        for title in ("Which trees carry this prediction", "Where the weight sits",
                      "ABRF Fig. 1"):
            expect(main.locator(".js-plotly-plot").filter(has_text=title).first
                   ).to_be_visible(timeout=TIMEOUT)
    image = main.get_by_test_id("stImage").locator("img").first
    expect(image).to_be_visible(timeout=TIMEOUT)
    assert image.evaluate("img => img.naturalWidth") > 0


def download(page: Page, kind: str) -> Path:
    """Click "``kind`` report" (HTML or PDF, the PDF after "Make PDF report")
    once the page's run has ended (no element left from an earlier run: a button of one holds a
    file the server has dropped) and return the downloaded file."""
    expect(page.get_by_test_id("stMain").locator('[data-stale="true"]')).to_have_count(
        0, timeout=TIMEOUT)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=TIMEOUT)
    main = page.get_by_test_id("stMain")
    if kind == "PDF":  # made on request (in a worker), then offered
        main.get_by_role("button", name="Make PDF report", exact=True).click()
    with page.expect_download(timeout=TIMEOUT) as download:
        main.get_by_role("button", name=f"{kind} report", exact=True).click(
            timeout=TIMEOUT)
    return download.value.path()


def download_report(page: Page) -> str:
    """Click "HTML report" and return the file's text."""
    return download(page, "HTML").read_text(encoding="utf-8")


def download_pdf_text(page: Page) -> str:
    """Click "PDF report" and return its pages' text (pypdf), white space single."""
    return download_pdf(page)[1]


def download_pdf(page: Page) -> tuple[int, str]:
    """Click "PDF report": its pages and their text (pypdf), white space single."""
    from pypdf import PdfReader

    path = download(page, "PDF")
    reader = PdfReader(path)
    print(f"PDF report: {path.stat().st_size:,} bytes, {len(reader.pages)} pages")
    return len(reader.pages), " ".join(" ".join(p.extract_text().split())
                                       for p in reader.pages)


def ask_for_the_appendix(page: Page) -> None:
    """Tick "With appendix" beside the report buttons and wait for the rerun."""
    main = page.get_by_test_id("stMain")
    main.get_by_test_id("stCheckbox").filter(has_text="With appendix").locator(
        "label").click()
    page.wait_for_timeout(600)  # Streamlit shows its running icon once a run lasts 500 ms
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=TIMEOUT)


def expect_summary_of_the_page(page: Page, report: str, row: str) -> None:
    """The report downloaded without the appendix is the summary the page shows, one A4 page:
    its heading names the row, its headline holds the page's P(Yes), its argument is the
    page's, and it has no appendix."""
    assert f"<h1>Explanation of row {row}</h1>" in report
    summary = page.locator(".st-key-explain_summary")
    argument = summary.get_by_test_id("stAlert").first.get_by_test_id(
        "stMarkdownContainer").inner_text()  # the sentence, without the icon's name
    assert html.escape(" ".join(argument.split())) in " ".join(report.split())
    assert f"risk {metric(page, 'P(Yes)')}" in report
    assert "Technical appendix" not in report and '<img class="tree"' not in report
    pages, text = download_pdf(page)
    assert pages == 1 and f"Explanation of row {row}" in text


def metric(page: Page, label: str) -> str:
    """The value the prediction card shows under ``label``."""
    card = page.get_by_test_id("stMain").get_by_test_id("stMetric").filter(has_text=label).first
    return card.get_by_test_id("stMetricValue").inner_text().strip()


def expect_report_of_the_page(page: Page, report: str, row: str) -> None:
    """The downloaded report is the HTML document of the row the page explains: its title and
    heading name the row, and its prediction, concentration figures and tree sections are the
    ones the page shows (one path drawing per top tree; that the record's sections are the
    page's, for every family, is tests/test_app_pages.py's page_and_record_agree)."""
    assert report.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    assert report.rstrip().endswith("</body></html>")
    assert f"<title>forestviz explanation of row {row}</title>" in report
    assert f"<h1>Explanation of row {row}</h1>" in report
    probability = float(metric(page, "P(Yes)"))
    shown = re.search(r"<td>Yes</td><td>([0-9.e-]+)</td>", report)
    assert shown is not None and abs(float(shown[1]) - probability) <= 0.005 + 1e-9
    effective = metric(page, "Effective number of trees")
    assert f"Effective number of trees: <b>{effective}</b>" in report  # the page's tiles
    top5 = metric(page, "Weight of the top 5 trees")
    assert f"Weight of the top 5 trees: <b>{top5}</b>" in report
    main = page.get_by_test_id("stMain")
    top = int(re.search(r"The (\d+) trees", main.get_by_test_id("stHeading").filter(
        has_text=re.compile(r"^The \d+ trees")).first.inner_text())[1])
    sections = re.findall(r"<h3>Tree (\d+): weight ([0-9.]+)", report)
    on_page = [(m[1], m[2]) for m in (re.match(r"Tree (\d+): weight ([0-9.]+)", text) for text in
               main.get_by_text(re.compile(r"^Tree \d+: weight")).all_inner_texts())]
    assert len(sections) == top and sections == on_page
    assert report.count('<img class="tree"') == top
    charts = re.findall(r'<img class="chart" alt="([^"]*)"', report)
    assert len(charts) >= 3  # the contributions, through the trees drawn, the percentiles
    assert report.count('<img class="reasons"') == 1  # the summary's waterfall
    assert report.count('src="data:image/svg+xml;base64,') == top + len(charts) + 1
    assert "<script" not in report and len(report.encode()) < 2_000_000


def expect_record(page: Page, report: str, row: str, since: datetime,
                  edited: str = "none") -> dict[str, str]:
    """The HTML report's record names the row, the data set, the model, the date (after
    ``since``), forestviz's version and the edited values, with the held-out metrics of the
    model and its two baselines; the PDF report, downloaded too, holds the same record, the
    metrics and the prediction the page shows. Returns the record."""
    print(f"HTML report: {len(report.encode()):,} bytes")
    doc = Document(report)
    record = doc.record()
    assert record["Row ID"] == row and record["Data set"] == "pima_diabetes"
    assert record["Model"].startswith("Enhanced RF (ERF): Enhanced random forest")
    assert since <= datetime.fromisoformat(record["Report created"]) <= datetime.now().astimezone()
    assert record["forestviz version"] == __version__
    assert record["Values edited (what-if)"] == edited
    metrics = doc.table("metrics")  # a column per model, a line per metric
    assert metrics["head"] == ["metric", "Enhanced RF (ERF)", "Vanilla RF (baseline)",
                               "Gradient boosting (baseline)"]
    assert metrics["rows"][-1] == ["this report's model", "yes", "", ""]
    assert {r[0] for r in metrics["rows"]} >= {"AUC", "F1", "accuracy", "fit seconds"}

    text = download_pdf_text(page)
    created = re.search(r"Report created (\S+ \S+) ", text)
    assert created is not None  # the PDF is made when its button is clicked, after the HTML
    assert datetime.fromisoformat(record["Report created"]) <= datetime.fromisoformat(
        created[1]) <= datetime.now().astimezone()
    for said in (f"Explanation of row {row}", "Data set pima_diabetes",
                 f"forestviz version {__version__}", f"Values edited (what-if) {edited}",
                 f"Effective number of trees: {metric(page, 'Effective number of trees')}",
                 "Held-out metrics", "Most similar training rows"):
        assert said in text, said
    for cells in metrics["rows"][:-1]:
        assert " ".join(cells) in text  # each metric of the three models, as in the HTML
    shown = re.search(r"probability No [0-9.e-]+ Yes ([0-9.e-]+)", text)
    assert shown is not None
    assert abs(float(shown[1]) - float(metric(page, "P(Yes)"))) <= 0.005 + 1e-9
    return record


def what_if(page: Page, column: str, value: str, risk: str = "P(Yes)") -> str:
    """Switch to the what-if editor, set ``column`` to ``value`` and wait until the page has
    explained the edited row (its ``risk`` changed, the run ended); returns the value before."""
    main = page.get_by_test_id("stMain")
    main.get_by_text("Edit the values (what-if)").click()
    box = main.get_by_test_id("stNumberInput").filter(has_text=column).locator("input")
    expect(box).to_be_visible(timeout=TIMEOUT)
    expect(main.get_by_test_id("stHeading").filter(has_text="(edited)").first).to_be_visible(
        timeout=TIMEOUT)
    before, shown = box.input_value(), metric(page, risk)
    assert before != value
    box.fill(value)
    box.press("Enter")
    box.blur()
    card = main.get_by_test_id("stMetric").filter(has_text=risk).first
    expect(card.get_by_test_id("stMetricValue")).not_to_have_text(shown, timeout=TIMEOUT)
    page.wait_for_timeout(600)  # Streamlit shows its running icon once a run lasts 500 ms
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=TIMEOUT)
    return before


def shoot(page: Page, artifacts_dir, name: str) -> None:
    path = artifacts_dir / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    print(f"screenshot: {path}")
    assert path.stat().st_size > 0


# per chart: the legend's box, the plotting area's box (cartesian charts) and the title's
LAYOUT_BOXES = """charts => charts.map(chart => {
    const box = selector => { const el = chart.querySelector(selector);
        if (!el) return null; const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom]; };
    return {title: box('.gtitle'), legend: box('.legend'), plot: box('.nsewdrag'),
            subtitle: box('.gtitle-subtitle'), width: chart.getBoundingClientRect().width};
})"""


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def explain_page_at(page: Page, artifacts_dir, width: int) -> None:
    """The Explain page at ``width`` px: a screenshot, and in every chart the legend clear of
    the plotting area and of the title and caption, the caption below the title."""
    page.set_viewport_size({"width": width, "height": 2000})
    page.wait_for_timeout(1500)  # plotly redraws at the new width
    shoot(page, artifacts_dir, f"1-explain-{width}px")
    boxes = page.locator("[data-testid=stMain] .js-plotly-plot").evaluate_all(LAYOUT_BOXES)
    assert len(boxes) >= 4
    for chart in boxes:
        if chart["legend"] and chart["plot"]:
            assert not overlaps(chart["legend"], chart["plot"]), chart
        for text in ("title", "subtitle"):
            if chart["legend"] and chart[text]:
                assert not overlaps(chart["legend"], chart[text]), chart
        if chart["subtitle"]:
            assert chart["subtitle"][1] >= chart["title"][3] - 2, chart


def write_table(path, *, n: int, feature: str, target: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(2)
    pd.DataFrame({
        "id": [f"{target[:1].upper()}{i:03d}" for i in range(n)],
        feature: x,
        "a&b": rng.integers(0, 9, n),
        "ward": rng.choice(["north", "south", "east"], n),
        target: np.where(x + rng.normal(0, 0.5, n) > 0, "yes", "no"),
    }).to_csv(path, index=False)


def test_default_data_to_an_explanation(page, dialogs, artifacts_dir, app_server):
    opened = time.monotonic()
    page.goto("/")
    main = page.get_by_test_id("stMain")
    button = main.get_by_role("button", name="Train the default model and explain a row")
    expect(button).to_be_visible(timeout=TIMEOUT)
    ready = time.monotonic()
    shoot(page, artifacts_dir, "1-home")
    clicked = time.monotonic()
    button.click()
    expect_explanation(page, "P(Yes)")
    explained = time.monotonic()
    shoot(page, artifacts_dir, "1-home-button-explain")
    start = app_server["started"]
    print(f"server launch → healthy {app_server['healthy'] - start:.1f} s, → page opened "
          f"{opened - start:.1f} s, → Home ready {ready - start:.1f} s, → first explained row "
          f"{explained - start - (clicked - ready):.1f} s without the screenshot "
          f"(click → explanation {explained - clicked:.1f} s)")

    train(page)
    shoot(page, artifacts_dir, "1-train")
    go_to(page, "Explain")
    expect_explanation(page, "P(Yes)")
    expect(main.get_by_text("Most fragile test").first).to_be_visible()
    shoot(page, artifacts_dir, "1-explain")
    for width in (700, 1400):
        explain_page_at(page, artifacts_dir, width)
    row = re.match(r"Row (\S+?):", page.get_by_test_id("stHeading").filter(
        has_text="Row P").first.inner_text())[1]
    since = datetime.now().astimezone().replace(microsecond=0)
    expect_summary_of_the_page(page, download_report(page), row)
    ask_for_the_appendix(page)
    report = download_report(page)
    expect_report_of_the_page(page, report, row)
    expect_record(page, report, row, since)
    after = "80"  # a low glucose: the risk the page shows changes
    box = what_if(page, "Glucose (mg/dL)", after)  # both reports say what was edited
    before = plain_number(float(box))  # the box shows "187.0", the reports the number, "187"
    shoot(page, artifacts_dir, "1-explain-what-if")
    report = download_report(page)
    expect_report_of_the_page(page, report, f"{row} (edited)")
    expect_record(page, report, f"{row} (edited)", since,
                  edited=f"Glucose (mg/dL): now {after}, was {before}")
    doc = Document(report)
    marks = doc.column(doc.table("features"), "marks")
    assert marks["Glucose (mg/dL)"] == f"edited (was {before})"
    assert [m for m in marks.values() if m] == [f"edited (was {before})"]
    main.get_by_text("Held-out rows, highest predicted risk first").click()
    scroll_to(main.get_by_text("Most similar training rows", exact=True))
    shoot(page, artifacts_dir, "1-explain-lower")
    go_to(page, "Forest")
    effective = main.locator(".js-plotly-plot").filter(has_text="Effective number of trees")
    expect(effective).to_be_visible(timeout=TIMEOUT)
    shoot(page, artifacts_dir, "1-forest")
    go_to(page, "Paper lab")
    expect(main.get_by_test_id("stImage").locator("img")).to_be_visible(timeout=TIMEOUT)
    shoot(page, artifacts_dir, "1-lab")
    scroll_to(main.get_by_text("A Decision Machine"))
    shoot(page, artifacts_dir, "1-lab-lower")
    assert page.get_by_test_id("stException").count() == 0
    assert dialogs == []


def test_hostile_names_through_enhanced_rf(page, dialogs, artifacts_dir, tmp_path):
    path = tmp_path / "ward.csv"
    write_table(path, n=80, feature=HOSTILE, target="sepsis", seed=1)
    page.goto("/")
    upload_table(page, path, "sepsis")
    main = page.get_by_test_id("stMain")
    train(page)
    expect(main.get_by_text("Enhanced RF (ERF)").first).to_be_visible()
    go_to(page, "Explain")
    expect_explanation(page, "P(yes)")
    features = main.get_by_test_id("stDataFrame").filter(has_text="percentile").first
    expect(features).to_contain_text(HOSTILE)
    expect(features).to_contain_text("a&b")
    expect(features).to_contain_text("ward")  # the user's column, with its level
    expect(features).not_to_contain_text("ward=")  # not its one-hot indicators
    shoot(page, artifacts_dir, "2-hostile-explain")
    assert HOSTILE not in download_report(page)  # the summary
    ask_for_the_appendix(page)
    report = download_report(page)
    assert HOSTILE not in report and "&lt;img src=x onerror=alert(1)&gt;" in report
    assert dialogs == []
    assert page.locator("img[src='x']").count() == 0


def test_a_malformed_file_then_the_app_keeps_working(page, dialogs, artifacts_dir, tmp_path):
    path = tmp_path / "broken.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR garbage")
    page.goto("/")
    upload(page, path)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_test_id("stAlertContentError")).to_contain_text("PNG image",
                                                                        timeout=TIMEOUT)
    shoot(page, artifacts_dir, "3-malformed")
    train(page)  # still the bundled data set
    expect(main.get_by_text("pima_diabetes").first).to_be_visible()
    assert dialogs == []


def test_two_sessions_at_once_see_only_their_own(browser, base_url, artifacts_dir, tmp_path):
    pages = []
    for name, feature, target, seed in (("alpha.csv", "lactate", "sepsis", 2),
                                        ("beta.csv", "troponin", "infarct", 3)):
        write_table(tmp_path / name, n=70, feature=feature, target=target, seed=seed)
        context = still_context(browser, base_url=base_url,
                                      viewport={"width": 1400, "height": 2000})
        page = context.new_page()
        page.goto("/")
        upload_table(page, tmp_path / name, target)
        go_to(page, "Train")
        pages.append((page, feature, target))
    for page, *_ in pages:  # both trainings run at the same time
        page.get_by_test_id("stMain").get_by_role("button", name="Train", exact=True).click()
    for (page, feature, target), (_, other_feature, other_target) in zip(
            pages, reversed(pages), strict=True):
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("Trained.")).to_be_visible(timeout=TRAIN_TIMEOUT)
        expect(main.get_by_text(f"target {target}")).to_be_visible()
        go_to(page, "Explain")
        expect_explanation(page, "P(yes)")
        features = main.get_by_test_id("stDataFrame").filter(has_text="percentile").first
        expect(features).to_contain_text(feature, timeout=TIMEOUT)  # drawn last, under load
        expect(features).not_to_contain_text(other_feature)
        expect(main).not_to_contain_text(other_target)
        shoot(page, artifacts_dir, f"4-session-{target}")
    for page, *_ in pages:
        page.context.close()
