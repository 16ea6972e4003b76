"""What would change the answer (forestviz.explain.counterfactual) against DiCE (dice-ml, its
random and genetic methods), on the same model and rows (docs/performance.md, issue 37).

The bundled diabetes table (missing values filled with the training medians), a random forest
deciding by its held-out threshold (``DecidedRandomForestClassifier``, ``--trees`` trees),
Age fixed for every method. Per method: validity (the share of rows whose counterfactual the
model's own ``predict`` answers otherwise; a method that returns none counts as invalid),
median distance (Σ |Δ| / MAD, forestviz.explain.counterfactual.space), median columns changed
(over valid answers), median and p95 seconds per row; the time ratio to DiCE random, measured
in the same run (the machine is shared).

    PYTHONPATH=. .venv/bin/python bench/counterfactuals.py [--trees 100] [--rows 20]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from forestviz.explain.columns import ColumnMap
from forestviz.explain.counterfactual import Space, what_would_change
from forestviz.trees.plain import DecidedRandomForestClassifier

TABLE = Path(__file__).resolve().parents[1] / "data" / "pima_diabetes.csv"
FIXED = "Age (years)"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    frame = pd.read_csv(TABLE).drop(columns="Patient ID")
    target = frame.columns[-1]
    features = frame.drop(columns=target)
    features = features.fillna(features.median())
    X, y = features.to_numpy(float), frame[target].to_numpy()
    model = DecidedRandomForestClassifier(args.trees, random_state=args.seed).fit(X, y)
    space = Space.from_training(X, ColumnMap.identity(features.columns, np.median(X, axis=0)),
                                fixed=[FIXED])
    rows = np.random.default_rng(args.seed).choice(len(X), args.rows, replace=False)
    methods = {"forestviz": lambda x: _ours(model, space, x)}
    methods.update({f"DiCE {m}": _dice(model, features, y, m, args.seed)
                    for m in ("random", "genetic")})
    figures = {}
    for name, method in methods.items():
        found, seconds = [], []
        for i in rows:
            start = time.perf_counter()
            found.append(method(X[i]))
            seconds.append(time.perf_counter() - start)
        figures[name] = _figures(model, space, X[rows], found, seconds)
    reference = figures["DiCE random"]["median s"]
    print(f"{args.trees} trees, {args.rows} rows of the diabetes table, {FIXED} fixed")
    print(f"{'method':<16}{'validity':>9}{'distance':>10}{'columns':>9}{'median s':>10}"
          f"{'p95 s':>8}{'× DiCE random':>15}")
    for name, f in figures.items():
        print(f"{name:<16}{f['validity']:>9.0%}{f['distance']:>10.3f}{f['columns']:>9.1f}"
              f"{f['median s']:>10.3f}{f['p95 s']:>8.3f}{f['median s'] / reference:>15.2f}")


def _ours(model, space, x):
    """The nearest confirmed counterfactual of forestviz, or None."""
    best = what_would_change(model, x, space, alternatives=0).best
    return None if best is None else best.row


def _dice(model, features: pd.DataFrame, y, method: str, seed: int):
    """DiCE's counterfactual of a row by ``method`` (one, the opposite class, Age fixed), or
    None when it finds none."""
    import dice_ml
    from raiutils.exceptions import UserConfigValidationException

    table = features.assign(outcome=(y == model.classes_[1]).astype(int))
    data = dice_ml.Data(dataframe=table, continuous_features=list(features.columns),
                        outcome_name="outcome")
    wrapped = dice_ml.Model(model=_Positional(model), backend="sklearn")
    explainer = dice_ml.Dice(data, wrapped, method=method)
    vary = [c for c in features.columns if c != FIXED]

    def run(x):
        query = pd.DataFrame([x], columns=features.columns)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "genetic":  # it takes no seed of its own; it draws from numpy's
                np.random.seed(seed)  # noqa: NPY002 (DiCE draws from the legacy state)
            seeded = {"random_seed": seed} if method == "random" else {}
            try:
                result = explainer.generate_counterfactuals(
                    query, total_CFs=1, desired_class="opposite", features_to_vary=vary,
                    verbose=False, **seeded)
            except UserConfigValidationException:  # DiCE's "no counterfactual found"
                return None
        cfs = result.cf_examples_list[0].final_cfs_df
        if cfs is None or len(cfs) == 0:
            return None
        return cfs[features.columns].to_numpy(float)[0]

    return run


class _Positional:
    """The model as DiCE calls it (a table of the columns), answering as the model does."""

    def __init__(self, model):
        self.model = model

    def predict_proba(self, X):
        return self.model.predict_proba(np.asarray(X, dtype=float))

    def predict(self, X):
        return (self.model.predict(np.asarray(X, dtype=float))
                == self.model.classes_[1]).astype(int)


def _figures(model, space, X, found, seconds) -> dict:
    before = model.predict(X)
    valid, distances, columns = [], [], []
    for x0, x, answer in zip(X, found, before, strict=True):
        ok = x is not None and model.predict(np.asarray(x)[None])[0] != answer
        valid.append(ok)
        if ok:
            distances.append(float(space.distance(x0, x)))
            columns.append(len(space.changed(x0, x)))
    return {"validity": float(np.mean(valid)),
            "distance": float(np.median(distances)) if distances else np.nan,
            "columns": float(np.median(columns)) if columns else np.nan,
            "median s": float(np.median(seconds)), "p95 s": float(np.percentile(seconds, 95))}


if __name__ == "__main__":
    main()
