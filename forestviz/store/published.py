"""A trained workbench as plain data for a published model's blob, and back.

A model file (:class:`forestviz.persistence.model_file.ModelFile`) holds the fitted estimator, the
encoding and the split, but not the table: opening it needs the upload, and loading scores the
baselines anew. A published model must explain without either, so its blob (written by
:func:`forestviz.persistence.dumps`, never pickle) holds besides the model file's payload:

* the data set's table after the Data page's cleaning, without the columns the publisher
  excluded (often names or notes: what the model does not use is not shared), column by
  column as arrays (text as UTF-8 bytes and offsets, so one long cell does not widen a whole
  column), with its index: the held-out rows for the row picker, and the training rows the
  explanations compare a row with (the nearest "similar patients": the Publish dialog says
  so);
* the held-out metrics table and the held-out predictions of the model and its baselines;
* the columns the publisher marked as unable to change (``fixed``: the counterfactual's,
  :meth:`Workbench.fixed_columns`), which the opened model starts with (a blob written before
  them opens with none).

:func:`opened_workbench` rebuilds the data set and, through
:func:`forestviz.app.workflow.scored_bundle`, the bundle: the training summary and the
calibrated interval are computed from the stored rows and predictions exactly as after
training (nothing is fitted), so an opened model explains the same numbers bit for bit.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, replace

import numpy as np
import pandas as pd

from forestviz.app import workflow
from forestviz.app.workbench import Workbench
from forestviz.io.csv_input import DataError
from forestviz.io.dataset import Dataset
from forestviz.persistence.archive import ModelFileError
from forestviz.persistence.model_file import ModelFile

FORMAT = "forestviz-published/1"
SCORED = ("results",)  # computed anew at each scoring (with its seconds): not the model itself
_NUMBER_KINDS = "biuf"


def published_payload(bench: Workbench) -> dict:
    """The blob's contents for the current model of ``bench`` (module docstring)."""
    model, dataset = _current(bench), bench.dataset
    return {
        "format": FORMAT,
        "model": ModelFile.of(model).payload(),
        "dataset": {"name": dataset.name, "task": dataset.task, "target": dataset.target,
                    "id_column": dataset.id_column, "exclude": list(bench.choice.exclude),
                    "description": dataset.description, "notes": list(dataset.notes),
                    "dropped_rows": dataset.dropped_rows},
        "table": table_data(dataset.frame.drop(columns=list(bench.choice.exclude))),
        "results": table_data(model.results),
        "predictions": {name: np.asarray(values, dtype=np.float64)
                        for name, values in model.test_predictions.items()},
        "fixed": list(bench.fixed_columns()),
    }


def _current(bench: Workbench):
    if bench.model is None:
        raise DataError("Train a model before publishing it.")
    return bench.model


def opened_workbench(payload) -> Workbench:
    """The workbench of a blob's payload, its model current and ready to explain;
    ModelFileError when the payload is not a published model of this version."""
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ModelFileError("This is not a published forestviz model.")
    try:
        file, about = ModelFile.parse(payload["model"]), payload["dataset"]
        dataset = Dataset.from_frame(table_frame(payload["table"]), about["target"],
                                     task=about["task"], id_column=about["id_column"],
                                     name=about["name"],
                                     description=about["description"])
        dataset = _with_notes(dataset, about)
        bundle = workflow.scored_bundle(
            dataset, file.choice, file.settings, file.estimator, file.preprocessor,
            (file.train_rows, file.test_rows), table_frame(payload["results"]),
            dict(payload["predictions"]))
        bundle = replace(bundle, fixed=_fixed(payload.get("fixed", []), bundle))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, DataError) as err:
        if isinstance(err, ModelFileError):
            raise
        raise ModelFileError(f"This published model is damaged: {err}") from err
    return Workbench(dataset, file.choice, model=bundle)


def _fixed(names, bundle) -> tuple[str, ...]:
    """The published columns that cannot change, each a column of the model."""
    columns = bundle.summary.columns.names
    if not isinstance(names, list) or not all(name in columns for name in names):
        raise ModelFileError("This published model is damaged: its columns that cannot "
                             "change are not its columns.")
    return tuple(names)


