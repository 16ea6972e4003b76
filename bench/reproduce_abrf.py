"""Reproduce the regression tables of the ABRF paper (Utkin & Konstantinov, "Attention-based
Random Forest and Contamination Model") with forestviz's estimators.

Condition 2 (100 trees, min_samples_leaf 10): Table 3 (Random Forest) and Table 5 (Extra
Trees) for RF / Softmax / ABRF-1 (QP), with ABRF-1 (LP) from Tables 6-7, ABRF-2 from
Tables 11/10 and ABRF-3 from Tables 14/13. Condition 1 (max_depth 2): Tables 2 and 4 for
RF / Softmax / ABRF-1. Plus a classification check on breast cancer (macro F1, RF vs ABRF-1).
Data: forestviz.io.bundled at the paper's sizes (Table 1), synthetic sets redrawn with the
repetition's seed, random 80/20 splits. Prints markdown tables (mean ± std over repetitions,
the paper's number in brackets) for docs/reproduction.md.

    PYTHONPATH=. .venv/bin/python bench/reproduce_abrf.py [--reps 20 | --full] [--jobs 2]
        [--save runs.jsonl]      # append each finished split, so a long run can be cut short
    PYTHONPATH=. .venv/bin/python bench/reproduce_abrf.py --load runs.jsonl   # tables only
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import f1_score, mean_absolute_error, r2_score
from sklearn.model_selection import train_test_split

from forestviz.attention import AttentionForestClassifier, AttentionForestRegressor
from forestviz.io.bundled import load_dataset

DATASETS = ("diabetes", "friedman1", "friedman2", "friedman3", "regression", "sparse")
MODELS = ("Forest", "Softmax", "ABRF-1 (QP)", "ABRF-1 (LP)", "ABRF-2", "ABRF-3")
ESTIMATORS = {"Softmax": {"mode": "softmax"}, "ABRF-1 (QP)": {"mode": "abrf1"},
              "ABRF-1 (LP)": {"mode": "abrf1", "loss": "l1"}, "ABRF-2": {"mode": "abrf2"},
              "ABRF-3": {"mode": "abrf3"}}
CONDITIONS = {"2": {"min_samples_leaf": 10}, "1": {"max_depth": 2, "min_samples_leaf": 1}}
CONDITION_1_MODELS = ("Forest", "Softmax", "ABRF-1 (QP)")

# The paper's (R², MAE) per data set, in DATASETS order; None where the paper has no number.
PAPER = {
    ("random", "2"): {
        "Forest": [(.416, 44.92), (.459, 2.540), (.841, 111.7), (.625, .154), (.380, 109.1),
                   (.470, 1.908)],
        "Softmax": [(.424, 44.66), (.438, 2.589), (.847, 110.0), (.628, .155), (.366, 110.5),
                    (.529, 1.790)],
        "ABRF-1 (QP)": [(.424, 44.66), (.470, 2.540), (.877, 102.0), (.686, .134),
                        (.450, 100.8), (.529, 1.790)],
        "ABRF-1 (LP)": [(.424, 44.66), (.454, 2.594), (.877, 101.7), (.689, .132),
                        (.439, 100.7), (.529, 1.790)],
        "ABRF-2": [(.328, 47.59), (.325, 2.792), (.929, 69.1), (.641, .145), (.570, 88.21),
                   (.532, 1.671)],
        "ABRF-3": [(.406, 45.36), (.459, 2.564), (.933, 68.93), (.688, .140), (.578, 87.87),
                   (.592, 1.599)],
    },
    ("extra", "2"): {
        "Forest": [(.438, 44.31), (.471, 2.502), (.813, 123.0), (.570, .179), (.402, 106.3),
                   (.452, 1.994)],
        "Softmax": [(.441, 44.00), (.471, 2.502), (.813, 123.0), (.570, .179), (.405, 106.1),
                    (.527, 1.845)],
        "ABRF-1 (QP)": [(.441, 43.98), (.513, 2.426), (.930, 74.60), (.739, .138),
                        (.447, 102.1), (.536, 1.826)],
        "ABRF-1 (LP)": [(.433, 44.43), (.498, 2.453), (.924, 76.34), (.699, .143),
                        (.445, 102.7), (.534, 1.830)],
        "ABRF-2": [(.345, 47.57), (.281, 2.775), (.945, 50.88), (.662, .156), (.516, 91.58),
                   (.591, 1.582)],
        "ABRF-3": [(.425, 44.90), (.505, 2.443), (.966, 44.65), (.709, .140), (.518, 92.72),
                   (.629, 1.556)],
    },
    ("random", "1"): {
        "Forest": [(.390, 46.06), (.423, 2.624), (.837, 113.9), (.769, .133), (.356, 111.2),
                   (.472, 1.915)],
        "Softmax": [(.399, 46.25), (.404, 2.655), (.841, 113.6), (.752, .138), (.322, 114.6),
                    (.534, 1.766)],
        "ABRF-1 (QP)": [(.405, 46.15), (.432, 2.566), (.868, 106.5), (.812, .124),
                        (.431, 102.2), (.534, 1.766)],
    },
    ("extra", "1"): {
        "Forest": [(.376, 48.44), (.411, 2.638), (.782, 142.2), (.606, .178), (.352, 110.7),
                   (.394, 2.097)],
        "Softmax": [(.400, 47.38), (.416, 2.639), (.810, 131.8), (.606, .178), (.352, 110.7),
                    (.489, 1.888)],
        "ABRF-1 (QP)": [(.407, 46.72), (.449, 2.533), (.872, 105.3), (.760, .137),
                        (.451, 100.5), (.489, 1.888)],
    },
}


def _split(name, rep):
    """The repetition's 80/20 split; synthetic sets are redrawn with the repetition's seed."""
    data = load_dataset(name) if name in ("diabetes", "breast_cancer") else load_dataset(
        name, random_state=rep)
    X, y = data.X.to_numpy(dtype=float), data.y.to_numpy()
    return train_test_split(X, y, test_size=0.2, random_state=rep)


def _extra_kwargs(base, extra_cv):
    return {"cv": extra_cv} if base == "extra" and extra_cv else {}


def run_regression(name, rep, extra_cv):
    """R² and MAE of every model, base and condition on one split."""
    X_train, X_test, y_train, y_test = _split(name, rep)
    out = {}
    for base in ("random", "extra"):
        for condition, tree_params in CONDITIONS.items():
            models = MODELS if condition == "2" else CONDITION_1_MODELS
            for model_name in models[1:]:
                model = AttentionForestRegressor(
                    base=base, random_state=rep, **tree_params,
                    **ESTIMATORS[model_name], **_extra_kwargs(base, extra_cv))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    model.fit(X_train, y_train)
                predictions = {model_name: model.predict(X_test)}
                if model_name == "Softmax":  # the same seed grows the same forest
                    predictions["Forest"] = model.forest_.predict(X_test)
                for key, prediction in predictions.items():
                    out[(base, condition, key)] = (r2_score(y_test, prediction),
                                                   mean_absolute_error(y_test, prediction),
                                                   getattr(model, "eps_", np.nan))
    return {"data": name, "rep": rep,
            "scores": {"|".join(key): value for key, value in out.items()}}


def run_classification(rep):
    """Macro F1 of the forest, Softmax and ABRF-1 on one breast-cancer split."""
    X_train, X_test, y_train, y_test = _split("breast_cancer", rep)
    out = {}
    for mode in ("softmax", "abrf1"):
        model = AttentionForestClassifier(mode=mode, random_state=rep).fit(X_train, y_train)
        out[mode] = f1_score(y_test, model.predict(X_test), average="macro")
        out["forest"] = f1_score(y_test, model.forest_.predict(X_test), average="macro")
    return out


def _cell(values, paper, column):
    values = np.asarray(values)[:, column]
    digits = 3 if column == 0 or abs(paper or values.mean()) < 10 else 1
    text = f"{values.mean():.{digits}f} ± {values.std():.{digits}f}"
    return text if paper is None else f"{text} ({paper:.{digits}f})"


def print_tables(records):
    results = {name: [] for name in DATASETS}
    for record in records:
        results[record["data"]].append(
            {tuple(key.split("|")): value for key, value in record["scores"].items()})
    reps = sorted({len(runs) for runs in results.values()})
    reps = reps[0] if len(reps) == 1 else f"{reps[0]}-{reps[-1]}"
    for (base, condition), paper_models in PAPER.items():
        models = MODELS if condition == "2" else CONDITION_1_MODELS
        label = "Random Forest" if base == "random" else "Extra Trees"
        for column, metric in enumerate(("R²", "MAE")):
            print(f"\n### Condition {condition}, {label}: {metric} "
                  f"(ours mean ± std over {reps} splits, paper in brackets)\n")
            print("| data set | " + " | ".join(models) + " |")
            print("|---" * (len(models) + 1) + "|")
            for i, name in enumerate(DATASETS):
                cells = [_cell([r[(base, condition, m)] for r in results[name]],
                               paper_models[m][i][column], column) for m in models]
                print(f"| {name} | " + " | ".join(cells) + " |")
        wins = [np.mean([r[(base, condition, "ABRF-1 (QP)")][0] - r[(base, condition, "Forest")][0]
                         for r in results[name]]) for name in DATASETS]
        print("\nABRF-1 (QP) − forest, mean R² gain: "
              + ", ".join(f"{n} {w:+.3f}" for n, w in zip(DATASETS, wins, strict=True))
              + f" — better on {sum(w > 0 for w in wins)} of {len(DATASETS)}")
        eps = [np.mean([r[(base, condition, "ABRF-1 (QP)")][2] for r in results[name]])
               for name in DATASETS]
        print("mean selected ε (ABRF-1 QP): "
              + ", ".join(f"{n} {e:.2f}" for n, e in zip(DATASETS, eps, strict=True)))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--full", action="store_true", help="100 repetitions, as the paper")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--save", help="append every finished split to this JSON-lines file")
    parser.add_argument("--load", help="print the tables of a saved run and exit")
    parser.add_argument("--extra-cv", type=int, default=0,
                        help="K-fold selection for Extra Trees (no out-of-bag rows); 0 = "
                             "the estimator's default validation split")
    args = parser.parse_args()
    if args.load:
        with open(args.load) as lines:
            print_tables([json.loads(line) for line in lines])
        return
    reps = 100 if args.full else args.reps
    start = time.perf_counter()
    scores = Parallel(n_jobs=args.jobs)(delayed(run_classification)(r) for r in range(reps))
    print(f"### Breast cancer (classification), macro F1 over {reps} splits\n")
    print("| Forest | Softmax | ABRF-1 |\n|---|---|---|")
    print("| " + " | ".join(f"{np.mean([s[k] for s in scores]):.3f} ± "
                           f"{np.std([s[k] for s in scores]):.3f}"
                           for k in ("forest", "softmax", "abrf1")) + " |", flush=True)
    tasks = [delayed(run_regression)(name, rep, args.extra_cv)
             for rep in range(reps) for name in DATASETS]
    records = []
    for record in Parallel(n_jobs=args.jobs, return_as="generator_unordered")(tasks):
        records.append(record)
        if args.save:
            with open(args.save, "a") as out:
                out.write(json.dumps(record) + "\n")
    print_tables(records)
    print(f"\n(total {time.perf_counter() - start:.0f} s with {args.jobs} jobs)")


if __name__ == "__main__":
    main()
