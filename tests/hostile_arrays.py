"""Hostile model files made by editing one stored array of a valid file: every class and the
zip stay what forestviz writes, only the numbers change (issue 25).

:func:`stored_arrays` names every ``.npy`` member of a file by where it sits in the saved
object (``object.leaf_stats_.counts``); :func:`edits` gives the edits tried on one array: an
index past the end, 2⁴⁰, −1, NaN, ±inf, 1e300, a row too few or too many, another dtype;
:func:`with_array` writes one edit back.
"""

from __future__ import annotations

import io
import json

import numpy as np
from hostile_models import members, rezip


def stored_arrays(data: bytes) -> dict[str, str]:
    """``{path: member}`` for every array of the file; a member written under several paths
    (an object saved once, reached from several places) is named by its first."""
    schema = json.loads(members(data)["schema.json"])
    found: dict[str, str] = {}

    def walk(value, path):
        if isinstance(value, dict):
            if value.get("__loader__") == "NdArrayNode" and value.get("type") == "numpy":
                if value["file"] not in found.values():
                    found[".".join(path)] = value["file"]
                return
            for key, child in value.items():
                walk(child, path if key == "content" else [*path, key])
        elif isinstance(value, list):
            for i, child in enumerate(value):
                walk(child, [*path, str(i)])

    walk(schema, [])
    return found


def load_array(data: bytes, member: str) -> np.ndarray:
    return np.load(io.BytesIO(members(data)[member]))


def with_array(data: bytes, member: str, array: np.ndarray) -> bytes:
    files = members(data)
    buffer = io.BytesIO()
    np.save(buffer, array)
    files[member] = buffer.getvalue()
    return rezip(files)


def edits(array: np.ndarray) -> dict[str, np.ndarray]:
    """The edits tried on ``array`` by name (none for structured arrays: the trees' nodes have
    their own corpus in ``hostile_files``, nor for text)."""
    if array.dtype.names or array.dtype.kind not in "biuf" or array.size == 0:
        return {}

    def first(value, dtype=array.dtype):
        edited = array.astype(dtype)  # a copy
        edited.flat[0] = value
        return edited

    found = {} if array.ndim == 0 else {
        "row-too-few": array[:-1], "row-too-many": np.concatenate([array, array[:1]])}
    if array.dtype.kind in "iu":
        found.update({"index-past-the-end": first(array.max() + array.size),
                      "index-2^40": first(2**40, np.int64),
                      "index-negative": first(-1, np.int64),
                      "as-floats": array.astype(np.float64)})
    elif array.dtype.kind == "f":
        found.update({"nan": first(np.nan), "inf": first(np.inf), "minus-inf": first(-np.inf),
                      "huge": first(1e300), "negative": first(-1.0),
                      "as-integers": np.nan_to_num(array).astype(np.int32)})
    else:
        found["as-integers"] = array.astype(np.int64)
    return found
