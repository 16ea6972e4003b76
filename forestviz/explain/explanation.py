"""One row's explanation: which trees carry the prediction, how much, and why.

:func:`explain` reads a fitted model through a small adapter per model family that returns
the row's tree weights α_k(x) (rows sum to 1), optionally their parts ((1−ε)·D_k, ε·w_k) or
the ERF tree scores (S, S1, S2), the per-tree predictions and an offset (AGBoost's F_0).
The prediction is recomputed as offset + Σ_k α_k(x)·prediction_k(x) (ABRF eqs 13/28, ERF eq 4,
AGBoost ŷ = F_0 + Σ α_k V_k), which equals the model's own ``predict``/``predict_proba``
without a second leaf look-up. Supported:

* ``EnhancedForestClassifier`` (anything with ``tree_scores``): α = u(x) (eq 5), or 1/T
  without model weighting; top trees by score S (eq 8), ties by weight, then by tree index;
  the nearest training rows are the model's own ``neighbors``;
* attention models (anything with ``tree_weights`` and ``tree_predictions``:
  ``AttentionForest*``, ``AttentionBoostingRegressor`` with offset ``init_``; later models
  plug in the same way); top trees by weight, ties by tree index;
* scikit-learn ``RandomForest*`` / ``ExtraTrees*``: α_k = 1/T, tree predictions from the
  trees' leaf values (their mean is scikit-learn's ``predict``/``predict_proba``).

Everything drawn from the training data (medians, percentiles, nearest rows, decision paths)
comes from a :class:`~forestviz.explain.summary.TrainingSummary`, built once per model and data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.utils.validation import check_is_fitted

from forestviz.explain.summary import TrainingSummary
from forestviz.trees.fitted import estimator_trees
from forestviz.trees.paths import PathStep, path_table

_SKLEARN_FORESTS = (RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
                    ExtraTreesRegressor)
MODEL_NAMES = {
    "AttentionForestRegressor": "Attention-based random forest",
    "AttentionForestClassifier": "Attention-based random forest",
    "EnhancedForestClassifier": "Enhanced random forest",
    "AttentionBoostingRegressor": "Attention-based gradient boosting (AGBoost)",
    "RandomForestRegressor": "Random forest",
    "RandomForestClassifier": "Random forest",
    "ExtraTreesRegressor": "Extra trees",
    "ExtraTreesClassifier": "Extra trees",
}


@dataclass(frozen=True)
class ModelOutputs:
    """What an adapter reads from a model for one row (see the module docstring)."""

    weights: np.ndarray  # (T,)
    tree_predictions: np.ndarray  # (T,) values or (T, C) class probabilities
    parts: tuple[np.ndarray, np.ndarray] | None = None
    scores: dict[str, np.ndarray] | None = None
    offset: float = 0.0
    neighbors: tuple[np.ndarray, np.ndarray] | None = None  # positions, distances


def _tree_leaf_values(X, summary) -> np.ndarray:
    """The trees' own leaf values (T,) or class frequencies (T, C) of one row, from the
    summary's Decision Machine (whose descent the row's paths then reuse)."""
    machine = summary.machine
    nodes = machine.apply(np.asarray(X, dtype=np.float64))[0] + machine.flat.offsets
    return machine.leaf_values[np.searchsorted(summary.leaf_ids, nodes)]


def _enhanced_outputs(model, X, summary) -> ModelOutputs:
    """ERF: α = u(x) = S1_raw/(M·L) (eq 5) when the model predicts with it, else 1/T; scores
    S, S1, S2 (eqs 6-8); p_k(x) are the trees' class frequencies (as the model's own
    ``tree_predictions``, from one flat descent instead of T per-tree look-ups)."""
    scores = model.tree_scores(X)
    tree_predictions = _tree_leaf_values(X, summary)
    T = tree_predictions.shape[0]
    weights = (scores.S1_raw[0] / (model.n_neighbors_ * model.top_trees_)
               if model.model_weighting else np.full(T, 1.0 / T))
    neighbors = model.neighbors(X)
    return ModelOutputs(weights, tree_predictions,
                        scores={"S": scores.S[0], "S1": scores.S1[0], "S2": scores.S2[0]},
                        neighbors=(neighbors.indices[0], neighbors.distances[0]))


def _attention_outputs(model, X, summary) -> ModelOutputs:
    """Attention models: α and its two parts with the tree predictions from
    ``weights_and_predictions`` (one leaf look-up), else ``tree_weights`` and
    ``tree_predictions``."""
    if hasattr(model, "weights_and_predictions"):
        softmax, contamination, predictions = (a[0] for a in model.weights_and_predictions(X))
        parts, weights = (softmax, contamination), softmax + contamination
    else:
        parts, weights, predictions = None, model.tree_weights(X)[0], model.tree_predictions(X)[0]
    offset = getattr(model, "init_", 0.0)
    return ModelOutputs(weights, predictions, parts=parts,
                        offset=float(offset) if np.isscalar(offset) else 0.0)


def _forest_outputs(model, X, summary) -> ModelOutputs:
    """Plain scikit-learn forests: α_k = 1/T and the trees' own leaf values."""
    T = summary.machine.n_trees
    return ModelOutputs(np.full(T, 1.0 / T), _tree_leaf_values(X, summary))


