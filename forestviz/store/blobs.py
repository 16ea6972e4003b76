"""The library's files: owner-only folders and files, blobs named by their SHA-256.

A blob is written by :func:`write_blob` alone: to a new temporary file opened with
``O_CREAT | O_EXCL`` and mode 0600 in the blob folder, flushed with ``fsync``, then renamed
over its final name with ``os.replace`` (atomic on POSIX) and the folder synced, so a reader
sees the whole blob or none. The database row that names a blob is committed after the blob is
on disk; a process killed in between leaves only a blob no row names, which nothing reads and
:func:`sweep` removes once it is older than any publish in progress could be. A blob that
cannot be written (a full disk, a file-size limit) is refused in one line, its partial file
removed.

Two files of one model differ in their bytes (skops names each array's member, and numbers
each object, by its address in the writing process, and dates the members; a tree's node
records carry padding bytes), so :func:`content_digest` names a model file by what it holds
instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import secrets
import time
import zipfile
from pathlib import Path

import numpy as np

from forestviz.store.config import StoreError

FOLDER_MODE = 0o700
FILE_MODE = 0o600
BLOB_NAME = re.compile(r"[0-9a-f]{64}")
PARTIAL_PREFIX = ".partial-"
SWEEP_AGE = 3600.0  # seconds: a blob no row names is removed after an hour (publish takes s)


def private_folder(path: Path) -> Path:
    """``path`` created (with its parents) readable by the owner only; OSError when it
    cannot be created or written."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    if not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(13, "the folder cannot be written", str(path))
    return path


def private_file(path: Path) -> Path:
    """``path`` created empty with mode 0600 unless it exists (SQLite gives its journal and
    WAL files the database file's mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    return path


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_blob(folder: Path, data: bytes) -> str:
    """Store ``data`` as ``folder/<sha256>`` (0600, whole or not at all) and return the
    SHA-256; a blob already there with that name is kept (same name, same bytes)."""
    name = digest(data)
    target = folder / name
    if target.is_file() and target.stat().st_size == len(data):
        return name
    partial = folder / f"{PARTIAL_PREFIX}{secrets.token_hex(8)}"
    try:
        handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        _sync_folder(folder)
    except OSError as err:
        raise StoreError(f"The model could not be written to the library "
                         f"({err.strerror or err}); nothing was published.") from err
    return name


def content_digest(data: bytes, ignore: tuple[str, ...] = ()) -> str:
    """A SHA-256 of what the model file ``data`` holds, the same for every file of one model:
    its schema with each member's name replaced by the member's own SHA-256 and without the
    entries ``ignore`` of the saved dict (what is computed anew, timings included, each time a
    model is scored). The schema's object numbers (``__id__``) are left out: skops writes
    every occurrence of an object in full and numbers it only so that loading shares it, so
    they say which values were one object in the saving process (a model opened from the
    library holds its data set's name as a string of its own, a trained one shares it), not
    what the file holds."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {info.filename: _member_digest(info.filename, archive.read(info))
                   for info in archive.infolist()}
        schema = json.loads(archive.read("schema.json"))
    saved = schema.get("content", {}).get("object", {}).get("content", {})
    for key in ignore:
        saved.pop(key, None)

    def canonical(node):
        if isinstance(node, dict):
            return {key: canonical(value) for key, value in node.items() if key != "__id__"}
        if isinstance(node, list):
            return [canonical(value) for value in node]
        return members.get(node, node) if isinstance(node, str) else node

    return digest(json.dumps(canonical(schema)).encode("utf-8"))


def _member_digest(name: str, raw: bytes) -> str:
    """The SHA-256 of a member; of an array's values, field by field, for a ``.npy`` one (a
    tree's node records carry padding bytes nobody wrote, different in every file)."""
    try:
        array = np.load(io.BytesIO(raw), allow_pickle=False) if name.endswith(".npy") else None
    except ValueError:  # not an array of plain values: its bytes
        array = None
    if array is None:
        return digest(raw)
    found = hashlib.sha256(f"{array.dtype.descr}{array.shape}".encode())
    for field in array.dtype.names or (None,):
        found.update(np.ascontiguousarray(array if field is None else array[field]).tobytes())
    return found.hexdigest()


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def read_blob(folder: Path, name: str, expected: str, what: str) -> bytes:
    """The blob ``name`` if its bytes still hash to ``expected`` (the SHA-256 recorded at
    publish); StoreError naming ``what`` (the model) when it is missing or was changed."""
    if not BLOB_NAME.fullmatch(name):
        raise StoreError(f"{what} was refused: its file name in the library is not a SHA-256.")
    try:
        data = (folder / name).read_bytes()
    except OSError as err:
        raise StoreError(f"{what} could not be read from the library "
                         f"({err.strerror or err}).") from err
    if digest(data) != expected:
        raise StoreError(f"{what} was refused: its file was changed after it was published "
                         "(its SHA-256 no longer matches the one recorded then).")
    return data


def sweep(folder: Path, referenced: set[str], older_than: float = SWEEP_AGE) -> list[str]:
    """Remove blobs no row names and partial files, when older than ``older_than`` seconds;
    the names removed."""
    now, removed = time.time(), []
    for path in folder.iterdir():
        stray = path.name.startswith(PARTIAL_PREFIX) or (
            BLOB_NAME.fullmatch(path.name) and path.name not in referenced)
        with contextlib.suppress(FileNotFoundError):
            if stray and now - path.stat().st_mtime >= older_than:
                path.unlink()
                removed.append(path.name)
    return removed
