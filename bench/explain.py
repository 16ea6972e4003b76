"""Explanation-engine speed against scikit-learn references measured in the same run.

    PYTHONPATH=. .venv/bin/python bench/explain.py [--n 20000] [--trees 200] [--repeat 3]

Goals (Explanation engine issue, n = 20,000, m = 20, T = 200): ``DecisionMachine.apply`` on
20k rows within 2× of ``forest.apply``; a path-only SVG ≤ 1 s the first time and ≤ 20 ms
from the cache. Each part is a function taking the shared forest, so more parts (e.g. the
timing of ``explain()``) can be added next to them.
"""

import argparse
import importlib
import time

from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor

from forestviz.machines import DecisionMachine


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def make_forest(n, features, trees, seed=0):
    """Friedman 1 rows and a random forest (min_samples_leaf=10: ~1000 leaves a tree)."""
    X, y = make_friedman1(n_samples=n, n_features=features, noise=1.0, random_state=seed)
    forest = RandomForestRegressor(n_estimators=trees, min_samples_leaf=10, max_features="sqrt",
                                   n_jobs=2, random_state=seed)
    fit = best_time(lambda: forest.fit(X, y), 1)
    return X, y, forest, fit


def bench_machines(forest, X, repeat, matrix_rows=200):
    """DecisionMachine build, apply (default and matrix form) and single-row explanations."""
    machine = DecisionMachine.from_estimator(forest, feature_scale=X.std(axis=0), n_jobs=2)
    build = best_time(lambda: DecisionMachine.from_estimator(forest, n_jobs=2), repeat)
    reference = best_time(lambda: forest.apply(X), repeat)
    ours = best_time(lambda: machine.apply(X), repeat)
    sample = X[:matrix_rows]
    matrix = best_time(lambda: machine.apply(sample, method="matrix"), 1) * X.shape[0] / len(
        sample)
    x = X[0]
    return {
        "tests": machine.thresholds.size,
        "leaves": machine.leaf_nodes.size,
        "nnz(B)": machine.templates.nnz,
        "templates MiB": (machine.templates.data.nbytes + machine.templates.indices.nbytes
                          + machine.templates.indptr.nbytes) / 2**20,
        "build s": build,
        "forest.apply s": reference,
        "apply s": ours,
        "apply ratio": ours / reference,
        "matrix apply s (extrapolated)": matrix,
        "matrix ratio": matrix / reference,
        "apply 1 row ms": best_time(lambda: machine.apply(x[None, :]), 20) * 1e3,
        "path ms": best_time(lambda: machine.path(x, 0), 20) * 1e3,
        "alternatives ms": best_time(lambda: machine.alternatives(x, 0), 5) * 1e3,
        "soft 1 tree ms": best_time(lambda: machine.soft_leaf_probabilities(
            x[None, :], 1.0, tree=0), 20) * 1e3,
    }


def bench_treeviz(treeviz, forest, X, y, fancy=None):
    """Path-only SVGs: the context (data fingerprint), tree 0's first render (nothing cached),
    the same from the SVG cache, a new row of tree 0 (dtreeviz model cached) and tree 1."""
    treeviz.clear_cache()
    start = time.perf_counter()
    context = treeviz.TreeContext.from_data(
        X, y, feature_names=[f"x{j}" for j in range(X.shape[1])], target_name="y")
    build = time.perf_counter() - start
    start = time.perf_counter()
    treeviz.render_tree(forest, 0, X[0], context=context, fancy=fancy)
    first = time.perf_counter() - start
    cached = best_time(lambda: treeviz.render_tree(forest, 0, X[0], context=context,
                                                   fancy=fancy), 20)
    start = time.perf_counter()
    treeviz.render_tree(forest, 0, X[1], context=context, fancy=fancy)
    new_row = time.perf_counter() - start
    start = time.perf_counter()
    treeviz.render_tree(forest, 1, X[0], context=context, fancy=fancy)
    new_tree = time.perf_counter() - start
    return {"context s": build, "first s": first, "cached ms": cached * 1e3,
            "new row s": new_row, "new tree s": new_tree}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    X, y, forest, fit = make_forest(args.n, args.features, args.trees)
    depth = max(t.tree_.max_depth for t in forest.estimators_)
    print(f"n={args.n} m={args.features} T={args.trees} min_samples_leaf=10 "
          f"max_features=sqrt n_jobs=2 max depth {depth}; forest fit {fit:.1f} s")
    machines = bench_machines(forest, X, args.repeat)
    print("DecisionMachine")
    for name, value in machines.items():
        print(f"  {name:32s} {value:10.3f}")
    print("  goal: apply ratio <= 2 (the matrix form is the reference, not the fast path)")
    start = time.perf_counter()
    treeviz = importlib.import_module("forestviz.treeviz")  # dtreeviz + matplotlib, once
    print(f"import forestviz.treeviz {time.perf_counter() - start:.3f} s (once per process)")
    for fancy in (None, True):
        label = "auto (text split nodes here)" if fancy is None else "fancy (histograms)"
        figures = bench_treeviz(treeviz, forest, X, y, fancy=fancy)
        print(f"render_tree path-only, {label}: " + ", ".join(
            f"{name} {value:.3f}" for name, value in figures.items())
            + "   goal: first <= 1 s, cached <= 20 ms")


if __name__ == "__main__":
    main()
