"""Never worse than the base model (issue 13): every family against its own base model on every
offline table (bench/tables.py), over many random splits, with paired differences.

Regression tables, ``--splits`` random 80/20 splits (default 20): ABRF-1 (QP), Softmax, ABRF-2
and ABRF-3 (``AttentionForestRegressor(100, min_samples_leaf=10)``, everything else default)
against **their own forest** (``forest_``: the same trees with scikit-learn's plain average),
and AGBoost (``AttentionBoostingRegressor(100)``) against its own GBM (``gbm_``); score R².
Classification tables, ``--seeds`` stratified 75/25 splits (default 10): ERF
(``EnhancedForestClassifier()`` defaults) against ``RandomForestClassifier(200,
max_depth=6)``, and the ABRF-1 classifier against its own forest; score AUC. Every model takes
the split's seed as ``random_state``. Printed per table and model: mean ± sd of the model and of
its base, the paired difference (model − base) with its standard error (sd of the per-split
differences / √splits), and how often the model chose its base (``selected_base_``).

    PYTHONPATH=. .venv/bin/python bench/reproduce_selection.py [--splits 20] [--seeds 10]
        [--tables a,b] [--jobs 2] [--save runs.jsonl]   # each finished split is appended
        [--agboost-cv K]   # AGBoost selects on K shuffled folds (default: its cv="auto")
        [--agboost-only]   # the regression tables, AGBoost alone
    PYTHONPATH=. .venv/bin/python bench/reproduce_selection.py --load runs.jsonl  # tables only
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import KFold, train_test_split

from bench.tables import TABLES, load
from forestviz.attention import AttentionForestClassifier, AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.enhanced import EnhancedForestClassifier

ABRF = {"ABRF-1 (QP)": "abrf1", "Softmax": "softmax", "ABRF-2": "abrf2", "ABRF-3": "abrf3"}
TARGET = -0.002  # the floor for the paired mean difference
ROUNDING = 1e-9  # a smaller score difference is the same model summed in another order


def regression_split(name: str, seed: int, agboost_cv: int | None = None,
                     agboost_only: bool = False) -> list[dict]:
    X, y = load(name)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=seed)
    rows = []
    for model_name, mode in ({} if agboost_only else ABRF).items():
        model = AttentionForestRegressor(100, min_samples_leaf=10, mode=mode,
                                         random_state=seed).fit(X_tr, y_tr)
        rows.append(record(name, seed, model_name, "its forest",
                           r2_score(y_te, model.predict(X_te)),
                           r2_score(y_te, model.forest_.predict(X_te)), model.selected_base_))
    cv = "auto" if agboost_cv is None else KFold(agboost_cv, shuffle=True, random_state=seed)
    model = AttentionBoostingRegressor(100, cv=cv, random_state=seed).fit(X_tr, y_tr)
    rows.append(record(name, seed, "AGBoost", "its GBM", r2_score(y_te, model.predict(X_te)),
                       r2_score(y_te, model.gbm_.predict(X_te)), model.selected_base_))
    return rows


def classification_split(name: str, seed: int) -> list[dict]:
    X, y = load(name)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y,
                                              random_state=seed)
    erf = EnhancedForestClassifier(random_state=seed).fit(X_tr, y_tr)
    rf = RandomForestClassifier(200, max_depth=6, random_state=seed).fit(X_tr, y_tr)
    abrf = AttentionForestClassifier(100, min_samples_leaf=10, random_state=seed).fit(X_tr, y_tr)
    return [
        record(name, seed, "ERF", "RF(200, depth 6)",
               roc_auc_score(y_te, erf.predict_proba(X_te)[:, 1]),
               roc_auc_score(y_te, rf.predict_proba(X_te)[:, 1]), erf.selected_base_),
        record(name, seed, "ABRF-1 (QP)", "its forest",
               roc_auc_score(y_te, abrf.predict_proba(X_te)[:, 1]),
               roc_auc_score(y_te, abrf.forest_.predict_proba(X_te)[:, 1]),
               abrf.selected_base_),
    ]


def record(table, seed, model, base, score, base_score, selected_base) -> dict:
    return {"table": table, "seed": seed, "model": model, "base": base, "score": float(score),
            "base_score": float(base_score), "selected_base": bool(selected_base)}


def run_split(name: str, seed: int, agboost_cv: int | None = None,
              agboost_only: bool = False) -> list[dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        started = time.perf_counter()
        rows = (regression_split(name, seed, agboost_cv, agboost_only)
                if TABLES[name].task == "regression" else classification_split(name, seed))
    for row in rows:
        row["seconds"] = time.perf_counter() - started
    return rows


def summary(runs: list[dict]) -> str:
    """One markdown table per task: model and base mean ± sd, paired difference ± SE, the
    verdict against the targets and how often the base model was chosen."""
    lines = []
    for task, score in (("regression", "R²"), ("classification", "AUC")):
        names = [n for n, t in TABLES.items() if t.task == task]
        done = [r for r in runs if r["table"] in names]
        if not done:
            continue
        lines += [f"\n#### {task.capitalize()}: {score} on the held-out rows\n",
                  f"| table | model | n | model {score} | base | base {score} | "
                  "paired difference ± SE | verdict | base chosen |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for name in names:
            for model in dict.fromkeys(r["model"] for r in done if r["table"] == name):
                rows = [r for r in done if r["table"] == name and r["model"] == model]
                a = np.array([r["score"] for r in rows])
                b = np.array([r["base_score"] for r in rows])
                d = np.where(np.abs(a - b) < ROUNDING, 0.0, a - b)
                se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
                verdict = ("**below −0.002**" if d.mean() < TARGET else
                           "better (> SE)" if d.mean() > se else "within noise")
                chosen = sum(r["selected_base"] for r in rows)
                lines.append(f"| {name} | {model} | {d.size} | {a.mean():.4f} ± {a.std():.4f} | "
                             f"{rows[0]['base']} | {b.mean():.4f} ± {b.std():.4f} | "
                             f"{d.mean():+.4f} ± {se:.4f} | {verdict} | {chosen}/{d.size} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--agboost-cv", type=int, help="AGBoost selects by K shuffled folds")
    parser.add_argument("--agboost-only", action="store_true",
                        help="regression tables, AGBoost only (the other families are skipped)")
    parser.add_argument("--save")
    parser.add_argument("--load")
    args = parser.parse_args()
    if args.load:
        with open(args.load) as handle:
            print(summary([json.loads(line) for line in handle if line.strip()]))
        return
    names = [name for name in args.tables.split(",")
             if not args.agboost_only or TABLES[name].task == "regression"]
    tasks = [(name, seed) for name in names
             for seed in range(args.splits if TABLES[name].task == "regression" else args.seeds)]
    runs, started = [], time.perf_counter()
    for rows in Parallel(n_jobs=args.jobs, return_as="generator")(
            delayed(run_split)(name, seed, args.agboost_cv, args.agboost_only)
            for name, seed in tasks):
        runs += rows
        if args.save:
            with open(args.save, "a") as handle:
                handle.writelines(json.dumps(row) + "\n" for row in rows)
    print(f"{len(tasks)} splits in {time.perf_counter() - started:.0f} s")
    print(summary(runs))


if __name__ == "__main__":
    main()
