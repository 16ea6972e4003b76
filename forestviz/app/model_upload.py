"""A model file offered for loading (the Train page's upload): read within the checks of
:mod:`forestviz.persistence`, matched to the data set in use
(:func:`forestviz.app.model_file.check_payload`), and known by its SHA-256 digest, so that the
same file is not loaded again each time the page reruns with the upload still in place.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from forestviz import persistence
from forestviz.app import model_file, workflow
from forestviz.io.dataset import DataChoice


@dataclass(frozen=True, eq=False)
class ModelUpload:
    """A model file that passed every check: its payload and settings, ready to restore."""

    digest: str
    payload: dict
    settings: workflow.Settings


def digest(data: bytes) -> str:
    """The file's SHA-256, in hexadecimal."""
    return hashlib.sha256(data).hexdigest()


def read_model_upload(data: bytes, choice: DataChoice) -> ModelUpload:
    """The model file ``data`` trained on the data set ``choice``; ModelFileError (one line for
    the user) when it is not a forestviz model file or was trained on other data."""
    payload = persistence.loads(data)
    settings = model_file.check_payload(payload, choice)
    return ModelUpload(digest(data), payload, settings)
