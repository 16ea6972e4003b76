"""Reproduce the Enhanced Random Forest paper's comparisons (Tables 3-5) on offline data sets.

Binary data sets: scikit-learn's breast cancer, the bundled Pima clinical table, and three
``make_classification`` variants (label noise, class imbalance, weak signal). For every seed a
stratified 75/25 train/test split; test AUC as mean ± std over seeds of
* CART (depth 6), RF (200 trees, depth 6), HistGradientBoosting at defaults;
* ERF default (SW + SP, per-split features, λ = 0.2, model weighting), the same fitted forest
  without model weighting, ERF with ``oob_ranking`` (out-of-bag p_i and tree rankings), and
  RF + model weighting only (SW, SP off, one iteration, no validation split);
* Table 4's ablation (no model weighting): Initial, FT, SW, SP and their combinations;
* one Algorithm 2 cleaning run (feature and sample reduction vs validation AUC).

Run: PYTHONPATH=. .venv/bin/python bench/reproduce_erf.py [--seeds 5] [--quick] [--larger]
(``--larger``: the comparison only, on two synthetic sets of 20,000 rows.)
Prints markdown tables (copied into docs/reproduction.md).
"""

import argparse
import time
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from forestviz.enhanced import EnhancedForestClassifier, clean

PIMA = Path(__file__).resolve().parent.parent / "data" / "pima_diabetes.csv"
JOBS = 2


def load_pima():
    """The bundled clinical table: numeric features, median imputation, Diabetes == "Yes"."""
    frame = pd.read_csv(PIMA).drop(columns=["Patient ID"])
    y = (frame.pop("Diabetes") == "Yes").to_numpy(dtype=int)
    return frame.fillna(frame.median()).to_numpy(dtype=float), y


def datasets():
    return {
        "breast cancer": load_breast_cancer(return_X_y=True),
        "pima (bundled)": load_pima(),
        "synthetic, 15% label noise": make_classification(
            2000, 20, n_informative=6, flip_y=0.15, random_state=1),
        "synthetic, 10% positives": make_classification(
            2000, 20, n_informative=6, weights=[0.9], flip_y=0.02, random_state=2),
        "synthetic, weak signal": make_classification(
            2000, 20, n_informative=4, class_sep=0.5, flip_y=0.05, random_state=3),
    }


def larger_datasets():
    """Two of the synthetic sets at 20,000 rows, closer to the paper's larger tables."""
    return {
        "synthetic 20k, 15% label noise": make_classification(
            20000, 20, n_informative=6, flip_y=0.15, random_state=1),
        "synthetic 20k, weak signal": make_classification(
            20000, 20, n_informative=4, class_sep=0.5, flip_y=0.05, random_state=3),
    }


def erf(seed, **params):
    return EnhancedForestClassifier(random_state=seed, n_jobs=JOBS, **params)


def auc(model, X, y):
    return roc_auc_score(y, model.predict_proba(X)[:, 1])


def comparison(X_tr, X_te, y_tr, y_te, seed):
    """Test AUC of the Table 3 models (plus the model-weighting variants) for one split."""
    out = {}
    out["CART"] = auc(DecisionTreeClassifier(max_depth=6, random_state=seed).fit(X_tr, y_tr),
                      X_te, y_te)
    out["RF"] = auc(RandomForestClassifier(200, max_depth=6, random_state=seed, n_jobs=JOBS)
                    .fit(X_tr, y_tr), X_te, y_te)
    model = erf(seed).fit(X_tr, y_tr)
    out["ERF"] = auc(model, X_te, y_te)
    out["ERF no MW"] = auc(model.set_params(model_weighting=False), X_te, y_te)
    out["ERF OOB"] = auc(erf(seed, oob_ranking=True).fit(X_tr, y_tr), X_te, y_te)
    rf_mw = erf(seed, sample_weighting=False, sample_probabilities=False, n_iterations=1,
                validation_fraction=0.0).fit(X_tr, y_tr)
    out["RF + MW"] = auc(rf_mw, X_te, y_te)
    out["HistGB"] = auc(HistGradientBoostingClassifier(random_state=seed).fit(X_tr, y_tr),
                        X_te, y_te)
    return out


