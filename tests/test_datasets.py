"""Bundled data sets: valid Datasets with the paper's sizes, identical to their sources, offline."""

import dataclasses
import socket

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets as sk

from forestviz.io.bundled import DEFAULT_DATASET, DatasetInfo, list_datasets, load_dataset
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import Dataset

# name → (task, rows, features): ABRF Table 1 for the regression sets
EXPECTED = {
    "pima_diabetes": ("classification", 632, 7),
    "breast_cancer": ("classification", 569, 30),
    "diabetes": ("regression", 442, 10),
    "friedman1": ("regression", 100, 10),
    "friedman2": ("regression", 100, 4),
    "friedman3": ("regression", 100, 4),
    "regression": ("regression", 100, 100),
    "sparse": ("regression", 100, 10),
}


@pytest.fixture
def offline(monkeypatch):
    """Any attempt to open a network connection fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a bundled data set tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_list_datasets():
    infos = list_datasets()
    assert [info.name for info in infos] == list(EXPECTED)
    assert infos[0].name == DEFAULT_DATASET == "pima_diabetes"
    assert all(isinstance(info, DatasetInfo) and info.title and info.source for info in infos)
    assert {info.name: info.task for info in infos} == {n: e[0] for n, e in EXPECTED.items()}
    with pytest.raises(dataclasses.FrozenInstanceError):
        infos[0].name = "x"


@pytest.mark.usefixtures("offline")
@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_bundled_dataset_is_valid(name):
    task, n_rows, n_features = EXPECTED[name]
    ds = load_dataset(name)
    assert isinstance(ds, Dataset) and ds.name == name and ds.description
    assert ds.task == task and ds.X.shape == (n_rows, n_features) and len(ds.y) == n_rows
    assert ds.dropped_rows == 0 and ds.target not in ds.feature_columns
    assert ds.ids.is_unique
    if task == "regression":
        assert ds.classes is None and ds.y.dtype == float
    else:
        assert len(ds.classes) == 2
    rebuilt = Dataset.from_frame(ds.frame, ds.target, id_column=ds.id_column)
    assert rebuilt.task == task  # the task is what inference finds too


def test_default_clinical_table():
    ds = load_dataset(DEFAULT_DATASET)
    raw = pd.read_csv("data/pima_diabetes.csv")  # an independent plain read
    assert (ds.target, ds.id_column, ds.classes) == ("Diabetes", "Patient ID", ("No", "Yes"))
    assert ds.feature_columns == tuple(raw.columns[1:-1])
    pd.testing.assert_frame_equal(ds.frame, raw, check_dtype=False)
    assert ds.y.value_counts().to_dict() == {"No": 417, "Yes": 215}  # as in data/README.md
    assert ds.ids.iloc[0] == "P0001"
    assert ds.X.isna().to_numpy().sum() == raw.iloc[:, 1:-1].isna().to_numpy().sum() > 0


def test_scikit_learn_tables_are_unchanged():
    cancer, ds = sk.load_breast_cancer(), load_dataset("breast_cancer")
    np.testing.assert_array_equal(ds.X.to_numpy(), cancer.data)
    assert ds.y.tolist() == cancer.target_names[cancer.target].tolist()
    diabetes, ds = sk.load_diabetes(scaled=False), load_dataset("diabetes")
    np.testing.assert_array_equal(ds.X.to_numpy(), diabetes.data)
    np.testing.assert_array_equal(ds.y.to_numpy(), diabetes.target)
    assert "BMI (kg/m2)" in ds.feature_columns


@pytest.mark.parametrize(
    ("name", "make", "kwargs"),
    [
        ("friedman1", sk.make_friedman1, {"n_features": 10, "noise": 1.0}),
        ("friedman2", sk.make_friedman2, {"noise": 0.0}),
        ("friedman3", sk.make_friedman3, {"noise": 0.0}),
        ("regression", sk.make_regression, {"n_features": 100, "noise": 0.0}),
        ("sparse", sk.make_sparse_uncorrelated, {"n_features": 10}),
    ],
)
def test_synthetic_sets_are_the_generators_with_fixed_seeds(name, make, kwargs):
    X, y = make(n_samples=100, random_state=0, **kwargs)
    ds = load_dataset(name)
    np.testing.assert_array_equal(ds.X.to_numpy(), X)
    np.testing.assert_array_equal(ds.y.to_numpy(), y)
    assert ds.feature_columns[0] == "x1" and ds.target == "y"
    pd.testing.assert_frame_equal(load_dataset(name).frame, ds.frame)  # deterministic
    big = load_dataset(name, n_samples=20_000, random_state=3)
    assert "n=20000" in big.description and "random_state=3" in big.description
    X3, y3 = make(n_samples=20_000, random_state=3, **kwargs)
    assert big.X.shape == (20_000, X.shape[1])
    np.testing.assert_array_equal(big.y.to_numpy(), y3)
    np.testing.assert_array_equal(big.X.to_numpy(), X3)


def test_bad_requests():
    with pytest.raises(DataError, match="Choose one of: pima_diabetes"):
        load_dataset("iris")
    with pytest.raises(DataError, match="fixed table"):
        load_dataset("breast_cancer", n_samples=10)
