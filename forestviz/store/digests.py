"""Keyed digests of patients' values, the audit trail's way of naming what was explained
without holding it: HMAC-SHA256 (RFC 2104) under the server's audit key, never a bare hash.

A bare SHA-256 of a typed patient can be matched against candidates, or brute-forced back when
the fields are few and small (the probe of issue 36 found three fields in 5.6 s); under a key
the digest says nothing to whoever lacks the key, while the same values under the same key
still give the same digest, so an auditor holding the key can tell whether two events name
the same patient. The key: ``FORESTVIZ_AUDIT_KEY`` (at least 32 characters, the same on every
replica), else ``DATA_DIR/audit.key`` beside the signing key (32 random bytes as hex, created
mode 0600 on first use: :func:`forestviz.store.signing.server_secret`); it is never logged.

What is digested, as bytes (:func:`canonical`): a row's values as JSON with its keys (the
column names, as text) sorted, numbers as floats (1 and 1.0 alike), a missing value (None or
NaN) as null, anything else as text. A batch of rows is the HMAC of each row's JSON followed
by a line feed, in the rows' order (:class:`RowsDigest`, fed chunk by chunk); a file, the HMAC
of its bytes. Every digest is written ``hmac-sha256:`` and 64 hex digits.
"""

from __future__ import annotations

import hmac
import json
import math
from collections.abc import Iterator, Mapping
from hashlib import sha256
from pathlib import Path

import numpy as np
import pandas as pd

from forestviz.store.config import StoreConfig
from forestviz.store.signing import server_secret

KEY_FILE = "audit.key"
PREFIX = "hmac-sha256:"
_READ = 1 << 20  # bytes of a file read at a time


def audit_key(config: StoreConfig) -> bytes:
    """The digest key of ``config``: its secret, else ``DATA_DIR/audit.key`` (created on
    first use); StoreError for a secret shorter than :data:`MIN_KEY_CHARS`."""
    return server_secret(config.audit_key, "FORESTVIZ_AUDIT_KEY",
                         Path(config.data_dir) / KEY_FILE)


def canonical(values: Mapping) -> bytes:
    """``values`` (column → value) as canonical JSON bytes: the same values, the same bytes,
    whatever their order."""
    plain = {str(k): _plain(v) for k, v in values.items()}
    return json.dumps(plain, sort_keys=True, ensure_ascii=False).encode("utf-8")


def canonical_rows(frame: pd.DataFrame) -> Iterator[bytes]:
    """Each row of ``frame`` as :func:`canonical` bytes and a line feed."""
    names = [str(c) for c in frame.columns]
    columns = [[_plain(v) for v in frame.iloc[:, j].tolist()] for j in range(frame.shape[1])]
    for values in zip(*columns, strict=True) if columns else [()] * len(frame):
        row = dict(zip(names, values, strict=True))
        yield json.dumps(row, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\n"


def _plain(value):
    if value is None or value is pd.NA or value is pd.NaT or (
            isinstance(value, float | np.floating) and math.isnan(value)):
        return None
    if isinstance(value, int | float | np.number) and not isinstance(value, bool | np.bool_):
        return float(value)
    return str(value)


class RowsDigest:
    """The keyed digest of rows fed a chunk at a time (:meth:`update`), and how many."""

    def __init__(self, key: bytes):
        self._mac = hmac.new(key, digestmod=sha256)
        self.rows = 0

    def update(self, frame: pd.DataFrame) -> RowsDigest:
        for line in canonical_rows(frame):
            self._mac.update(line)
        self.rows += len(frame)
        return self

    def hexdigest(self) -> str:
        return PREFIX + self._mac.hexdigest()


class Digests:
    """The keyed digests of one server's key (read on first use: :meth:`key`)."""

    def __init__(self, config: StoreConfig):
        self.config = config
        self._key: bytes | None = None

    def key(self) -> bytes:
        if self._key is None:
            self._key = audit_key(self.config)
        return self._key

    def values(self, values: Mapping) -> str:
        """The digest of one row's values (a patient typed by hand)."""
        return PREFIX + hmac.new(self.key(), canonical(values), sha256).hexdigest()

    def rows(self, frame: pd.DataFrame | None = None) -> RowsDigest:
        """The running digest of rows, ``frame``'s rows fed first when given."""
        found = RowsDigest(self.key())
        return found if frame is None else found.update(frame)

    def data(self, data: bytes) -> str:
        """The digest of a file's bytes (a download)."""
        return PREFIX + hmac.new(self.key(), data, sha256).hexdigest()

    def file(self, path) -> str:
        """The digest of the file at ``path``, read a piece at a time."""
        mac = hmac.new(self.key(), digestmod=sha256)
        with Path(path).open("rb") as handle:
            while piece := handle.read(_READ):
                mac.update(piece)
        return PREFIX + mac.hexdigest()
