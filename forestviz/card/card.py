"""A model card (Mitchell et al., FAT* 2019; TRIPOD+AI's items on data, performance and
intended use) built when a model is published, as plain JSON data:

* ``model``: the published name, version, family, trees, task, outcome and the blob's SHA-256
  (what the card is about, byte for byte);
* ``use``: the intended use (required: :func:`forestviz.store.publishing.check_use`) and the
  out-of-scope use, as the publisher typed them;
* ``data``: the table's rows (training and held-out), the columns the model reads, the outcome
  (the share of each class, or the mean and standard deviation of a value) and the first and
  last date of each column of dates (ISO ``YYYY-MM-DD``, as CSV files write them);
* ``metrics``: the Train page's held-out metrics, each with its percentile bootstrap interval
  (:mod:`.measures`, seeded: the same model gives the same card);
* ``calibration``: the logistic recalibration's slope and intercept and the Brier score of the
  risk (each class's against the rest for more than two classes), or the linear
  recalibration's slope and intercept of a value (:mod:`.calibration`);
* ``subgroups``: performance by the columns the publisher named (:mod:`.subgroups`).

:func:`digest` is the SHA-256 of its canonical JSON (keys sorted, no spaces, UTF-8), which
the library stores beside it and every record made with the model names.
"""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pandas as pd
from pandas.api.types import is_datetime64_any_dtype

from forestviz.card.calibration import card_calibration
from forestviz.card.measures import CONFIDENCE, RANDOM_STATE, RESAMPLES, Outcomes, bootstrap
from forestviz.card.subgroups import check_columns, group_labels, subgroup_table

FORMAT = "forestviz-model-card/2"  # 2: calibration by class, or of a value
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T][0-9:.+\-Z]*)?")


def held_out(model) -> Outcomes:
    """The held-out answers of a trained model (a :class:`forestviz.app.workflow.Bundle`)."""
    estimator, X = model.estimator, model.X_test
    if model.task == "regression":
        return Outcomes("regression", np.asarray(model.y_test, dtype=float),
                        np.asarray(estimator.predict(X), dtype=float))
    classes = pd.Index(np.asarray(estimator.classes_))
    return Outcomes("classification", classes.get_indexer(model.y_test),
                    classes.get_indexer(estimator.predict(X)),
                    np.asarray(estimator.predict_proba(X), dtype=float))


def build_card(bench, *, intended_use: str, out_of_scope: str = "", subgroups=(),
               n_resamples: int = RESAMPLES, random_state: int = RANDOM_STATE) -> dict:
    """The card of the current model of ``bench`` (a :class:`~forestviz.app.Workbench`),
    without its version (:func:`finished` adds it once the library numbers it). DataError in
    one line for a subgroup column that is not one, or has too many groups."""
    model, dataset = bench.model, bench.dataset
    columns = check_columns(dataset.frame, subgroups, dataset.target)
    outcomes = held_out(model)
    options = {"n_resamples": n_resamples, "random_state": random_state}
    return {
        "format": FORMAT,
        "model": {"family": model.name, "n_trees": int(model.n_trees), "task": model.task,
                  "target": dataset.target},
        "use": {"intended": intended_use, "out_of_scope": out_of_scope},
        "data": data_facts(dataset, model),
        "metrics": {"rows": len(outcomes), "confidence": CONFIDENCE, "resamples": n_resamples,
                    "random_state": random_state,
                    "values": {k: v.as_json() for k, v in bootstrap(outcomes, **options).items()}},
        "calibration": card_calibration(outcomes, np.asarray(model.estimator.classes_)
                                        if model.task == "classification" else None),
        "subgroups": [{"column": column,
                       "groups": subgroup_table(
                           outcomes, group_labels(dataset.frame[column]).iloc[model.test_rows],
                           **options)}
                      for column in columns],
    }


def finished(card: dict, *, name: str, version: int, blob_sha256: str) -> dict:
    """``card`` naming the published version it belongs to and its blob."""
    return {**card, "model": {**card["model"], "name": name, "version": version,
                              "blob_sha256": blob_sha256}}


def data_facts(dataset, model) -> dict:
    """The card's ``data``: rows, columns, outcome and date ranges."""
    y = dataset.y
    if dataset.task == "regression":
        values = y.to_numpy(dtype=float)
        outcome = {"mean": float(values.mean()), "sd": float(values.std(ddof=1))
                   if values.size > 1 else None}
    else:
        shares = y.astype(str).value_counts(normalize=True)
        outcome = {"shares": {str(c): float(shares.get(str(c), 0.0)) for c in dataset.classes}}
    return {"name": dataset.name, "rows": len(dataset.frame),
            "training_rows": len(model.train_rows), "held_out_rows": len(model.test_rows),
            "columns": len(dataset.feature_columns), "outcome": outcome,
            "dates": date_ranges(dataset.frame.drop(columns=[dataset.target]))}


def date_ranges(frame: pd.DataFrame) -> list[dict]:
    """Each column of dates (a date type, or text all ``YYYY-MM-DD…``): its first and last
    date."""
    found = []
    for name in frame.columns:
        column = frame[name].dropna()
        if column.empty:
            continue
        if not is_datetime64_any_dtype(column):
            if column.dtype.kind not in "OSUT" and str(column.dtype) != "str":
                continue
            text = column.astype(str)
            if not text.str.fullmatch(_DATE).all():
                continue
            column = pd.to_datetime(text, errors="coerce", format="ISO8601", utc=True)
            if column.isna().any():
                continue
        found.append({"column": str(name), "first": f"{column.min():%Y-%m-%d}",
                      "last": f"{column.max():%Y-%m-%d}"})
    return found


def canonical(card: dict) -> bytes:
    """The card's canonical JSON: keys sorted, no spaces, UTF-8, no NaN."""
    return json.dumps(card, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def digest(card: dict) -> str:
    """The SHA-256 of the card's canonical JSON."""
    return hashlib.sha256(canonical(card)).hexdigest()


def publisher_choices(card: dict | None) -> tuple | None:
    """What the publisher chose for the card beyond the description and intended use (the
    out-of-scope use, the subgroup columns): the same model published again with other
    choices is a new version."""
    if card is None:
        return None
    return card["use"]["out_of_scope"], tuple(part["column"] for part in card["subgroups"])
