"""Defects that tables as users export them brought out (issue 35), each pinned by the table
or the numbers that showed it: a text column with gaps in the whole-model views, thousands
separators in ``forestviz explain``, one line for a refused training, the rows a cohort
leaves out, a whisker below 0 and "1 other columns"."""

import numpy as np
import pandas as pd
import pytest

from forestviz.cli.main import main
from forestviz.explain.plots import population as population_plots
from forestviz.explain.plots.contributions import contribution_waterfall
from forestviz.explain.whole.cohorts import compare
from forestviz.explain.whole.population import Population


def text_with_gaps(n: int = 60) -> Population:
    """A population whose text column has missing values (NaN beside text) and whose
    contribution follows a numeric column within each level."""
    rng = np.random.default_rng(0)
    values = pd.DataFrame({"colour": rng.choice(["red", "green", None], n),
                           "size": rng.normal(size=n)})
    contributions = np.column_stack([values["size"] * 2, rng.normal(size=n) * 0.01])
    return Population(ids=np.arange(n).astype(str).astype(object), values=values,
                      contributions=contributions, base=np.zeros(n), target="y")


def test_dependence_of_a_text_column_with_missing_values():
    population = text_with_gaps()
    found = population.dependence("colour")  # raised TypeError: str < float
    assert found["colour_column"].iloc[0] == "size"
    np.testing.assert_array_equal(found["contribution"], population.contributions[:, 0])
    assert found["value"].isna().sum() == population.values["colour"].isna().sum()
    # the interaction of the number column reads the text column by its levels, gaps apart
    assert population.dependence("size")["colour_column"].iloc[0] in (None, "colour")


def test_the_importance_whisker_never_goes_below_zero():
    table = pd.DataFrame({"column": ["a", "b"], "mean |contribution|": [0.1, 0.5],
                          "spread (SD of |contribution|)": [0.3, 0.2],
                          "mean contribution": [0.0, 0.1], "share of all movement": [0.2, 0.8]})
    (bars,) = population_plots.contribution_importance(table, "y").data
    below = bars.error_x.array if bars.error_x.symmetric in (None, True) else (
        bars.error_x.arrayminus)
    np.testing.assert_array_equal(np.asarray(bars.x) - np.asarray(below), [0.3, 0.0])
    np.testing.assert_array_equal(bars.error_x.array, [0.2, 0.3])  # above: the whole SD


def test_one_folded_column_is_said_in_the_singular():
    names = [f"c{i}" for i in range(11)]
    fig = contribution_waterfall(0.0, np.arange(1.0, 12.0), names, shown=10)
    assert "1 other column" in fig.data[0].y
    fig = contribution_waterfall(0.0, np.arange(1.0, 13.0), [*names, "c11"], shown=10)
    assert "2 other columns" in fig.data[0].y


def test_cohorts_say_how_many_rows_miss_the_column():
    population = text_with_gaps(750)
    known = np.zeros(750, dtype=bool)
    known[:32] = True  # 718 of 750 rows miss the column (the table)
    low = known & (np.arange(750) % 2 == 0)
    found = compare(population, np.full((750, 4), 0.25), low, known & ~low,
                    names=("x ≤ 1", "x > 1"), why_left_out="miss x")
    assert found.sizes == (16, 16)
    assert found.left_out == (718, "miss x")
    assert "718 of the 750 rows miss x: they are in neither group." in found.caption()
    with pytest.raises(ValueError, match="748 rows miss x"):
        compare(population, np.full((750, 4), 0.25), known & (np.arange(750) == 0),
                known & (np.arange(750) == 1), why_left_out="miss x")


