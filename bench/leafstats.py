"""LeafStats speed and memory against the scikit-learn forest it describes (same run).

    PYTHONPATH=. .venv/bin/python bench/leafstats.py [--n 20000] [--trees 200] [--repeat 3]

Goals (Foundation issue): from_forest ≤ 0.5 × forest fit; distances(20k rows) ≤ 2 × apply.
"""


from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor

from bench.timing import best_time, forest_size_arguments, peak_mib
from forestviz.trees import LeafStats


def main():
    args = forest_size_arguments(__doc__)

    X, y = make_friedman1(n_samples=args.n, n_features=args.features, noise=1.0, random_state=0)
    forest = RandomForestRegressor(n_estimators=args.trees, min_samples_leaf=10, n_jobs=2,
                                   random_state=0)
    fit = best_time(lambda: forest.fit(X, y), 1)
    build = best_time(lambda: LeafStats.from_forest(forest, X, y, task="regression", n_jobs=2),
                      args.repeat)
    stats = LeafStats.from_forest(forest, X, y, task="regression", n_jobs=2)
    apply = best_time(lambda: forest.apply(X), args.repeat)
    dist = best_time(lambda: stats.distances(X), args.repeat)
    one_row = best_time(lambda: stats.distances(X[:1]), 50)
    peak = peak_mib(lambda: stats.distances(X))
    table = stats.leaf_means.nbytes / 2**20

    print(f"n={args.n} m={args.features} T={args.trees} min_samples_leaf=10 n_jobs=2 "
          f"chunk={stats.chunk_size}")
    print(f"forest fit            {fit:8.3f} s")
    print(f"LeafStats.from_forest {build:8.3f} s   ratio to fit   {build / fit:5.2f}"
          "  (goal <= 0.5)")
    print(f"forest.apply(20k)     {apply:8.3f} s")
    print(f"distances(20k)        {dist:8.3f} s   ratio to apply {dist / apply:5.2f}"
          "  (goal <= 2)")
    print(f"distances(1 row)      {one_row * 1e3:8.3f} ms")
    print(f"peak memory of distances(20k): {peak:.1f} MiB "
          f"(output n×T float64 = {args.n * args.trees * 8 / 2**20:.1f} MiB); "
          f"leaf-key table {table:.1f} MiB")


if __name__ == "__main__":
    main()
