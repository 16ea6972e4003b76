"""Model files that are safe to open: ``dumps(obj) -> bytes``, ``loads(data) -> obj`` and
``ModelFileError``. :mod:`.archive` bounds the work on the bytes (size, members, zip bombs,
array headers) before anything is trusted; :mod:`.files` holds the exact trusted classes, the
format envelope and the checks of the loaded trees. ``docs/security.md`` explains each cap.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "FILE_FORMAT": "forestviz.persistence.files",
    "ModelFileError": "forestviz.persistence.archive",
    "TRUSTED_NODES": "forestviz.persistence.files",
    "dumps": "forestviz.persistence.files",
    "loads": "forestviz.persistence.files",
})
