"""Many rows explained at once: what :func:`forestviz.explain.explain` says of one row, for a
chunk of rows, from one call of the weighted-ensemble protocol.

For n rows the model's ``lean_outputs`` (the numbers of ``ensemble_outputs`` written here)
gives the tree weights α (n, T), the per-tree predictions f_k and the offset, so the prediction
offset + Σ_k α_k(x)·f_k(x) (Utkin & Konstantinov, "Attention-based random forest and
contamination model", Eq. 8, Eq. 27 for class probabilities; Bertsimas & Stoumpou, "Enhanced
Random Forests", Eq. 4) and every summary of α are vectorised: the effective number of trees
1/Σ_k α_k², the share of the five heaviest trees, and the top K trees in ``explain``'s order
(ERF: by tree score S, Eq. 8, then weight, then index; every other model by weight, then
index), found by :func:`top_trees` without sorting all T trees of every row (compiled with
numba because of a measured figure: numpy's partial sorts took 0.12 s (ERF, two keys) and
0.10 s (ABRF) for 60,000 rows of 200 trees, the compiled pass 0.06 and 0.03 s;
docs/performance.md, "Batch explanation"). The calibrated interval is the model's
:class:`~forestviz.explain.row.uncertainty.IntervalModel` on all rows at once; per-column
contributions (Saabas path contributions through the row's α,
:mod:`forestviz.explain.row.contributions`) are computed row by row.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
from pyarrow import compute as pc

from forestviz.batch.model import BatchModel
from forestviz.batch.source import Chunk
from forestviz.explain.row.explanation import effective_trees
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import as_numbers
from forestviz.trees.ensemble import as_ensemble

ID = "id"
TOP_SHARE = 5  # Explanation.top5_share: the weight of the five heaviest trees
# familiar ground (forestviz.explain.row.familiar): the flag, the share of held-out rows at least
# as unusual, and the columns where the most similar training rows differ most
FAMILIAR_COLUMNS = ("unfamiliar", "unusual_share", "nearest_differ_in")
# what would change the answer (forestviz.app.counterfactuals): whether the model confirmed a
# change, the page's sentence, and the nearest change's columns "Glucose: 148 → 121; …"
COUNTERFACTUAL_COLUMNS = ("counterfactual_found", "counterfactual", "counterfactual_changes")


def output_columns(model: BatchModel, top_k: int, contributions: bool) -> list[str]:
    """The output's column names, in order (see :func:`explain_rows`)."""
    names = [ID]
    if model.task == "regression":
        names.append("prediction")
    else:
        names += ["predicted_class", *(f"P({c})" for c in model.classes)]
    if model.threshold is not None:
        names.append("threshold")
    if model.intervals is not None:
        names += ["interval_low", "interval_high"]
        names += ["calibrated_risk"] if model.intervals.kind == "venn-abers" else []
    if model.familiar is not None:
        names += list(FAMILIAR_COLUMNS)
    if model.counterfactual is not None:
        names += list(COUNTERFACTUAL_COLUMNS)
    names += ["effective_trees", "top5_share"]
    for rank in range(1, top_k + 1):
        names += [f"top_tree_{rank}", f"top_weight_{rank}"]
    if contributions:
        names += ["base_value", *(f"contribution[{c}]" for c in dict.fromkeys(model.sources))]
    return names


