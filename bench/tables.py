"""Every offline table the reproduction benches use: the project's bundled ones
(:mod:`forestviz.io.bundled`) and real tables that ship inside installed packages
(``requirements-bench.txt``: statsmodels' ``statsmodels.datasets`` and ``palmerpenguins``).
Nothing is downloaded. Each table is encoded by forestviz's own ``TablePreprocessor`` (medians
for missing numbers, one-hot categories), as the app would; tables above ``MAX_ROWS`` rows are
subsampled once with a fixed seed so that 20 splits of every model fit in minutes.

    from bench.tables import TABLES, load
    X, y = load("anes96")
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from forestviz.io.bundled import load_dataset
from forestviz.io.preprocessing import TablePreprocessor

MAX_ROWS = 2000
SUBSAMPLE_SEED = 0


@dataclass(frozen=True)
class Table:
    name: str
    task: str  # "regression" or "classification" (binary)
    description: str
    source: str
    licence: str


def _statsmodels(module: str) -> pd.DataFrame:
    import statsmodels.datasets as datasets

    return getattr(datasets, module).load_pandas().data


def _penguins() -> pd.DataFrame:
    from palmerpenguins import load_penguins

    return load_penguins().drop(columns="year")


def _frame(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Features and target of a table, before encoding."""
    if name == "randhie":  # outpatient visits from insurance plan and health measures
        df = _statsmodels("randhie")
        return df.drop(columns="mdvis"), df["mdvis"]
    if name == "star98":  # share of a district's students above the national maths median
        df = _statsmodels("star98")
        share = df["NABOVE"] / (df["NABOVE"] + df["NBELOW"])
        return df.drop(columns=["NABOVE", "NBELOW"]), share
    if name == "fair":  # time spent in extramarital affairs
        df = _statsmodels("fair")
        return df.drop(columns="affairs"), df["affairs"]
    if name == "fair_any":  # any affair at all
        df = _statsmodels("fair")
        return df.drop(columns="affairs"), (df["affairs"] > 0).astype(int)
    if name == "anes96":  # vote in 1996: Dole (1) or Clinton (0)
        df = _statsmodels("anes96")
        return df.drop(columns=["vote", "logpopul"]), df["vote"].astype(int)
    if name == "penguins_mass":
        df = _penguins().dropna(subset=["body_mass_g"])
        return df.drop(columns="body_mass_g"), df["body_mass_g"]
    if name == "penguins_sex":
        df = _penguins().dropna(subset=["sex"])
        return df.drop(columns="sex"), (df["sex"] == "male").astype(int)
    dataset = load_dataset(name)
    y = dataset.y if dataset.task == "regression" else (
        dataset.y == dataset.classes[-1]).astype(int)
    return dataset.X, y


_STATSMODELS = "statsmodels 0.15.0, statsmodels.datasets"
TABLES = {t.name: t for t in (
    Table("diabetes", "regression", "442 patients, disease progression after one year",
          "scikit-learn load_diabetes (Efron et al. 2004)", "BSD-3 (scikit-learn)"),
    Table("friedman1", "regression", "Friedman 1, 100 rows, noise 1 (ABRF Table 1)",
          "scikit-learn make_friedman1", "generated"),
    Table("friedman2", "regression", "Friedman 2, 100 rows (ABRF Table 1)",
          "scikit-learn make_friedman2", "generated"),
    Table("friedman3", "regression", "Friedman 3, 100 rows (ABRF Table 1)",
          "scikit-learn make_friedman3", "generated"),
    Table("regression", "regression", "make_regression, 100 rows (ABRF Table 1)",
          "scikit-learn make_regression", "generated"),
    Table("sparse", "regression", "make_sparse_uncorrelated, 100 rows (ABRF Table 1)",
          "scikit-learn make_sparse_uncorrelated", "generated"),
    Table("randhie", "regression", "RAND Health Insurance Experiment: outpatient visits "
          "(20,190 people, 9 features; 2,000 sampled)", _STATSMODELS + ".randhie",
          "public domain"),
    Table("star98", "regression", "California STAR 1998: share of a district's pupils above "
          "the national maths median (303 districts, 20 features)", _STATSMODELS + ".star98",
          "used with the author's permission (statsmodels COPYRIGHT)"),
    Table("fair", "regression", "Fair (1978) affairs survey: time spent in affairs "
          "(6,366 women, 8 features; 2,000 sampled)", _STATSMODELS + ".fair",
          "included with the author's permission (statsmodels COPYRIGHT)"),
    Table("penguins_mass", "regression", "Palmer penguins: body mass from species, island, "
          "bill, flipper and sex (342 penguins)", "palmerpenguins 0.1.6 (Gorman et al. 2014)",
          "CC0"),
    Table("pima_diabetes", "classification", "the bundled clinical table: diabetes Yes",
          "data/pima_diabetes.csv (data/README.md)", "see data/README.md"),
    Table("breast_cancer", "classification", "569 tumours: benign (the last class)",
          "scikit-learn load_breast_cancer", "BSD-3 (scikit-learn); UCI"),
    Table("anes96", "classification", "American National Election Studies 1996: vote for "
          "Dole (944 voters, 9 features)", _STATSMODELS + ".anes96", "public domain"),
    Table("fair_any", "classification", "Fair (1978): any affair (6,366 women; 2,000 "
          "sampled)", _STATSMODELS + ".fair", "included with the author's permission"),
    Table("penguins_sex", "classification", "Palmer penguins: male, from species, island and "
          "measurements (333 penguins)", "palmerpenguins 0.1.6", "CC0"),
)}


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Encoded features X (float) and target y (float, or 0/1 for classification)."""
    X, y = _frame(name)
    X, y = X.reset_index(drop=True), pd.Series(y).reset_index(drop=True)
    if len(y) > MAX_ROWS:
        rows = np.random.RandomState(SUBSAMPLE_SEED).choice(len(y), MAX_ROWS, replace=False)
        X, y = X.iloc[np.sort(rows)].reset_index(drop=True), y.iloc[np.sort(rows)]
    return TablePreprocessor().fit_transform(X), y.to_numpy(dtype=float)
