"""Dataset.from_frame: task inference, cleaning, validation; ID suggestions and the schema."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.dataset import (
    Dataset,
    infer_task,
    schema,
    suggest_id_columns,
    suggest_target,
)

N = 30
RNG = np.random.default_rng(0)


def table(**target):
    """A frame with an ID, a numeric and a text feature, plus the given target column(s)."""
    return pd.DataFrame(
        {
            "Patient ID": [f"P{i:03d}" for i in range(N)],
            "Age": np.random.default_rng(1).integers(20, 80, N),
            "Sex": np.where(np.arange(N) % 2, "female", "male"),
            **target,
        }
    )


@pytest.mark.parametrize(
    ("y", "task"),
    [
        (["yes", "no"] * 15, "classification"),
        ([True, False] * 15, "classification"),
        (np.arange(N) % 3, "classification"),
        (np.arange(N) % 10, "classification"),
        ((np.arange(N) % 2).astype(float), "classification"),
        (np.arange(N) % 11, "regression"),
        (np.arange(N) * 0.5, "regression"),
        ([0.5, 1.5] * 15, "regression"),
        (RNG.normal(size=N), "regression"),
    ],
)
def test_infer_task(y, task):
    assert infer_task(pd.Series(y, name="y")) == task
    assert Dataset.from_frame(table(y=y), "y", id_column="Patient ID").task == task


def test_infer_task_of_an_empty_column_is_a_data_error():
    with pytest.raises(DataError, match="no values"):
        infer_task(pd.Series([np.nan, np.nan], name="y"))


def test_classification_fields_and_properties():
    y = np.array(["b", "a", "c"] * 10)
    ds = Dataset.from_frame(table(Outcome=y), "Outcome", id_column="Patient ID", name="t")
    assert ds.task == "classification" and ds.classes == ("a", "b", "c")
    assert ds.feature_columns == ("Age", "Sex")
    assert ds.dropped_rows == 0 and ds.notes == ()
    pd.testing.assert_frame_equal(ds.X, table(Outcome=y)[["Age", "Sex"]])
    assert ds.y.tolist() == y.tolist()
    assert ds.ids.tolist() == [f"P{i:03d}" for i in range(N)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.task = "regression"


def test_integer_valued_float_classes_become_ints_after_dropping_missing():
    y = (np.arange(N) % 2).astype(float)
    y[[3, 7]] = np.nan
    ds = Dataset.from_frame(table(y=y), "y")
    assert ds.classes == (0, 1) and ds.y.dtype == np.int64
    assert ds.dropped_rows == 2 and len(ds.frame) == N - 2
    # without an ID column, the IDs are the original row labels, so dropped rows leave gaps
    assert ds.ids.tolist() == [str(i) for i in range(N) if i not in (3, 7)]


def test_rows_without_a_target_are_dropped_and_reported():
    y = pd.Series(["yes", "no"] * 15, dtype=object)
    y[[0, 1, 2]] = [None, "", "  "]
    ds = Dataset.from_frame(table(y=y), "y")
    assert ds.dropped_rows == 3
    assert ds.notes == ("3 rows were dropped because 'y' is empty there.",)
    assert ds.frame.index.tolist() == list(range(3, N))
    regression = RNG.normal(size=N)
    regression[[4, 5]] = [np.nan, np.nan]
    assert Dataset.from_frame(table(y=regression), "y").dropped_rows == 2
    regression[4] = np.inf  # not a missing target: refused in one line (issue 36)
    with pytest.raises(DataError, match=r"^'y' holds infinity:"):
        Dataset.from_frame(table(y=regression), "y")


def test_task_override():
    y = np.repeat([0.5, 1.5, 2.5], 10)
    assert Dataset.from_frame(table(y=y), "y").task == "regression"
    forced = Dataset.from_frame(table(y=y), "y", task="classification")
    assert forced.classes == (0.5, 1.5, 2.5)
    ints = Dataset.from_frame(table(y=np.arange(N) % 3), "y", task="regression")
    assert ints.task == "regression" and ints.classes is None and ints.y.dtype == float
    with pytest.raises(DataError, match="cannot be predicted as a number"):
        Dataset.from_frame(table(y=["a", "b"] * 15), "y", task="regression")
    with pytest.raises(DataError, match="Unknown task"):
        Dataset.from_frame(table(y=y), "y", task="clustering")


def test_thousands_separators_become_numbers():
    price = [f"{1000 * (i + 200):,}" for i in range(N)]  # "200,000", "201,000", ...
    price[5] = None
    df = table(Price=price, Area=[f"{i + 1:,}.5" for i in range(N)])
    df["Code"] = [f"{i},000" for i in range(N)]  # the ID column keeps its text
    ds = Dataset.from_frame(df, "Price", id_column="Code")
    expected = [1000.0 * (i + 200) for i in range(N) if i != 5]
    assert ds.task == "regression" and ds.y.tolist() == expected
    assert ds.X["Area"].tolist() == [i + 1.5 for i in range(N) if i != 5]
    assert ds.frame["Code"].iloc[0] == "0,000"
    assert "'Price' had thousands separators and was read as numbers." in ds.notes
    assert ds.dropped_rows == 1


def test_thousands_separators_through_the_loader():
    rows = "\n".join(f'P{i},"{(i + 1) * 1500:,}",{i % 2}' for i in range(12))
    ds = Dataset.from_frame(load_csv(f"ID,Income,Label\n{rows}\n".encode()), "Label")
    assert ds.X["Income"].tolist() == [(i + 1) * 1500.0 for i in range(12)]
    assert ds.classes == (0, 1)


def test_mixed_text_that_only_looks_numeric_stays_text():
    ds = Dataset.from_frame(table(y=np.arange(N) % 2, Code=["1,000", "x"] * 15), "y")
    assert ds.X["Code"].tolist()[:2] == ["1,000", "x"] and not ds.notes


def test_duplicate_column_names_are_made_unique():
    df = table(y=np.arange(N) % 2)
    df.columns = ["Age", "Age", "Sex", "y"]
    ds = Dataset.from_frame(df, "y")
    assert ds.feature_columns == ("Age", "Age (2)", "Sex")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target": "missing"}, "no column 'missing'"),
        ({"target": "y", "id_column": "nope"}, "no column 'nope'"),
        ({"target": "y", "exclude": ["nope"]}, "no column 'nope'"),
        ({"target": "y", "id_column": "y"}, "both the target and the ID"),
        ({"target": "y", "exclude": ["y"]}, "cannot be excluded"),
        ({"target": "y", "id_column": "Sex"}, "missing or repeated"),
        (
            {"target": "y", "exclude": ["Patient ID", "Age", "Sex", "Constant", "Rare", "Sparse"]},
            "No column",
        ),
        ({"target": "Constant"}, "only one value"),
        ({"target": "Rare"}, "appears in only one row"),
        ({"target": "Sparse"}, "Only 9 rows"),
    ],
)
def test_validation_errors(kwargs, message):
    rare = ["a"] * (N - 1) + ["b"]
    sparse = [1.0] * 9 + [np.nan] * (N - 9)
    df = table(y=np.arange(N) % 2, Constant=["x"] * N, Rare=rare, Sparse=sparse)
    with pytest.raises(DataError, match=message):
        Dataset.from_frame(df, **kwargs)


def test_minimum_sizes_are_accepted():
    df = table(y=["a"] * 2 + ["b"] * (N - 2)).head(10)
    ds = Dataset.from_frame(df, "y", exclude=["Sex"])
    assert ds.classes == ("a", "b") and ds.feature_columns == ("Patient ID", "Age")


def test_suggest_id_columns():
    df = table(y=RNG.normal(size=N))
    df["Row"] = np.arange(N) * 7  # unique integers
    df["Unique float"] = RNG.normal(size=N)  # unique, but a measurement
    df["Has gaps"] = [f"s{i}" if i else None for i in range(N)]
    df["Flag"] = [True] + [False] * (N - 1)
    brute = [
        c
        for c in df.columns
        if df[c].dtype.kind not in "fb" and df[c].notna().all() and df[c].nunique() == N
    ]
    suggested = suggest_id_columns(df)
    assert sorted(suggested) == sorted(brute) == ["Patient ID", "Row"]
    assert suggested[0] == "Patient ID"  # named like an identifier, so first
    assert suggest_id_columns(df.head(1)) == []


def test_schema_matches_an_independent_summary():
    df = table(y=RNG.normal(size=N))
    df["Price"] = [f"{i:,}000" for i in range(N)]
    df.loc[[1, 2, 3], "Age"] = np.nan
    wide = pd.concat([df] * 3, ignore_index=True)
    wide["Words"] = [f"w{i}" if i % 5 else None for i in range(3 * N)]
    s = schema(wide).set_index("column")
    assert list(s.index) == list(wide.columns)
    assert s.loc["Patient ID", "kind"] == "categorical"  # repeated 3 times: not an ID any more
    assert s.loc["Age", "kind"] == "numeric" and s.loc["Price", "kind"] == "numeric"
    assert s.loc["Sex", "kind"] == "categorical" and s.loc["Words", "kind"] == "text"
    assert s["missing"].to_dict() == wide.isna().sum().to_dict()
    assert s.loc["Age", "missing %"] == round(100 * 9 / (3 * N), 1)
    assert s["distinct"].to_dict() == wide.nunique().to_dict()
    assert s.loc["Sex", "examples"] == "male, female"
    assert schema(df).set_index("column").loc["Patient ID", "kind"] == "id-like"


def cancer_csv_frame(seed: int = 0) -> pd.DataFrame:
    """Issue 26's upload: the breast-cancer table as its CSV has it (id, diagnosis, 30
    measurements) with a text column of three values last and 5 % of the cells blanked."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(data.data, columns=data.feature_names)
    blank = rng.random(frame.shape) < 0.05
    frame = frame.mask(blank)
    frame.insert(0, "diagnosis", np.where(data.target == 0, "M", "B"))
    frame.insert(0, "id", 842302 + np.arange(len(frame)))
    frame["clinic"] = rng.choice(["north", "south", "east"], len(frame))
    return frame


