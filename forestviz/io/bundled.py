"""Bundled data sets: the clinical default table, scikit-learn's tables and the ABRF paper's
synthetic regression sets. Everything is read from disk or generated; nothing is downloaded.
scikit-learn's data sets module is imported only for its tables and generators (it takes about
a second; the app's first page shows the clinical table without it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.dataset import DataChoice, Dataset

DEFAULT_DATASET = "pima_diabetes"
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
SEED = 0  # the fixed seed of every synthetic set unless random_state is given


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    title: str
    task: str
    description: str
    source: str


_PIMA = DatasetInfo(
    "pima_diabetes",
    "Pima diabetes (clinical)",
    "classification",
    "632 women of Pima Indian heritage; predict diabetes (Yes/No) from glucose, blood "
    "pressure, skin fold, BMI, pedigree, age and pregnancies. Some values are missing.",
    "NIDDK via UCI; MASS::Pima.tr2 + Pima.te (Ripley). See data/README.md.",
)
_TABLES = {
    "breast_cancer": DatasetInfo(
        "breast_cancer",
        "Breast cancer (Wisconsin diagnostic)",
        "classification",
        "569 tumours, 30 measurements of cell nuclei; predict malignant or benign.",
        "scikit-learn load_breast_cancer (UCI, Wolberg, Street & Mangasarian 1995).",
    ),
    "diabetes": DatasetInfo(
        "diabetes",
        "Diabetes progression",
        "regression",
        "442 patients, age, sex, BMI, blood pressure and six blood serum measurements; "
        "predict disease progression one year later (ABRF Table 1: n=442, m=10).",
        "scikit-learn load_diabetes, unscaled (Efron, Hastie, Johnstone & Tibshirani 2004).",
    ),
}
# name → (title, scikit-learn generator, default n_samples, keyword arguments): ABRF paper,
# Table 1.
_SYNTHETIC = {
    "friedman1": ("Friedman 1", "make_friedman1", 100, {"n_features": 10, "noise": 1.0}),
    "friedman2": ("Friedman 2", "make_friedman2", 100, {"noise": 0.0}),
    "friedman3": ("Friedman 3", "make_friedman3", 100, {"noise": 0.0}),
    "regression": (
        "Regression (make_regression)",
        "make_regression",
        100,
        {"n_features": 100, "noise": 0.0},
    ),
    "sparse": ("Sparse uncorrelated", "make_sparse_uncorrelated", 100, {"n_features": 10}),
}

_DIABETES_NAMES = {
    "age": "Age (years)",
    "sex": "Sex (1/2)",
    "bmi": "BMI (kg/m2)",
    "bp": "Mean blood pressure (mm Hg)",
    "s1": "Total cholesterol (mg/dL)",
    "s2": "LDL (mg/dL)",
    "s3": "HDL (mg/dL)",
    "s4": "Total/HDL cholesterol",
    "s5": "log triglycerides",
    "s6": "Blood sugar (mg/dL)",
}


def _synthetic_info(name: str, n_samples: int | None = None, random_state=SEED) -> DatasetInfo:
    title, make, default_n, kwargs = _SYNTHETIC[name]
    m = kwargs.get("n_features", 4)
    settings = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    return DatasetInfo(
        name,
        title,
        "regression",
        f"Synthetic regression, n={n_samples or default_n}, m={m} (ABRF Table 1: n={default_n}); "
        f"{make}({settings}), random_state={random_state}.",
        f"scikit-learn {make}.",
    )


def bundled_choice(name: str, dataset: Dataset) -> DataChoice:
    """The data-set choice of bundled table ``name`` as loaded: its own target, ID and
    features; any other column excluded."""
    used = {dataset.target, dataset.id_column, *dataset.feature_columns}
    exclude = tuple(column for column in dataset.frame.columns if column not in used)
    return DataChoice(f"bundled:{name}", dataset.target, dataset.id_column, exclude, dataset.task)


def list_datasets() -> list[DatasetInfo]:
    """Every bundled data set, the default (clinical) one first."""
    return [_PIMA, *_TABLES.values(), *(_synthetic_info(name) for name in _SYNTHETIC)]


def load_dataset(name: str, *, n_samples: int | None = None, random_state=None) -> Dataset:
    """Load a bundled data set by name.

    ``n_samples`` and ``random_state`` override the size (paper's Table 1) and the fixed seed
    (``SEED``) of the synthetic sets. Noise (standard deviation of the Gaussian added to the
    target): Friedman 1 noise 1.0, as customary since Friedman (1991) and Breiman's bagging paper
    (1996); Friedman 2 and 3 noise 0. Their customary 3:1 signal-to-noise levels (sd 125 and 0.1)
    are ruled out by the ABRF paper's own results: with sd 125 the mean absolute error cannot fall
    much below E|ε| = 125·√(2/π) ≈ 100, yet the paper reports 74.6 on Friedman 2 (Table 5), and
    its RF error on Friedman 3 (0.133) is only reached without noise. ``make_regression`` noise
    0 (scikit-learn's default; 10 informative of 100 features); ``make_sparse_uncorrelated``
    has its own unit noise (4 informative of 10 features).
    """
    if name in _SYNTHETIC:
        return _synthetic(name, n_samples, SEED if random_state is None else random_state)
    if n_samples is not None or random_state is not None:
        raise DataError(f"'{name}' is a fixed table: its size and seed cannot be changed.")
    if name == DEFAULT_DATASET:
        frame = load_csv(DATA_DIR / "pima_diabetes.csv")
        return Dataset.from_frame(
            frame,
            "Diabetes",
            task="classification",
            id_column="Patient ID",
            name=name,
            description=_PIMA.description,
        )
    if name in _TABLES:
        frame, target, task = _scikit_learn_table(name)
        return Dataset.from_frame(frame, target, task=task, name=name,
                                  description=_TABLES[name].description)
    known = ", ".join(info.name for info in list_datasets())
    raise DataError(f"There is no bundled data set called '{name}'. Choose one of: {known}.")


def _scikit_learn_table(name: str) -> tuple[pd.DataFrame, str, str]:
    """(frame, target column, task) of a table shipped with scikit-learn."""
    from sklearn import datasets as sk

    if name == "breast_cancer":
        bunch = sk.load_breast_cancer(as_frame=True)
        frame = bunch.data.copy()
        frame["Diagnosis"] = np.asarray(bunch.target_names)[bunch.target.to_numpy()]
        return frame, "Diagnosis", "classification"
    bunch = sk.load_diabetes(as_frame=True, scaled=False)
    frame = bunch.data.rename(columns=_DIABETES_NAMES)
    frame["Disease progression"] = bunch.target
    return frame, "Disease progression", "regression"


def _synthetic(name: str, n_samples: int | None, random_state) -> Dataset:
    from sklearn import datasets as sk

    _, make, default_n, kwargs = _SYNTHETIC[name]
    X, y = getattr(sk, make)(n_samples=n_samples or default_n, random_state=random_state, **kwargs)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, X.shape[1] + 1)])
    frame["y"] = y
    description = _synthetic_info(name, n_samples, random_state).description
    return Dataset.from_frame(frame, "y", task="regression", name=name, description=description)
