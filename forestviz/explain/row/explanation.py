"""One row's explanation: which trees carry the prediction, how much, and why.

:func:`explain` reads any model through the weighted-ensemble protocol
(:mod:`forestviz.trees.ensemble`): the row's tree weights α_k(x) (summing to 1), their two
parts ((1−ε)·D_k, ε·w_k), the per-tree predictions f_k(x), the offset (AGBoost's F_0) and the
diagnostics (ERF's tree scores S, S1, S2 and the nearest training rows it consulted). The
prediction is recomputed as offset + Σ_k α_k(x)·f_k(x) — Utkin & Konstantinov, "Attention-based
random forest and contamination model", Eq. 8 (Eq. 27 for class probabilities); Bertsimas &
Stoumpou, "Enhanced Random Forests", Eq. 4; AGBoost's ŷ = F_0 + Σ_k α_k V_k — which equals the
model's own ``predict``/``predict_proba``. Top trees: ERF's by score S (Eq. 8), ties by
weight; every other model's by weight; then by tree index.

Everything drawn from the training data (medians, percentiles, nearest rows when the model has
none of its own, decision paths) comes from a
:class:`~.summary.TrainingSummary`, built once per model and data.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from forestviz.explain.row.columns import ColumnMap
from forestviz.explain.row.contributions import Contributions
from forestviz.explain.row.narrative import beyond_outcomes
from forestviz.explain.row.narrative import why as why_sentence
from forestviz.explain.row.summary import TrainingSummary
from forestviz.explain.row.uncertainty import (
    IntervalModel,
    TreeSpread,
    spread_warnings,
    tree_spread,
)
from forestviz.glossary import TERMS
from forestviz.numbers import aligned_texts, plain_number
from forestviz.trees.diagnostics import Scores
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.fitted import estimator_trees
from forestviz.trees.paths import Alternative, PathStep


def model_name(model) -> str:
    """The model's name (:meth:`~forestviz.trees.ensemble.WeightedEnsemble.describe`); when its
    search kept the plain base model, that is said too (the weights are then equal, and calling
    it "attention" would mislead)."""
    ensemble = as_ensemble(model)
    said = ensemble.describe()
    if ensemble.diagnostics().selected_base:
        return (f"{said.name}, which kept its plain {said.base} (equal tree weights): nothing "
                "beat it on the rows held out in training")
    return said.name


@dataclass(frozen=True, eq=False)
class Explanation:
    """One row's explanation, as plain numpy/pandas values (no model needed to show it).

    ``prediction``: the value (regression) or class probabilities in the order of
    ``classes``; ``predicted_class`` and ``threshold`` follow the model's ``predict`` rule
    (ERF binary: P(class 1) ≥ ``threshold_``, Youden's J; otherwise the most probable class,
    ``threshold`` 0.5 for two classes and None for more; both None for regression).
    ``tree_weights`` α (sum to 1), ``weight_parts`` ((1−ε)·D, ε·w) or None, ``tree_scores``
    (S, S1, S2 of ERF: :class:`~forestviz.trees.diagnostics.Scores`) or None, ``offset`` (F_0
    of AGBoost, else 0). ``top_trees``: tree indices (from 0) best first; ``paths[i]`` the
    row's decision path in ``top_trees[i]``.
    ``effective_trees`` = 1/Σα², ``top5_share`` = the weight of the 5 heaviest trees.
    ``features``: the row per user column (:meth:`TrainingSummary.row_table`: feature, kind,
    value as given or "missing", missing, used as, median and percentile for numeric columns,
    most common level and the share of the row's level for categorical ones); ``missing``: the
    columns whose value was missing (the model used the training median, or no level);
    ``columns``: the :class:`~.columns.ColumnMap` that words tests in those
    columns (:meth:`step_sentence`, :meth:`alternative_sentence`); ``neighbors``: nearest
    training rows (position ``row``, ``id`` when known, ``distance`` in standardised units,
    ``outcome``, then their values). ``eps`` and ``w``: the model's contamination ε and tree
    weights w (0 and 1/T without a contamination part); ``alternatives[i]``: the nearest other
    leaves of ``top_trees[i]``, one test flip away, nearest first.

    How sure and why (:mod:`.uncertainty`, :mod:`.contributions`,
    :mod:`.narrative`): ``spread`` the trees' predictions under α (weighted quantiles, vote
    shares); ``interval`` (low, high) from the model's calibrated interval when one was given,
    named ``interval_name`` ("90% interval" of a value, "calibrated range" of a binary risk:
    the Venn-ABERS range, :data:`forestviz.glossary.TERMS`, with ``calibrated_risk`` its
    calibrated value) and explained by ``interval_note``;
    ``warnings`` in plain words (few effective trees, ε = 1);
    ``contributions`` per user column (base value + Σ = the prediction); ``why`` one sentence.
    ``spreads``: the features' training standard deviations, which set the decimals of their
    numbers (:mod:`forestviz.numbers`, :meth:`feature_texts`). ``boosting``: the trees'
    numbers are boosting corrections added to the offset (a tree's number is its term V:
    :class:`~forestviz.trees.description.Description`).
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
    tree_scores: Scores | None
    offset: float
    top_trees: np.ndarray
    effective_trees: float
    top5_share: float
    paths: tuple[tuple[PathStep, ...], ...]
    features: pd.DataFrame
    neighbors: pd.DataFrame
    original_row: pd.Series | None = None
    eps: float = 0.0
    w: np.ndarray | None = None
    alternatives: tuple[tuple[Alternative, ...], ...] = ()
    columns: ColumnMap | None = None
    missing: frozenset[str] = frozenset()
    spread: TreeSpread | None = None
    interval: tuple[float, float] | None = None
    interval_name: str | None = None
    interval_note: str | None = None
    calibrated_risk: float | None = None
    warnings: tuple[str, ...] = ()
    contributions: Contributions | None = None
    why: str = ""
    spreads: np.ndarray | None = None
    boosting: bool = False

    @property
    def n_trees(self) -> int:
        return self.tree_weights.size

    def value_texts(self, *values) -> list[str]:
        """Values of a regression's outcome as the page prints them beside its prediction
        (:func:`~forestviz.numbers.aligned_texts`): the decimals that show the largest of the
        prediction, its interval's ends and the trees' weighted range (a forest's) to four
        significant digits, so that "Predicted 4.735 (90% interval 4.600–4.879)" lines up."""
        shown = [self.prediction, *(self.interval or ())]
        if self.spread is not None and self.spread.vote_shares is None and not self.offset:
            shown.extend(np.ravel(self.spread.quantiles))
        return aligned_texts(*shown, *values)[len(shown):]

    def outcome_texts(self, *values) -> list[str]:
        """Numbers on the scale of what the model answers, as every view prints them: a
        probability to two decimals ("0.10", the tiles' and the headline's risk), a regression's
        outcome as :meth:`value_texts`. The tiles, the waterfall's ends and the sentences print
        the same quantity through this one method, so they never show 0.0996 beside 0.10. A
        probability a sum's rounding put just outside [0, 1] prints as its bound: a waterfall
        ending at −1e-17 printed "-0.00" beside a "0.00" tile."""
        if self.task == "classification":  # + 0.0 turns a −0.0 into 0.0
            return [f"{min(max(float(v), 0.0), 1.0) + 0.0:.2f}" for v in values]
        return self.value_texts(*values)

    def tree_value_text(self, value) -> str:
        """What one tree says for a value: a forest's tree says an outcome (to the decimals of
        :meth:`value_texts`), a boosting tree a leaf value V_k, which lives on another scale
        (four significant digits)."""
        return plain_number(value, 4) if self.boosting else self.value_texts(value)[0]

    def imputed_features(self) -> frozenset[int]:
        """The encoded features whose value in :attr:`row` stood in for a missing one (every
        feature of a missing column), for drawings to mark (``render_tree(imputed=…)``)."""
        if self.columns is None:
            return frozenset()
        return frozenset(j for column in self.columns.columns if column.name in self.missing
                         for j in column.features)

    def step_sentence(self, step: PathStep, name=str) -> str:
        """A test on the row's path in the user's columns: "sex = F", "sex is not M", "mean
        radius is missing (imputed as 13.3, the training median), so = 13.3 ≤ 14.1"."""
        if self.columns is None:
            return step.sentence(name)
        return self.columns.test_sentence(step, self.missing, name)

    def flips_sentence(self, other: Alternative, name=str) -> str:
        """The tests an alternative leaf needs, in the user's columns: "sex were F and age were
        above 40"."""
        if self.columns is None:
            return " and ".join(flip.sentence(name) for flip in other.tests)
        return " and ".join(self.columns.flip_sentence(flip, self.missing, name)
                            for flip in other.tests)

    def alternative_sentence(self, other: Alternative, name=str) -> str:
        """"if sex were F and age were above 40, this tree would say …"."""
        return f"if {self.flips_sentence(other, name)}, this tree would say {other.prediction_text}"

    def feature_texts(self) -> pd.DataFrame:
        """:attr:`features` as people read it, every cell text, numbers to their feature's
        spread (:meth:`~.columns.ColumnMap.text_table`)."""
        columns = self.columns or ColumnMap.identity(self.feature_names,
                                                     np.zeros(len(self.feature_names)))
        return columns.text_table(self.features, self.spreads)


