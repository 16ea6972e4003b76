"""The product's workflow as one plain Python object: a data set, the model trained on it and
every view the pages lay out, without a user interface.

    bench = Workbench(load_dataset("pima_diabetes"))           # forestviz.io.bundled
    bench.train(Settings(family="abrf1_qp"))          # split, fit, baselines, summary
    bench.comparison().table                           # held-out metrics of all models
    e = bench.explain(bench.highest_risk_row())        # one row, as the Explain page shows it
    e.to_html()                                        # the report
    data = bench.save(); Workbench(dataset).load(data) # through forestviz.persistence

The pages call the same methods (their training runs in a worker process through
:func:`forestviz.app.workflow.train_bundle`, then :meth:`Workbench.adopt` takes the result);
every model family is read through the weighted-ensemble protocol
(:mod:`forestviz.trees.ensemble`), so nothing here branches on the family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from forestviz import persistence
from forestviz.app import attention_lens, compare, new_rows, whole_model, workflow
from forestviz.app.printing import print_pdf
from forestviz.app.workflow import Bundle, Progress, Settings
from forestviz.enhanced.cleaning import clean
from forestviz.explain import plots
from forestviz.explain.explanation import Explanation, effective_trees, explain
from forestviz.explain.glance import Glance, glance
from forestviz.explain.report import to_html
from forestviz.explain.report_names import report_file_name
from forestviz.explain.report_record import ReportContext, settings_text
from forestviz.explain.tree_choice import TreeChoice, choose_trees
from forestviz.explain.tree_section import TreeSection, tree_sections
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.names import elide
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.fitted import estimator_trees, impurity_importance

MAX_MODELS = 6  # models kept per data set (a session's memory is bounded)
HEATMAP_ROWS = 150
HARDEST_ROWS = 15
TOP_K = 5
ALTERNATIVES = 3  # nearest other leaves shown per top tree


def _quiet(stage: str, fraction: float) -> None:
    """Progress that goes nowhere (scripts)."""


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


@dataclass(frozen=True, eq=False)
class GlobalViews:
    """The Forest page: views of the model over many rows."""

    hardest: pd.DataFrame | None  # ERF: the training rows with the largest final weight
    sample_weights: go.Figure | None
    importance: go.Figure
    heatmap: go.Figure
    heatmap_note: str | None
    effective: go.Figure


class Workbench:
    """One data set (``dataset``, chosen as ``choice``), the models trained on it
    (``trained``: label → Bundle, oldest first, at most :data:`MAX_MODELS`) and the current one
    (``model``, labelled ``label``) that the views show."""

    def __init__(self, dataset: Dataset, choice: DataChoice | None = None,
                 model: Bundle | None = None, trained: Mapping[str, Bundle] | None = None):
        self.dataset = dataset
        self.choice = choice if choice is not None else DataChoice(
            source=f"table:{dataset.name}", target=dataset.target, id_column=dataset.id_column,
            exclude=(), task=dataset.task)
        self.model, self.label = None, None
        self.trained = {label: bundle for label, bundle in (trained or {}).items()
                        if bundle.choice == self.choice}
        if model is not None:
            self.adopt(model)

    # ------------------------------------------------------------------ training and files
    def default_settings(self) -> Settings:
        return workflow.default_settings(self.dataset.task)

    def train(self, settings: Settings | None = None, progress: Progress = _quiet) -> Bundle:
        """Split, encode, fit the family of ``settings`` (default: the quick default for the
        task) and the baselines, and keep the result as :attr:`model`."""
        settings = self.default_settings() if settings is None else settings
        return self.adopt(workflow.train_bundle(self.dataset, self.choice, settings, progress))

    def adopt(self, model: Bundle) -> Bundle:
        """Keep a model trained elsewhere (e.g. in a worker process) on this data set and make
        it the current one; beyond :data:`MAX_MODELS` the oldest other model is dropped."""
        if model.choice != self.choice:
            raise ValueError("this model was trained on another data set or target")
        label = next((name for name, kept in self.trained.items() if kept is model), None)
        if label is None:
            label = base = f"{model.name} · {model.n_trees} trees"
            count = 2
            while label in self.trained:
                label, count = f"{base} #{count}", count + 1
            self.trained[label] = model
            while len(self.trained) > MAX_MODELS:
                del self.trained[next(name for name in self.trained if name != label)]
        self.model, self.label = model, label
        return model

    def use(self, label: str) -> Bundle:
        """Make the trained model ``label`` the current one."""
        self.model, self.label = self.trained[label], label
        return self.model

    def save(self) -> bytes:
        """The model file (:func:`forestviz.persistence.dumps` of the model's payload)."""
        return persistence.dumps(workflow.model_payload(self._model()))

    def load(self, data: bytes, progress: Progress = _quiet) -> Bundle:
        """Read a model file saved for this data set and score it anew (ModelFileError when the
        file is not one or does not fit)."""
        return self.adopt(workflow.restore(persistence.loads(data), self.dataset, self.choice,
                                           progress))

    def predictions_csv(self) -> bytes:
        return workflow.predictions_csv(self._model())

    def _model(self) -> Bundle:
        if self.model is None:
            raise ValueError("no model has been trained on this data set yet")
        return self.model

    # ------------------------------------------------------------------ the Train page
    def comparison(self) -> Comparison:
        model = self._model()
        if model.task == "classification" and len(model.class_names) == 2:
            figure = plots.roc_figure(model.y_test, model.test_predictions, model.class_names[1])
        elif model.task == "regression":
            figure = plots.predicted_vs_actual(model.y_test, model.test_predictions,
                                               model.target)
        else:
            figure = None
        higher = tuple(c for c in ("AUC", "F1", "accuracy", "sensitivity", "specificity", "R²")
                       if c in model.results)
        return Comparison(model.results.set_index("model"), higher, figure,
                          self._training_views(), self._selection_note(), self._calibration())

    def models_table(self) -> pd.DataFrame:
        """Every model trained on this data set and the current model's baselines, on the same
        held-out rows, with the chosen parameters in words (:func:`compare.models_table`)."""
        self._model()
        return compare.models_table(self.trained, self.label)

    def confusion(self) -> pd.DataFrame | None:
        """The current classifier's held-out confusion matrix at its own threshold."""
        model = self._model()
        return compare.confusion(model) if model.task == "classification" else None

    def row_across_models(self, position: int | None = None, *,
                          values: pd.Series | None = None) -> pd.DataFrame:
        """One row (by position or edited ``values``) as every trained model explains it."""
        current = self.label
        explanations = {}
        try:
            for label in self.trained:
                self.use(label)
                explanations[label] = self.explain(position, values=values)
        finally:
            self.use(current)
        return compare.row_across_models(explanations)

    def report(self, explanation: Explanation, *, pdf: bool = False, tree_svgs=None,
               edited=None) -> str | bytes:
        """The report of ``explanation`` for the record, HTML (or PDF), dated now, with the
        current model's data set, settings in words and held-out metrics next to the
        baselines (and the model's origin warning, if it has one). The PDF is printed in a
        worker process within a time limit (:func:`~forestviz.app.printing.print_pdf`:
        :class:`~forestviz.app.printing.PdfRefused` when it is not made)."""
        model = self._model()
        context = ReportContext(dataset=self.dataset.name, model=model.name,
                                settings=settings_text(model.estimator),
                                metrics=model.results.set_index("model"),
                                held_out_rows=len(model.test_rows),
                                origin_warning=model.origin_warning)
        document = to_html(explanation, tree_svgs=tree_svgs, context=context,
                           edited=edited or {}, choice=self.tree_choice(explanation))
        return print_pdf(document) if pdf else document

    def _calibration(self) -> View | None:
        """The trained model's reliability curve on the held-out rows (binary risks) and what
        its explanations' intervals rest on."""
        model = self._model()
        if model.task != "classification" or len(model.class_names) != 2:
            return None
        note = None if model.intervals is None else (
            "Explanations show each row's calibrated risk of "
            f"{model.class_names[1]} with its range ({model.intervals.label}).")
        figure = plots.reliability_figure(model.y_test, model.test_predictions[model.name],
                                          self.dataset.classes[1])
        return View("Is the risk calibrated? (held-out rows)", note, figure)

    def _selection_note(self) -> str | None:
        """The search's verdict in words, from its own table (``search_results_``): which
        candidate won and by how much, on the rows the search held out."""
        model = self._model()
        found = as_ensemble(model.estimator).diagnostics()
        table = found.get("search")
        if "selected_base" not in found or table is None or table["candidate"].iloc[0] != "base":
            return None
        base, chosen = table.iloc[0], table.loc[table["selected"]].iloc[0]
        plain = ("the plain boosting machine" if model.settings.family == "agboost"
                 else "the plain forest")
        if not np.isfinite(base["validation_loss"]):
            return (f"Attention was not compared with {plain}: ε and τ were set by hand and no "
                    "rows were held out to score them.")
        loss = model.estimator.get_params().get("loss", "l2")
        variance = float(np.var(model.y_train)) if (
            model.task == "regression" and loss == "l2") else None
        name = {("regression", "l1"): "mean absolute error", ("classification", "l2"):
                "Brier score", ("classification", "l1"): "mean absolute error of the "
                "probabilities"}.get((model.task, loss), "mean squared error")

        if found.get("search_score") == "AUC":  # the table holds 1 − AUC: a gain is in AUC
            name = "AUC"

            def score(value: float) -> str:
                return f"AUC {1 - value:.3f}"
        else:
            name = found.get("search_score", name)

            def score(value: float) -> str:
                return f"R² {1 - value / variance:.3f}" if variance else f"{name} {value:.4f}"

        methods = table[table["candidate"].isin(("attention", "enhanced"))]
        best = methods.loc[methods["validation_loss"].idxmin()]
        enhanced = "rounds" in table
        other = "Enhanced RF setting" if enhanced else "attention setting"
        method = "Reweighting and model weighting" if enhanced else "Attention"
        held = (f"on the {int(base['n_rows']):,} training rows the search held out: "
                + ("round 1 with plain averaging" if enhanced else plain) + " "
                f"{score(base['validation_loss'])}, the best {other} "
                f"{score(best['validation_loss'])}")
        # the confirmation's out-of-selection difference, in R² where the sentence speaks R²
        gain, gain_se, unit = (-base.get("confirmed_difference", np.nan),
                               base.get("confirmed_se", np.nan), f" in {name}")
        if variance and found.get("search_score") != "AUC":
            gain, gain_se, unit = gain / variance, gain_se / variance, " in R²"
        if found["selected_base"]:
            means = " (each tree reporting the mean of the training rows in its leaf)" if (
                chosen["candidate"] == "base (leaf means)") else ""
            why = "a difference within its standard error"
            if base["difference_to_best"] > base["difference_se"] and "confirmed_se" in base:
                why = ("but the search, redone without each fifth of those rows, did not beat "
                       f"it on the fifth left out: its gain{unit} was {gain:+.3g} ± "
                       f"{gain_se:.3g}, not above zero by two standard errors")
            return (f"{method} did not beat {plain} on this data set ({held}, {why}), so the "
                    f"model is {plain}{means}: the explanation shows its own trees with equal "
                    "weights.")
        if not base["difference_to_best"] > base["difference_se"]:  # not by the search's rule
            return (f"Some settings were fixed by hand, so {plain} was not a candidate ({held}; "
                    f"this model {score(chosen['validation_loss'])}).")
        simplest = "the fewest rounds" if enhanced else "the smoothest weights"
        smoothest = ("" if chosen.name == best.name else
                     " Of the settings within one standard error of the best, the one with "
                     f"{simplest} was chosen ({score(chosen['validation_loss'])}).")
        confirmed = "" if "confirmed_se" not in base else (
            "; redone without each fifth of those rows, it beat it on the fifth left out by "
            f"{gain:.3g} ± {gain_se:.3g}{unit}")
        return (f"{method} improved on {plain} ({held}; the paired difference, "
                f"{base['difference_to_best']:.3g}, is larger than its standard error, "
                f"{base['difference_se']:.3g}{confirmed}).{smoothest}")

    def _training_views(self) -> tuple[View, ...]:
        model, views = self._model(), []
        found = as_ensemble(model.estimator).diagnostics()
        if "rounds" in found:
            views.append(View("Enhanced RF: the reweighting rounds", None,
                              plots.erf_history(found["rounds"], found["best_round"])))
        search = found.get("search")
        if search is not None and "tau" in search and search["validation_loss"].notna().any():
            note = None
            if "discount" in found:  # AGBoost: the curves at the chosen discount γ
                search = search[(search["discount"] == found["discount"])
                                | (search["candidate"] != "attention")]
                note = f"At the chosen discount γ = {found['discount']:g}."
            squared = model.task == "regression" and model.estimator.get_params().get(
                "loss", "l2") == "l2"
            variance = float(np.var(model.y_train)) if squared else None  # R², as the paper
            views.append(View("The ε–τ search (ABRF Fig. 2)", note,
                              plots.tau_curves(search, target_variance=variance)))
        return tuple(views)

    # ------------------------------------------------------------------ the Explain page
    def ranked_rows(self) -> pd.DataFrame:
        """The held-out rows, highest predicted risk (P(last class)) or value first: their
        position in the data set, ID, that number and the recorded outcome."""
        model = self._model()
        label = (f"P({model.class_names[-1]})" if model.task == "classification"
                 else f"predicted {model.target}")
        risk = model.test_predictions[model.name]  # P(last class) or the value, cached at fit
        frame = pd.DataFrame({"position": model.test_rows, "ID": model.ids_test, label: risk,
                              "actual": model.y_test})
        return frame.sort_values(label, ascending=False, kind="stable").reset_index(drop=True)

    def highest_risk_row(self) -> int:
        return int(self.ranked_rows()["position"].iloc[0])

    def editable_columns(self) -> list[tuple[str, float | None, tuple[str, ...] | None]]:
        """The what-if editor's fields: (column, median for a number or None, the known
        categories or None) for every column the model uses, in the table's order."""
        pre = self._model().preprocessor
        return [(c, float(pre.medians_[c]), None) if c in pre.medians_
                else (c, None, tuple(map(str, pre.categories_[c])))
                for c in pre.feature_names_in_ if c not in pre.dropped_columns_]

    def new_row_fields(self) -> list[new_rows.Field]:
        """The New-patient form's fields (:func:`forestviz.app.new_rows.fields`)."""
        return new_rows.fields(self._model())

    def explain(self, position: int | None = None, *, values: pd.Series | None = None,
                row_id: str | None = None, top_k: int = TOP_K) -> Explanation:
        """The explanation of the data set's row at ``position`` or of edited ``values``
        (a row's original columns; missing ones count as missing values)."""
        model = self._model()
        if values is None:
            if position is None or not 0 <= position < len(self.dataset.frame):
                raise ValueError("choose a row of the data set (by position) or give values")
            values = self.dataset.X.iloc[position]
            row_id = str(self.dataset.ids.iloc[position]) if row_id is None else row_id
        frame = pd.DataFrame([pd.Series(values).to_dict()])
        columns = list(model.preprocessor.feature_names_in_)
        frame = frame.reindex(columns=columns)  # absent columns: missing
        x = model.preprocessor.transform(frame)[0]
        return explain(model.estimator, x, top_k=top_k, summary=model.summary,
                       original_row=pd.Series(values), row_id=row_id,
                       n_alternatives=ALTERNATIVES, intervals=model.intervals)

    def glance(self, explanation: Explanation) -> Glance:
        """The summary of one explanation (:func:`forestviz.explain.glance.glance`), with
        names cut for display as everywhere else."""
        model = self._model()
        return glance(model.estimator, explanation, model.summary, name=elide)

    def tree_choice(self, explanation: Explanation) -> TreeChoice:
        """Which trees to draw for the row and under what name
        (:func:`forestviz.explain.tree_choice.choose_trees`)."""
        return choose_trees(explanation, self._model().summary)

    def tree_sections(self, explanation: Explanation,
                      choice: TreeChoice) -> tuple[TreeSection, ...]:
        """The chosen trees' sections (:func:`forestviz.explain.tree_section.tree_sections`),
        names cut for display."""
        return tree_sections(explanation, choice, name=elide)

    def report_name(self, explanation: Explanation, suffix: str, *, edited: bool = False) -> str:
        """The report's file name: row ID, model, date (:func:`report_file_name`)."""
        return report_file_name(explanation.row_id, self._model().name, suffix, edited=edited)

    def is_training_row(self, position: int) -> bool:
        return bool(np.isin(position, self._model().train_rows))

    # ------------------------------------------------------------------ the Forest page
    def global_views(self) -> GlobalViews:
        model = self._model()
        found = as_ensemble(model.estimator).diagnostics()
        hardest = weights = None
        if "sample_importance" in found:
            importance = found["sample_importance"]
            order = np.argsort(-importance, kind="stable")[:HARDEST_ROWS]
            positions = model.train_rows[found["train_indices"][order]]
            hardest = pd.concat([pd.DataFrame({
                "ID": self.dataset.ids.iloc[positions].to_numpy(),
                "weight (1 = average row)": importance[order] * importance.size,
                "recorded outcome": self.dataset.y.iloc[positions].to_numpy()}),
                self.dataset.X.iloc[positions].reset_index(drop=True)], axis=1)
            weights = plots.sample_weight_histogram(importance)
        importance = impurity_importance(estimator_trees(model.estimator),
                                         len(model.feature_names))
        shown, ids, note = model.test_weights, model.ids_test, None
        if len(ids) > HEATMAP_ROWS:
            note = f"{HEATMAP_ROWS} of the {len(ids)} held-out rows are shown, evenly spaced."
            keep = np.linspace(0, len(ids) - 1, HEATMAP_ROWS).astype(int)
            shown, ids = shown[keep], ids[keep]
        return GlobalViews(
            hardest=hardest, sample_weights=weights,
            # per user column: a category's indicators together (impurity decreases add up)
            importance=plots.importance_bars(model.summary.columns.fold(importance),
                                             model.summary.columns.names),
            heatmap=plots.weight_heatmap(shown, row_labels=list(ids)), heatmap_note=note,
            effective=plots.effective_trees_histogram(effective_trees(model.test_weights),
                                                      model.n_trees))

    def whole(self) -> whole_model.WholeModel:
        """The whole model through its explanations (:class:`whole_model.WholeModel`):
        global contributions, dependence, cohorts, trust."""
        return whole_model.WholeModel(self._model(), self.dataset.X)

    def has_attention_lens(self) -> bool:
        """Whether the model is an attention forest that kept its plain forest."""
        return attention_lens.best_setting(self._model()) is not None

    def attention_lens(self) -> attention_lens.Lens | None:
        """:func:`forestviz.app.attention_lens.lens` of the model (refitted once)."""
        return attention_lens.lens(self._model())

    def cleaning(self, rounds: int, *, max_trees: int = 50):
        """ERF Algorithm 2 on the training rows as (function, arguments) for a worker: an
        Enhanced RF with this model's settings and at most ``max_trees`` trees; None when the
        model is not an Enhanced RF."""
        model = self._model()
        if "sample_importance" not in as_ensemble(model.estimator).diagnostics():
            return None
        settings = replace(model.settings,
                           n_estimators=min(model.settings.n_estimators, max_trees))
        estimator = workflow.make_estimator(settings, model.task)
        task = partial(clean, max_rounds=rounds, random_state=settings.random_state)
        return task, (estimator, model.X_train, model.y_train)
