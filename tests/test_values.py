"""One value check for every input path (issue 36): an infinite number, or one beyond
±MAX_MAGNITUDE, is refused in one line naming the column before any model sees it — in a
training table, the New-patient form, the several-patients CSV, and the command line's
``train``, ``explain`` (CSV and Parquet) and ``report`` inputs. Before, 1e200 and larger gave
"Input contains infinity" (scikit-learn's float32 trees) or "expected finite model outputs"
(the attention forests' squared distances) on every family."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forestviz.app import new_rows
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.cli.main import main
from forestviz.explain.row.uncertainty import IntervalModel
from forestviz.io.bundled import load_dataset
from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.dataset import Dataset
from forestviz.io.values import MAX_MAGNITUDE, check_numbers
from forestviz.registry import FAMILIES
from tests.cli_tables import ID, TARGET

ABSURD = [1e308, -1e308, 1e300, 1e200, np.inf, -np.inf]
COLUMN = "Glucose (mg/dL)"


def pima() -> pd.DataFrame:
    frame = load_dataset("pima_diabetes").frame.drop(columns="Patient ID", errors="ignore")
    return frame.astype({COLUMN: float})


def holds(value: float, more: str = "") -> str:
    """The start of the check's message for ``value`` in the Glucose column, as a regex."""
    return "^" + re.escape(f"'{COLUMN}' holds {size(value)}{more}")


def size(value: float) -> str:
    """How the message says an absurd number, its digits counted from the exact integer."""
    if np.isinf(value):
        return "minus infinity" if value < 0 else "infinity"
    return f"a {'negative ' if value < 0 else ''}number of {len(str(int(abs(value)))):,} digits"


@pytest.fixture(scope="module")
def bench():
    bench = Workbench(Dataset.from_frame(pima(), target="Diabetes", name="pima"))
    bench.train(Settings(family="vanilla", n_estimators=10, random_state=0))
    return bench


@given(st.floats(allow_nan=True, allow_infinity=True))
@example(1e308)
@example(-1e308)
@example(1e200)
@example(MAX_MAGNITUDE)
@example(-MAX_MAGNITUDE)
@example(float(np.nextafter(MAX_MAGNITUDE, np.inf)))
@settings(max_examples=300, deadline=None)
def test_the_check_refuses_exactly_infinite_and_absurd_numbers(value):
    refused = not np.isnan(value) and not abs(value) <= MAX_MAGNITUDE
    try:
        check_numbers("x (a column)", [1.0, value, np.nan])
    except DataError as error:
        assert refused
        assert str(error).startswith(f"'x (a column)' holds {size(value)}")
        assert "e+" not in str(error) and "numbers within ±10³⁰. Correct" in str(error)
        assert "\n" not in str(error)
    else:
        assert not refused


@pytest.mark.parametrize("value", ABSURD)
def test_a_training_table_is_refused(value):
    frame = pima()
    frame.loc[[3, 7], COLUMN] = value
    with pytest.raises(DataError, match=holds(value, " (and 1 more)")):
        Dataset.from_frame(frame, target="Diabetes")


@pytest.mark.parametrize("value", ABSURD)
def test_the_new_patient_form_refuses(bench, value):
    form = bench.new_row_fields()
    with pytest.raises(ValueError, match=holds(value)):
        new_rows.typed_row(form, {COLUMN: value, "Age (years)": 40}, confirmed=True)


@pytest.mark.parametrize("value", ABSURD)
def test_the_several_patients_csv_is_refused(bench, value):
    rows = bench.dataset.X.head(4).astype({COLUMN: float})
    rows.loc[rows.index[2], COLUMN] = value
    frame = load_csv(rows.to_csv(index=False).encode())
    with pytest.raises(DataError, match=holds(value)):
        new_rows.several(bench.model, frame)


