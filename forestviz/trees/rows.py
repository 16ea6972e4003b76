"""The training rows as the models measure and split them: the standardisation distances are
taken in (algorithms.md §0) and the held-out split.

:func:`standard_scaling` is the one place x̃ = (x − mean)/std is defined: the leaf keys of
:class:`~forestviz.trees.leaf_stats.LeafStats`, the Enhanced Random Forest's neighbour search
and the explainer's nearest training rows all use it. :func:`split_rows` is the stratified
held-out split of the Enhanced Random Forest and of the app's train/test split.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split


def standard_scaling(X) -> tuple[np.ndarray, np.ndarray]:
    """(mean, std) per column of the rows X (n × m): x̃ = (x − mean)/std, std with ddof 0 and a
    std of 0 counted as 1 (a constant column stays 0 instead of dividing by zero)."""
    X = np.asarray(X, dtype=np.float64)
    scale = X.std(axis=0)
    return X.mean(axis=0), np.where(scale > 0, scale, 1.0)


def held_out_count(n_rows: int, test_size: float) -> int:
    """How many of ``n_rows`` rows :func:`split_rows` holds out: ⌈``test_size``·n⌉, as
    scikit-learn's ``train_test_split`` does for a fraction."""
    return int(np.ceil(test_size * n_rows))


def split_rows(y, test_size: float, random_state=None, *, stratify: bool = True
               ) -> tuple[np.ndarray, np.ndarray]:
    """Sorted positions of the training and the held-out rows of labels ``y`` (n,):
    ⌈``test_size``·n⌉ rows held out (``test_size`` in (0, 1)), by scikit-learn's
    ``train_test_split`` with ``random_state``. Stratified by ``y`` when ``stratify`` and every
    class has at least two rows and both sides have room for one row of each class; otherwise
    (and for regression, ``stratify=False``) a plain random split."""
    y = np.asarray(y)
    rows = np.arange(len(y))
    labels = None
    if stratify:
        counts = pd.Series(y).value_counts()
        n_test = held_out_count(len(y), test_size)
        if counts.min() >= 2 and min(n_test, len(y) - n_test) >= len(counts):
            labels = y
    train, test = train_test_split(rows, test_size=test_size, stratify=labels,
                                   random_state=random_state)
    return np.sort(train), np.sort(test)
