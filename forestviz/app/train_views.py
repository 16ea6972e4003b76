"""The Train page's views of a trained model: the model next to its baselines on the held-out
rows, what the fit learned (the Enhanced Random Forest's rounds, the ε–τ search of ABRF Fig. 2),
the search's verdict in words (:func:`forestviz.explain.whole.selection_note.selection_note`) and,
for a binary risk, the reliability curve its calibrated intervals rest on.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from forestviz.app.workflow import Bundle
from forestviz.explain import plots
from forestviz.explain.whole.selection_note import r2_variance, selection_note
from forestviz.io.dataset import Dataset
from forestviz.trees.diagnostics import Diagnostics
from forestviz.trees.ensemble import as_ensemble

HIGHER_IS_BETTER = ("AUC", "F1", "accuracy", "sensitivity", "specificity", "R²")


@dataclass(frozen=True, eq=False)
class View:
    """A figure as a page shows it: a heading, a note under it (or None) and the figure."""

    title: str
    note: str | None
    figure: go.Figure


@dataclass(frozen=True, eq=False)
class Comparison:
    """The trained model next to the baselines on the held-out rows."""

    table: pd.DataFrame  # one row per model (index): metrics and fit seconds
    higher_is_better: tuple[str, ...]  # the metric columns where larger is better
    figure: go.Figure | None  # ROC curves (binary) or predicted against actual (regression)
    training: tuple[View, ...]  # what the fit learned: ERF rounds, the ε–τ search
    selection: str | None = None  # why the model chose attention or its plain base model
    calibration: View | None = None  # binary risk: the reliability curve on held-out rows


def comparison(model: Bundle, dataset: Dataset) -> Comparison:
    """The Train page's views of ``model``, trained on ``dataset``."""
    if model.task == "classification" and len(model.class_names) == 2:
        figure = plots.roc_figure(model.y_test, model.test_predictions, model.class_names[1])
    elif model.task == "regression":
        figure = plots.predicted_vs_actual(model.y_test, model.test_predictions, model.target)
    else:
        figure = None
    higher = tuple(c for c in HIGHER_IS_BETTER if c in model.results)
    ensemble = as_ensemble(model.estimator)
    found, said = ensemble.diagnostics(), ensemble.describe()
    variance = r2_variance(model.task, said.loss, model.y_train)
    note = selection_note(found.search, plain=said.plain, task=model.task, loss=said.loss,
                          variance=variance)
    return Comparison(model.results.set_index("model"), higher, figure,
                      training_views(found, variance), note, calibration(model, dataset))


def calibration(model: Bundle, dataset: Dataset) -> View | None:
    """The trained model's reliability curve on the held-out rows (binary risks of the data
    set's second class) and what its explanations' intervals rest on."""
    if model.task != "classification" or len(model.class_names) != 2:
        return None
    note = None if model.intervals is None else (
        "Explanations show each row's calibrated risk of "
        f"{model.class_names[1]} with its range ({model.intervals.label}).")
    figure = plots.reliability_figure(model.y_test, model.test_predictions[model.name],
                                      dataset.classes[1])
    return View("Is the risk calibrated? (held-out rows)", note, figure)


def training_views(found: Diagnostics, variance: float | None) -> tuple[View, ...]:
    """What the fit learned: ERF's reweighting rounds and the ε–τ search's curves (as R² when
    ``variance`` is given: :func:`~forestviz.explain.whole.selection_note.r2_variance`)."""
    views = []
    if found.rounds is not None:
        views.append(View("Enhanced RF: the reweighting rounds", None,
                          plots.erf_history(found.rounds.history, found.rounds.best)))
    search = found.search
    if search is None:
        return tuple(views)
    if search.by_settings and search.scored:
        note = None  # AGBoost: the curves at the chosen discount γ
        if search.discount is not None:
            note = f"At the chosen discount γ = {search.discount:g}."
        views.append(View("The ε–τ search (ABRF Fig. 2)", note,
                          plots.tau_curves(search.curves(), target_variance=variance)))
    return tuple(views)
