"""TablePreprocessor: readable names, imputation, one-hot encoding, dropping, round trip;
its output against pandas alone, and its copies, pickles and saved state."""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline

from forestviz.io.bundled import load_dataset
from forestviz.io.csv_input import DataError
from forestviz.io.preprocessing import TablePreprocessor

N = 60
RNG = np.random.default_rng(0)


def patients(n=N, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "Glucose (mg/dL)": rng.normal(120, 30, n).round(),
            "Sex": rng.choice(["female", "male"], n),
            "Smoker": rng.choice([True, False], n),
            "Income": [f"{v:,}" for v in rng.integers(10_000, 2_000_000, n)],
            "Ward": rng.choice(["A&E", "<ICU>", "Cardiology"], n),
        }
    )


def test_names_sources_and_values_match_get_dummies():
    X = patients()
    pre = TablePreprocessor().fit(X)
    expected_names = [
        "Glucose (mg/dL)",
        "Sex=female",
        "Sex=male",
        "Smoker",
        "Income",
        "Ward=<ICU>",
        "Ward=A&E",
        "Ward=Cardiology",
    ]
    assert pre.get_feature_names_out().tolist() == expected_names
    assert pre.source_columns_.tolist() == [
        "Glucose (mg/dL)",
        "Sex",
        "Sex",
        "Smoker",
        "Income",
        "Ward",
        "Ward",
        "Ward",
    ]
    Z = pre.transform(X)
    assert Z.dtype == np.float64 and Z.shape == (N, 8)
    dummies = pd.get_dummies(X[["Sex", "Ward"]], prefix_sep="=").astype(float)
    for name in dummies.columns:
        np.testing.assert_array_equal(Z[:, expected_names.index(name)], dummies[name])
    np.testing.assert_array_equal(Z[:, 0], X["Glucose (mg/dL)"])
    np.testing.assert_array_equal(Z[:, 3], X["Smoker"].astype(float))
    incomes = [float(v.replace(",", "")) for v in X["Income"]]
    np.testing.assert_array_equal(Z[:, 4], incomes)


def test_missing_numbers_become_the_training_median_and_non_finite_ones_are_refused():
    X = patients()
    X.loc[[0, 5, 9], "Glucose (mg/dL)"] = np.nan
    pre = TablePreprocessor().fit(X)
    finite = X["Glucose (mg/dL)"].to_numpy()
    median = np.median(finite[np.isfinite(finite)])
    assert pre.medians_["Glucose (mg/dL)"] == median
    Z = pre.transform(X)
    np.testing.assert_array_equal(Z[[0, 5, 9], 0], median)
    np.testing.assert_array_equal(np.delete(Z[:, 0], [0, 5, 9]), np.delete(finite, [0, 5, 9]))
    for bad in (np.inf, -np.inf):  # issue 36: refused in one line (forestviz.io.values)
        X.loc[5, "Glucose (mg/dL)"] = bad
        with pytest.raises(DataError, match=r"^'Glucose \(mg/dL\)' holds (minus )?infinity"):
            pre.transform(X)
        with pytest.raises(DataError, match="Glucose"):
            TablePreprocessor().fit(X)
    test = X.head(2).copy()
    test["Glucose (mg/dL)"] = [np.nan, 300.0]
    np.testing.assert_array_equal(pre.transform(test)[:, 0], [median, 300.0])


def test_missing_and_unseen_levels_set_no_indicator():
    X = patients()
    pre = TablePreprocessor().fit(X)
    test = X.head(3).copy()
    test["Sex"] = [None, "unknown", "male"]
    Z = pre.transform(test)
    sex = pre.source_columns_ == "Sex"
    np.testing.assert_array_equal(Z[:, sex], [[0, 0], [0, 0], [0, 1]])


def test_many_levels_keep_the_most_frequent_and_group_the_rest():
    counts = {f"L{k:02d}": 30 - k for k in range(25)}  # L00 most frequent ... L24 least
    values = [level for level, count in counts.items() for _ in range(count)]
    X = pd.DataFrame({"x": np.arange(len(values), dtype=float), "Level": values})
    pre = TablePreprocessor(max_levels=5, max_text_levels=30).fit(X)
    top5 = sorted(counts, key=counts.get, reverse=True)[:5]
    assert pre.categories_["Level"] == tuple(sorted(top5))
    assert set(pre.other_levels_["Level"]) == set(counts) - set(top5)
    names = pre.get_feature_names_out().tolist()
    assert names == ["x", *(f"Level={lvl}" for lvl in sorted(top5)), "Level=(other)"]
    Z = pre.transform(pd.DataFrame({"x": [1.0, 2.0, 3.0], "Level": ["L00", "L20", "new"]}))
    np.testing.assert_array_equal(Z[:, -1], [0, 1, 1])  # grouped and unseen levels: (other)
    np.testing.assert_array_equal(Z[:, 1:].sum(axis=1), [1, 1, 1])
    assert any("grouped as '(other)'" in note for note in pre.notes_)


