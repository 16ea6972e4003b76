"""The whole model through its explanations, for a trained :class:`~forestviz.app.workflow.Bundle`:
the held-out rows' contributions together (:mod:`forestviz.explain.whole.population`), partial
dependence through the model's own prediction (:mod:`forestviz.explain.whole.partial_dependence`)
and how far its explanations can be relied on (:mod:`forestviz.explain.whole.trust`).

Every row's contributions come from the command line's batch explanation
(:func:`forestviz.batch.rows.explain_rows` with contributions), which equals one row's
explanation on the Explain page; the held-out rows' are made once per model and kept while the
model is.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from forestviz.app import new_rows
from forestviz.app.row_cache import kept, row_key
from forestviz.app.workflow import Bundle, Settings, make_estimator
from forestviz.batch.model import BatchModel
from forestviz.batch.rows import explain_rows
from forestviz.explain.row.explanation import Explanation
from forestviz.explain.row.narrative import target_column
from forestviz.explain.whole.cohorts import CohortComparison, compare
from forestviz.explain.whole.partial_dependence import Dependence, grid_of, partial_dependence
from forestviz.explain.whole.population import Population
from forestviz.explain.whole.trust import (
    NEIGHBOURS,
    Stability,
    compacity,
    same_reasons_share,
    stability,
)
from forestviz.io.dataset import as_numbers
from forestviz.numbers import plain_number
from forestviz.trees.ensemble import as_ensemble

_POPULATIONS: weakref.WeakKeyDictionary[Bundle, Population] = weakref.WeakKeyDictionary()
_TRUST: weakref.WeakKeyDictionary[Bundle, pd.DataFrame] = weakref.WeakKeyDictionary()


def population(bundle: Bundle, X: pd.DataFrame) -> Population:
    """The held-out rows (``bundle.test_rows`` of the data set's user columns ``X``)
    explained together, made once per model."""
    if bundle not in _POPULATIONS:
        rows = X.iloc[bundle.test_rows]
        found = new_rows.several(bundle, rows, max_rows=None)
        _POPULATIONS[bundle] = Population.from_outputs(
            found.outputs.assign(id=bundle.ids_test), rows, found.target)
    return _POPULATIONS[bundle]


def model_number(bundle: Bundle, rows: pd.DataFrame) -> np.ndarray:
    """The model's number for user ``rows``: the value, the risk P(second class), or with more
    classes the probability of the class predicted most often on the held-out rows."""
    x = bundle.preprocessor.transform(rows)
    if bundle.task != "classification":
        return bundle.estimator.predict(x)
    proba = bundle.estimator.predict_proba(x)
    if proba.shape[1] == 2:
        return proba[:, 1]
    common = np.bincount(np.argmax(bundle.estimator.predict_proba(bundle.X_test), axis=1),
                         minlength=proba.shape[1]).argmax()
    return proba[:, common]


def partial_dependence_of(bundle: Bundle, X: pd.DataFrame, column: str, *,
                          random_state=0) -> Dependence:
    """Partial dependence and ICE curves of ``column`` over the held-out rows for
    :func:`model_number`."""
    rows = X.iloc[bundle.test_rows]
    numeric = column in bundle.preprocessor.medians_  # numbers, maybe written as text
    grid = grid_of(as_numbers(rows[column]) if numeric else rows[column], numeric=numeric)
    return partial_dependence(lambda frame: model_number(bundle, frame), rows, column, grid,
                              random_state=random_state)


def _contributions(bundle: Bundle, X_encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Encoded rows' contributions per user column (to the number each row's waterfall
    speaks of) and their tree weights; none when no row is given (every training row is the
    explained row's twin, so it has no neighbour)."""
    if not len(X_encoded):
        return (np.empty((0, len(population_columns(bundle)))),
                np.empty((0, bundle.test_weights.shape[1])))
    model = new_rows.batch_model(bundle)
    outputs = explain_rows(model, X_encoded, np.arange(len(X_encoded)), contributions=True)
    parts = outputs.filter(like="contribution[").to_numpy(dtype=float)
    names = getattr(bundle.estimator, "feature_names_in_", None)
    rows = X_encoded if names is None else pd.DataFrame(X_encoded, columns=names)
    return parts, as_ensemble(bundle.estimator).lean_outputs(rows).weights


def stability_of(bundle: Bundle, explanation: Explanation) -> Stability:
    """The explained row against the most similar training rows its explanation lists (the
    rows "Most similar training rows" shows and the summary counts)."""
    index = explanation.neighbors["row"].to_numpy(dtype=np.intp)
    theirs, weights = _contributions(bundle, bundle.summary.X_train[index])
    c = explanation.contributions
    column = target_column(explanation)
    mine = c.total if column is None else c.total[:, column]
    order = [c.feature_names.index(name) for name in population_columns(bundle)]
    return stability(mine[order], explanation.tree_weights, theirs, weights)


def population_columns(bundle: Bundle) -> list[str]:
    """The user columns contributions are given for, in the batch explanation's order."""
    return list(dict.fromkeys(str(s) for s in bundle.preprocessor.source_columns_))


def trust_table(bundle: Bundle, X: pd.DataFrame) -> pd.DataFrame:
    """Per held-out row: ``ID``, ``same top reasons`` and ``same heaviest trees`` among its
    most similar training rows (of ``similar rows``; trees None when every tree weighs the
    same) and ``compacity`` (columns reaching 90 % of its movement); made once per model."""
    if bundle in _TRUST:
        return _TRUST[bundle]
    found = population(bundle, X)
    summary = bundle.summary
    neighbours = [summary.nearest(x, NEIGHBOURS)[0] for x in bundle.X_test]
    unique, inverse = np.unique(np.concatenate(neighbours), return_inverse=True)
    theirs, weights = _contributions(bundle, summary.X_train[unique])
    rows, start = [], 0
    for i, index in enumerate(neighbours):
        at = inverse[start:start + len(index)]
        start += len(index)
        rows.append(stability(found.contributions[i], bundle.test_weights[i], theirs[at],
                              weights[at]))
    table = pd.DataFrame({
        "ID": bundle.ids_test, "similar rows": [r.n for r in rows],
        "same top reasons": [r.reasons_same for r in rows],
        "same heaviest trees": pd.array([r.trees_same for r in rows], dtype="Int64"),
        "compacity": compacity(found.contributions)})
    _TRUST[bundle] = table
    return table


SPLITS = {
    "outcome": "Right against wrong predictions",
    "prediction": "By the predicted class or value",
    "column": "By a column's value",
}


def cohort_masks(bundle: Bundle, X: pd.DataFrame, split: str, column: str | None = None,
                 cut=None) -> tuple[np.ndarray, np.ndarray, tuple[str, str]]:
    """Two groups of the held-out rows (boolean masks, names) by ``split`` (:data:`SPLITS`):
    ``outcome``, right and wrong predictions (regression: errors up to the median absolute
    error and above it); ``prediction``, the predicted class (the model's first class against
    the others) or a value up to the median and above; ``column``, a number up to ``cut``
    (default its median) and above, a text column's level ``cut`` (default its most common)
    against the other levels; rows missing the column are in neither group (:func:`cohorts`
    counts them)."""
    actual = np.asarray(bundle.y_test)
    if split == "outcome":
        if bundle.task == "classification":
            right = bundle.estimator.predict(bundle.X_test) == actual
            return right, ~right, ("right", "wrong")
        error = np.abs(bundle.estimator.predict(bundle.X_test) - actual.astype(float))
        small = error <= np.median(error)
        return small, ~small, ("smaller errors", "larger errors")
    if split == "prediction":
        if bundle.task == "classification":
            predicted = bundle.estimator.predict(bundle.X_test)
            first = bundle.estimator.classes_[0]
            return predicted == first, predicted != first, (f"predicted {first}",
                                                            f"predicted other than {first}")
        value = bundle.estimator.predict(bundle.X_test)
        low = value <= np.median(value)
        return low, ~low, ("lower predictions", "higher predictions")
    if split != "column" or column is None:
        raise ValueError(f"unknown split {split!r} (or no column given)")
    values = X.iloc[bundle.test_rows][column]
    if values.isna().all():
        raise ValueError(f"no held-out row has a value of {column}")
    if column in bundle.preprocessor.medians_:
        numbers = as_numbers(values).to_numpy(dtype=float, na_value=np.nan)
        cut = float(np.nanmedian(numbers)) if cut is None else float(cut)
        known = np.isfinite(numbers)
        return (known & (numbers <= cut), known & (numbers > cut),
                (f"{column} ≤ {plain_number(cut, 4)}", f"{column} > {plain_number(cut, 4)}"))
    text = values.astype("string")
    cut = str(text.mode().iloc[0]) if cut is None else str(cut)
    level = (text == cut).fillna(False).to_numpy(dtype=bool)
    known = text.notna().to_numpy(dtype=bool)
    return level, known & ~level, (f"{column} = {cut}", f"{column} other")


def cohorts(bundle: Bundle, X: pd.DataFrame, split: str, column: str | None = None,
            cut=None) -> CohortComparison:
    """The two groups of :func:`cohort_masks` compared (:func:`forestviz.explain.whole.cohorts
    .compare`) on the held-out rows' explanations and tree weights."""
    a, b, names = cohort_masks(bundle, X, split, column, cut)
    return compare(population(bundle, X), bundle.test_weights, a, b, names,
                   why_left_out=f"miss {column}")


ROBUSTNESS_SEEDS = 3  # refits with other seeds


def refit_contributions(model: BatchModel, settings: Settings, X_train, y_train, X_test,
                        seeds, progress=lambda stage, fraction: None) -> list[np.ndarray]:
    """The held-out rows' contributions (n, m) under the model refitted on the same training
    rows with each seed of ``seeds`` (the rest of its settings unchanged); a worker's job
    (``progress`` as :mod:`forestviz.app.jobs` passes it)."""

    task = "classification" if model.classes is not None else "regression"
    found = []
    for i, seed in enumerate(seeds):
        progress(f"refit {i + 1} of {len(seeds)} (seed {seed})", i / len(seeds))
        estimator = make_estimator(replace(settings, random_state=int(seed)), task)
        estimator.fit(X_train, y_train)
        refit = replace(model, file=replace(model.file, estimator=estimator), contributions=None)
        outputs = explain_rows(refit, X_test, np.arange(len(X_test)), contributions=True)
        found.append(outputs.filter(like="contribution[").to_numpy(dtype=float))
    progress("done", 1.0)
    return found


def robustness_job(bundle: Bundle, n_seeds: int = ROBUSTNESS_SEEDS):
    """(function, arguments) of :func:`refit_contributions` for a worker: seeds other than
    the model's own."""
    seeds = [bundle.settings.random_state + 1 + i for i in range(n_seeds)]
    return refit_contributions, (new_rows.batch_model(bundle), bundle.settings,
                                 bundle.X_train, bundle.y_train, bundle.X_test, seeds)


def robustness(bundle: Bundle, X: pd.DataFrame, refits: list[np.ndarray]) -> np.ndarray:
    """Per held-out row, the share of the refits whose top reasons are its own."""
    return same_reasons_share(population(bundle, X).contributions, refits)


@dataclass(frozen=True, eq=False)
class WholeModel:
    """A trained model (``bundle``) over the data set's user columns ``X``: every view of the
    whole model the Forest page shows, each computed (once, where it is costly) by the
    functions above."""

    bundle: Bundle
    X: pd.DataFrame

    def population(self) -> Population:
        return population(self.bundle, self.X)

    def partial_dependence(self, column: str, *, random_state=0) -> Dependence:
        return partial_dependence_of(self.bundle, self.X, column, random_state=random_state)

    def stability(self, explanation: Explanation) -> Stability:
        """:func:`stability_of` the row, once per model and row (:mod:`.row_cache`)."""
        return kept(self.bundle, ("stability", *row_key(explanation)),
                    lambda: stability_of(self.bundle, explanation))

    def cohorts(self, split: str, column: str | None = None, cut=None) -> CohortComparison:
        return cohorts(self.bundle, self.X, split, column, cut)

    def column_levels(self, column: str) -> list[str] | None:
        """A text column's known levels (None for a numeric column)."""
        pre = self.bundle.preprocessor
        return None if column in pre.medians_ else [str(c) for c in pre.categories_[column]]

    def column_median(self, column: str) -> float:
        """A numeric column's training median (what a missing value becomes)."""
        return float(self.bundle.preprocessor.medians_[column])

    def robustness_job(self):
        return robustness_job(self.bundle)

    def robustness(self, refits) -> np.ndarray:
        return robustness(self.bundle, self.X, refits)

    def trust(self) -> pd.DataFrame:
        return trust_table(self.bundle, self.X)