def encode(model: BatchModel, chunk: Chunk, id_column: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(the encoded rows (n, m) as the model reads them, their ids as text). CSV text is read
    as the Train page reads a table (numbers with a decimal comma in semicolon-separated files,
    thousands separators, True/False); a column the model encodes but the chunk lacks is
    missing in every row. Rows without an ID column are named by position from 0, as the app
    names them."""
    table = chunk.table
    frame = {}
    for name in model.columns:
        if name not in table.column_names:
            frame[name] = np.full(table.num_rows, np.nan)
        elif chunk.text and name in model.numeric:
            frame[name] = _numbers(table[name], chunk.decimal_comma)
        elif chunk.text and set(model.preprocessor.categories_[name]) <= {"False", "True"}:
            frame[name] = _truth_levels(table[name])
        else:
            frame[name] = table[name].to_pandas()
    X = model.preprocessor.transform(pd.DataFrame(frame, index=pd.RangeIndex(table.num_rows)))
    if id_column is None:
        ids = np.arange(chunk.start, chunk.start + table.num_rows).astype(str).astype(object)
    else:
        ids = np.asarray(pc.cast(table[id_column], pa.string()).fill_null("").to_pylist(),
                         dtype=object)
    return X, ids


def _truth_levels(column: pa.ChunkedArray) -> pd.Series:
    """A column whose levels are True and False (the app reads "true", "TRUE" and "True" alike
    as a boolean, :func:`forestviz.io.csv_parse.parse_arrow`) as those levels; other text as
    written (an unseen level)."""
    text = column.to_pandas()
    return text.replace({spelling: str(truth) for truth in (True, False)
                         for spelling in (str(truth), str(truth).upper(), str(truth).lower())})


def _numbers(column: pa.ChunkedArray, decimal_comma: bool) -> np.ndarray:
    if decimal_comma:
        column = pc.replace_substring(column, ",", ".")
    try:
        return pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # text that is no plain number: as load_csv and Dataset read it
        return as_numbers(column.to_pandas()).to_numpy(dtype=float, na_value=np.nan)


def explain_rows(model: BatchModel, X: np.ndarray, ids, *, top_k: int = 5,
                 contributions: bool = False) -> pd.DataFrame:
    """One row per row of ``X`` (encoded, n × m) with the columns of :func:`output_columns`:
    ``id``; ``prediction`` (regression) or ``predicted_class`` and ``P(<class>)`` per class;
    ``threshold`` (binary models); ``interval_low``/``interval_high`` (and the Venn-ABERS
    ``calibrated_risk`` of a binary risk) when the model has a calibrated interval;
    with the model's familiar ground, ``unfamiliar`` (flagged as unlike the training rows),
    ``unusual_share`` (the share of held-out rows at least as unusual) and
    ``nearest_differ_in`` (the columns, "; "-separated, where the most similar training rows
    differ most); when the model asks for counterfactuals, ``counterfactual_found`` (the model
    confirmed a change), ``counterfactual`` (the Explain page's sentence) and
    ``counterfactual_changes`` (the nearest change, "Glucose: 148 → 121; BMI: 33.6 → 30.1");
    ``effective_trees`` (1/Σα²), ``top5_share``; ``top_tree_r`` (tree numbers
    from 1, as the app shows them) and ``top_weight_r`` (their α) for r = 1..``top_k``; with
    ``contributions``, ``base_value`` and ``contribution[<column>]`` per user column (to the
    value, the risk P(second class) of a binary model, or the predicted class's probability)."""
    if top_k < 1:
        raise ValueError("top_k must be at least 1")
    names = getattr(model.estimator, "feature_names_in_", None)
    rows = X if names is None else pd.DataFrame(X, columns=names)
    out = as_ensemble(model.estimator).lean_outputs(rows)
    weights = out.weights
    n, T = weights.shape
    top_k = min(top_k, T)
    columns = {ID: np.asarray(ids, dtype=object)}
    if model.task == "regression":
        # one matrix product per row, as explain() forms it: the same rounding
        prediction = out.offset + np.matmul(weights[:, None, :],
                                            out.tree_predictions[:, :, None])[:, 0, 0]
        columns["prediction"] = prediction
        output, picked = prediction, None
    else:
        proba = np.matmul(weights[:, None, :], out.tree_predictions)[:, 0, :]
        picked = (np.argmax(proba, axis=1) if model.argmax
                  else (proba[:, 1] >= model.threshold).astype(np.intp))
        columns["predicted_class"] = model.classes[picked]
        columns.update({f"P({c})": proba[:, j] for j, c in enumerate(model.classes)})
        output = proba[:, 1] if model.classes.size == 2 else None
    if model.threshold is not None:
        columns["threshold"] = np.full(n, model.threshold)
    if model.intervals is not None and output is not None:
        columns["interval_low"], columns["interval_high"] = model.intervals.interval(output)
        if model.intervals.kind == "venn-abers":
            columns["calibrated_risk"] = model.intervals.calibrated_risk(output)
    if model.familiar is not None:
        found = model.familiar.assess_rows(X)
        columns["unfamiliar"] = np.array([f.flagged for f in found], dtype=bool)
        columns["unusual_share"] = np.array([f.share for f in found], dtype=float)
        columns["nearest_differ_in"] = np.array(["; ".join(f.differ) for f in found],
                                                dtype=object)
    if model.counterfactual is not None:
        columns.update(_counterfactuals(model, X))
    columns["effective_trees"] = effective_trees(weights)
    heaviest = np.partition(weights, T - TOP_SHARE, axis=1)[:, T - TOP_SHARE:] if (
        T > TOP_SHARE) else weights
    columns["top5_share"] = np.sort(heaviest, axis=1).sum(axis=1)
    top = top_trees((weights,) if out.scores is None else (weights, out.scores.S), top_k)
    chosen = np.take_along_axis(weights, top, axis=1)
    for rank in range(top_k):
        columns[f"top_tree_{rank + 1}"] = top[:, rank] + 1
        columns[f"top_weight_{rank + 1}"] = chosen[:, rank]
    frame = pd.DataFrame(columns)
    if contributions:
        frame = pd.concat([frame, _contributions(model, X, weights, picked)], axis=1)
    return frame


def _contributions(model: BatchModel, X, weights, picked) -> pd.DataFrame:
    """Per row: the base value and the contribution of each user column (Saabas path
    contributions through the row's α, :meth:`ContributionModel.explain`, folded per column),
    to the number :func:`forestviz.explain.row.narrative.target_column` speaks of."""
    model = model.with_contributions()
    names = list(dict.fromkeys(model.sources))
    base, totals = np.empty(len(X)), np.empty((len(X), len(names)))
    for i, x in enumerate(X):
        found = model.contributions.explain(x, weights[i]).fold(model.sources)
        column = None if picked is None else (1 if model.classes.size == 2 else picked[i])
        base[i] = found.base_value if column is None else found.base_value[column]
        totals[i] = found.total if column is None else found.total[:, column]
    frame = pd.DataFrame(totals, columns=[f"contribution[{c}]" for c in names])
    frame.insert(0, "base_value", base)
    return frame


def top_trees(keys, k: int) -> np.ndarray:
    """Per row the ``k`` (at most T) tree indices first in the order of ``keys[-1]``
    descending, then ``keys[0]`` descending (one or two keys), then index ascending: those
    that ``np.lexsort((index, *[-key for key in keys]))`` puts first (NaN last), in that order,
    as an (n, k) array. ``keys``: (n, T) arrays of one shape.

    One compiled pass over the T trees of each row keeps the k first found so far, in order:
    a tree that does not come before the k-th is passed over after one or two comparisons."""
    if len(keys) not in (1, 2):
        raise ValueError("top_trees orders by one or two keys")
    primary, secondary = (np.ascontiguousarray(key, dtype=np.float64)
                          for key in (keys[-1], keys[0]))
    if primary.shape != secondary.shape:
        raise ValueError("the keys must have one shape")
    top = np.empty((primary.shape[0], min(k, primary.shape[1])), dtype=np.intp)
    _first_trees(primary, secondary, top)
    return top


@numba.njit(nogil=True, cache=True, inline="always")
def _order(x, y) -> int:
    """-1 when x comes before y (larger first, NaN last), 1 when after, 0 on a tie."""
    if x > y or (y != y and x == x):
        return -1
    if y > x or (x != x and y == y):
        return 1
    return 0


@numba.njit(nogil=True, cache=True)
def _first_trees(primary, secondary, top):
    """top[i]: the top.shape[1] trees first in row i by (primary, secondary, index), in
    order; a complete tie keeps the tree found first, the lower index."""
    k, n_trees = top.shape[1], primary.shape[1]
    for i in range(top.shape[0]):
        first, second, best = primary[i], secondary[i], top[i]
        found = 0
        for t in range(n_trees):
            if found == k:
                b = best[k - 1]
                order = _order(first[t], first[b])
                if order > 0 or (order == 0 and _order(second[t], second[b]) >= 0):
                    continue
                j = k - 1
            else:
                j = found
                found += 1
            while j > 0:
                b = best[j - 1]
                order = _order(first[t], first[b])
                if order > 0 or (order == 0 and _order(second[t], second[b]) >= 0):
                    break
                best[j] = b
                j -= 1
            best[j] = t


def _counterfactuals(model: BatchModel, X: np.ndarray) -> dict[str, np.ndarray]:
    """:data:`COUNTERFACTUAL_COLUMNS` of the encoded rows ``X``, one search a row, as the
    Explain page words it (:mod:`forestviz.explain.counterfactual.wording`)."""
    from forestviz.explain.counterfactual.asked import counterfactual_of
    from forestviz.explain.counterfactual.wording import changes_text, summary

    asked = model.counterfactual
    found = [counterfactual_of(model.estimator, x, asked.space, change=asked.change)
             for x in X]
    return {"counterfactual_found": np.array([f.best is not None for f in found], dtype=bool),
            "counterfactual": np.array([summary(f) for f in found], dtype=object),
            "counterfactual_changes": np.array([changes_text(f) for f in found],
                                               dtype=object)}


def require_columns(used, columns) -> None:
    """DataError naming the first of the columns ``used`` (those a model encodes) missing from
    a file's ``columns``: the one check of a table of rows to explain (the command line's
    files and the app's several new patients)."""
    missing = [c for c in used if c not in columns]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise DataError(f"The file has no column '{missing[0]}'{more}, which the model was "
                        "trained on. Give a table with the training table's columns.")