def _check_row(x, n_features) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim > 2 or (x.ndim == 2 and x.shape[0] != 1) or x.size != n_features:
        raise ValueError(f"expected one row of {n_features} features, got shape {x.shape}")
    x = x.ravel()
    if np.isinf(x).any():
        raise ValueError("the row has infinite values")
    return x


def _missing(columns: ColumnMap, detected, original_row) -> frozenset[str]:
    """The columns whose value was missing: NA in ``original_row`` when it holds every column
    (an unseen level sets no indicator either, but is no missing value), else what
    :meth:`ColumnMap.fill_missing` found."""
    if original_row is None or not set(columns.names) <= set(pd.Series(original_row).index):
        return detected
    original_row = pd.Series(original_row)
    return frozenset(name for name in columns.names if pd.isna(original_row[name])) | detected


def decision(model, proba, classes):
    """(predicted class, threshold, rule in words) as the model's ``predict`` decides (its
    threshold and how it was chosen: :meth:`~forestviz.trees.ensemble.WeightedEnsemble.
    describe`)."""
    said = as_ensemble(model).describe()
    threshold = said.threshold
    if classes.size == 2 and threshold is not None:
        chosen = classes[int(proba[1] >= threshold)]
        return chosen, threshold, (f"{classes[1]} when P({classes[1]}) ≥ {threshold:.3f} "
                                   f"({said.rule}), else {classes[0]}")
    chosen = classes[int(np.argmax(proba))]
    if classes.size == 2:
        return chosen, 0.5, "the class with the larger probability (threshold 0.5)"
    return chosen, None, "the class with the largest probability"


