"""The Forest page's views of a model over many rows: the training rows an Enhanced Random
Forest weighted most (its final sample importance s_i, Bertsimas & Stoumpou, Algorithm 1),
the trees' impurity importance per user column, the held-out rows' tree weights as a heatmap
and the effective number of trees 1 / Σ_k α_k² of each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from forestviz.app.workflow import Bundle
from forestviz.explain import plots
from forestviz.explain.row.explanation import effective_trees
from forestviz.io.dataset import Dataset
from forestviz.registry import FAMILIES
from forestviz.trees.diagnostics import Rounds
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.fitted import estimator_trees, impurity_importance

HEATMAP_ROWS = 150
HARDEST_ROWS = 15


@dataclass(frozen=True, eq=False)
class GlobalViews:
    """The Forest page: views of the model over many rows."""

    hardest: pd.DataFrame | None  # ERF: the training rows with the largest final weight
    sample_weights: go.Figure | None
    no_rounds: str | None  # why there are no reweighting rounds (hardest rows, cleaning), or None
    importance: go.Figure
    heatmap: go.Figure
    heatmap_note: str | None
    effective: go.Figure


def global_views(model: Bundle, dataset: Dataset) -> GlobalViews:
    """The views of ``model``, trained on ``dataset``."""
    cleans = FAMILIES[model.settings.family].cleans
    hardest = weights = None
    if cleans:
        rounds = as_ensemble(model.estimator).diagnostics().rounds
        hardest = hardest_rows(rounds, model, dataset)
        weights = plots.sample_weight_histogram(rounds.sample_importance)
    importance = impurity_importance(estimator_trees(model.estimator),
                                     len(model.feature_names))
    shown, ids, note = model.test_weights, model.ids_test, None
    if len(ids) > HEATMAP_ROWS:
        note = f"{HEATMAP_ROWS} of the {len(ids)} held-out rows are shown, evenly spaced."
        keep = np.linspace(0, len(ids) - 1, HEATMAP_ROWS).astype(int)
        shown, ids = shown[keep], ids[keep]
    return GlobalViews(
        hardest=hardest, sample_weights=weights,
        no_rounds=None if cleans else no_rounds_note(model.task),
        # per user column: a category's indicators together (impurity decreases add up)
        importance=plots.importance_bars(model.summary.columns.fold(importance),
                                         model.summary.columns.names),
        heatmap=plots.weight_heatmap(shown, row_labels=list(ids)), heatmap_note=note,
        effective=plots.effective_trees_histogram(effective_trees(model.test_weights),
                                                  model.n_trees))


def no_rounds_note(task: str) -> str:
    """Why a model of ``task`` without reweighting rounds shows neither the hardest rows nor
    cleaning rounds, and what to do, if anything: only an Enhanced RF has them, and only a
    classification target offers one."""
    erf = next(family for family in FAMILIES.values() if family.cleans)
    name = erf.option_words  # "Enhanced RF"
    said = (f"Sample importance and cleaning rounds (ERF Algorithm 2) come from the {name}'s "
            "reweighting rounds")
    if task in erf.tasks:
        return f"{said}: train an {name} to see which rows the forest found hardest."
    return (f"{said}, and the {name} learns {' and '.join(sorted(erf.tasks))} targets only: "
            f"a model of this {task} target has neither.")


def hardest_rows(rounds: Rounds, model: Bundle, dataset: Dataset) -> pd.DataFrame:
    """The :data:`HARDEST_ROWS` training rows with the largest final weight s_i: ID, the weight
    (1 = an average row), the recorded outcome and the row's values."""
    importance = rounds.sample_importance
    order = np.argsort(-importance, kind="stable")[:HARDEST_ROWS]
    positions = model.train_rows[rounds.train_indices[order]]
    return pd.concat([pd.DataFrame({
        "ID": dataset.ids.iloc[positions].to_numpy(),
        "weight (1 = average row)": importance[order] * importance.size,
        "recorded outcome": dataset.y.iloc[positions].to_numpy()}),
        dataset.X.iloc[positions].reset_index(drop=True)], axis=1)
