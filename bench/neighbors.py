"""Which exact neighbour search answers ERF's queries: KD-tree against the block search.

Standard normal training rows (n = 600 and 16,000) and query rows in m = 2 … 20 dimensions,
k = 11 neighbours, 2 threads; the mean time of one query of 1 row and of 2,000 rows by
scikit-learn's KD-tree and by ``forestviz.trees.neighbors.BlockSearch``, in the same run.
The ratio column is KD-tree / blocks (above 1: the blocks are faster). ``NearestRows``
uses the KD-tree up to 3 features.

Run: PYTHONPATH=. .venv/bin/python bench/neighbors.py
"""

import time

import numpy as np
from sklearn.neighbors import KDTree

from forestviz.trees.neighbors import BlockSearch

K, JOBS = 11, 2


def mean_ms(fn, repeats):
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e3


def main():
    rng = np.random.default_rng(0)
    print(f"{'m':>3} {'n':>6} {'rows':>5} {'KD-tree ms':>11} {'blocks ms':>10} {'ratio':>6}")
    for m in (2, 3, 4, 8, 12, 16, 20):
        for n in (600, 16_000):
            Z, queries = rng.normal(size=(n, m)), rng.normal(size=(2_000, m))
            tree = KDTree(Z)
            blocks = BlockSearch(Z, K, np.random.RandomState(0).permutation(len(Z)))
            blocks.query(queries[:2], JOBS)  # load the compiled selection
            for rows, repeats in ((1, 200), (2_000, 3)):
                kd = mean_ms(lambda q=queries[:rows], t=tree: t.query(q, k=K), repeats)
                ours = mean_ms(lambda q=queries[:rows], b=blocks: b.query(q, JOBS), repeats)
                print(f"{m:>3} {n:>6} {rows:>5} {kd:>11.3f} {ours:>10.3f} {kd / ours:>6.2f}")


if __name__ == "__main__":
    main()