@pytest.fixture(scope="module")
def separators(tmp_path_factory):
    """A binary table whose numbers carry thousands separators ("265,000")."""
    rng = np.random.default_rng(1)
    n = 80
    price = rng.integers(100_000, 900_000, n)
    frame = pd.DataFrame({"ID": [f"h{i}" for i in range(n)],
                          "price": [f"{v:,}" for v in price],
                          "rooms": rng.integers(1, 6, n),
                          "sold": np.where(price + rng.normal(0, 2e5, n) > 5e5, "yes", "no")})
    path = tmp_path_factory.mktemp("separators") / "houses.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_refused_training_prints_one_line(separators, tmp_path, capsys):
    code = main(["--quiet", "train", str(separators), "--target", "sold", "--id", "ID",
                 "--model", "agboost", "--trees", "5", "--out", str(tmp_path / "m.skops")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("forestviz: error: ")
    assert not (tmp_path / "m.skops").exists()


@pytest.mark.slow
def test_explain_reads_thousands_separators_as_train_does(separators, tmp_path, capsys):
    from forestviz.app.workbench import Workbench
    from forestviz.batch.model import read_model, training_dataset

    model = tmp_path / "m.skops"
    assert main(["--quiet", "train", str(separators), "--target", "sold", "--id", "ID",
                 "--model", "rf", "--trees", "5", "--out", str(model)]) == 0
    capsys.readouterr()
    out = tmp_path / "out.csv"
    # raised "assignment destination is read-only"
    assert main(["--quiet", "explain", str(model), str(separators), "--out", str(out),
                 "--contributions"]) == 0
    found = pd.read_csv(out)
    file = read_model(model).file
    dataset = training_dataset(file, separators.read_bytes(), separators.name)
    bench = Workbench(dataset, file.choice)
    bench.load(model.read_bytes())
    for position in (0, 7, 41):
        e = bench.explain(position)
        assert found["P(yes)"].iloc[position] == pytest.approx(e.prediction[1], abs=1e-12)
        assert found["id"].iloc[position] == f"h{position}"


def test_a_boolean_column_with_a_gap_is_read_as_numbers():
    """A boolean column with a blank comes out of the CSV reader as text ("True", NaN,
    "False"): several new rows read it as missing in every row, the command line as 1, 0."""
    from forestviz.io.csv_input import load_csv
    from forestviz.io.dataset import as_numbers

    column = load_csv(b"a,b\nTrue,1\n,2\nFalse,3\nTRUE,4\n")["a"]
    np.testing.assert_array_equal(as_numbers(column), [1.0, np.nan, 0.0, 1.0])
    np.testing.assert_array_equal(as_numbers(pd.Series(["265,000", " 1.5 ", "x"])),
                                  [265_000.0, 1.5, np.nan])


@pytest.mark.slow
def test_several_new_rows_of_a_one_column_model():
    """Several new patients of a one-column model: the file of one column (no delimiter at
    all) was refused as 'A table needs a target column and at least one other column'."""
    from forestviz.app.new_rows import several
    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Settings
    from forestviz.io.csv_input import load_csv
    from forestviz.io.dataset import Dataset

    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    bench = Workbench(Dataset.from_frame(pd.DataFrame({"x": x, "y": x > 0}), "y"))
    bench.train(Settings(family="vanilla", n_estimators=5, random_state=0))
    found = several(bench.model, load_csv(b"x\n0.5\n-1\n", min_columns=1))
    np.testing.assert_array_equal(found.outputs["P(True)"] > 0.5, [True, False])


@pytest.mark.slow
@pytest.mark.parametrize("family", ["softmax", "abrf2"])
def test_an_imbalanced_table_gets_a_model_that_finds_its_positives(family):
    """On a table with 4.5 % positives Softmax and ABRF-2 decided at 0.5 and found 1 of the 7
    held-out positives (held-out AUC 0.975) while the Enhanced RF, deciding at a threshold
    chosen on held-out rows, found 7: every family now decides by that one rule."""
    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Settings
    from forestviz.io.dataset import Dataset

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 3))
    y = np.where(x[:, 0] + rng.normal(scale=0.8, size=600) > 2.0, "Yes", "No")
    frame = pd.DataFrame(x, columns=["a", "b", "c"]).assign(Outcome=y)
    bench = Workbench(Dataset.from_frame(frame, "Outcome"))
    bench.train(Settings(family=family, n_estimators=20, random_state=0))
    model = bench.model
    positive = np.asarray(model.y_test) == "Yes"
    found = model.estimator.predict(model.X_test) == "Yes"
    assert found[positive].mean() >= 0.5


def test_a_boolean_target_with_a_gap_is_a_boolean_target():
    """True/False with a blank come out of the CSV reader as Python booleans in a text column;
    scikit-learn called such labels "unknown" and every family's training failed."""
    from forestviz.io.csv_input import load_csv
    from forestviz.io.dataset import Dataset

    rows = "".join(f"{i % 4 == 0},{i}\n" for i in range(40))
    dataset = Dataset.from_frame(load_csv(f"y,x\n{rows},41\n".encode()), "y")
    assert dataset.task == "classification" and dataset.classes == (False, True)
    assert dataset.y.dtype == bool and len(dataset.y) == 40
    assert dataset.y.sum() == 10


