"""Fitting the Enhanced Random Forest's per-sample model weighting (Bertsimas & Stoumpou,
"Binary Classification: Is Boosting stronger than Bagging?", §3.3; algorithms.md §3.3).

Every training row z ranks all trees by P_tree(y_z | z), ties by leaf support and then at
random (:func:`~forestviz.enhanced.model_weighting.rank_trees`), and keeps its top L; the
standardised training rows are indexed for the search of a query row's M nearest neighbours
(:class:`~forestviz.enhanced.neighbors.TrainingNeighbors`), whose top-L lists weight the trees
(Eqs. 4-5, :mod:`forestviz.enhanced.model_weighting`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from forestviz.enhanced.model_weighting import rank_trees
from forestviz.enhanced.neighbors import TrainingNeighbors
from forestviz.trees.rows import standard_scaling


@dataclass(frozen=True, eq=False)
class ModelWeighting:
    """What model weighting learns from the training rows: their feature means and scales
    (``scaling``), the index of the standardised rows for the M nearest (``neighbors``, M =
    ``n_neighbors``), the top L = ``top_trees`` trees of every row, best first
    (``tree_rankings``), and the rows' leaf ids (``leaves``, n × T)."""

    scaling: tuple[np.ndarray, np.ndarray]
    neighbors: TrainingNeighbors
    n_neighbors: int
    top_trees: int
    tree_rankings: np.ndarray
    leaves: np.ndarray


def fit_model_weighting(model, X, X_tr, y_tr, inbag, rng) -> ModelWeighting:
    """Rank all trees of ``model``'s leaf table for every training row ``X_tr`` (float32, labels
    ``y_tr``, in-bag masks ``inbag`` T × n), keep the top L per row, and index the standardised
    training rows (``X[model.train_indices_]``) for the neighbour search, drawing the ties and
    the index with ``rng``."""
    train = X[model.train_indices_]
    mean, scale = standard_scaling(train)
    n_neighbors = min(model.n_neighbors, len(train) - 1)
    top_trees = min(model.top_trees, model.n_estimators)

    table = model.leaf_table_
    leaves = table.apply(X_tr, model.n_jobs)
    p_true = table.values[leaves, y_tr[:, None]]
    support = np.bincount(leaves.ravel(), minlength=len(table.values))[leaves]
    order = rank_trees(p_true, support, rng.random_sample(leaves.shape),
                       inbag.T if model.oob_ranking else None, model.n_jobs)[:, :top_trees]
    dtype = np.int16 if model.n_estimators <= np.iinfo(np.int16).max else np.int32
    neighbors = TrainingNeighbors((train - mean) / scale, n_neighbors, rng)
    return ModelWeighting((mean, scale), neighbors, n_neighbors, top_trees,
                          order.astype(dtype), leaves)