def test_free_text_and_empty_columns_are_dropped_with_a_note():
    X = patients()
    X["Comment"] = [f"note {i}" for i in range(N)]
    X["Empty number"] = np.nan
    X["Empty text"] = pd.Series([None] * N, dtype="str")
    pre = TablePreprocessor(max_text_levels=50).fit(X)
    assert set(pre.dropped_columns_) == {"Comment", "Empty number", "Empty text"}
    assert "Comment" not in pre.source_columns_
    assert "'Comment' was left out because it looks like free text or an identifier (60 " in (
        " ".join(pre.notes_)
    )
    assert pre.transform(X).shape == (N, 8)


def test_round_trip_through_inverse_transform():
    X = patients()
    pre = TablePreprocessor().fit(X)
    back = pre.inverse_transform(pre.transform(X))
    assert list(back.columns) == list(X.columns)
    np.testing.assert_array_equal(back["Glucose (mg/dL)"], X["Glucose (mg/dL)"])
    np.testing.assert_array_equal(back["Smoker"], X["Smoker"].astype(float))
    assert back["Sex"].tolist() == X["Sex"].tolist()
    assert back["Ward"].tolist() == X["Ward"].tolist()
    # one row at a time (the Explain page), with a missing category
    row = X.iloc[[7]].copy()
    row["Ward"] = None
    original = pre.inverse_transform(pre.transform(row)[0])
    assert original.shape == (1, 5) and pd.isna(original.loc[0, "Ward"])
    assert original.loc[0, "Sex"] == row["Sex"].iloc[0]


def test_sklearn_conventions_and_pipeline_on_the_default_data():
    ds = load_dataset("pima_diabetes")
    pre = TablePreprocessor(max_levels=3)
    assert clone(pre).get_params() == {"max_levels": 3, "max_text_levels": 50}
    model = make_pipeline(pre, RandomForestClassifier(n_estimators=20, random_state=0))
    model.fit(ds.X, ds.y)
    assert model.score(ds.X, ds.y) > 0.9
    fitted = model[0]
    assert fitted.n_features_in_ == 7 and list(fitted.feature_names_in_) == list(ds.X.columns)
    assert fitted.get_feature_names_out().tolist() == list(ds.feature_columns)
    assert not np.isnan(fitted.transform(ds.X)).any()  # the empty cells were imputed
    frame = clone(pre).set_output(transform="pandas").fit(ds.X).transform(ds.X.head())
    assert list(frame.columns) == list(ds.feature_columns)


def test_wrong_inputs():
    with pytest.raises(NotFittedError):
        TablePreprocessor().transform(patients())
    pre = TablePreprocessor().fit(patients())
    with pytest.raises(ValueError, match="feature names"):
        pre.transform(patients()[["Sex", "Glucose (mg/dL)", "Smoker", "Income", "Ward"]])
    with pytest.raises(TypeError, match="DataFrame"):
        TablePreprocessor().fit(np.zeros((3, 2)))
    with pytest.raises(DataError, match="None of the feature columns"):
        TablePreprocessor().fit(pd.DataFrame({"id": [f"r{i}" for i in range(60)]}))


# ------------------------------------------------- against an independent computation
def clinic(n_rows=None):
    """Missing numbers; 'City' has levels of 4, 3, 2, 1 and 1 rows and a gap."""
    frame = pd.DataFrame({
        "Age": [30, np.nan, 50, 41, np.nan, 62, 28, 35, 47, 58, 39, 44],
        "City": ["A", "A", "B", "A", "C", "B", None, "A", "C", "D", "E", "B"],
        "Dose": ["1,000", "2,500", None, "750", "1,250", "900", "3,000", "1,100", "800",
                 "2,000", "1,500", "1,700"],
    })
    return frame if n_rows is None else frame.head(n_rows)


def expected_matrix(train: pd.DataFrame, test: pd.DataFrame, kept: list[str]) -> pd.DataFrame:
    """The encoding computed with pandas alone: medians of the finite training values fill the
    gaps, ``get_dummies`` encodes 'City' with the levels outside ``kept`` as '(other)'."""
    numbers = {}
    for column in ("Age", "Dose"):
        values = pd.to_numeric(train[column].astype(str).str.replace(",", ""), errors="coerce")
        median = values[np.isfinite(values)].median()
        test_values = pd.to_numeric(test[column].astype(str).str.replace(",", ""),
                                    errors="coerce")
        numbers[column] = test_values.where(np.isfinite(test_values)).fillna(median)
    city = test["City"].where(test["City"].isin(kept) | test["City"].isna(), "(other)")
    dummies = pd.get_dummies(city, prefix="City", prefix_sep="=", dtype=float)
    dummies = dummies.reindex(columns=[f"City={c}" for c in [*kept, "(other)"]], fill_value=0.0)
    return pd.concat([numbers["Age"].rename("Age"), dummies, numbers["Dose"].rename("Dose")],
                     axis=1)


