"""Spreadsheet-safe downloads when a cell holds a line break or a tab (issue 36): a spreadsheet
may start another cell at a CR, LF or tab inside a quoted cell, so ``P1\\r=cmd|' /C calc'!A0``
must not leave ``=cmd…`` at the start of anything. Each download path is read back with
Python's csv module and every cell, and every fragment of a cell after a CR, LF or tab, is
checked."""

import csv
import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from forestviz.app import new_rows, workflow
from forestviz.app.workbench import Workbench
from forestviz.batch.sink import RowSink
from forestviz.cli.main import main
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.io.export import csv_bytes, neutralise
from forestviz.store import StoreConfig, open_library
from forestviz.store.actor import LOCAL

FORMULA = "=+-@\t\r"
BREAKS = re.compile(r"[\r\n\t]")
CALC = "P1\r=cmd|' /C calc'!A0"
HOSTILE = [CALC, "P2\n+SUM(1,2)", "P3\t-2+3", "P4\r\n@SUM(1)", "\r=x", "a\t\t=b", "-1\r=c"]
cells = st.text(alphabet=st.sampled_from("=+-@\t\r\n 'aZ1.,;\"é"), max_size=12)


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return not BREAKS.search(text)


def unsafe_starts(text: str) -> list[str]:
    """The pieces of a cell a spreadsheet could read as a formula: the cell itself when it
    starts like one, and each piece after a CR, LF or tab that starts with = + - @ (or with
    another tab or CR, which is a formula start too)."""
    if is_number(text):
        return []
    found = [text] if text.startswith(tuple(FORMULA)) else []
    found += [text[m.end():] for m in BREAKS.finditer(text)
              if text[m.end():m.end() + 1] and text[m.end()] in FORMULA]
    return found


def read_back(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


def assert_safe(data: bytes) -> list[list[str]]:
    rows = read_back(data)
    bad = [cell for row in rows for cell in row if unsafe_starts(cell)]
    assert not bad, bad
    return rows


@pytest.mark.parametrize("text", HOSTILE)
def test_a_formula_after_a_break_gets_a_quote(text):
    assert not unsafe_starts(neutralise(text))


def test_the_carriage_return_probe_of_issue_36():
    assert neutralise(CALC) == "P1\r'=cmd|' /C calc'!A0"


@given(cells)
@example("P1\r=cmd|' /C calc'!A0")
@example("\r\r=x")
@example("-1\r\n-2")
@example("\t-1")
@settings(max_examples=400, deadline=None)
def test_no_piece_of_a_neutralised_cell_starts_a_formula(text):
    safe = neutralise(text)
    assert not unsafe_starts(safe)
    assert safe.replace("'", "") == text.replace("'", "")  # only quotes are added
    assert neutralise(safe) == safe or unsafe_starts(safe) == []


@pytest.mark.slow
@given(st.lists(st.tuples(cells, cells), min_size=1, max_size=6), cells)
@example([(CALC, "x")], "=name\r+1")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_csv_bytes_read_back_holds_no_formula_start(pairs, name):
    frame = pd.DataFrame(pairs, columns=[name, "value"])
    rows = assert_safe(csv_bytes(frame))
    assert len(rows) == len(pairs) + 1  # the csv module sees the rows pandas wrote


def test_the_command_line_explain_csv_sink(tmp_path):
    out = tmp_path / "explained.csv"
    frame = pd.DataFrame({"id": HOSTILE, "P(yes)": np.linspace(0, 1, len(HOSTILE))})
    with RowSink(out) as sink:
        sink.write(frame)
    rows = assert_safe(out.read_bytes())
    assert [row[0] for row in rows[1:]] == [neutralise(t) for t in HOSTILE]


@pytest.fixture(scope="module")
def hostile_bench():
    rng = np.random.default_rng(0)
    n = 60
    x = rng.normal(size=n)
    frame = pd.DataFrame({"id": [HOSTILE[i % len(HOSTILE)] + str(i) for i in range(n)],
                          "x": x, "z": rng.normal(size=n),
                          "y": np.where(x > 0, "yes\r=cmd", "no")})
    dataset = Dataset.from_frame(frame, "y", id_column="id", name="hostile.csv")
    bench = Workbench(dataset, DataChoice("upload:test", "y", "id", (), "auto"))
    bench.train(workflow.Settings(family="vanilla", n_estimators=10, random_state=0))
    return bench


def test_the_train_page_s_held_out_predictions(hostile_bench):
    rows = assert_safe(workflow.predictions_csv(hostile_bench.model))
    ids = {row[0] for row in rows[1:]}
    assert any("\r'=cmd" in i for i in ids) and "'=cmd" not in rows[0][0]


@pytest.mark.slow
def test_the_several_patients_download(hostile_bench):
    new = hostile_bench.dataset.frame.head(len(HOSTILE)).copy()
    new["id"] = HOSTILE
    found = new_rows.several(hostile_bench.model, new)
    rows = assert_safe(csv_bytes(found.outputs))  # the page's "Download the explanations (CSV)"
    assert [row[0] for row in rows[1:]] == [neutralise(t) for t in HOSTILE]


def test_the_audit_export(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "var"
    library = open_library(StoreConfig(folder))
    library.audit.record(LOCAL, "row_explained", detail=CALC)
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    monkeypatch.delenv("FORESTVIZ_DATABASE_URL", raising=False)
    out = tmp_path / "audit.csv"
    assert main(["--quiet", "audit", "export", "--out", str(out)]) == 0
    rows = assert_safe(out.read_bytes())
    assert neutralise(CALC) in rows[-1]
    assert main(["--quiet", "audit", "export"]) == 0  # to the terminal: the same bytes
    assert_safe(capsys.readouterr().out.encode("utf-8"))