@pytest.mark.parametrize("value", [MAX_MAGNITUDE, -MAX_MAGNITUDE])
def test_the_bound_itself_is_explained(bench, value):
    row = bench.dataset.X.iloc[0].astype(object)
    row[COLUMN] = value
    e = bench.explain(values=row, row_id="x")
    assert np.isfinite(e.prediction).all()
    found = new_rows.several(bench.model, pd.DataFrame([row.to_dict()]))
    assert found.outputs["P(Yes)"].iloc[0] == pytest.approx(e.prediction[1], abs=1e-12)


def one_error_line(capsys, column: str, value: float) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"'{column}' holds {size(value)}" in err


def hostile_table(table, tmp_path, value, suffix=".csv"):
    frame = pd.read_csv(table).astype({COLUMN: float})
    frame.loc[5, COLUMN] = value
    path = tmp_path / f"rows{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path, str(frame.loc[5, ID])


@pytest.mark.parametrize("value", [1e308, -np.inf])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_command_line_explain_input_is_refused(cli_model, table, tmp_path, capsys, value,
                                                   suffix):
    rows, _ = hostile_table(table, tmp_path, value, suffix)
    out = tmp_path / "out.csv"
    assert main(["--quiet", "explain", str(cli_model), str(rows), "--out", str(out)]) == 2
    one_error_line(capsys, COLUMN, value)


@pytest.mark.parametrize("value", [1e300, np.inf])
def test_the_command_line_report_input_is_refused(cli_model, table, tmp_path, capsys, value):
    rows, row_id = hostile_table(table, tmp_path, value)
    assert main(["--quiet", "report", str(cli_model), str(rows), "--training", str(table),
                 "--rows", row_id, "--out", str(tmp_path / "reports")]) == 2
    one_error_line(capsys, COLUMN, value)


def test_the_command_line_training_table_is_refused(table, tmp_path, capsys):
    rows, _ = hostile_table(table, tmp_path, -1e200)
    assert main(["--quiet", "train", str(rows), "--target", TARGET, "--id", ID,
                 "--model", "rf", "--trees", "5", "--out", str(tmp_path / "m.skops")]) == 2
    one_error_line(capsys, COLUMN, -1e200)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_trains_and_explains_at_the_bound(family):
    """A column spanning ±MAX_MAGNITUDE (and a regression target that does) trains every
    family and explains rows at ±MAX_MAGNITUDE with finite numbers: the bound is safe."""
    frame = pima()
    frame["Big"] = np.linspace(-MAX_MAGNITUDE, MAX_MAGNITUDE, len(frame))
    tables = {"classification": frame,
              "regression": frame.assign(Diabetes=np.linspace(-1, 1, len(frame))
                                         * MAX_MAGNITUDE)}
    for task in sorted(FAMILIES[family].tasks):
        dataset = Dataset.from_frame(tables[task], target="Diabetes", task=task)
        bench = Workbench(dataset)
        bench.train(Settings(family=family, n_estimators=5, random_state=0))
        for value in (MAX_MAGNITUDE, -MAX_MAGNITUDE):
            row = dataset.X.iloc[0].astype(object)
            row["Big"], row[COLUMN] = value, -value
            e = bench.explain(values=row, row_id="x")
            assert np.isfinite(e.prediction).all() and np.isfinite(e.contributions.total).all()
            bench.glance(e)


def test_a_conformal_interval_calibrates_on_targets_at_the_bound():
    """MAPIE's consistency check (y_pred + (y - y_pred) == y within 1e-8) failed on a
    regression target spanning ±MAX_MAGNITUDE: the sum's rounding is ~1e14 there."""
    rng = np.random.default_rng(0)
    y = np.linspace(-1, 1, 200) * MAX_MAGNITUDE
    outputs = y * rng.uniform(0.3, 1.7, y.size) + rng.normal(0, MAX_MAGNITUDE / 3, y.size)
    interval = IntervalModel.from_outputs(outputs, y, task="regression", confidence=0.9)
    low, high = interval.interval(outputs[:5])
    width = np.quantile(np.abs(y - outputs), 0.9, method="higher")
    np.testing.assert_allclose(high - low, 2 * width, rtol=1e-9)
