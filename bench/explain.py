"""Explanation-engine speed against scikit-learn references measured in the same run.

    PYTHONPATH=. .venv/bin/python bench/explain.py [--n 20000] [--trees 200] [--repeat 3]

Goals (Explanation engine issue, n = 20,000, m = 20, T = 200): ``DecisionMachine.apply`` on
20k rows within 2× of ``forest.apply``; a path-only SVG ≤ 1 s the first time and ≤ 20 ms
from the cache. Each part is a function taking the shared forest, so more parts (e.g. the
timing of ``explain()``) can be added next to them. ``explain()`` of an ERF and an ABRF
classifier (n, m, T as above): ≤ 5 ms median per row, ≥ 10× faster than the same forest's
single-row ``predict_proba``. Feature contributions of one row (issue 14, item 5) on the
same two models: ≤ 50 ms median per row (path contributions, the default, and TreeSHAP), next
to the same forests' single-row ``predict_proba``. The alarm for guessed values (issue 26, item
3) of a row with 3 missing values on the same two models: ≤ 50 ms median per row, next to the
same rows' ``explain()``.
"""

import importlib
import time

import numpy as np
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from bench.timing import best_time, forest_size_arguments
from forestviz.attention import AttentionForestClassifier
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import explain
from forestviz.explain.row.contributions import ContributionModel
from forestviz.explain.row.imputed import missing_value_checks
from forestviz.explain.row.summary import TrainingSummary
from forestviz.trees import DecisionMachine
from forestviz.trees.ensemble import as_ensemble


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


def median_ms(fn, rows, clock=time.perf_counter):
    """Median milliseconds of ``fn(row)`` over ``rows``, one call per row, on ``clock``
    (``time.thread_time``: CPU time of this thread, which other jobs on the machine inflate
    less than wall time; right for single-threaded work only)."""
    times = []
    for row in rows:
        start = clock()
        fn(row)
        times.append(clock() - start)
    return float(np.median(times)) * 1e3


