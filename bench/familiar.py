"""Familiar ground (issue 37, item 1): detection and the time to score one row.

For each bundled table and model family, a model is trained as the app trains it; its
:class:`~forestviz.explain.row.familiar.FamiliarGround` is built on its training and held-out rows.
Detection: the held-out rows (ordinary) against the same rows made unusual, one column moved
by 4 training SDs (``shifted``) and rows whose columns are drawn independently
(``independent``); AUROC of our score and of scikit-learn's IsolationForest fitted on the same
training rows (``-score_samples``), in the same run. Time: the mean of ``assess`` on one row
(the score, p-value, nearest rows and the columns they differ in) against IsolationForest's
``score_samples`` on one row; the ratio is theirs / ours (above 1: ours is faster). The
target is ≤ 5 ms a row.

Run: PYTHONPATH=. .venv/bin/python bench/familiar.py
"""

import time

import numpy as np
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score

from forestviz.app.workflow import Settings, train_bundle
from forestviz.io.bundled import load_dataset
from forestviz.io.dataset import DataChoice

CASES = (("pima_diabetes", "vanilla"), ("pima_diabetes", "erf"),
         ("breast_cancer", "abrf1_qp"), ("diabetes", "agboost"))
TREES, REPEATS = 100, 200


def mean_ms(fn, repeats=REPEATS):
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e3


def auroc(ordinary, unusual):
    return roc_auc_score(np.r_[np.zeros(len(ordinary)), np.ones(len(unusual))],
                         np.r_[ordinary, unusual])


def main():
    from forestviz.explain.row.familiar import independent_rows, shifted_rows

    print(f"{'table':<14} {'family':<9} {'kind':<12} {'ours':>6} {'iForest':>8}")
    timings = []
    for table, family in CASES:
        data = load_dataset(table)
        choice = DataChoice(source=f"table:{table}", target=data.target, id_column=None,
                            exclude=(), task="auto")
        bundle = train_bundle(data, choice, Settings(family=family, n_estimators=TREES),
                              lambda stage, fraction: None)
        ground = bundle.familiar
        forest = IsolationForest(random_state=0).fit(bundle.X_train)
        X = bundle.X_test
        for kind, unusual in (("shifted", shifted_rows(X, bundle.X_train, ground.features, 0)),
                              ("independent", independent_rows(len(X), bundle.X_train, 0))):
            ours = auroc(ground.scores(X), ground.scores(unusual))
            theirs = auroc(-forest.score_samples(X), -forest.score_samples(unusual))
            print(f"{table:<14} {family:<9} {kind:<12} {ours:>6.3f} {theirs:>8.3f}")
        row = X[:1]
        ground.assess(row[0])
        timings.append((table, family, mean_ms(lambda r=row[0], g=ground: g.assess(r)),
                        mean_ms(lambda r=row, f=forest: f.score_samples(r))))
    print(f"\n{'table':<14} {'family':<9} {'ours ms':>8} {'iForest ms':>11} {'ratio':>6}")
    for table, family, ours, theirs in timings:
        print(f"{table:<14} {family:<9} {ours:>8.2f} {theirs:>11.2f} {theirs / ours:>6.1f}")


if __name__ == "__main__":
    main()