@pytest.mark.slow
def test_a_model_of_a_found_table_opens_after_publishing():
    """A model of this generated table (2,208 rows, 51 without a target, a text column with
    gaps) published, then opening it was refused as 'This published model is damaged:
    positional indexers are out-of-bounds': the stored table's columns were aligned on its row
    labels, not read by position (forestviz/store/published.py: table_frame)."""
    from pathlib import Path

    from forestviz.app.workbench import Workbench
    from forestviz.store.published import opened_workbench, published_payload
    from tests.table_paths import choice_of, dataset_of, trained
    from tests.table_strategies import table_of

    found = Path(__file__).parent / "found_tables" / "published_damaged.csv"
    table = table_of(found.read_bytes(), 1)
    dataset = dataset_of(table)
    bench = Workbench(dataset, choice_of(table, dataset))
    assert trained(bench, "vanilla")
    opened = opened_workbench(published_payload(bench))
    position = int(bench.model.test_rows[0])
    assert opened.explain(position).prediction[1] == bench.explain(position).prediction[1]


def test_a_stored_table_with_dropped_rows_reads_back_whole():
    """The published table's round trip keeps every value where it was when the row labels have
    gaps (rows dropped for a missing target)."""
    from forestviz.store.published import table_data, table_frame

    frame = pd.DataFrame({"x": [1.5, 2.5, 3.5], "y": ["a", None, "c"]}, index=[0, 4, 9])
    back = table_frame(table_data(frame))
    assert back.index.tolist() == [0, 4, 9]
    assert back["x"].tolist() == [1.5, 2.5, 3.5]
    assert back["y"].tolist()[::2] == ["a", "c"] and pd.isna(back["y"].iloc[1])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "target", "task"), [
    ("open_regression_empty_imputer.csv", 1, "regression"),
    ("open_published_id_refused.csv", 1, "binary")])
def test_the_tables_the_long_run_found_train_publish_and_open(name, target, task):
    """Two tables `make fuzz-tables` found (docs/reliability.md): a regression target written
    with thousands separators beside empty columns and a boolean with gaps ("0 samples" in the
    imputer), and a model with an ID column refused on opening ("ID column has missing or
    repeated values", the stored table's shifted rows)."""
    from pathlib import Path

    from forestviz.app.workbench import Workbench
    from forestviz.store.published import opened_workbench, published_payload
    from tests.table_paths import choice_of, dataset_of, trained
    from tests.table_strategies import table_of

    table = table_of((Path(__file__).parent / "found_tables" / name).read_bytes(), target,
                     task=task)
    dataset = dataset_of(table)
    bench = Workbench(dataset, choice_of(table, dataset))
    assert trained(bench, "vanilla")
    opened = opened_workbench(published_payload(bench))
    position = int(bench.model.test_rows[0])
    assert np.array_equal(opened.explain(position).prediction, bench.explain(position).prediction)


def test_a_column_no_held_out_row_has_gets_no_curve_and_says_so():
    """A column with no value in the held-out rows (found by `make fuzz`: an empty column whose
    header the export repeated): the whole model's partial dependence asked the model about 0
    rows and failed ("Found array with 0 sample(s)"), taking the Forest page and `forestviz
    global` with it, and its cohorts took the mode of no value. No curve, and the figure says
    why; no cohorts, in one line."""
    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Settings
    from forestviz.explain.plots.population import partial_dependence_figure
    from forestviz.io.dataset import Dataset

    rng = np.random.default_rng(0)
    x = rng.normal(size=80)
    frame = pd.DataFrame({"x": x, "empty": [None] * 80, "y": np.where(x > 0, "Yes", "No")})
    bench = Workbench(Dataset.from_frame(frame, "y"))
    bench.train(Settings(family="vanilla", n_estimators=5, random_state=0))
    found = bench.whole().partial_dependence("empty")
    assert found.grid.size == 0 and found.ice.shape == (len(bench.model.test_rows), 0)
    figure = partial_dependence_figure(found, "P(Yes)")
    assert "No held-out row has a value of empty" in str(figure.layout)
    assert bench.whole().partial_dependence("x").ice.shape[1] > 0
    with pytest.raises(ValueError, match=r"^no held-out row has a value of empty$"):
        bench.whole().cohorts("column", "empty")  # the page's one line (was an IndexError)


