"""Fitting the Enhanced Random Forest's per-sample model weighting (Bertsimas & Stoumpou,
"Binary Classification: Is Boosting stronger than Bagging?", §3.3; algorithms.md §3.3).

Every training row z ranks all trees by P_tree(y_z | z), ties by leaf support and then at
random (:func:`~forestviz.enhanced.model_weighting.rank_trees`), and keeps its top L; the
standardised training rows are indexed for the search of a query row's M nearest neighbours
(:class:`~forestviz.enhanced.neighbors.TrainingNeighbors`), whose top-L lists weight the trees
(Eqs. 4-5, :mod:`forestviz.enhanced.model_weighting`).
"""

from __future__ import annotations

import numpy as np

from forestviz.enhanced.model_weighting import rank_trees
from forestviz.enhanced.neighbors import TrainingNeighbors
from forestviz.trees.rows import standard_scaling


def fit_model_weighting(model, X, X_tr, y_tr, inbag, rng):
    """Rank all trees of ``model``'s leaf table for every training row ``X_tr`` (float32, labels
    ``y_tr``, in-bag masks ``inbag`` T × n), keep the top L per row, and index the standardised
    training rows (``X[model.train_indices_]``) for the neighbour search, drawing the ties and
    the index with ``rng``. Sets ``_mean``, ``_scale``, ``n_neighbors_``, ``top_trees_``,
    ``tree_rankings_`` and ``_neighbors``; returns the training rows' leaf ids."""
    train = X[model.train_indices_]
    model._mean, model._scale = standard_scaling(train)
    model.n_neighbors_ = min(model.n_neighbors, len(train) - 1)
    model.top_trees_ = min(model.top_trees, model.n_estimators)

    table = model._leaf_table
    leaves = table.apply(X_tr, model.n_jobs)
    p_true = table.values[leaves, y_tr[:, None]]
    support = np.bincount(leaves.ravel(), minlength=len(table.values))[leaves]
    order = rank_trees(p_true, support, rng.random_sample(leaves.shape),
                       inbag.T if model.oob_ranking else None,
                       model.n_jobs)[:, : model.top_trees_]
    dtype = np.int16 if model.n_estimators <= np.iinfo(np.int16).max else np.int32
    model.tree_rankings_ = order.astype(dtype)
    model._neighbors = TrainingNeighbors((train - model._mean) / model._scale,
                                         model.n_neighbors_, rng)
    return leaves
