"""TablePreprocessor: readable names, imputation, one-hot encoding, dropping, round trip."""

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


def test_missing_and_non_finite_numbers_become_the_training_median():
    X = patients()
    X.loc[[0, 5, 9], "Glucose (mg/dL)"] = [np.nan, np.inf, -np.inf]
    pre = TablePreprocessor().fit(X)
    finite = X["Glucose (mg/dL)"].to_numpy()
    median = np.median(finite[np.isfinite(finite)])
    assert pre.medians_["Glucose (mg/dL)"] == median
    Z = pre.transform(X)
    np.testing.assert_array_equal(Z[[0, 5, 9], 0], median)
    np.testing.assert_array_equal(np.delete(Z[:, 0], [0, 5, 9]), np.delete(finite, [0, 5, 9]))
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
