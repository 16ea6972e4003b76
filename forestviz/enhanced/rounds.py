"""Algorithm 1's reweighting rounds (Bertsimas & Stoumpou, "Binary Classification: Is Boosting
stronger than Bagging?"; algorithms.md §3.1). How many of them, with or without model
weighting, the Enhanced Random Forest keeps is :mod:`forestviz.enhanced.choice`.

The paper keeps the round of best validation AUC on a 20 % split and fits model weighting on top
of it. Measured on the bundled Pima table over ten 75/25 splits, that lost 1.3 AUC points to a
plain ``RandomForestClassifier(200, max_depth=6)``: the forest saw only 80 % of the training
rows (refitting the kept rounds on all rows: −0.06 points), and model weighting (a per-row
selection of at most M·L of the T trees) cost 1.5 points on its own. So the choice is made like
the attention models' (the one-standard-error rule of :mod:`forestviz.selection`, by AUC with
DeLong's standard errors for two classes, by the Brier score per row otherwise) among
candidates ordered simplest first: round 1 with plain averaging (the plain forest), round 2, …,
then model weighting at the round of best validation AUC; and the kept configuration is
refitted on all the rows; a choice other than the plain forest must also beat it on
validation rows it was not made on (:func:`choose`). With that, the gap on Pima is
−0.14 ± 0.14 points, within the seed noise of two plain forests (docs/reproduction.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from forestviz.enhanced.model_weighting import mean_proba
from forestviz.enhanced.reweighting import auc_score, update_weights, youden_thresholds
from forestviz.enhanced.sampling import draw_feature_subsets, fit_forest, n_subset_features
from forestviz.trees.leaf_values import LeafTable


@dataclass(frozen=True, eq=False)
class Round:
    """One round's forest: its leaf table, feature subsets (FT) or None, in-bag masks (T × n),
    the row weights after the round's update, its ``history_`` record, and the mean
    probabilities of the validation rows (None without them)."""

    table: LeafTable
    subsets: np.ndarray | None
    inbag: np.ndarray
    weights: np.ndarray
    record: dict
    val_proba: np.ndarray | None


def run_rounds(model, X_tr, y_tr, sw_tr, X_val, y_val, sw_val, n_rounds, rng, report,
               early_stopping) -> list[Round]:
    """Up to ``n_rounds`` rounds of Algorithm 1 on the training rows with ``model``'s settings;
    each round scored on the validation rows (if any), stopping at the first round whose
    validation AUC drops below the best so far when ``early_stopping``."""
    n_classes, n_features = len(model.classes_), X_tr.shape[1]
    subset_size = n_subset_features(model.max_features, n_features)
    weights = sw_tr / sw_tr.mean()  # the paper's w_i = 1, scaled by the user's weights
    rounds: list[Round] = []
    for it in range(n_rounds):
        report(f"iteration {it + 1}/{n_rounds}", it / (n_rounds + 1))
        subsets = (draw_feature_subsets(model.n_estimators, n_features, subset_size, rng)
                   if model.features_per_tree else None)
        trees, inbag = fit_forest(
            X_tr, y_tr, n_estimators=model.n_estimators, max_depth=model.max_depth,
            max_features=model.max_features,
            weights=weights if model.sample_weighting else None,
            probabilities=weights / weights.sum() if model.sample_probabilities else None,
            feature_subsets=subsets, rng=rng, n_jobs=model.n_jobs)
        table = LeafTable(trees, n_classes)
        p_train = training_proba(model, table, table.apply(X_tr, model.n_jobs), inbag)
        thresholds = youden_thresholds(y_tr, p_train, n_classes, sw_tr)
        val_proba = (mean_proba(table.apply(X_val, model.n_jobs), table.values, model.n_jobs)
                     if len(y_val) else None)
        val_auc = auc_score(y_val, val_proba, sw_val) if len(y_val) else np.nan
        new_weights = update_weights(weights, y_tr, p_train, thresholds, model.learning_rate)
        rounds.append(Round(table, subsets, inbag, new_weights,
                            record(it, thresholds, auc_score(y_tr, p_train, sw_tr), val_auc,
                                   new_weights), val_proba))
        best_auc = max((r.record["validation_auc"] for r in rounds[:-1]), default=np.nan)
        if early_stopping and val_auc < best_auc:
            break
        weights = new_weights
    return rounds


def training_proba(model, table, leaves, inbag):
    """Algorithm 1's p_i: the mean over all trees (in-sample, as in the paper) or, with
    ``oob_ranking``, over the trees that did not draw the row (a row every tree drew falls
    back to all trees)."""
    if not model.oob_ranking:
        return mean_proba(leaves, table.values, model.n_jobs)
    oob = (~inbag.T).astype(float)
    oob[oob.sum(axis=1) == 0] = 1.0
    return np.einsum("nt,ntc->nc", oob / oob.sum(axis=1, keepdims=True), table.values[leaves])


def record(it, thresholds, train_auc, val_auc, weights) -> dict:
    """One ``history_`` entry: t*, AUCs and the distribution of the updated weights w_i."""
    q = np.quantile(weights, [0.0, 0.25, 0.5, 0.75, 1.0])
    return {
        "iteration": it + 1,
        "threshold": float(thresholds[1]) if len(thresholds) == 2 else thresholds.tolist(),
        "train_auc": train_auc,
        "validation_auc": val_auc,
        "weight_mean": float(weights.mean()),
        "weight_std": float(weights.std()),
        "weight_min": float(q[0]),
        "weight_q25": float(q[1]),
        "weight_median": float(q[2]),
        "weight_q75": float(q[3]),
        "weight_max": float(q[4]),
        "zero_weight_fraction": float(np.mean(weights == 0)),
    }