def _with_notes(dataset: Dataset, about: dict) -> Dataset:
    return replace(dataset, notes=tuple(map(str, about["notes"])),
                   dropped_rows=int(about["dropped_rows"]))


# ------------------------------------------------------------------------ tables as arrays
def table_data(frame: pd.DataFrame) -> dict:
    """``frame`` as plain data: column names, one entry per column, the index."""
    return {"names": [str(name) for name in frame.columns],
            "columns": [_column_data(str(name), frame.iloc[:, j])
                        for j, name in enumerate(frame.columns)],
            "index": _column_data("the row labels", pd.Series(frame.index))}


def table_frame(data: dict) -> pd.DataFrame:
    """The frame of :func:`table_data`."""
    columns = [_column_series(entry) for entry in data["columns"]]
    index = pd.Index(_column_series(data["index"]))
    # by position: given as index=, the columns (numbered 0, 1, …) were aligned on the row
    # labels, which after dropped rows shifted values and left the last rows empty
    frame = pd.DataFrame(dict(enumerate(columns))).set_axis(index, axis=0)
    return frame.set_axis(pd.Index(data["names"]), axis=1)


def _column_data(name: str, column: pd.Series) -> dict:
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in _NUMBER_KINDS:
        return {"kind": "numbers", "values": column.to_numpy()}
    missing = column.isna().to_numpy()
    present = column[~missing]
    if all(isinstance(value, str) for value in present):
        encoded = [value.encode("utf-8") for value in column.where(~missing, "")]
        ends = np.cumsum([len(value) for value in encoded], dtype=np.int64)
        return {"kind": "text", "dtype": "str" if str(dtype) == "str" else "object",
                "bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8), "ends": ends,
                "missing": missing}
    if all(isinstance(value, bool | int | float) for value in present):
        return {"kind": "values", "values": [None if gap else _plain(value)
                                            for value, gap in zip(column, missing, strict=True)]}
    raise DataError(f"The column '{name}' ({dtype}) holds values that cannot be published: "
                    "only numbers, yes/no values and text can.")


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _column_series(entry: dict) -> pd.Series:
    kind = entry["kind"]
    if kind == "numbers":
        values = np.asarray(entry["values"])
        if values.dtype.kind not in _NUMBER_KINDS:
            raise ModelFileError("This published model is damaged: a column is not numbers.")
        return pd.Series(values)
    if kind == "values":
        return pd.Series([math.nan if value is None else value for value in entry["values"]],
                         dtype=object)
    if kind != "text":
        raise ModelFileError("This published model is damaged: a column of unknown kind.")
    data, ends = np.asarray(entry["bytes"], dtype=np.uint8).tobytes(), entry["ends"]
    starts = np.concatenate([[0], ends[:-1]])
    values = [None if gap else data[start:end].decode("utf-8")
              for start, end, gap in zip(starts, ends, entry["missing"], strict=True)]
    return pd.Series(values, dtype="str" if entry["dtype"] == "str" else object)


# ------------------------------------------------------------------------ what the row shows
def describe(bench: Workbench) -> dict:
    """The library row's facts about the current model of ``bench`` (no blob needed to list,
    show or compare versions): the data set's SHA-256, the metrics table, the column schema."""
    model, dataset, choice = _current(bench), bench.dataset, bench.choice
    kind, _, key = choice.source.partition(":")
    sha = key if kind == "upload" else hashlib.sha256(
        dataset.frame.to_csv(index=False).encode("utf-8")).hexdigest()
    metrics = {str(row["model"]): {str(k): _number(v) for k, v in row.items() if k != "model"}
               for row in model.results.to_dict("records")}
    columns = [{"column": column, "kind": "number" if median is not None else "category",
                "median": median, "levels": None if levels is None else list(levels)}
               for column, median, levels in bench.editable_columns()]
    return {"dataset_name": dataset.name, "dataset_sha256": sha, "target": dataset.target,
            "id_column": dataset.id_column, "excluded": list(choice.exclude),
            "task": dataset.task, "family": model.name, "n_trees": model.n_trees,
            "n_train": len(model.train_rows), "n_test": len(model.test_rows),
            "settings": asdict(model.settings),
            "metrics": metrics, "columns": columns}


def _number(value):
    value = float(value)
    return value if math.isfinite(value) else None
