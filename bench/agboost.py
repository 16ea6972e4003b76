"""Speed of AttentionBoostingRegressor against scikit-learn's GradientBoostingRegressor
(docs/performance.md).

Friedman 1, n = 20,000 training rows, 100 trees, max_depth 3, min_samples_leaf 10. AGBoost fits
with the full (ε, τ, γ) search (462 grid points); every figure is a ratio to the GBM measured in
the same run (the machine is shared). Fits are timed best of ``--repeats``, predicts (cheap, and
the most disturbed by other load) best of ``--predict-repeats``.

    PYTHONPATH=. .venv/bin/python bench/agboost.py [--n 20000] [--repeats 3] [--n-jobs 2]
        [--predict-repeats 10]
"""

from __future__ import annotations

import argparse

from sklearn.datasets import make_friedman1
from sklearn.ensemble import GradientBoostingRegressor

from bench.timing import best_time
from forestviz.boosting import AttentionBoostingRegressor


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--predict-repeats", type=int, default=10)
    args = parser.parse_args()
    X, y = make_friedman1(2 * args.n, noise=1.0, random_state=0)
    X_train, y_train, X_test = X[: args.n], y[: args.n], X[args.n :]
    params = {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 3, "min_samples_leaf": 10,
              "random_state": 0}

    gbm = GradientBoostingRegressor(**params)
    gbm_fit = best_time(lambda: gbm.fit(X_train, y_train), args.repeats)
    gbm_predict = best_time(lambda: gbm.predict(X_test), args.predict_repeats)
    print(f"n = {args.n}, T = 100, max_depth = 3, min_samples_leaf = 10, best of {args.repeats} "
          f"fits and {args.predict_repeats} predicts")
    print(f"GBM fit {gbm_fit:.2f} s, predict {gbm_predict:.3f} s")
    for base, n_jobs in (("gbm", args.n_jobs), ("gbm", 1), ("extra", args.n_jobs)):
        model = AttentionBoostingRegressor(**params, base=base, n_jobs=n_jobs)
        fit = best_time(lambda model=model: model.fit(X_train, y_train), args.repeats)
        predict = best_time(lambda model=model: model.predict(X_test), args.predict_repeats)
        print(f"AGBoost base={base} n_jobs={n_jobs}: fit {fit:.2f} s (ratio {fit / gbm_fit:.2f}, "
              f"target <= 2), predict {predict:.3f} s (ratio {predict / gbm_predict:.2f}, "
              f"target <= 3); eps = {model.eps_:g}, tau = {model.tau_:.3g}, "
              f"discount = {model.discount_:g}, {len(model.search_results_)} grid points")


if __name__ == "__main__":
    main()
