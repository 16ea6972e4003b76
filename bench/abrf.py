"""Speed of AttentionForestRegressor against its own scikit-learn forest (docs/performance.md).

Friedman 1, n = 20,000 training rows, 100 trees, min_samples_leaf 10, n_jobs = 2. Every
figure is a ratio to the scikit-learn forest measured in the same run (the machine is shared);
times are the best of ``--repeats`` fits and of 5 × ``--repeats`` predicts.

    PYTHONPATH=. .venv/bin/python bench/abrf.py [--n 20000] [--repeats 3]
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor

from bench.timing import best_time, peak_mib
from forestviz.attention import AttentionForestRegressor
from forestviz.attention.weights import PREDICT_BLOCK


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y = make_friedman1(2 * args.n, noise=1.0, random_state=0)
    X_train, y_train, X_test = X[: args.n], y[: args.n], X[args.n :]
    params = {"n_estimators": 100, "min_samples_leaf": 10, "n_jobs": 2, "random_state": 0}

    forest = RandomForestRegressor(**params)
    model = AttentionForestRegressor(**params)
    forest_fit = best_time(lambda: forest.fit(X_train, y_train), args.repeats)
    model_fit = best_time(lambda: model.fit(X_train, y_train), args.repeats)
    forest_predict = best_time(lambda: forest.predict(X_test), 5 * args.repeats)
    model_predict = best_time(lambda: model.predict(X_test), 5 * args.repeats)
    row = X_test[:1]
    model.tree_weights(row)
    single = best_time(lambda: [model.tree_weights(row) for _ in range(100)], args.repeats) / 100
    forest_memory = peak_mib(lambda: forest.predict(X_test))
    model_memory = peak_mib(lambda: model.predict(X_test))

    print(f"n = {args.n}, T = 100, min_samples_leaf = 10, n_jobs = 2, "
          f"best of {args.repeats} fits / {5 * args.repeats} predicts")
    print(f"selected eps = {model.eps_:g}, tau = {model.tau_:.4g} "
          f"({len(model.search_results_)} grid points)")
    print(f"fit:      forest {forest_fit:7.2f} s   ABRF-1 {model_fit:7.2f} s   "
          f"ratio {model_fit / forest_fit:5.2f} (target <= 2)")
    print(f"predict:  forest {forest_predict:7.3f} s   ABRF-1 {model_predict:7.3f} s   "
          f"ratio {model_predict / forest_predict:5.2f} (target <= 3)")
    print(f"tree_weights, one row: {1e3 * single:.3f} ms (target <= 2 ms)")
    print(f"peak traced memory of predict on {args.n} rows: forest {forest_memory:.1f} MiB, "
          f"ABRF-1 {model_memory:.1f} MiB (blocks of {PREDICT_BLOCK} rows)")
    truth = make_friedman1(2 * args.n, noise=0.0, random_state=0)[1][args.n :]
    rmse = np.sqrt(np.mean((model.predict(X_test) - truth) ** 2))
    print(f"(sanity) RMSE to the noise-free target: {rmse:.3f}")


if __name__ == "__main__":
    main()
