"""What the generated-table tests (``tests/test_generated_tables.py``) do with a table and
check of it: its profile (bounded in ``make test``, long under ``make fuzz-tables``), the log of
each table, the Data page's reading, training, and the invariants every path shares (one-line
refusals, contributions that add up, the same numbers by two routes, a record that tells one
story)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, settings

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.cli.main import main
from forestviz.explain.report.markup import sentence
from forestviz.explain.row.narrative import target_column
from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.dataset import DataChoice, Dataset, as_numbers
from forestviz.registry import FAMILIES
from tests.one_story import problems, record_texts
from tests.table_strategies import BadTable, Table

FUZZ = int(os.environ.get("FORESTVIZ_FUZZ_TABLES", "0"))  # tables drawn in all, make fuzz
FUZZ_LOG = os.environ.get("FORESTVIZ_FUZZ_LOG")  # a folder for the run's log and failures
TREES = 5
ATOL = 1e-9  # the same numbers reached by two routes (a sum in another order)
DRAWN = {"tables": 0}  # tables this process drew (names a failing table's file)


def profile(bounded: int, share: float, *, max_rows: int = 150):
    """Hypothesis settings and the table strategy's row cap: ``bounded`` examples in ``make
    test``; under ``make fuzz-tables``, ``share`` of the tables and up to 3,000 rows."""
    examples = max(bounded, int(FUZZ * share)) if FUZZ else bounded
    # no shrinking: a table's paths take seconds, shrinking one took over five minutes; the
    # failing table is printed whole (its CSV) and kept below as an @example
    return settings(max_examples=examples, deadline=None, derandomize=not FUZZ,
                    phases=(Phase.explicit, Phase.reuse, Phase.generate),
                    database=None if not FUZZ else settings.default.database,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example]), (
        3000 if FUZZ else max_rows)


@contextlib.contextmanager
def drawn(test: str, table):
    """One generated table through ``test``: counted, and under ``make fuzz-tables`` (with
    ``FORESTVIZ_FUZZ_LOG``, a folder) a line per table in its ``tables.log`` with the outcome,
    the table of a failure kept beside it as CSV."""
    DRAWN["tables"] += 1
    started, outcome = time.perf_counter(), "ok"
    try:
        yield
    except BaseException as err:
        outcome = f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[0][:300]}"
        if FUZZ_LOG:
            kept = Path(FUZZ_LOG) / f"failure-{os.getpid()}-{DRAWN['tables']}.csv"
            kept.write_bytes(table.csv)
            outcome += f" ({kept.name})"
        raise
    finally:
        if FUZZ_LOG:
            with open(Path(FUZZ_LOG) / "tables.log", "a", encoding="utf-8") as log:
                log.write(f"{time.strftime('%H:%M:%S')}\t{test}\t"
                          f"{time.perf_counter() - started:.1f}\t"
                          f"{getattr(table, 'task', getattr(table, 'problem', ''))}\t"
                          f"{outcome}\n")


def one_line(message: str) -> None:
    assert message.strip() and "\n" not in message.strip() and "Traceback" not in message


def read(table: Table | BadTable) -> tuple[pd.DataFrame, str, str | None]:
    """The table as the Data page reads it, with its target and ID columns' names."""
    frame = load_csv(table.csv)
    target = "not a column" if table.target is None else str(frame.columns[table.target])
    id_column = None if table.id_column is None else str(frame.columns[table.id_column])
    return frame, target, id_column


def dataset_of(table: Table) -> Dataset | None:
    """The data set the Data page makes, or None after checking its refusal is one line."""
    frame, target, id_column = read(table)
    try:
        return Dataset.from_frame(frame, target, id_column=id_column, name="export.csv")
    except DataError as err:
        one_line(str(err))
        return None


def choice_of(table: Table, dataset: Dataset) -> DataChoice:
    """The choice the Data page and ``forestviz train`` make of the uploaded table."""
    return DataChoice(f"upload:{hashlib.sha256(table.csv).hexdigest()}", dataset.target,
                      dataset.id_column, (), "auto")


def families(task: str, *, command_line: bool = False) -> list[str]:
    return [key for key, family in FAMILIES.items() if task in family.tasks
            and (family.option is not None or not command_line)]


