"""A model file offered for loading (the Train page's upload): read within the checks of
:mod:`forestviz.persistence` (:class:`~forestviz.persistence.model_file.ModelFile`), matched to
the data set in use, and known by its SHA-256 digest, so that the same file is not loaded again
each time the page reruns with the upload still in place.
"""

from __future__ import annotations

from dataclasses import dataclass

from forestviz.io.dataset import DataChoice
from forestviz.persistence.model_file import ModelFile, digest


@dataclass(frozen=True, eq=False)
class ModelUpload:
    """A model file that passed every check, ready to restore, and its digest."""

    digest: str
    file: ModelFile


def read_model_upload(data: bytes, choice: DataChoice) -> ModelUpload:
    """The model file ``data`` trained on the data set ``choice``; ModelFileError (one line for
    the user) when it is not a forestviz model file or was trained on other data."""
    file = ModelFile.read(data)
    file.check_choice(choice)
    return ModelUpload(digest(data), file)