def test_numbers_written_as_text_with_a_word_among_them_vary_and_split_as_numbers():
    """A column of numbers written as text with one "unknown" (found by `make fuzz`): the model
    reads it as numbers ("unknown" is missing), while the whole model's partial dependence and
    cohorts read the raw text as floats and failed ("could not convert string to float")."""
    from pathlib import Path

    from forestviz.app.workbench import Workbench
    from tests.table_paths import dataset_of, trained
    from tests.table_strategies import table_of

    found_table = Path(__file__).parent / "found_tables" / "number_text_unknown.csv"
    table = table_of(found_table.read_bytes(), 2, task="regression")
    bench = Workbench(dataset_of(table))
    assert trained(bench, "vanilla")
    column = "Age (years)"
    assert column in bench.model.preprocessor.medians_  # the model's numbers
    held_out = bench.dataset.X.iloc[bench.model.test_rows][column]
    assert "unknown" in set(held_out)
    found = bench.whole().partial_dependence(column)
    assert found.grid.dtype == float and found.grid.size > 1
    groups = bench.whole().cohorts("column", column)
    readable = pd.to_numeric(held_out, errors="coerce").notna()
    assert sum(groups.sizes) == int(readable.sum())


def test_rows_with_no_neighbour_get_a_trust_row_of_none():
    """One column known in one row only (found by `make fuzz`): every training row is every
    other's twin, so no held-out row has a similar training row, and the trust table asked the
    model about 0 rows ("expected finite model outputs, one per row, got shape (0,)")."""
    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Settings
    from forestviz.io.dataset import Dataset

    age = [None] * 40
    age[5] = 12.0
    frame = pd.DataFrame({"age": age, "y": ["Yes", "No"] * 20})
    bench = Workbench(Dataset.from_frame(frame, "y"))
    bench.train(Settings(family="vanilla", n_estimators=5, random_state=0))
    trust = bench.whole().trust()
    assert len(trust) == len(bench.model.test_rows)
    assert (trust["similar rows"] == 0).all() and (trust["same top reasons"] == 0).all()


@pytest.mark.slow
def test_a_column_named_in_chinese_prints_in_the_pdf_record():
    """A column named "体重 kg" (found by `make fuzz`): DejaVu has no CJK glyph, so the record's
    PDF printed boxes and its text read back as noise; a fallback font (fonts-droid-fallback,
    installed by `make`) prints it, and the text reads back as written."""
    import io
    from pathlib import Path

    import pypdf

    from forestviz.app.workbench import Workbench
    from tests.table_paths import dataset_of, new_rows, trained
    from tests.table_strategies import table_of

    found = Path(__file__).parent / "found_tables" / "cjk_column_pdf.csv"
    table = table_of(found.read_bytes(), 0, id_column=5, task="regression")
    dataset = dataset_of(table)
    bench = Workbench(dataset)
    assert trained(bench, "vanilla")
    e = bench.explain(values=new_rows(table, dataset).iloc[0], row_id="new patient")
    reader = pypdf.PdfReader(io.BytesIO(bench.report(e, pdf=True)))
    text = " ".join(page.extract_text() for page in reader.pages)
    assert "体重 kg" in text and "\x00" not in text
    assert " ".join(bench.glance(e).headline.split()) in " ".join(text.split())


def test_the_command_line_reads_true_and_false_in_any_case_as_the_app_does():
    """A True/False column with gaps (found by `make fuzz`): the app reads "true", "TRUE" and
    "True" alike, so the model's levels are "True" and "False"; `forestviz explain` read the
    file's "true" as an unseen level and gave other numbers than the app for the same rows."""
    import tempfile
    from pathlib import Path

    from forestviz.app.workbench import Workbench
    from forestviz.app.workflow import Settings
    from forestviz.cli.main import main
    from forestviz.io.csv_input import load_csv
    from forestviz.io.dataset import Dataset

    rng = np.random.default_rng(0)
    flag = rng.random(60) < 0.5
    y = np.where(flag, 10.0, 0.0) + rng.normal(size=60)
    text = ["" if i % 7 == 0 else ("true" if f else "FALSE") for i, f in enumerate(flag)]
    csv = "flag,y\n" + "".join(f"{t},{v}\n" for t, v in zip(text, y, strict=True))
    folder = Path(tempfile.mkdtemp())
    (folder / "t.csv").write_text(csv)
    frame = load_csv(csv.encode())
    bench = Workbench(Dataset.from_frame(frame, "y"))
    bench.train(Settings(family="vanilla", n_estimators=5, random_state=0, auto_tune=False))
    (folder / "m.skops").write_bytes(bench.save())
    assert set(bench.model.preprocessor.categories_["flag"]) == {"False", "True"}
    assert main(["--quiet", "explain", str(folder / "m.skops"), str(folder / "t.csv"),
                 "--out", str(folder / "e.csv")]) == 0
    explained = pd.read_csv(folder / "e.csv")
    for position in range(len(frame)):
        e = bench.explain(values=frame.drop(columns="y").iloc[position])
        assert explained["prediction"].iloc[position] == pytest.approx(e.prediction, abs=1e-9)
