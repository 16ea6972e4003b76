"""What may be published, for the app and the command line alike: a model from a file whose
origin cannot be verified is refused (:func:`check_origin`: the library would vouch for a file
nobody can vouch for), and a publication that would repeat a version in use is said in one
line instead of making a duplicate (:class:`AlreadyPublished`). No database package here: the
pages import it before the library is open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forestviz.store.config import StoreError

if TYPE_CHECKING:
    from forestviz.store.library import ModelVersion


class AlreadyPublished(StoreError):
    """A publication that would repeat a version in use: the same model (whatever the bytes
    of its file), description and intended use; ``info`` is that version."""

    def __init__(self, info: ModelVersion):
        self.info = info
        super().__init__(f"This model is published already, with this description and "
                         f"intended use, as '{info.ref}': no new version was made.")


def check_origin(warning: str | None) -> None:
    """The one check of what may be published, for the app and the command line alike: a
    model from a file whose origin cannot be verified (``warning``: the file's
    :class:`forestviz.store.signing.Verdict` warning) is refused, else the library would vouch
    for a file nobody can vouch for."""
    if warning is not None:
        raise StoreError(unverified(warning))


def unverified(warning: str) -> str:
    """Why a model from a file with the origin ``warning`` is not published (one line)."""
    return (f"This model comes from a model file whose origin cannot be verified ({warning}), "
            "so it is not published: train it anew, or use a model file this library signed.")


NO_USE = ("Say what the model is intended for (who uses it, for which patients, to decide "
          "what): a model is not published without its intended use.")


def check_use(intended_use: str) -> None:
    """The intended use a model card requires (StoreError :data:`NO_USE` when it is blank),
    checked by the library whoever publishes: the page's form, the command line, a script."""
    if not intended_use.strip():
        raise StoreError(NO_USE)