def picked(options, pick: int):
    """The ``pick``-th of ``options``, round and round (a family drawn as a number, so that a
    failing draw is an explicit ``@example``)."""
    return options[pick % len(options)]


def trained(bench: Workbench, family: str) -> bool:
    """Train ``family`` (a refusal is one line: False)."""
    try:
        bench.train(Settings(family=family, n_estimators=TREES, random_state=0))
    except DataError as err:
        one_line(str(err))
        return False
    return True


def adds_up(e) -> tuple[float, np.ndarray]:
    """(the number the waterfall explains, the contributions to it), checked to add up."""
    column = target_column(e)
    c = e.contributions
    total = c.total if column is None else c.total[:, column]
    base = c.base_value if column is None else c.base_value[column]
    number = float(e.prediction if column is None else e.prediction[column])
    assert float(base) + total.sum() == pytest.approx(number, abs=ATOL)
    return number, total


def new_rows(table: Table, dataset: Dataset) -> pd.DataFrame:
    """The table's new rows under the data set's column names."""
    rows = table.new_rows.copy()
    assert rows.shape[1] == len(dataset.feature_columns)
    rows.columns = list(dataset.feature_columns)
    return rows


def explained_alike(bench: Workbench, rows: pd.DataFrame, outputs: pd.DataFrame) -> None:
    """Each row of ``rows`` explained by ``bench`` gives the numbers of ``outputs`` (the
    command line's ``explain --contributions`` columns)."""
    for i in range(len(rows)):
        e = bench.explain(values=rows.iloc[i])
        number, total = adds_up(e)
        column = target_column(e)
        expected = (outputs["prediction"] if column is None
                    else outputs[f"P({e.classes[column]})"]).iloc[i]
        assert number == pytest.approx(float(expected), abs=ATOL)
        names = e.contributions.feature_names
        theirs = outputs[[f"contribution[{c}]" for c in names]].iloc[i].to_numpy(dtype=float)
        np.testing.assert_allclose(total, theirs, rtol=0, atol=ATOL)


def whole_model_views(bench: Workbench) -> None:
    """The Forest page's views of the model, each column's too."""
    whole = bench.whole()
    population = whole.population()
    importance = population.importance().set_index("column")
    np.testing.assert_allclose(
        importance.loc[population.columns, "mean |contribution|"],
        np.abs(population.contributions).mean(axis=0), rtol=0, atol=1e-12)
    held_out = bench.model.test_rows
    for i in (0, len(held_out) - 1):  # a row's numbers are its Explain page's
        e = bench.explain(int(held_out[i]))
        number, total = adds_up(e)
        assert population.prediction[i] == pytest.approx(number, abs=ATOL)
        order = [e.contributions.feature_names.index(c) for c in population.columns]
        np.testing.assert_allclose(population.contributions[i], total[order], atol=ATOL)
    for split in ("outcome", "prediction"):
        with_groups(lambda split=split: whole.cohorts(split))
    X = bench.dataset.X.iloc[held_out]
    for column in population.columns:
        population.dependence(column)
        whole.partial_dependence(column)
        found = with_groups(lambda column=column: whole.cohorts("column", column))
        if found is not None:  # the rows missing the column are said, never dropped
            # missing as the model reads it: a word among numbers written as text is missing
            values = X[column]
            if column in bench.model.preprocessor.medians_:
                values = as_numbers(values)
            missing = int(values.isna().sum())
            assert (found.left_out or (0,))[0] == missing
            assert sum(found.sizes) + missing == len(held_out)
    whole.trust()
    bench.global_views()


def with_groups(cohorts):
    """The cohorts, or None when a group has fewer than two rows (said in one line)."""
    try:
        return cohorts()
    except ValueError as err:
        one_line(str(err))
        return None


def report_says(document: str, bench: Workbench, e) -> None:
    """The report's first page states the row's prediction as the Explain page does, and the
    record tells one story (``tests/one_story.py``: no two prints of one quantity differ)."""
    assert sentence(bench.glance(e).headline) in document
    said = problems(record_texts(document))
    assert said == [], said


def cli(*argv) -> None:
    """``forestviz ARGV`` must succeed (its one-line refusal would be printed first)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["--quiet", *map(str, argv)])
    assert code == 0, err.getvalue()