ADAPTERS: tuple[tuple[Callable[[object], bool], Callable[..., ModelOutputs]], ...] = (
    (lambda model: hasattr(model, "tree_scores"), _enhanced_outputs),
    (lambda model: hasattr(model, "tree_weights") and hasattr(model, "tree_predictions"),
     _attention_outputs),
    (lambda model: isinstance(model, _SKLEARN_FORESTS), _forest_outputs),
)


@dataclass(frozen=True, eq=False)
class Explanation:
    """One row's explanation, as plain numpy/pandas values (no model needed to show it).

    ``prediction``: the value (regression) or class probabilities in the order of
    ``classes``; ``predicted_class`` and ``threshold`` follow the model's ``predict`` rule
    (ERF binary: P(class 1) ≥ ``threshold_``, Youden's J; otherwise the most probable class,
    ``threshold`` 0.5 for two classes and None for more; both None for regression).
    ``tree_weights`` α (sum to 1), ``weight_parts`` ((1−ε)·D, ε·w) or None, ``tree_scores``
    ({"S", "S1", "S2"}, ERF) or None, ``offset`` (F_0 of AGBoost, else 0). ``top_trees``: tree
    indices (from 0) best first; ``paths[i]`` the row's decision path in ``top_trees[i]``.
    ``effective_trees`` = 1/Σα², ``top5_share`` = the weight of the 5 heaviest trees.
    ``features``: feature, value, median, percentile; ``neighbors``: nearest training rows
    (position ``row``, ``id`` when known, ``distance`` in standardised units, ``outcome``,
    then their values).
    """

    model_name: str
    task: str
    row: np.ndarray
    row_id: str | None
    feature_names: tuple[str, ...]
    prediction: float | np.ndarray
    classes: np.ndarray | None
    predicted_class: object
    threshold: float | None
    decision_rule: str | None
    tree_predictions: np.ndarray
    tree_weights: np.ndarray
    weight_parts: tuple[np.ndarray, np.ndarray] | None
    tree_scores: dict[str, np.ndarray] | None
    offset: float
    top_trees: np.ndarray
    effective_trees: float
    top5_share: float
    paths: tuple[tuple[PathStep, ...], ...]
    features: pd.DataFrame
    neighbors: pd.DataFrame
    original_row: pd.Series | None = None

    @property
    def n_trees(self) -> int:
        return self.tree_weights.size

    def path_tables(self) -> list[pd.DataFrame]:
        """The top trees' paths as tables (:func:`forestviz.trees.paths.path_table`)."""
        return [path_table(steps) for steps in self.paths]

    def figures(self) -> dict:
        """The standard plotly figures of this row (:func:`forestviz.explain.report.figures`)."""
        from forestviz.explain.report import figures

        return figures(self)

    def to_html(self, *, tree_svgs: Mapping[int, str] | None = None) -> str:
        """A self-contained HTML report (:func:`forestviz.explain.report.to_html`)."""
        from forestviz.explain.report import to_html

        return to_html(self, tree_svgs=tree_svgs)


def _adapter(model):
    for applies, outputs in ADAPTERS:
        if applies(model):
            return outputs
    raise TypeError(f"explain() does not support {type(model).__name__}: expected an "
                    "attention forest, an Enhanced or plain scikit-learn random forest, extra "
                    "trees, AGBoost, or a model with tree_weights and tree_predictions")


