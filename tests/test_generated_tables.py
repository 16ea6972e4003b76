"""Generated tables through every path a user has (issue 35, "Generated tables, every path").

Hypothesis draws tables as users export them (:mod:`tests.table_strategies`) and each goes the
ways a user takes it: trained by each family valid for its task (:class:`Workbench` and the
``forestviz`` command line), a held-out row explained, a new row with blanks and an unseen
level, several new rows, the global view (the Forest page's library functions and
``forestviz global``), the report (HTML, PDF), published to a model library on a temporary
SQLite file and opened from it. Invariants: no exception; a table forestviz refuses gets one
line; contributions add up to the prediction; the Workbench's, the report's and the command
line's numbers for the same row are equal; global importance is the mean |contribution|; the
record of every explained row, and the Explain page of one, tell one story
(``tests/one_story.py``).

The bounded profile runs in ``make test`` (a few small tables per test, few trees); ``make
fuzz-tables`` sets ``FORESTVIZ_FUZZ_TABLES`` to draw that many tables across the tests (up to
3,000 rows), logs each (:func:`tests.table_paths.drawn`) and says how many tables a minute it
ran. Every failure a run found stays below as an explicit ``@example`` (docs/reliability.md,
"Generated tables").
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from forestviz.app.new_rows import several
from forestviz.app.workbench import Workbench
from forestviz.cli.main import main
from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.dataset import Dataset
from forestviz.registry import FAMILIES
from tests.table_paths import (
    TREES,
    adds_up,
    choice_of,
    cli,
    dataset_of,
    drawn,
    explained_alike,
    families,
    new_rows,
    one_line,
    picked,
    profile,
    read,
    report_says,
    trained,
    whole_model_views,
)
from tests.table_strategies import bad_tables, csv_bytes, table_of, tables

# Found by the generated tables (docs/reliability.md, "Generated tables"): each stays here.
# An Enhanced RF on 41 rows with 2 positives: its validation rows hold one class, no round has
# an AUC, and choosing the round to weight raised "All-NaN slice encountered".
ONE_CLASS_VALIDATION = table_of((
    "price [€],[x],Age (years)\nFalse,0.5,49.42\nFalse,0.5,\nFalse,0.5,51.88\n"
    "False,0.5,\nFalse,0.5,\nFalse,0.5,\nFalse,0.5,43.35\nFalse,0.5,\nFalse,0.5,\n"
    "False,0.5,57.49\nFalse,0.5,53.74\nFalse,0.5,53.13\nFalse,0.5,\nFalse,0.5,\n"
    "False,0.5,55.74\nFalse,0.5,55.06\nFalse,0.5,\nFalse,0.5,54.17\nFalse,0.5,48.2\n"
    "False,0.5,44.67\nFalse,0.5,49.87\nFalse,0.5,53.97\nFalse,0.5,47.71\nFalse,0.5,\n"
    "False,0.5,\nFalse,0.5,53.22\nFalse,0.5,49.55\nFalse,0.5,\nFalse,0.5,\n"
    "False,0.5,63.48\nFalse,0.5,46.33\nFalse,0.5,\nFalse,0.5,\nFalse,0.5,58.41\n"
    "False,0.5,45.41\nFalse,0.5,\nTrue,0.5,\nFalse,0.5,\nFalse,0.5,48.85\n"
    "True,0.5,40.65\nFalse,0.5,34.97\n").encode(), 0, task="imbalanced")
# A boolean column with a blank among several new rows: the rows came out of the CSV reader as
# text ("True", NaN) and the Workbench's reading made every row's value missing, while the
# command line read 1 and 0 (forestviz.io.dataset.as_numbers).
BOOLEAN_GAP = table_of(b"flag,x,Outcome\n" + "".join(
    f"{i % 3 == 0},{i * 1.5},{'Yes' if i % 3 == 0 or i > 50 else 'No'}\n"
    for i in range(60)).encode(), 2, new_rows=pd.DataFrame(
        {"flag": [None, True, False], "x": [3.0, None, 60.0]}, dtype=object))

# An imbalanced True/False target with blanks: read as Python booleans in a text column,
# which scikit-learn calls "unknown" labels; every family's training failed.
BOOLEAN_TARGET_GAP = table_of("Préd,x\n".encode() + "".join(
    f"{'' if i % 29 == 0 else i % 15 == 0},{i % 7}\n" for i in range(120)).encode(), 0,
    task="imbalanced")

# a column with no value (its header twice, duplicates renamed): the whole model's partial
# dependence on it asked the model about 0 rows ("Found array with 0 sample(s)", make fuzz)
FOUND = Path(__file__).parent / "found_tables"
EMPTY_COLUMN = table_of((FOUND / "empty_column_partial_dependence.csv").read_bytes(), 5)
# numbers written as text with one "unknown": the model reads them as numbers, the whole
# model's partial dependence and cohorts read the raw text as floats (make fuzz)
NUMBER_TEXT_UNKNOWN = table_of((FOUND / "number_text_unknown.csv").read_bytes(), 2,
                               task="regression")
# one column, known in one row: every training row is every other's twin, so no row has a
# neighbour and the trust table explained 0 rows through the model (make fuzz)
TWINS = table_of((FOUND / "twins_no_neighbours.csv").read_bytes(), 2, id_column=1)
# a column named in Chinese: DejaVu has no such glyph, so the PDF printed boxes (and its text
# could not be read back) until a fallback font was installed (make fuzz)
# a True/False column with gaps is a text column of levels "True" and "False" to the model; the
# command line read the file's "true" as an unseen level (make fuzz)
LOWERCASE_BOOLEANS = table_of((FOUND / "cli_lowercase_booleans.csv").read_bytes(), 2,
                              id_column=5, task="regression")
CJK_COLUMN = table_of((FOUND / "cjk_column_pdf.csv").read_bytes(), 0, id_column=5,
                      task="regression")

SETTINGS, ROWS = profile(10, 0.3, max_rows=80)


@pytest.mark.slow
@SETTINGS
@given(bad=bad_tables())
def test_a_bad_table_gets_one_line(bad, tmp_path_factory):
    """The Data page and ``forestviz train`` refuse it in one line each."""
    with drawn("a_bad_table_gets_one_line", bad):
        frame, target, id_column = read(bad)
        with pytest.raises(DataError) as refused:
            Dataset.from_frame(frame, target, id_column=id_column, name="export.csv")
        one_line(str(refused.value))
        path = tmp_path_factory.mktemp("bad") / "export.csv"
        path.write_bytes(bad.csv)
        argv = ["--quiet", "train", str(path), "--target", target, "--trees", str(TREES),
                "--out", str(path.with_suffix(".skops"))]
        if id_column is not None:
            argv += ["--id", id_column]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(argv) == 2
        one_line(err.getvalue())
        assert not path.with_suffix(".skops").exists()


SETTINGS, ROWS = profile(3, 0.45)


@pytest.mark.slow
@SETTINGS
@given(table=tables(max_rows=ROWS), pick=st.integers(0, 7))
@example(table=ONE_CLASS_VALIDATION, pick=1)  # Enhanced RF
@example(table=BOOLEAN_GAP, pick=0)
@example(table=BOOLEAN_TARGET_GAP, pick=2)  # ABRF-1
@example(table=EMPTY_COLUMN, pick=0)
@example(table=NUMBER_TEXT_UNKNOWN, pick=0)
def test_generated_tables_on_the_workbench(table, pick):
    """Train, explain a held-out row, a new row with blanks and an unseen level, several new
    rows, the whole model, the HTML report (each explained row's record tells one story)."""
    with drawn("generated_tables_on_the_workbench", table):
        dataset = dataset_of(table)
        if dataset is None:
            return
        bench = Workbench(dataset)
        family = picked(families(dataset.task), pick)
        if not trained(bench, family):
            return
        e = bench.explain(int(bench.model.test_rows[0]))
        adds_up(e)
        report_says(bench.report(e), bench, e)
        rows = new_rows(table, dataset)
        for i in (0, 1):  # blanks; a level no row has: their records tell one story too
            new = bench.explain(values=rows.iloc[i], row_id=f"new {i}")
            report_says(bench.report(new), bench, new)
        found = several(bench.model, rows)
        explained_alike(bench, found.rows, found.outputs)
        whole_model_views(bench)


SETTINGS, ROWS = profile(2, 0.2)


@pytest.mark.slow
@SETTINGS
@given(table=tables(max_rows=ROWS), pick=st.integers(0, 7))
@example(table=TWINS, pick=0)
@example(table=LOWERCASE_BOOLEANS, pick=6)
def test_generated_tables_through_the_command_line(table, pick, tmp_path_factory):
    """``forestviz train`` trains what the Workbench trains; ``explain`` (held-out rows, new
    rows), ``report`` and ``global`` give the Workbench's numbers for the same rows."""
    with drawn("generated_tables_through_the_command_line", table):
        dataset = dataset_of(table)
        if dataset is None:
            return
        folder = tmp_path_factory.mktemp("cli")
        path = folder / "export.csv"
        path.write_bytes(table.csv)
        family = picked(families(dataset.task, command_line=True), pick)
        option = FAMILIES[family].option
        model = folder / "model.skops"
        argv = ["train", path, "--target", dataset.target, "--model", option, "--trees", TREES,
                "--seed", 0, "--out", model]
        argv += [] if dataset.id_column is None else ["--id", dataset.id_column]
        bench = Workbench(dataset, choice_of(table, dataset))
        if not trained(bench, family):  # the command line refuses it in one line too
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                assert main(["--quiet", *map(str, argv)]) == 2
            one_line(err.getvalue())
            return
        cli(*argv)
        loaded = Workbench(dataset, choice_of(table, dataset))
        loaded.load(model.read_bytes())
        np.testing.assert_array_equal(loaded.model.test_predictions[loaded.model.name],
                                      bench.model.test_predictions[bench.model.name])
        # every row of the table, and the new rows, explained by the command line
        out = folder / "explained.csv"
        cli("explain", model, path, "--out", out, "--contributions")
        explained = pd.read_csv(out, keep_default_na=False, na_values=[""])
        held_out = loaded.model.test_rows[:3]
        # the file's rows are the loaded table's (RangeIndex); rows without a target stay in it
        explained_alike(loaded, dataset.X.iloc[held_out], explained.iloc[dataset.frame.index[
            held_out]])
        rows = new_rows(table, dataset)
        new_path = folder / "new rows.csv"
        # with an ID column, as a file of new rows has (a file of one column is no table)
        new_path.write_bytes(csv_bytes(rows.assign(**{dataset.id_column or "new row": [
            f"new {i}" for i in range(len(rows))]})))
        cli("explain", model, new_path, "--out", out, "--contributions", "--training", path,
            "--force")
        explained_alike(loaded, load_csv(new_path.read_bytes()), pd.read_csv(out))
        # the report of a held-out row says what the Workbench's says
        position = int(held_out[0])
        row_id = str(dataset.ids.iloc[position])
        # without an ID column a row is named by its label among the file's rows, from 0
        row = row_id if dataset.id_column is not None else str(dataset.frame.index[position])
        cli("report", model, path, "--rows", row, "--out", folder / "reports")
        (document,) = (folder / "reports").glob("*.html")
        report_says(document.read_text(encoding="utf-8"), loaded,
                    loaded.explain(position, row_id=row))
        # the whole model: importance is the Forest page's
        cli("global", model, path, "--out", folder / "global")
        importance = pd.read_csv(folder / "global" / "importance.csv")
        page = loaded.whole().population().importance()
        np.testing.assert_allclose(importance["mean |contribution|"],
                                   page["mean |contribution|"], rtol=1e-12, atol=1e-15)


SETTINGS, ROWS = profile(1, 0.1)


@pytest.mark.slow
@SETTINGS
@given(table=tables(max_rows=ROWS), pick=st.integers(0, 7))
def test_generated_tables_published_and_opened(table, pick, tmp_path_factory):
    """Published to a model library on a temporary SQLite file and opened from it, the model
    explains a held-out row and a new row exactly as before."""
    from forestviz.store import StoreConfig, open_library

    with drawn("generated_tables_published_and_opened", table):
        dataset = dataset_of(table)
        if dataset is None:
            return
        bench = Workbench(dataset, choice_of(table, dataset))
        if not trained(bench, picked(families(dataset.task), pick)):
            return
        library = open_library(StoreConfig(tmp_path_factory.mktemp("library")))
        name = picked(("House prices", "Pima risk (v2)", "Größe ≥ 3"), pick)
        info = library.publish(bench, name=name, description="generated table",
                               intended_use="Screening")
        opened = library.open_model(info.name, info.version).workbench
        position = int(bench.model.test_rows[-1])
        rows = [bench.dataset.X.iloc[position], new_rows(table, dataset).iloc[0]]
        for before, after in ((bench.explain(values=r), opened.explain(values=r)) for r in rows):
            assert adds_up(after)[0] == adds_up(before)[0]
            np.testing.assert_array_equal(after.contributions.total, before.contributions.total)
        e = opened.explain(position)
        report_says(opened.report(e, published=info.ref), opened, e)


SETTINGS, ROWS = profile(1, 0.02, max_rows=60)


@pytest.mark.slow
@SETTINGS
@given(table=tables(max_rows=ROWS), pick=st.integers(0, 7))
@example(table=CJK_COLUMN, pick=0)
def test_generated_tables_printed_as_pdf(table, pick):
    """The one-page record of a new row with blanks, as PDF, says the page's prediction."""
    import pypdf

    with drawn("generated_tables_printed_as_pdf", table):
        dataset = dataset_of(table)
        if dataset is None:
            return
        bench = Workbench(dataset)
        if not trained(bench, picked(families(dataset.task), pick)):
            return
        e = bench.explain(values=new_rows(table, dataset).iloc[0], row_id="new patient")
        pdf = bench.report(e, pdf=True)
        text = " ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)
        words = bench.glance(e).headline.split("(")[0].split()
        assert " ".join(words) in " ".join(text.split())
