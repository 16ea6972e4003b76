"""Speed of EnhancedForestClassifier against scikit-learn's RandomForestClassifier, same run.

n = 20,000 rows, m = 20 features, 200 trees, depth 6, n_jobs = 2. Prints ratios:
* one ERF iteration (Algorithm 1: fit 200 trees with SW + SP, score the training rows, update
  the weights) / RandomForestClassifier(200, max_depth=6).fit, alternated, medians of repeats;
  and a whole one-round fit with the default validation split (the round and model weighting
  chosen on 80 % of the rows, then the kept configuration refitted on all of them);
* tree_weights + tree_scores for one new row (median over rows) and for 20k new rows, against
  (A) RandomForestClassifier(200, max_depth=6).predict_proba and (B) ERF's own model-weighted
  predict_proba (which runs the same neighbour search) on the same rows; every batch timing
  starts with no remembered neighbour search (the pair shares one search);
* the size of the stored per-row tree rankings (n × L).

Run: PYTHONPATH=. .venv/bin/python bench/erf.py [--repeats 3]
"""

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

from forestviz.enhanced import EnhancedForestClassifier

N, M_FEATURES, TREES, DEPTH, JOBS = 20_000, 20, 200, 6, 2


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def erf_iteration(X, y, seed, validation_fraction):
    """Seconds of Algorithm 1's single iteration, read off the progress callback."""
    marks = {}

    def progress(stage, fraction):
        marks[stage] = time.perf_counter()

    model = EnhancedForestClassifier(
        n_estimators=TREES, max_depth=DEPTH, n_iterations=1, early_stopping=False,
        validation_fraction=validation_fraction, random_state=seed, n_jobs=JOBS,
    )
    total, _ = timed(lambda: model.fit(X, y, progress=progress))
    iteration = marks["ranking trees"] - marks["iteration 1/1"]
    return iteration, total - iteration, model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X_all, y_all = make_classification(
        n_samples=2 * N, n_features=M_FEATURES, n_informative=10, random_state=0
    )
    X, y, X_new = X_all[:N], y_all[:N], X_all[N:]  # fit on X, explain fresh rows X_new
    rf_times, it_times, it80_times, rank_times = [], [], [], []
    for seed in range(args.repeats):
        rf_time, rf = timed(lambda s=seed: RandomForestClassifier(
            TREES, max_depth=DEPTH, n_jobs=JOBS, random_state=s).fit(X, y))
        rf_times.append(rf_time)
        it_time, rank_time, model = erf_iteration(X, y, seed, 0.0)
        it_times.append(it_time)
        rank_times.append(rank_time)
        it80_times.append(timed(lambda s=seed: EnhancedForestClassifier(
            n_estimators=TREES, max_depth=DEPTH, n_iterations=1, random_state=s,
            n_jobs=JOBS).fit(X, y))[0])
    rf_fit = float(np.median(rf_times))
    print(f"data: make_classification n={N} m={M_FEATURES} (10 informative), "
          f"{TREES} trees, depth {DEPTH}, n_jobs={JOBS}, {args.repeats} repeats (medians)")
    print(f"RandomForestClassifier.fit            {rf_fit:8.3f} s")
    print(f"ERF iteration, all {N} rows          {np.median(it_times):8.3f} s   "
          f"ratio {np.median(it_times) / rf_fit:5.2f}  (target <= 1.3)")
    print(f"ERF fit, 1 round, 20% validation      {np.median(it80_times):8.3f} s   "
          f"ratio {np.median(it80_times) / rf_fit:5.2f}  (choose on 80 %, refit on all rows)")
    print(f"ERF ranking + neighbour index + t*    {np.median(rank_times):8.3f} s   (once per fit)")

    rows = X_new[:200]
    single = []
    for i in range(len(rows)):
        row = rows[i : i + 1]
        single.append(timed(lambda r=row: (model.tree_weights(r), model.tree_scores(r)))[0])
    print(f"tree_weights + tree_scores, one row   {1000 * np.median(single):8.3f} ms  "
          f"(target <= 5 ms; p95 {1000 * np.quantile(single, 0.95):.3f} ms)")

    def fresh(fn):
        """Best of 3 timings of ``fn``, each after a query that evicts the remembered batch."""
        times = []
        for _ in range(3):
            model.neighbors(X[:1])
            times.append(timed(fn)[0])
        return min(times)

    rf_proba = fresh(lambda: rf.predict_proba(X_new))
    erf_proba = fresh(lambda: model.predict_proba(X_new))
    uniform = EnhancedForestClassifier(n_estimators=TREES, max_depth=DEPTH, n_iterations=1,
                                       validation_fraction=0.0, model_weighting=False,
                                       random_state=0, n_jobs=JOBS).fit(X, y)
    erf_uniform = fresh(lambda: uniform.predict_proba(X_new))
    search = fresh(lambda: model.neighbors(X_new))
    scores = fresh(lambda: model.tree_scores(X_new))
    batch = fresh(lambda: (model.tree_weights(X_new), model.tree_scores(X_new)))
    print(f"RandomForestClassifier.predict_proba  {rf_proba:8.3f} s   ({N} rows; reference A)")
    print(f"ERF predict_proba, model-weighted     {erf_proba:8.3f} s   (reference B: same search)")
    print(f"ERF predict_proba, uniform weights    {erf_uniform:8.3f} s")
    print(f"ERF neighbors (M-NN search alone)     {search:8.3f} s")
    print(f"tree_scores alone, {N} rows          {scores:8.3f} s   "
          f"ratio to A {scores / rf_proba:5.2f}, to B {scores / erf_proba:5.2f}")
    print(f"tree_weights + tree_scores, {N} rows {batch:8.3f} s   "
          f"ratio to A {batch / rf_proba:5.2f} (target <= 3), to B {batch / erf_proba:5.2f}")

    rankings = model.tree_rankings_
    print(f"tree_rankings_: {rankings.shape[0]} rows x L={rankings.shape[1]} {rankings.dtype} = "
          f"{rankings.nbytes / 1024:.0f} KiB ({rankings.itemsize} bytes x n x L)")


if __name__ == "__main__":
    main()
