"""Models trained on bundled tables, kept on disk for the whole installation.

A training on a bundled table is a pure function of the table, the settings (every random
step takes ``random_state``) and the code. Its model file (``forestviz.persistence``, the
format of the Train page's downloads) is kept under a name that hashes all three, plus the
versions of the numerical libraries, so a server started anew loads it instead of training
again, and a change to any of them only makes the file name miss. ``make run`` (and the
Dockerfile) build the default model's file after installing (``python -m
forestviz.app.model_cache``); a server that misses trains it, as before, and stores it.

Loading is the model file's own check (no class outside the trusted set is built) followed by
:func:`forestviz.app.model_file.restore`, which computes the held-out metrics and the baselines
anew. Measured on the bundled Pima table: loading and restoring take about 0.5 s against
about 2.5 s for a training in a fresh worker (``docs/performance.md``, "Cold start and page
speed"). Uploaded tables are never written: what is learnt from an upload ends with its
session.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
from dataclasses import astuple
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
import sklearn

import forestviz
from forestviz.app import model_file, workflow
from forestviz.app.families import Settings
from forestviz.io.bundled import DEFAULT_DATASET, bundled_choice, load_dataset
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.io.safe_write import OutputError, write_file
from forestviz.persistence.archive import ModelFileError
from forestviz.persistence.model_file import ModelFile

CACHE_ENV = "FORESTVIZ_MODEL_CACHE"  # a directory in place of the installation's
KEEP = 8  # model files kept; the oldest beyond are removed when one is stored
SUFFIX = ".skops"
PACKAGE = Path(forestviz.__file__).resolve().parent


def directory() -> Path:
    """Where the files live: ``$FORESTVIZ_MODEL_CACHE``, else ``share/forestviz/models`` under
    the Python installation (the project's virtual environment)."""
    return Path(os.environ.get(CACHE_ENV) or Path(sys.prefix) / "share" / "forestviz" / "models")


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 of forestviz's own source files (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def key(dataset: Dataset, choice: DataChoice, settings: Settings) -> str:
    """The file name's hash of everything a training depends on."""
    digest = hashlib.sha256()
    for part in (code_fingerprint(), np.__version__, scipy.__version__, sklearn.__version__,
                 pd.__version__, repr(astuple(choice)), repr(astuple(settings))):
        digest.update(part.encode() + b"\0")
    digest.update(pd.util.hash_pandas_object(dataset.frame, index=True).to_numpy().tobytes())
    digest.update(repr(tuple(dataset.frame.columns)).encode())
    return digest.hexdigest()[:32]


def path_of(dataset: Dataset, choice: DataChoice, settings: Settings) -> Path:
    return directory() / f"{key(dataset, choice, settings)}{SUFFIX}"


def load(dataset: Dataset, choice: DataChoice, settings: Settings,
         progress: workflow.Progress = lambda *_: None) -> workflow.Bundle | None:
    """The stored training of ``settings`` on ``dataset``, or None when there is none (or the
    file does not load: it is then removed, and the caller trains)."""
    path = path_of(dataset, choice, settings)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return model_file.restore(ModelFile.read(data), dataset, choice, progress)
    except ModelFileError:
        with contextlib.suppress(OSError):
            path.unlink()
        return None


def store(bundle: workflow.Bundle, dataset: Dataset) -> Path | None:
    """Write ``bundle``'s model file (bundled tables only; through
    :func:`forestviz.io.safe_write.write_file`, so a reader never sees half a file and a link
    planted under its name is refused) and remove the oldest files beyond :data:`KEEP`. None
    when it is not kept: an upload, or a directory that cannot be written (a read-only install,
    a full disk)."""
    if not bundle.choice.source.startswith("bundled:"):
        return None
    path = path_of(dataset, bundle.choice, bundle.settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, ModelFile.of(bundle).dumps())
        stored = sorted(path.parent.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime)
        for old in stored[:-KEEP]:
            old.unlink(missing_ok=True)
    except (OSError, OutputError, ModelFileError):  # ModelFileError: over the size cap
        return None
    return path


def default(name: str = DEFAULT_DATASET) -> tuple[Dataset, DataChoice, Settings]:
    """Bundled table ``name`` with its own choice and the task's default settings: what the
    Home button trains."""
    dataset = load_dataset(name)
    return dataset, bundled_choice(name, dataset), workflow.default_settings(dataset.task)


def build_default() -> Path | None:
    """Train the default model and store it, unless it is stored already (``make run``; a
    damaged file is dropped by the server's :func:`load`, which then trains and stores)."""
    dataset, choice, settings = default()
    path = path_of(dataset, choice, settings)
    if path.exists():
        return path
    return store(workflow.train_bundle(dataset, choice, settings, lambda *_: None), dataset)


if __name__ == "__main__":
    print(f"default model: {build_default() or 'not stored (the directory is not writable)'}")