def test_matches_get_dummies_and_median_filling_with_missing_unseen_and_rare_levels():
    train = clinic()
    test = pd.DataFrame({"Age": [np.nan, np.nan, 70.0, 33.0, 45.0],
                         "City": ["D", "Z", None, "A", "E"],  # rare, unseen, missing
                         "Dose": ["5,000", None, "abc", "1,000", "600"]})
    pre = TablePreprocessor(max_levels=3).fit(train)
    assert pre.categories_ == {"City": ("A", "B", "C")}
    assert pre.other_levels_ == {"City": ("D", "E")}
    expected = expected_matrix(train, test, ["A", "B", "C"])
    assert pre.get_feature_names_out().tolist() == list(expected.columns)
    np.testing.assert_array_equal(pre.transform(test), expected.to_numpy())
    np.testing.assert_array_equal(pre.transform(train), expected_matrix(train, train, [
        "A", "B", "C"]).to_numpy())


def test_without_a_group_unseen_levels_set_nothing_like_get_dummies():
    train = clinic(9)  # 'City' has 3 levels: all kept
    pre = TablePreprocessor(max_levels=3).fit(train)
    test = pd.DataFrame({"Age": [1.0, 2.0], "City": ["Z", "C"], "Dose": ["1", "2"]})
    expected = expected_matrix(train, test, ["A", "B", "C"]).drop(columns="City=(other)")
    assert pre.get_feature_names_out().tolist() == list(expected.columns)
    np.testing.assert_array_equal(pre.transform(test), expected.to_numpy())


def test_the_encoding_is_scikit_learns_column_transformer():
    pre = TablePreprocessor(max_levels=3).fit(clinic())
    parts = {name: (type(part).__name__, columns)
             for name, part, columns in pre.column_transformer_.transformers_}
    assert parts == {"numbers": ("SimpleImputer", [0, 1]), "levels": ("OneHotEncoder", [2])}
    encoder = pre.column_transformer_.named_transformers_["levels"]
    assert encoder.get_params()["max_categories"] == 4
    assert encoder.get_params()["handle_unknown"] == "infrequent_if_exist"
    assert encoder.get_feature_names_out().tolist() == [
        "City=A", "City=B", "City=C", "City=(other)"]
    assert pre.column_transformer_.named_transformers_["numbers"].statistics_.tolist() == [
        pre.medians_["Age"], pre.medians_["Dose"]]


def test_levels_tied_at_the_cut_keep_the_alphabetically_later_ones():
    """scikit-learn's rule (the hand-written encoder kept the earlier ones)."""
    X = pd.DataFrame({"Level": ["a", "a", "b", "b", "c", "c", "d"]})
    pre = TablePreprocessor(max_levels=2).fit(X)
    assert pre.categories_ == {"Level": ("b", "c")}
    assert pre.other_levels_ == {"Level": ("a", "d")}


# ----------------------------------------------------------------- copies and pickles
def test_copies_and_pickles_rebuild_the_same_encoder():
    train = clinic()
    pre = TablePreprocessor(max_levels=3).fit(train)
    for other in (copy.deepcopy(pre), copy.copy(pre), pickle.loads(pickle.dumps(pre))):
        assert other.column_transformer_ is not pre.column_transformer_
        np.testing.assert_array_equal(other.transform(train), pre.transform(train))
        assert other.get_feature_names_out().tolist() == pre.get_feature_names_out().tolist()
        assert other.__getstate__() == pre.__getstate__()
    unfitted = pickle.loads(pickle.dumps(TablePreprocessor(max_levels=4)))
    assert unfitted.get_params() == {"max_levels": 4, "max_text_levels": 50}
    with pytest.raises(NotFittedError):
        unfitted.transform(train)
    shown = pickle.loads(pickle.dumps(clone(pre).set_output(transform="pandas").fit(train)))
    assert list(shown.transform(train).columns) == pre.get_feature_names_out().tolist()


@pytest.mark.parametrize("damage", [
    {"medians_": {"Age": "40"}},
    {"medians_": {"Age": float("nan"), "Dose": 1.0}},
    {"categories_": {"City": ("C", "B", "A")}},  # not the sorted levels fit makes
    {"other_levels_": {"City": ("A",)}},  # a level both kept and grouped
    {"feature_names_in_": ("Age", "City")},  # 'Dose' has a median but is no column
    {"column_transformer_": None},
])
def test_a_state_fit_never_makes_is_refused(damage):
    state = {**TablePreprocessor(max_levels=3).fit(clinic()).__getstate__(), **damage}
    with pytest.raises(ValueError, match="preprocessor's"):
        TablePreprocessor().__setstate__(state)
