"""Every page's text free of scientific notation (issue 39, item 2): the main pages driven by
Streamlit's AppTest after training and explaining rows, on a classification and two regression
tables (the clinical diabetes one, whose values reach the hundreds, and an uploaded one whose
outcome and a column reach the hundred thousands and another column is in the hundred
thousandths, where four significant digits printed as "1.523e+05" and "3.1e-05"), read as a
person reads them: titles, markdown, captions, tiles, choices, the texts of tables (a Styler's
display texts, text cells and headers) and of charts (titles, axis titles, annotations, the
texts and hovers the project writes)."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import app, choose_bundled, shown_cells, train, upload_csv
from one_story import page_texts

pytestmark = pytest.mark.slow  # real training through the app: tens of seconds

SCIENTIFIC = re.compile(r"(?<![\w.])[−+-]?\d+(?:\.\d+)?[eE][−+-]?\d+(?!\w)")
PAGES = ("pages/home.py", "pages/data.py", "pages/train.py", "pages/forest.py")


def chart_texts(at) -> list[str]:
    """The texts of the page's plotly charts the project writes (plotly's own tick numbers are
    left out: the browser draws them)."""
    texts = []
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        layout = spec.get("layout", {})
        texts.append(str(layout.get("title", {}).get("text", "")))
        texts += [str(a.get("text", "")) for a in layout.get("annotations", [])]
        texts += [str(layout.get(axis, {}).get("title", {}).get("text", ""))
                  for axis in layout if axis.startswith(("xaxis", "yaxis"))]
        for trace in spec.get("data", []):
            for key in ("name", "text", "hovertext", "hovertemplate"):
                value = trace.get(key)
                texts += [str(v) for v in value] if isinstance(value, list) else [str(value or "")]
    return texts


def table_texts(at) -> list[str]:
    """Headers and the cells shown as text (numbers the browser formats are left out)."""
    texts = []
    for table in at.dataframe:
        cells = shown_cells(table)
        texts += [str(c) for c in cells.columns]
        texts += [c for c in cells.to_numpy().ravel() if isinstance(c, str)]
    return texts


def read(at) -> list[str]:
    return [*page_texts(at), *chart_texts(at), *table_texts(at)]


def defects(at, page: str) -> list[str]:
    said = []
    for text in read(at):
        said += [f"{page}: scientific notation {m.group(0)!r} in {text[:100]!r}"
                 for m in SCIENTIFIC.finditer(text)]
    return said


def test_the_check_finds_scientific_notation_and_only_it():
    found = [t for t in ("mean 1.521e+05", "2.3e+02", "risk 1E-5", "−4.2e-07")
             if SCIENTIFIC.search(t)]
    assert len(found) == 4
    assert not any(SCIENTIFIC.search(t) for t in (
        "1,234", "0.0000123", "base64e5", "row e12", "ε = 0.10", "tree 3e", "v2.3e"))


def big_and_small() -> bytes:
    """A regression table of large and tiny numbers: an income in the hundred thousands, a dose
    in the hundred thousandths, an age; the cost they make, in the tens of thousands."""
    rng = np.random.default_rng(7)
    n = 300
    income = rng.normal(150_000, 40_000, n).round(-2)
    dose = rng.normal(3e-5, 1e-5, n)
    age = rng.integers(20, 80, n)
    cost = 0.5 * income + 2e9 * dose - 300 * age + rng.normal(0, 5_000, n)
    return pd.DataFrame({"income": income, "dose": dose, "age": age, "cost": cost}).to_csv(
        index=False).encode()


@pytest.mark.parametrize(("table", "family"), [("pima_diabetes", "softmax"),
                                               ("diabetes", "abrf1_lp"),
                                               ("big_and_small.csv", "agboost")])
def test_no_page_prints_scientific_notation(table, family):
    at = app()
    if table.endswith(".csv"):
        upload_csv(at, table, big_and_small())
        assert not at.error, [e.value for e in at.error]
    else:
        choose_bundled(at, table)
    bundle = train(at, family, trees=20, auto=False, timeout=900)  # a hang guard
    found = []
    at.switch_page("pages/explain.py").run()
    assert not at.exception, at.exception
    (picker,) = [box for box in at.selectbox if box.key.startswith("explain_ranked@")]
    for index in (0, len(bundle.test_rows) - 1):
        picker.set_value(int(bundle.test_rows[index])).run()
        assert not at.exception, at.exception
        found += defects(at, "pages/explain.py")
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        found += defects(at, page)
    assert not found, "\n".join(dict.fromkeys(found))  # each defect once
