"""Loading a 500-tree ABRF-1 model file (docs/performance.md, "Model files").

The largest model the app trains: an ABRF-1 classifier of 500 trees (min_samples_leaf 1, as
deep as the app's trees grow) on the bundled Pima table. The model file is written by
``forestviz.persistence.dumps`` and read by ``loads`` (every check, the rebuilt derived
structures); the reference in the same run is skops reading the file of the model's own
scikit-learn forest (the same 500 trees, no forestviz code), so the ratio is the price of
forestviz's own state and checks on top of the trees. Times are the best of ``--repeat``.

    PYTHONPATH=. .venv/bin/python bench/model_load.py [--trees 500] [--repeat 5]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import skops.io as sio

from bench.timing import best_time
from forestviz.attention import AttentionForestClassifier
from forestviz.persistence import dumps, loads

PIMA = Path(__file__).resolve().parents[1] / "data" / "pima_diabetes.csv"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    frame = pd.read_csv(PIMA)
    features = frame.drop(columns=["Patient ID", "Diabetes"])
    X = features.fillna(features.median()).to_numpy(dtype=np.float64)
    y = frame["Diabetes"].to_numpy()
    model = AttentionForestClassifier(args.trees, min_samples_leaf=1, eps=0.5, tau=1.0,
                                      random_state=0, n_jobs=2).fit(X, y)
    data = dumps(model)
    forest = sio.dumps(model.forest_)
    trusted = sio.get_untrusted_types(data=forest)
    loaded = loads(data)
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    load = best_time(lambda: loads(data), args.repeat)
    reference = best_time(lambda: sio.loads(forest, trusted=trusted), args.repeat)
    derive = best_time(lambda: restate(model), args.repeat)
    print(f"{args.trees}-tree ABRF-1 on Pima: model file {len(data) / 2**20:.1f} MiB, "
          f"the forest's own file {len(forest) / 2**20:.1f} MiB")
    print(f"loads {load:.3f} s; skops reading the forest alone {reference:.3f} s; "
          f"ratio {load / reference:.2f}; the models' own __setstate__ (checks and "
          f"rebuilt structures) {derive:.3f} s")


def restate(model) -> None:
    """What the model's and its leaf statistics' ``__setstate__`` do when a file is read."""
    stats = model.leaf_stats_
    stats.__setstate__(stats.__getstate__())
    model.__setstate__(model.__getstate__())


if __name__ == "__main__":
    main()
