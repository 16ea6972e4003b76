"""Speed of AttentionBoostingRegressor against scikit-learn's GradientBoostingRegressor
(docs/performance.md).

Friedman 1, n = 20,000 training rows, 100 trees, max_depth 3, min_samples_leaf 10. AGBoost fits
with the full (ε, τ, γ) search (462 grid points); every figure is a ratio to the GBM measured in
the same run (the machine is shared). Fits are timed best of ``--repeats``, predicts (cheap, and
the most disturbed by other load) best of ``--predict-repeats``.

Then the smallest bundled regression table, diabetes (442 rows, 10 features), with AGBoost's
defaults (``cv="auto"``: 3 × 5 repeated folds at this size) as the Train page fits it,
against the GBM with the same parameters, best of ``--repeats``: the target is ≤ 10 s on a
quiet machine (issue 27).

    PYTHONPATH=. .venv/bin/python bench/agboost.py [--n 20000] [--repeats 3] [--n-jobs 2]
        [--predict-repeats 10] [--small-only]
"""

from __future__ import annotations

import argparse

from sklearn.datasets import make_friedman1
from sklearn.ensemble import GradientBoostingRegressor

from bench.timing import best_time
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.io.bundled import load_dataset
from forestviz.io.preprocessing import TablePreprocessor

PARAMS = {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 3, "min_samples_leaf": 10,
          "random_state": 0}


def small_table(repeats: int) -> None:
    """AGBoost's default fit on the bundled diabetes table against its GBM, same run."""
    dataset = load_dataset("diabetes")
    X, y = TablePreprocessor().fit_transform(dataset.X), dataset.y.to_numpy()
    gbm = best_time(lambda: GradientBoostingRegressor(**PARAMS).fit(X, y), repeats)
    model = AttentionBoostingRegressor(**PARAMS)
    fit = best_time(lambda: model.fit(X, y), repeats)
    print(f"diabetes, {X.shape[0]} rows: GBM fit {gbm:.3f} s, AGBoost fit {fit:.2f} s (target "
          f"<= 10 s quiet; ratio {fit / gbm:.1f}), plain GBM kept: {model.selected_base_}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--predict-repeats", type=int, default=10)
    parser.add_argument("--small-only", action="store_true", help="only the diabetes table")
    args = parser.parse_args()
    if args.small_only:
        small_table(args.repeats)
        return
    X, y = make_friedman1(2 * args.n, noise=1.0, random_state=0)
    X_train, y_train, X_test = X[: args.n], y[: args.n], X[args.n :]
    gbm = GradientBoostingRegressor(**PARAMS)
    gbm_fit = best_time(lambda: gbm.fit(X_train, y_train), args.repeats)
    gbm_predict = best_time(lambda: gbm.predict(X_test), args.predict_repeats)
    print(f"n = {args.n}, T = 100, max_depth = 3, min_samples_leaf = 10, best of {args.repeats} "
          f"fits and {args.predict_repeats} predicts")
    print(f"GBM fit {gbm_fit:.2f} s, predict {gbm_predict:.3f} s")
    for base, n_jobs in (("gbm", args.n_jobs), ("gbm", 1), ("extra", args.n_jobs)):
        model = AttentionBoostingRegressor(**PARAMS, base=base, n_jobs=n_jobs)
        fit = best_time(lambda model=model: model.fit(X_train, y_train), args.repeats)
        predict = best_time(lambda model=model: model.predict(X_test), args.predict_repeats)
        print(f"AGBoost base={base} n_jobs={n_jobs}: fit {fit:.2f} s (ratio {fit / gbm_fit:.2f}, "
              f"target <= 2), predict {predict:.3f} s (ratio {predict / gbm_predict:.2f}, "
              f"target <= 3); eps = {model.eps_:g}, tau = {model.tau_:.3g}, "
              f"discount = {model.discount_:g}, {len(model.search_results_)} grid points")
    small_table(args.repeats)


if __name__ == "__main__":
    main()
