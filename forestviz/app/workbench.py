"""The product's workflow as one plain Python object: a data set, the model trained on it and
every view the pages lay out, without a user interface.

    bench = Workbench(load_dataset("pima_diabetes"))           # forestviz.io.bundled
    bench.train(Settings(family="abrf1_qp"))          # split, fit, baselines, summary
    bench.comparison().table                           # held-out metrics of all models
    e = bench.explain(bench.highest_risk_row())        # one row, as the Explain page shows it
    bench.report(e)                                    # the report (HTML; pdf=True)
    data = bench.save(); Workbench(dataset).load(data) # through forestviz.persistence

The pages call the same methods (their training runs in a worker process through
:func:`forestviz.app.workflow.train_bundle`, then :meth:`Workbench.adopt` takes the result);
every model family is read through the weighted-ensemble protocol
(:mod:`forestviz.trees.ensemble`), so nothing here branches on the family.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from forestviz.app import (
    attention_lens,
    compare,
    counterfactuals,
    forest_views,
    model_file,
    new_rows,
    train_views,
    whole_model,
    workflow,
)
from forestviz.app.printing import print_pdf
from forestviz.app.row_cache import kept, row_figures, row_key
from forestviz.app.workflow import Bundle, Progress, Settings
from forestviz.enhanced.cleaning import clean
from forestviz.explain.counterfactual.asked import space_of
from forestviz.explain.drawing.tree_drawings import tree_drawings
from forestviz.explain.plots.conventions import WIDTH
from forestviz.explain.plots.reasons import fitted_waterfall
from forestviz.explain.report.document import to_html
from forestviz.explain.report.names import report_file_name
from forestviz.explain.report.record import ReportContext, settings_text
from forestviz.explain.row.explanation import Explanation, explain
from forestviz.explain.row.glance import Glance, glance
from forestviz.explain.row.tree_choice import TreeChoice, choose_trees
from forestviz.explain.row.view import ExplainView, explain_view, figure_names
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.names import DisplayNames, elide
from forestviz.numbers import outcome_text, plain_number
from forestviz.persistence.model_file import ModelFile
from forestviz.registry import FAMILIES

MAX_MODELS = 6  # models kept per data set (a session's memory is bounded)
TOP_K = 5
ALTERNATIVES = 3  # nearest other leaves shown per top tree


def _quiet(stage: str, fraction: float) -> None:
    """Progress that goes nowhere (scripts)."""


class Workbench:
    """One data set (``dataset``, chosen as ``choice``), the models trained on it
    (``trained``: label → Bundle, oldest first, at most :data:`MAX_MODELS`) and the current one
    (``model``, labelled ``label``) that the views show. ``fixed``: the columns the user marked
    as unable to change, per model (the session's memory, kept across workbenches; a model
    not in it has those it was published with, :attr:`Bundle.fixed`)."""

    def __init__(self, dataset: Dataset, choice: DataChoice | None = None,
                 model: Bundle | None = None, trained: Mapping[str, Bundle] | None = None,
                 fixed: MutableMapping[Bundle, tuple[str, ...]] | None = None):
        self.dataset = dataset
        self.fixed = {} if fixed is None else fixed
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
        """The model file (:class:`~forestviz.persistence.model_file.ModelFile`)."""
        return ModelFile.of(self._model()).dumps()

    def load(self, data: bytes | ModelFile, progress: Progress = _quiet, *,
             with_baselines: bool = True) -> Bundle:
        """Read a model file saved for this data set (its bytes, or the file read already) and
        score it anew, the baselines beside it unless not ``with_baselines`` (ModelFileError
        when the file is not one or does not fit)."""
        file = data if isinstance(data, ModelFile) else ModelFile.read(data)
        return self.adopt(model_file.restore(file, self.dataset, self.choice, progress,
                                             with_baselines=with_baselines))

    def predictions_csv(self) -> bytes:
        return workflow.predictions_csv(self._model())

    def _model(self) -> Bundle:
        if self.model is None:
            raise ValueError("no model has been trained on this data set yet")
        return self.model

    # ------------------------------------------------------------------ the Train page
    def comparison(self) -> train_views.Comparison:
        """The Train page's views (:func:`forestviz.app.train_views.comparison`)."""
        model = self._model()
        return train_views.comparison(model, self.dataset)

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

    def report(self, explanation: Explanation, *, pdf: bool = False, appendix: bool = False,
               glance: Glance | None = None, edited=None, actual=None,
               published: str | None = None, card: str | None = None,
               training_row: bool = False, counterfactual=None, disputes=()) -> str | bytes:
        """The report of ``explanation`` for the record, HTML (or PDF), dated now: on its first
        page the summary of ``glance`` (the one the Explain page shows; by default
        :meth:`glance`) with the current model's data set; when ``appendix``, the technical
        appendix (settings in words, held-out metrics next to the baselines, then the
        :meth:`explain_view` the page shows below its summary, its trees drawn: drawings are
        cached by content, so the page's cost nothing here). ``edited``: the columns a what-if
        changed, each with its value before the edit; ``actual``: the row's recorded outcome,
        if known. ``published``: the model library's "NAME@VERSION" of the model, when opened
        from there, and ``card`` the SHA-256 of its model card (the record names both); the
        model's origin warning, if it has one, under the title; ``training_row``: the model
        learned from the row (the record says its prediction is optimistic);
        ``counterfactual``: what would change the answer (:meth:`counterfactual`), when one
        was asked for the row; ``disputes``: the disagreements recorded with the row, one
        sentence each (:meth:`forestviz.store.disputes.Dispute.sentence`), listed in the
        record. The PDF is printed in a worker process within a time limit
        (:func:`~forestviz.app.printing.print_pdf`: :class:`~forestviz.app.printing.PdfRefused`
        when it is not made)."""
        model = self._model()
        context = ReportContext(dataset=self.dataset.name, model=model.name,
                                settings=settings_text(model.estimator),
                                metrics=model.results.set_index("model"),
                                held_out_rows=len(model.test_rows), published=published,
                                card=card,
                                origin_warning=model.origin_warning,
                                training_row=training_row, disputes=tuple(disputes))
        glance = replace(self.glance(explanation) if glance is None else glance,
                         counterfactual=counterfactual)
        names = DisplayNames()  # remembers the names it cut, for the report's table of them
        view, tree_svgs = None, None
        if appendix:
            view = self.explain_view(explanation, glance, actual=actual, edited=edited,
                                     name=names)
            tree_svgs = tree_drawings(model.estimator, explanation, model.context,
                                      trees=view.trees)
        document = to_html(explanation, glance=glance, appendix=appendix, view=view,
                           names=names, tree_svgs=tree_svgs, context=context,
                           edited=edited or {})
        return print_pdf(document) if pdf else document

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

    def row_labels(self) -> dict[int, str]:
        """The held-out rows' picker texts by position, in :meth:`ranked_rows`' order: "ID ·
        its predicted risk or value · recorded: its outcome", numbers as a person reads them
        (a risk to two decimals as the tiles print it, a value to four significant digits):
        "403 · 269.3 · recorded: 275", never "881.2115099303014"."""
        ranked = self.ranked_rows()
        classes = self._model().task == "classification"
        label = ranked.columns[2]
        return {int(p): f"{i} · {f'{r:.2f}' if classes else plain_number(r, 4)} · recorded: "
                        f"{outcome_text(a)}"
                for p, i, r, a in ranked[["position", "ID", label, "actual"]].itertuples(
                    index=False)}

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
        """The summary of one explanation (:func:`forestviz.explain.row.glance.glance`), with
        names cut for display as everywhere else, and how unusual the row is for the model
        (:attr:`Bundle.familiar`)."""
        model = self._model()
        return glance(model.estimator, explanation, model.summary, name=elide,
                      familiarity=model.familiar.assess(explanation.row))

    def fixed_columns(self) -> tuple[str, ...]:
        """The current model's columns that cannot change (its counterfactual's): as marked
        in this session, else as published (:mod:`forestviz.app.counterfactuals` says why none
        by default)."""
        model = self._model()
        return self.fixed.get(model, model.fixed)

    def fix_columns(self, names) -> tuple[str, ...]:
        """Mark the current model's columns ``names`` (and no others) as unable to change, in
        the model's column order; DataError when one is not a column of the model."""
        model = self._model()
        columns = model.summary.columns.names
        space_of(model.X_train, model.summary.columns, names)  # known names
        self.fixed[model] = tuple(c for c in columns if c in set(names))
        return self.fixed[model]

    def counterfactual(self, explanation: Explanation, *, change: float | None = None,
                       time_limit: float = counterfactuals.TIME_LIMIT, progress=None):
        """What would change the answer for the explanation's row
        (:func:`forestviz.app.counterfactuals.counterfactual`), the current model's
        :meth:`fixed_columns` kept: its other class, or its prediction moved by ``change``."""
        model = self._model()
        return counterfactuals.counterfactual(model, explanation, fixed=self.fixed_columns(),
                                              change=change, time_limit=time_limit,
                                              progress=progress)

    def explain_view(self, explanation: Explanation, glance: Glance, *, actual=None,
                     edited=None, width: int = WIDTH, name=elide) -> ExplainView:
        """What the Explain page shows below the summary ``glance``, and the report's appendix
        prints (:func:`forestviz.explain.row.view.explain_view`): the trees of :meth:`tree_choice`,
        the figures for a page ``width`` pixels wide built once per model and row
        (:mod:`forestviz.app.row_cache`; none of the tree weights' when they are equal);
        ``actual`` the recorded outcome, ``edited`` a what-if's changed columns with their
        values before the edit, ``name`` how names are shown."""
        choice = self.tree_choice(explanation)
        charts = row_figures(self._model(), explanation, width=width, trees=tuple(choice.trees),
                             names=figure_names(choice.equal_weights))
        return explain_view(explanation, glance, choice=choice, actual=actual, edited=edited,
                            charts=charts, width=width, name=name)

    def reasons_figure(self, glance: Glance, explanation: Explanation, *, width: int,
                       height: int) -> go.Figure | None:
        """The glance's waterfall of reasons both ways in ``width`` × ``height`` pixels
        (:func:`~forestviz.explain.plots.reasons.fitted_waterfall`), None without reasons;
        built once per model and row (:mod:`forestviz.app.row_cache`)."""
        if glance.reasons is None:
            return None
        return kept(self._model(), ("reasons", *row_key(explanation, width=width,
                                                        height=height)),
                    lambda: fitted_waterfall(glance.reasons, width=width, height=height))

    def tree_choice(self, explanation: Explanation) -> TreeChoice:
        """Which trees to draw for the row and under what name
        (:func:`forestviz.explain.row.tree_choice.choose_trees`)."""
        return choose_trees(explanation, self._model().summary)

    def report_name(self, explanation: Explanation, suffix: str, *, edited: bool = False) -> str:
        """The report's file name: row ID, model, date (:func:`report_file_name`)."""
        return report_file_name(explanation.row_id, self._model().name, suffix, edited=edited)

    def is_training_row(self, position: int) -> bool:
        return bool(np.isin(position, self._model().train_rows))

    # ------------------------------------------------------------------ the Forest page
    def global_views(self) -> forest_views.GlobalViews:
        """The Forest page's views (:func:`forestviz.app.forest_views.global_views`)."""
        return forest_views.global_views(self._model(), self.dataset)

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
        if not FAMILIES[model.settings.family].cleans:
            return None
        settings = replace(model.settings,
                           n_estimators=min(model.settings.n_estimators, max_trees))
        estimator = workflow.make_estimator(settings, model.task)
        task = partial(clean, max_rounds=rounds, random_state=settings.random_state)
        return task, (estimator, model.X_train, model.y_train)
