"""Signed model files: a file the server wrote for download carries an HMAC-SHA256 of its
bytes (RFC 2104) under the server's key, so a file edited afterwards (two class labels
exchanged inside an otherwise valid file, say) is told from one the server wrote.

The signature travels inside the file, as the zip archive's comment (APPNOTE.TXT 4.3.16: the
comment follows the end-of-central-directory record, whose last field is its length), so a
signed file is still one file that :func:`forestviz.persistence.loads` reads unchanged. The
HMAC covers the file as written without a comment, prefixed with :data:`DOMAIN`. Verifying is
a step of its own, :func:`verify`, which never refuses a file: it says whether the file is
``signed`` (by this key), ``unsigned`` or ``invalid`` (a signature that does not match: the
file was changed, or another key signed it), and the pages and reports show :data:`WARNING`
for every file that is not ``signed``.

The key: ``FORESTVIZ_SIGNING_KEY`` (a secret of at least 32 characters, the same on every
replica), else ``DATA_DIR/signing.key`` (32 random bytes as hex, created once, mode 0600).
"""

from __future__ import annotations

import contextlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path

from forestviz.store import blobs
from forestviz.store.config import StoreConfig, StoreError

DOMAIN = b"forestviz-model-file/1\x00"
WARNING = "unsigned model file: its origin cannot be verified"
KEY_FILE = "signing.key"
MIN_KEY_CHARS = 32
_END_RECORD = b"PK\x05\x06"
_END_BYTES = 22  # the end-of-central-directory record without its comment
_COMMENT = re.compile(rb"forestviz-signature/1 hmac-sha256 ([0-9a-f]{64})")
_COMMENT_BYTES = len(b"forestviz-signature/1 hmac-sha256 ") + 64


@dataclass(frozen=True)
class Verdict:
    """What :func:`verify` found: ``status`` is "signed", "unsigned" or "invalid"."""

    status: str

    @property
    def warning(self) -> str | None:
        """The line every page and report using the file shows, or None when signed."""
        if self.status == "signed":
            return None
        if self.status == "invalid":
            return (f"{WARNING} (its signature does not match: the file was changed after it "
                    "was signed, or another server signed it)")
        return WARNING


def signing_key(config: StoreConfig) -> bytes:
    """The key of ``config``: its secret, else the data directory's key file (created on
    first use); StoreError (one line) for a secret shorter than :data:`MIN_KEY_CHARS`, or a
    key file that is empty, too short or cannot be read (a directory in its place, say)."""
    return server_secret(config.signing_key, "FORESTVIZ_SIGNING_KEY",
                         Path(config.data_dir) / KEY_FILE)


def server_secret(value: str | None, variable: str, path) -> bytes:
    """A server's secret: ``value`` (set by the environment ``variable``) when given, at least
    :data:`MIN_KEY_CHARS` characters, else the key file at ``path`` (:func:`key_file`)."""
    if value is not None:
        if len(value) < MIN_KEY_CHARS:
            raise StoreError(f"{variable} must have at least {MIN_KEY_CHARS} characters.")
        return value.encode("utf-8")
    return key_file(path)


def key_file(path) -> bytes:
    """The secret in the file ``path``, in a folder only its owner reads (32 random bytes as hex,
    created mode 0600 on first use): the signing key, and the audit trail's digest key beside
    it (:mod:`forestviz.store.digests`); StoreError, in one line, when it cannot be read (a
    directory in its place) or is empty or too short."""
    try:
        blobs.private_folder(path.parent)
        with contextlib.suppress(FileExistsError):
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, blobs.FILE_MODE)
            with os.fdopen(handle, "w") as out:
                out.write(secrets.token_hex(32))
                out.flush()
                os.fsync(out.fileno())
        key = path.read_bytes().strip()
    except OSError as err:
        raise StoreError(f"The key file '{path}' cannot be read "
                         f"({err.strerror or err}).") from err
    if len(key) < MIN_KEY_CHARS:  # a key file another process is writing this instant
        raise StoreError(f"The key file '{path}' is empty or too short.")
    return key


def sign(data: bytes, key: bytes) -> bytes:
    """``data`` (a model file from :func:`forestviz.persistence.dumps`, or one signed
    before) with this key's signature as its zip comment; ValueError for other bytes."""
    unsigned = _unsigned(data)
    if unsigned is None:
        unsigned = data
        if len(data) < _END_BYTES or data[-_END_BYTES:-_END_BYTES + 4] != _END_RECORD:
            raise ValueError("only a model file written by forestviz can be signed")
    tag = hmac.new(key, DOMAIN + unsigned, sha256).hexdigest().encode("ascii")
    comment = b"forestviz-signature/1 hmac-sha256 " + tag
    return unsigned[:-2] + len(comment).to_bytes(2, "little") + comment


def verify(data: bytes, key: bytes | None) -> Verdict:
    """Whether ``data`` carries a valid signature under ``key`` (None: no key, nothing can
    be verified, every file is unsigned)."""
    unsigned = _unsigned(data)
    if unsigned is None or key is None:
        return Verdict("unsigned")
    found = _COMMENT.fullmatch(data[-_COMMENT_BYTES:]).group(1)
    expected = hmac.new(key, DOMAIN + unsigned, sha256).hexdigest().encode("ascii")
    return Verdict("signed" if hmac.compare_digest(found, expected) else "invalid")


def _unsigned(data: bytes) -> bytes | None:
    """The file without its signature comment, or None when it carries none."""
    end = len(data) - _COMMENT_BYTES - _END_BYTES
    if (end < 0 or data[end:end + 4] != _END_RECORD
            or int.from_bytes(data[end + 20:end + 22], "little") != _COMMENT_BYTES
            or not _COMMENT.fullmatch(data[-_COMMENT_BYTES:])):
        return None
    return data[:end + 20] + b"\x00\x00"
