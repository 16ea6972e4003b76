"""The weighted-ensemble protocol: what every model family here shares, so that explanations,
global views and exports read any of them the same way.

Every model of the product predicts, for a row x, with T per-tree outputs f_k(x) and tree
weights α_k(x) that sum to 1:

    prediction(x) = offset + Σ_k α_k(x) · f_k(x)

* plain forests (Breiman; scikit-learn's ``RandomForest*`` / ``ExtraTrees*``): α_k = 1/T and
  f_k the trees' own leaf values or class frequencies, offset 0;
* the Enhanced Random Forest (Bertsimas & Stoumpou, "Binary Classification: Is Boosting stronger
  than Bagging?", Eq. 4):
  α_k(x) = u_k(x) from the top trees of the nearest training rows (Eq. 5), or 1/T without
  model weighting; its tree scores S, S1, S2 (Eqs. 6–8) and the nearest rows are diagnostics;
* attention forests (Utkin & Konstantinov, "Attention-based random forest and contamination
  model", Eq. 8 and Eq. 27 for classes): α_k(x) = (1 − ε)·D_k(x) + ε·w_k, the two parts kept;
* AGBoost (Konstantinov, Utkin & Kirpichenko, "AGBoost: attention-based modification of
  gradient boosting machine"): the same α over scaled boosting trees, offset F_0.

A model implements :meth:`WeightedEnsemble.ensemble_outputs` (one leaf look-up for all the
numbers of a batch of rows) and may override the single quantities with faster routes, and
:meth:`WeightedEnsemble.lean_outputs` with the same numbers less the diagnostics a bulk
explanation never writes;
:func:`as_ensemble` gives fitted scikit-learn forests the same face through
:class:`ForestEnsemble`, a thin wrapper that changes nothing in the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import is_classifier
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.utils.validation import check_array, check_is_fitted

from forestviz.trees.decision import HeldOutDecision
from forestviz.trees.description import Description, binary_threshold
from forestviz.trees.diagnostics import Diagnostics, Scores
from forestviz.trees.fitted import estimator_trees
from forestviz.trees.leaf_values import (
    fill_split_nodes,
    node_class_values,
    node_values,
    tree_covers,
)

SKLEARN_FORESTS = (RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
                   ExtraTreesRegressor)


@dataclass(frozen=True, eq=False)
class EnsembleOutputs:
    """The protocol's numbers for n rows.

    ``weights`` α (n, T), rows summing to 1; ``parts`` ((1 − ε)·D, ε·w), each (n, T), summing
    to α ((α, 0) for a model without a contamination part; None from
    :meth:`~WeightedEnsemble.lean_outputs`); ``tree_predictions`` f_k(x): (n, T)
    values or (n, T, C) class probabilities in the order of the model's ``classes_``;
    ``offset`` (a float added to every prediction); ``scores`` the per-tree scores that order
    the trees (:class:`~forestviz.trees.diagnostics.Scores`, ERF), or None; ``neighbors``
    (positions in the rows given to ``fit``, distances), each (n, M), of the training rows the
    model itself consulted, or None.
    """

    weights: np.ndarray
    parts: tuple[np.ndarray, np.ndarray] | None
    tree_predictions: np.ndarray
    offset: float = 0.0
    scores: Scores | None = None
    neighbors: tuple[np.ndarray, np.ndarray] | None = None

    def predictions(self) -> np.ndarray:
        """offset + Σ_k α_k·f_k: (n,) values or (n, C) class probabilities."""
        if self.tree_predictions.ndim == 3:
            return np.einsum("nk,nkc->nc", self.weights, self.tree_predictions)
        return self.offset + np.einsum("nk,nk->n", self.weights, self.tree_predictions)


class WeightedEnsemble:
    """Mixin of every model family: the protocol with defaults built on
    :meth:`ensemble_outputs`, which a family must implement."""

    def ensemble_outputs(self, X) -> EnsembleOutputs:
        raise NotImplementedError(f"{type(self).__name__} must implement ensemble_outputs")

    def lean_outputs(self, X) -> EnsembleOutputs:
        """The numbers of :meth:`ensemble_outputs` that explaining many rows reads, each
        equal to its value there: α, f_k, the offset and the scores that order the trees
        (ERF's S alone); ``parts`` and ``neighbors`` may be None. A family overrides it when
        it can skip work for the rest; by default, :meth:`ensemble_outputs` itself."""
        return self.ensemble_outputs(X)

    def tree_weights(self, X) -> np.ndarray:
        """α_k(x) (n, T), rows summing to 1."""
        return self.ensemble_outputs(X).weights

    def tree_weight_parts(self, X) -> tuple[np.ndarray, np.ndarray]:
        """((1 − ε)·D(x), ε·w), each (n, T)."""
        return self.ensemble_outputs(X).parts

    def tree_predictions(self, X) -> np.ndarray:
        """f_k(x): (n, T) values or (n, T, C) class probabilities."""
        return self.ensemble_outputs(X).tree_predictions

    def leaf_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """(values, counts) per node of the flat numbering (:mod:`forestviz.trees.flat`); only
        the leaves count: ``values`` is f_k for every row that reaches the leaf ((N,) values or
        (N, C) class probabilities, as :meth:`tree_predictions`), ``counts`` the (weighted)
        training rows that value summarises."""
        raise NotImplementedError(f"{type(self).__name__} must implement leaf_outputs")

    def node_outputs(self, tree: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`leaf_outputs` with every split node set to the count-weighted mean of the
        leaves below it (:func:`~forestviz.trees.leaf_values.fill_split_nodes`): the root holds
        the tree's expected output, and the values along a row's path change step by step from
        it to f_k(x), which path contributions and drawings read. ``tree``: only that tree's
        nodes, numbered within it (a drawing needs one tree; filling all 200 cost 25 ms of every
        cached drawing, docs/performance.md)."""
        values, counts = self.leaf_outputs()
        trees = estimator_trees(self)
        if tree is None:
            return fill_split_nodes(trees, values, counts)
        start = sum(t.tree_.node_count for t in trees[:tree])
        stop = start + trees[tree].tree_.node_count
        return fill_split_nodes([trees[tree]], values[start:stop], counts[start:stop])

    def offset(self) -> float:
        """The constant added to every prediction (:attr:`EnsembleOutputs.offset`, the same for
        every row): 0 unless a family says otherwise (AGBoost's F_0)."""
        return 0.0

    def contamination(self) -> tuple[float, np.ndarray]:
        """(ε, w) of the contamination part, w over the T trees: (0, 1/T) without one."""
        T = len(estimator_trees(self))
        return 0.0, np.full(T, 1.0 / T)

    def diagnostics(self) -> Diagnostics:
        """What the fit learned beyond the weights (:mod:`forestviz.trees.diagnostics`): the
        search on held-out rows (attention, AGBoost, ERF with validation rows) and ERF's
        reweighting rounds; neither for plain forests."""
        return Diagnostics()

    def describe(self) -> Description:
        """What the model is (:class:`~forestviz.trees.description.Description`: its name,
        plain base model, loss, decision threshold …), which every family says itself."""
        raise NotImplementedError(f"{type(self).__name__} must implement describe")

    def __getstate__(self):
        """The state with every DataFrame attribute (the search tables) as plain columns
        ``{FRAME: {"names": [...], "values": [arrays]}}``, so that a model file holds only arrays
        and plain values (forestviz's model files trust no pandas type); ``__setstate__``
        rebuilds the frames. Python's pickle and skops both use this public protocol."""
        state = super().__getstate__()
        return {name: _frame_columns(value) if isinstance(value, pd.DataFrame) else value
                for name, value in state.items()}

    def __setstate__(self, state):
        super().__setstate__({name: _columns_frame(value) if _is_frame_state(value) else value
                              for name, value in state.items()})


FRAME = "__dataframe__"


def _frame_columns(frame: pd.DataFrame) -> dict:
    if not frame.index.equals(pd.RangeIndex(len(frame))):
        raise TypeError("forestviz saves only DataFrames with a default index (0, 1, 2, …).")
    return {FRAME: {"names": [str(c) for c in frame.columns],
                    "values": [frame.iloc[:, j].to_numpy() for j in range(frame.shape[1])]}}


def _is_frame_state(value) -> bool:
    return isinstance(value, dict) and value.keys() == {FRAME}


def _columns_frame(value) -> pd.DataFrame:
    """The DataFrame of :func:`_frame_columns`; TypeError or ValueError when the columns are
    not a list of names with one 1-D array each, all of one length."""
    names, values = value[FRAME]["names"], value[FRAME]["values"]
    if not (isinstance(names, list) and isinstance(values, list) and len(names) == len(values)
            and all(isinstance(n, str) for n in names)
            and all(isinstance(v, np.ndarray) and v.ndim == 1 for v in values)
            and len({v.size for v in values}) <= 1):
        raise ValueError("a saved table's columns do not fit together")
    frame = pd.DataFrame(dict(enumerate(values)))
    frame.columns = pd.Index(names)
    return frame


def uniform_parts(weights) -> tuple[np.ndarray, np.ndarray]:
    """The parts of weights without a contamination term: (α, 0)."""
    return weights, np.zeros_like(weights)


class ForestEnsemble(WeightedEnsemble):
    """A fitted scikit-learn random forest or extra-trees model through the protocol:
    α_k = 1/T, f_k the trees' own ``predict`` / ``predict_proba`` (their mean is the forest's
    own prediction, Breiman's rule as scikit-learn implements it). Holds the forest, copies
    nothing, and is not itself an estimator."""

    def __init__(self, forest):
        if not isinstance(forest, SKLEARN_FORESTS):
            raise TypeError(f"expected a scikit-learn forest, got {type(forest).__name__}")
        check_is_fitted(forest)
        self.forest = forest

    @property
    def estimators_(self):
        return self.forest.estimators_

    def ensemble_outputs(self, X) -> EnsembleOutputs:
        trees = self.forest.estimators_
        X = check_array(X, dtype=np.float32)
        if is_classifier(self.forest):
            values = np.stack([tree.predict_proba(X) for tree in trees], axis=1)
        else:
            values = np.stack([tree.predict(X) for tree in trees], axis=1)
        weights = np.full(values.shape[:2], 1.0 / len(trees))
        return EnsembleOutputs(weights, uniform_parts(weights), values)

    def describe(self) -> Description:
        """A random forest or extra trees, deciding by its held-out threshold when it has one
        (:class:`~forestviz.trees.decision.HeldOutDecision`)."""
        extra = isinstance(self.forest, (ExtraTreesClassifier, ExtraTreesRegressor))
        threshold = (self.forest.decision_threshold()
                     if isinstance(self.forest, HeldOutDecision) else None)
        return Description("Extra trees" if extra else "Random forest",
                           threshold=binary_threshold(threshold))

    def leaf_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The trees' own stored values (class frequencies over the codes 0..C−1) and their
        own sample counts: exactly what ``predict``/``predict_proba`` average."""
        trees = self.forest.estimators_
        if is_classifier(self.forest):
            values = node_class_values(trees, np.arange(len(self.forest.classes_)))
        else:
            values = node_values(trees)
        return values, tree_covers(trees)


def as_ensemble(model) -> WeightedEnsemble:
    """``model`` itself when it implements the protocol, a :class:`ForestEnsemble` around a
    fitted scikit-learn forest; TypeError otherwise."""
    if isinstance(model, WeightedEnsemble):
        return model
    if isinstance(model, SKLEARN_FORESTS):
        return ForestEnsemble(model)
    raise TypeError(f"{type(model).__name__} is not a weighted tree ensemble: expected an "
                    "attention forest, an Enhanced random forest, AGBoost, or a scikit-learn "
                    "random forest or extra-trees model")
