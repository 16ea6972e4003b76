"""What a model card's bootstrap costs (issue 38, item 4), next to a reference measured in the
same run.

    PYTHONPATH=. .venv/bin/python bench/model_card.py [--rows 1000] [--resamples 1000]

Goal: the card's bootstrap over 1,000 held-out rows (every held-out metric of a binary model,
1,000 seeded resamples: forestviz.card.measures.bootstrap) within 5 s. Reference: the
scikit-learn way, one ``roc_auc_score`` call per resample (one metric of the six), timed on
the same resamples. Also printed: the whole card of a trained model with two subgroup
columns. Each line gives the best wall time and that call's CPU time of this process.
"""

import argparse

import numpy as np
from scipy.special import expit
from sklearn.metrics import roc_auc_score

from bench.timing import best_wall_and_cpu
from forestviz.card.card import build_card
from forestviz.card.measures import Outcomes, bootstrap
from tests.store_helpers import trained

GOAL = 5.0  # seconds, issue 38


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    actual = rng.integers(0, 2, args.rows)
    risk = expit(rng.normal(actual - 0.5, 1.0))
    outcomes = Outcomes("classification", actual, (risk > 0.5).astype(int),
                        np.column_stack([1 - risk, risk]))
    card = best_wall_and_cpu(lambda: bootstrap(outcomes, n_resamples=args.resamples),
                             args.repeat)
    rows = np.random.default_rng(1).integers(0, args.rows, (args.resamples, args.rows))
    reference = best_wall_and_cpu(
        lambda: [roc_auc_score(actual[r], risk[r]) for r in rows], args.repeat)
    bench = trained()
    whole = best_wall_and_cpu(lambda: build_card(
        bench, intended_use="bench", subgroups=["Age (years)", "Pregnancies"]), args.repeat)
    print(f"{args.rows:,} held-out rows, {args.resamples:,} resamples, best of {args.repeat}")
    print(f"card bootstrap (6 metrics):          {card[0]:6.3f} s wall, {card[1]:6.3f} s CPU"
          f"   goal <= {GOAL:g} s: {'met' if card[0] <= GOAL else 'MISSED'}")
    print(f"reference (roc_auc_score x resamples): {reference[0]:6.3f} s wall, "
          f"{reference[1]:6.3f} s CPU")
    print(f"ratio card / reference:              {card[0] / reference[0]:6.3f}")
    print(f"whole card, Pima ({len(bench.model.test_rows)} held-out rows, 2 subgroup "
          f"columns): {whole[0]:6.3f} s wall, {whole[1]:6.3f} s CPU")


if __name__ == "__main__":
    main()