def test_the_target_defaults_to_the_column_named_as_the_outcome():
    """Issue 26: the uploaded CSV's target defaulted to its last column (a text column with
    three values); its outcome is the column named "diagnosis"."""
    frame = cancer_csv_frame()
    assert frame.shape == (569, 33) and frame["clinic"].nunique() == 3
    assert suggest_target(frame) == ("diagnosis", True)
    assert suggest_target(frame.rename(columns={"diagnosis": "Outcome"})) == ("Outcome", True)
    # the whole name before a part of one; an ID named "class_id" is no outcome
    named = frame.assign(**{"tumour class": "x", "class_id": np.arange(569)})
    assert suggest_target(named.rename(columns={"diagnosis": "Target"})) == ("Target", True)
    assert suggest_target(named.drop(columns="diagnosis")) == ("tumour class", True)


def test_without_an_outcome_name_the_target_is_a_guess_past_ids_and_free_text():
    frame = cancer_csv_frame().rename(columns={"diagnosis": "kind"})
    assert suggest_target(frame) == ("clinic", False)  # a category: a fine guess, said so
    frame["remarks"] = [f"note {i % 100}" for i in range(569)]  # free text: never the target
    frame["record"] = [f"R{i}" for i in range(569)]  # an identifier: never the target
    assert suggest_target(frame) == ("clinic", False)
