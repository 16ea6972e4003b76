"""What would change the answer (forestviz.explain.counterfactual) against DiCE (dice-ml, its
random and genetic methods), on the same model and rows (docs/performance.md, issue 37).

The models as the app trains them on its default table (pima_diabetes; ``--trees`` trees,
the Train page's other defaults, forestviz.app.workflow.train_bundle): the default family,
the Enhanced RF, and the plain random forest ("vanilla", exact for the program). Rows drawn
from the held-out rows, missing values as the model uses them; Age fixed for every method.
Per method: validity (the share of rows whose counterfactual the model's own ``predict``
answers otherwise; a method that returns none counts as invalid), median distance (Σ |Δ| /
MAD, forestviz.explain.counterfactual.space), median columns changed (over valid answers),
median and p95 seconds per row, the time ratio to DiCE random measured in the same run (the
machine is shared), and for forestviz the share proven nearest. "forestviz" asks the nearest
change only (as DiCE is asked one); "+2 alternatives" as the app asks it (its figures are
the nearest change's). Each method is called once, untimed, before the timed calls. The load
average is printed before and after.

    PYTHONPATH=. .venv/bin/python bench/counterfactuals.py [--trees 100] [--rows 20]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd

from forestviz.app.workflow import default_settings, train_bundle
from forestviz.explain.counterfactual import Space, what_would_change
from forestviz.io.bundled import DEFAULT_DATASET, bundled_choice, load_dataset

FIXED = "Age (years)"
FAMILIES = ("erf", "vanilla")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", nargs="+", default=list(FAMILIES))
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    dataset = load_dataset(DEFAULT_DATASET)
    for family in args.families:
        settings = replace(default_settings(dataset.task), family=family,
                           n_estimators=args.trees, random_state=args.seed)
        bundle = train_bundle(dataset, bundled_choice(DEFAULT_DATASET, dataset), settings,
                              lambda *_: None)
        _compare(bundle, family, args)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def _compare(bundle, family: str, args) -> None:
    """The table of one model."""
    model, columns = bundle.estimator, bundle.summary.columns
    space = Space.from_training(bundle.X_train, columns, fixed=[FIXED])
    picked = np.random.default_rng(args.seed).choice(len(bundle.X_test), args.rows,
                                                     replace=False)
    X = np.array([columns.fill_missing(bundle.X_test[i])[0] for i in picked])
    features = pd.DataFrame(bundle.X_train, columns=list(columns.names))
    methods = {"forestviz": lambda x: _ours(model, space, x, 0),
               "+2 alternatives": lambda x: _ours(model, space, x, 2)}
    methods.update({f"DiCE {m}": _dice(model, features, bundle.y_train, m, args.seed)
                    for m in ("random", "genetic")})
    figures = {}
    for name, method in methods.items():
        found, seconds = [], []
        method(X[0])  # untimed: the first call sets up (the app's model has explained already)
        for x in X:
            start = time.perf_counter()
            found.append(method(x))
            seconds.append(time.perf_counter() - start)
        figures[name] = _figures(model, space, X, found, seconds)
    reference = figures["DiCE random"]["median s"]
    print(f"\n{family} ({type(model).__name__}), {args.trees} trees, {args.rows} held-out rows "
          f"of {DEFAULT_DATASET}, {FIXED} fixed; load average {os.getloadavg()[0]:.1f}")
    print(f"{'method':<16}{'validity':>9}{'distance':>10}{'columns':>9}{'median s':>10}"
          f"{'p95 s':>8}{'× DiCE random':>15}{'proven':>8}")
    for name, f in figures.items():
        print(f"{name:<16}{f['validity']:>9.0%}{f['distance']:>10.3f}{f['columns']:>9.1f}"
              f"{f['median s']:>10.3f}{f['p95 s']:>8.3f}{f['median s'] / reference:>15.2f}"
              f"{f['proven']:>8}")


def _ours(model, space, x, alternatives: int):
    """The nearest confirmed counterfactual of forestviz (None when none) and whether it is
    proven the nearest."""
    best = what_would_change(model, x, space, alternatives=alternatives).best
    return None if best is None else (best.row, best.optimal)


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
    proven = [f[1] for f in found if isinstance(f, tuple)]
    found = [f[0] if isinstance(f, tuple) else f for f in found]
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
            "median s": float(np.median(seconds)), "p95 s": float(np.percentile(seconds, 95)),
            "proven": f"{np.mean(proven):.0%}" if proven else "n/a"}


if __name__ == "__main__":
    main()