def explain(model, x, *, top_k=5, X_train=None, y_train=None, summary=None,
            original_row=None, row_id=None, n_neighbors=5, n_alternatives=0,
            intervals: IntervalModel | None = None, contributions: str | None = "path"
            ) -> Explanation:
    """Explain ``model``'s prediction for the row ``x`` (m feature values).

    Pass a :class:`TrainingSummary` of the model's training rows as ``summary`` (build it once
    with ``TrainingSummary.from_data``); ``X_train`` and ``y_train`` build one on the fly.
    ``x`` may hold NaN: a missing value, filled as the summary's columns say (by default the
    training median) and marked missing. ``original_row``: the row's values as the user knows
    them (shown in the report; its NA entries are the missing columns).
    ``n_alternatives``: how many nearest other leaves (one test flip away) to find in each
    top tree (each costs a few milliseconds: :meth:`DecisionMachine.alternatives`).
    ``intervals``: the model's :class:`~.uncertainty.IntervalModel` (fitted on
    held-out rows) for a calibrated interval; ``contributions``: the method of
    :meth:`ContributionModel.explain` ("path" or "treeshap"), or None for none.
    """
    ensemble = as_ensemble(model)
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
    if top_k < 1 or n_neighbors < 1 or n_alternatives < 0:
        raise ValueError("top_k and n_neighbors must be at least 1, n_alternatives at least 0")
    x, detected = summary.columns.fill_missing(_check_row(x, summary.n_features))
    missing = _missing(summary.columns, detected, original_row)
    names = getattr(model, "feature_names_in_", None)
    X = x[None, :] if names is None else pd.DataFrame(x[None, :], columns=names)
    out = ensemble.ensemble_outputs(X)
    weights, tree_predictions = out.weights[0], out.tree_predictions[0]
    if tree_predictions.ndim == 2:
        classes = np.asarray(model.classes_)
        prediction = weights @ tree_predictions
        predicted_class, threshold, rule = decision(model, prediction, classes)
        task = "classification"
    else:
        classes, predicted_class, threshold, rule = None, None, None, None
        prediction = out.offset + float(weights @ tree_predictions)
        task = "regression"
    index = np.arange(weights.size)
    eps, w = ensemble.contamination()
    scores = None if out.scores is None else out.scores.row(0)
    keys = (index, -weights) if scores is None else (index, -weights, -scores.S)
    top = np.lexsort(keys)[:top_k]
    if out.neighbors is None:
        near, distance = summary.nearest(x, n_neighbors)
    else:
        near, distance = (part[0, :n_neighbors] for part in out.neighbors)
        if near.size and near.max() >= summary.X_train.shape[0]:
            raise ValueError("the summary's X_train must be the rows given to the model's fit")
    found = None
    if contributions is not None:
        found = summary.contributions.explain(x, weights, method=contributions).fold(
            [summary.columns.names[j] for j in summary.columns.owner])
    interval = interval_name = calibrated = note = None
    if intervals is not None and (task == "regression" or classes.size == 2):
        output = prediction if task == "regression" else prediction[1]
        interval = intervals.interval(output)
        note = intervals.label
        if intervals.kind == "conformal":
            interval_name = f"{intervals.confidence:.0%} interval"
            note += beyond_outcomes(*interval, summary.y_train)
        else:
            interval_name, calibrated = TERMS["Venn-ABERS"].plain, intervals.calibrated_risk(output)
    e = Explanation(
        model_name=model_name(model), task=task,
        row=x, row_id=None if row_id is None else str(row_id),
        feature_names=summary.feature_names, prediction=prediction, classes=classes,
        predicted_class=predicted_class, threshold=threshold, decision_rule=rule,
        tree_predictions=tree_predictions, tree_weights=weights,
        weight_parts=contamination_parts(out.parts), tree_scores=scores, offset=out.offset,
        top_trees=top,
        effective_trees=float(effective_trees(weights)),
        top5_share=float(np.sort(weights)[-5:].sum()),
        paths=tuple(tuple(summary.machine.path(x, int(k))) for k in top),
        features=summary.row_table(x, missing, original_row),
        neighbors=summary.neighbor_table(near, distance),
        original_row=None if original_row is None else pd.Series(original_row),
        eps=eps, w=w,
        alternatives=tuple(tuple(summary.machine.alternatives(x, int(k), max_flips=1)
                                 [:n_alternatives]) if n_alternatives else () for k in top),
        columns=summary.columns, missing=missing,
        spread=tree_spread(tree_predictions, weights, out.offset), interval=interval,
        interval_name=interval_name, interval_note=None if interval is None else note,
        calibrated_risk=calibrated,
        warnings=tuple(spread_warnings(
            float(effective_trees(weights)), eps, weights.size,
            base_kept=ensemble.diagnostics().selected_base)),
        contributions=found, spreads=summary.scale,
        boosting=ensemble.describe().boosting)
    return replace(e, why=why_sentence(e))


def contamination_parts(parts) -> tuple[np.ndarray, np.ndarray] | None:
    """One row's ((1−ε)·D, ε·w), or None when the contamination part is zero (no ε·w to
    show)."""
    softmax, contamination = (part[0] for part in parts)
    return None if not contamination.any() else (softmax, contamination)


def effective_trees(weights) -> np.ndarray | float:
    """The effective number of trees 1 / Σ_k α_k² of each row's tree weights (the last axis):
    T for uniform weights, 1 when one tree carries everything."""
    weights = np.asarray(weights, dtype=float)
    return 1.0 / np.sum(weights**2, axis=-1)