def bench_explain(n, features, trees, rows=200, seed=0, contribution_rows=100):
    """``explain()`` without drawings (top 5 trees, 5 neighbours) on an ERF and an ABRF
    classifier, per row, against single-row ``predict_proba`` of the model itself and of a
    scikit-learn forest of the same shape (the ERF's: depth 6; the ABRF's own ``forest_``).

    Training settings that do not change the per-row work are cut to keep the run short: 2
    ERF rounds, fixed ε and τ for ABRF (the per-row cost is the same for any ε, τ).
    """
    X, y = make_classification(n_samples=n, n_features=features, n_informative=features // 2,
                               random_state=seed)
    queries = make_classification(n_samples=rows, n_features=features,
                                  n_informative=features // 2, random_state=seed + 1)[0]
    models = {
        "ERF": (EnhancedForestClassifier(trees, n_iterations=2, model_weighting=True, n_jobs=2,
                                         random_state=seed),
                lambda model: RandomForestClassifier(trees, max_depth=6, n_jobs=2,
                                                     random_state=seed).fit(X, y)),
        "ABRF": (AttentionForestClassifier(trees, eps=0.5, tau=1.0, n_jobs=2,
                                           random_state=seed), lambda model: model.forest_),
    }
    results, contributions, alarms = {}, {}, {}
    for name, (model, reference) in models.items():
        fit = best_time(lambda model=model: model.fit(X, y), 1)
        start = time.perf_counter()
        summary = TrainingSummary.from_data(model, X, y)
        build = time.perf_counter() - start
        forest = reference(model)
        def one_row(x, model=model, summary=summary):
            return explain(model, x, summary=summary)

        ours = median_ms(one_row, queries)
        cpu = median_ms(one_row, queries, clock=time.thread_time)
        own = median_ms(lambda x, model=model: model.predict_proba(x[None, :]), queries[:50])
        sklearn = median_ms(lambda x, forest=forest: forest.predict_proba(x[None, :]),
                            queries[:50])
        results[name] = {"fit s": fit, "summary s": build, "explain ms": ours,
                         "explain CPU ms": cpu,
                         "model predict_proba ms": own, "forest predict_proba ms": sklearn,
                         "forest / explain": sklearn / ours}
        contributions[name] = bench_contributions(model, queries[:contribution_rows], sklearn)
        alarms[name] = bench_alarm(model, summary, queries[:contribution_rows])
    return results, contributions, alarms


def bench_alarm(model, summary, queries, missing=3):
    """The alarm for guessed values (:func:`missing_value_checks`) of rows whose first
    ``missing`` features are missing (filled with the training medians), median per row,
    against ``explain()`` of the same rows in the same run."""
    rows = queries.copy()
    rows[:, :missing] = np.nan
    explained = [explain(model, x, summary=summary) for x in rows]
    alarm = median_ms(lambda e: missing_value_checks(model, e, summary), explained)
    own = median_ms(lambda x: explain(model, x, summary=summary), rows)
    tried = sum(len(check.tried) for check in missing_value_checks(model, explained[0], summary))
    return {"missing values": missing, "variants": tried, "alarm ms": alarm,
            "explain ms": own, "alarm / explain": alarm / own}


def bench_contributions(model, queries, forest_ms):
    """Feature contributions of one row (median over ``queries``): the per-model build once,
    then per row path contributions (with the row's α given, as ``explain()`` has it, and with
    α computed through the protocol) and TreeSHAP (α given), against ``forest_ms``, the
    single-row ``predict_proba`` of the reference forest measured in the same run."""
    start = time.perf_counter()
    built = ContributionModel.from_model(model)
    build = time.perf_counter() - start
    weights = as_ensemble(model).tree_weights(queries)
    rows = list(zip(queries, weights, strict=True))
    start = time.perf_counter()
    built.explain(queries[0], weights[0], method="treeshap")  # builds the shap model once
    shap_build = time.perf_counter() - start
    path = median_ms(lambda row: built.explain(row[0], row[1]), rows)
    path_cpu = median_ms(lambda row: built.explain(row[0], row[1]), rows, clock=time.thread_time)
    with_weights = median_ms(lambda row: built.explain(row[0]), rows)
    treeshap = median_ms(lambda row: built.explain(row[0], row[1], method="treeshap"), rows)
    return {"build s": build, "shap build s": shap_build, "path ms": path,
            "path CPU ms": path_cpu, "path with α computed ms": with_weights,
            "treeshap ms": treeshap, "treeshap work": built.treeshap_work,
            "forest predict_proba ms": forest_ms, "forest / path": forest_ms / path,
            "forest / treeshap": forest_ms / treeshap}


def main():
    args = forest_size_arguments(__doc__)

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
    # dtreeviz + matplotlib, once
    treeviz = importlib.import_module("forestviz.explain.drawing.treeviz")
    seconds = time.perf_counter() - start
    print(f"import forestviz.explain.drawing.treeviz {seconds:.3f} s (once per process)")
    for fancy in (None, True):
        label = "auto (text split nodes here)" if fancy is None else "fancy (histograms)"
        figures = bench_treeviz(treeviz, forest, X, y, fancy=fancy)
        print(f"render_tree path-only, {label}: " + ", ".join(
            f"{name} {value:.3f}" for name, value in figures.items())
            + "   goal: first <= 1 s, cached <= 20 ms")
    explained, contributions, alarms = bench_explain(args.n, args.features, args.trees)
    for name, figures in explained.items():
        print(f"explain() {name}, median per row: " + ", ".join(
            f"{key} {value:.3f}" for key, value in figures.items())
            + "   goal: explain <= 5 ms, forest / explain >= 10")
    for name, figures in contributions.items():
        print(f"contributions {name}, median per row: " + ", ".join(
            f"{key} {value:.3f}" for key, value in figures.items())
            + "   goal: <= 50 ms a row")
    for name, figures in alarms.items():
        print(f"alarm for guessed values {name}, median per row: " + ", ".join(
            f"{key} {value:.3f}" for key, value in figures.items())
            + "   goal: alarm <= 50 ms")


if __name__ == "__main__":
    main()