def _check_row(x, n_features) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim > 2 or (x.ndim == 2 and x.shape[0] != 1) or x.size != n_features:
        raise ValueError(f"expected one row of {n_features} features, got shape {x.shape}")
    x = x.ravel()
    if not np.isfinite(x).all():
        raise ValueError("the row has missing or infinite values; fill them in first")
    return x


def _decision(model, proba, classes):
    """(predicted class, threshold, rule in words) as the model's ``predict`` decides."""
    threshold = getattr(model, "threshold_", None)
    if classes.size == 2 and np.isscalar(threshold):
        threshold = float(threshold)
        chosen = classes[int(proba[1] >= threshold)]
        return chosen, threshold, (f"{classes[1]} when P({classes[1]}) ≥ {threshold:.3f} "
                                   "(Youden's J on the training rows), else "
                                   f"{classes[0]}")
    chosen = classes[int(np.argmax(proba))]
    if classes.size == 2:
        return chosen, 0.5, "the class with the larger probability (threshold 0.5)"
    return chosen, None, "the class with the largest probability"


def explain(model, x, *, top_k=5, X_train=None, y_train=None, summary=None,
            original_row=None, row_id=None, n_neighbors=5) -> Explanation:
    """Explain ``model``'s prediction for the row ``x`` (m feature values).

    Pass a :class:`TrainingSummary` of the model's training rows as ``summary`` (build it once
    with ``TrainingSummary.from_data``); ``X_train`` and ``y_train`` build one on the fly.
    ``original_row``: the row's values as the user knows them (shown in the report).
    """
    outputs = _adapter(model)
    check_is_fitted(model)
    if summary is None:
        if X_train is None or y_train is None:
            raise ValueError("explain() needs the training rows: pass summary="
                             "TrainingSummary.from_data(model, X_train, y_train) or X_train "
                             "and y_train")
        summary = TrainingSummary.from_data(model, X_train, y_train)
    trees = estimator_trees(model)
    if len(trees) != summary.machine.n_trees or trees[0] is not summary.machine.trees[0]:
        raise ValueError("the summary was built for another model")
    if top_k < 1 or n_neighbors < 1:
        raise ValueError("top_k and n_neighbors must be at least 1")
    x = _check_row(x, summary.n_features)
    names = getattr(model, "feature_names_in_", None)
    X = x[None, :] if names is None else pd.DataFrame(x[None, :], columns=names)
    out = outputs(model, X, summary)
    weights = out.weights
    if out.tree_predictions.ndim == 2:
        classes = np.asarray(model.classes_)
        prediction = weights @ out.tree_predictions
        predicted_class, threshold, rule = _decision(model, prediction, classes)
        task = "classification"
    else:
        classes, predicted_class, threshold, rule = None, None, None, None
        prediction = out.offset + float(weights @ out.tree_predictions)
        task = "regression"
    index = np.arange(weights.size)
    keys = (index, -weights) if out.scores is None else (index, -weights, -out.scores["S"])
    top = np.lexsort(keys)[:top_k]
    if out.neighbors is None:
        near, distance = summary.nearest(x, n_neighbors)
    else:
        near, distance = (part[:n_neighbors] for part in out.neighbors)
        if near.size and near.max() >= summary.X_train.shape[0]:
            raise ValueError("the summary's X_train must be the rows given to the model's fit")
    return Explanation(
        model_name=MODEL_NAMES.get(type(model).__name__, type(model).__name__), task=task,
        row=x, row_id=None if row_id is None else str(row_id),
        feature_names=summary.feature_names, prediction=prediction, classes=classes,
        predicted_class=predicted_class, threshold=threshold, decision_rule=rule,
        tree_predictions=out.tree_predictions, tree_weights=weights,
        weight_parts=out.parts, tree_scores=out.scores, offset=out.offset, top_trees=top,
        effective_trees=float(effective_trees(weights)),
        top5_share=float(np.sort(weights)[-5:].sum()),
        paths=tuple(tuple(summary.machine.path(x, int(k))) for k in top),
        features=summary.feature_table(x), neighbors=summary.neighbor_table(near, distance),
        original_row=None if original_row is None else pd.Series(original_row))


def effective_trees(weights) -> np.ndarray | float:
    """The effective number of trees 1 / Σ_k α_k² of each row's tree weights (the last axis):
    T for uniform weights, 1 when one tree carries everything."""
    weights = np.asarray(weights, dtype=float)
    return 1.0 / np.sum(weights**2, axis=-1)