CLEANING_SETS = ("breast cancer", "synthetic, 15% label noise")
ABLATION_SETS = ("breast cancer", "pima (bundled)", "synthetic, 15% label noise")
ABLATION = ["Initial"] + ["-".join(c) for r in (1, 2, 3)
                          for c in combinations(("FT", "SW", "SP"), r)]


def ablation(X_tr, X_te, y_tr, y_te, seed):
    """Table 4: every combination of FT, SW, SP without model weighting."""
    out = {}
    for name in ABLATION:
        parts = set(name.split("-"))
        model = erf(
            seed, features_per_tree="FT" in parts, sample_weighting="SW" in parts,
            sample_probabilities="SP" in parts, model_weighting=False,
            **({"n_iterations": 1, "validation_fraction": 0.0} if name == "Initial" else {}),
        ).fit(X_tr, y_tr)
        out[name] = auc(model, X_te, y_te)
    return out


def table(results, columns):
    """Markdown: one row per data set, mean ± std over seeds, best mean in bold."""
    lines = ["| data set | " + " | ".join(columns) + " |",
             "|---|" + "---|" * len(columns)]
    for name, runs in results.items():
        frame = pd.DataFrame(runs)[columns]
        best = frame.mean().max()
        cells = [
            (f"**{m:.4f}**" if m == best else f"{m:.4f}") + f" ± {s:.4f}"
            for m, s in zip(frame.mean(), frame.std(), strict=True)
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cleaning_run(X, y, seed):
    """Algorithm 2 on one split: per-round reduction and validation AUC, then test AUC of the
    first round and of the most reduced round within 0.002 of its validation AUC."""
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y,
                                              random_state=seed)
    result = clean(erf(seed), X_tr, y_tr, max_rounds=70, random_state=seed)
    records = pd.DataFrame(result.records())
    first = result.rounds[0]
    within = [r for r in result.rounds if r.validation_auc >= first.validation_auc - 0.002]
    chosen = within[-1]
    tests = {}
    for r in (first, chosen):
        model = erf(seed).fit(X_tr[np.ix_(r.rows, r.features)], y_tr[r.rows])
        tests[f"round {r.round}"] = auc(model, X_te[:, r.features], y_te)
    return records, tests


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="two data sets, two seeds")
    parser.add_argument("--cleaning-only", action="store_true", help="only Algorithm 2 runs")
    parser.add_argument("--larger", action="store_true",
                        help="the comparison on two 20,000-row synthetic sets instead")
    args = parser.parse_args()
    data = larger_datasets() if args.larger else datasets()
    if args.quick:
        data = dict(list(data.items())[:2])
        args.seeds = 2
    started = time.perf_counter()
    if not args.cleaning_only:
        comparisons(data, args.seeds, started)
    for name in (n for n in CLEANING_SETS if n in data):
        records, tests = cleaning_run(*data[name], seed=0)
        print(f"\n### Algorithm 2 cleaning run: {name}, seed 0\n")
        print("| " + " | ".join(records.columns) + " |")
        print("|" + "---|" * len(records.columns))
        for row in records.itertuples(index=False):
            print("| " + " | ".join(f"{v:.4f}" if isinstance(v, float) else str(v)
                                    for v in row) + " |")
        print("\ntest AUC: " + ", ".join(f"{k} {v:.4f}" for k, v in tests.items()), flush=True)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


def comparisons(data, seeds, started):
    """The Table 3 comparison on every data set and the Table 4 ablation on three."""
    compare, ablate = {}, {}
    for name, (X, y) in data.items():
        compare[name] = []
        for seed in range(seeds):
            split = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
            compare[name].append(comparison(*split, seed))
            if name in ABLATION_SETS:
                ablate.setdefault(name, []).append(ablation(*split, seed))
        print(f"# {name} done ({time.perf_counter() - started:.0f} s)", flush=True)
    print(f"\n### Test AUC, mean ± std over {seeds} seeds (75/25 stratified splits)\n")
    print(table(compare, ["CART", "RF", "ERF", "ERF no MW", "ERF OOB", "RF + MW", "HistGB"]),
          flush=True)
    if ablate:
        print(f"\n### Table 4 ablation (no model weighting), {seeds} seeds\n")
        print(table(ablate, ABLATION))


if __name__ == "__main__":
    main()
