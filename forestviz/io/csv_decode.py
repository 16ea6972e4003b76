"""A CSV upload's bytes and their text: read at most the size cap, refuse binary files by their
first bytes (magic numbers), NUL bytes or control characters, and decode the text as UTF-8
(with or without BOM), UTF-16/32 with a BOM, else Windows-1252 / Latin-1 (which decodes any
byte). The parsers read the text as UTF-8 bytes, so other encodings are re-encoded, 1 MiB at a
time so that temporary copies stay small.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass

from forestviz.io.errors import SAVE_AS_CSV, DataError

CHUNK = 1 << 20  # bytes per step when decoding and scanning: temporary arrays stay small
SNIFF_CHARS = 65536  # characters examined for control characters (and for the delimiter)
_CONTROL_SHARE = 0.01  # more control characters than this share of the text means binary data
_CONTROL = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x7fELF", "a program"),
    (b"PK\x03\x04", "an Excel workbook or another ZIP archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) or Word document"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"BZh91AY&SY", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_UNICODE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_FALLBACK_CODECS = ("utf-8-sig", "cp1252", "latin-1")  # tried in turn without a BOM


@dataclass(frozen=True)
class Text:
    """A decoded upload: ``payload`` is the whole text as UTF-8 bytes (the original bytes when
    they were UTF-8), ``head`` its first characters without a BOM, ``blank`` whether the head
    holds only white space."""

    payload: bytes
    head: str
    blank: bool


def read_bytes(source, max_bytes: int) -> bytes:
    """The bytes of ``source`` (bytes, a path or a file object), refused over ``max_bytes``."""
    try:
        if isinstance(source, bytes | bytearray | memoryview):
            data = bytes(source)
        elif isinstance(source, str | os.PathLike):
            with open(source, "rb") as handle:
                data = handle.read(max_bytes + 1)
        elif hasattr(source, "read"):
            data = source.read(max_bytes + 1)
            if isinstance(data, str):
                data = data.encode("utf-8")
        else:
            raise TypeError(f"load_csv needs bytes, a path or a file object, not {type(source)}")
    except OSError as error:
        raise DataError(
            f"The file could not be opened ({error.strerror or error}). Check that it exists "
            "and that you may read it, then try again."
        ) from error
    if len(data) > max_bytes:
        megabytes = max_bytes >= 2**20
        limit = f"{max_bytes / 2**20:,.0f} MB" if megabytes else f"{max_bytes:,} bytes"
        raise DataError(
            f"The file is larger than {limit}, the most this app accepts. Remove rows or "
            "columns you do not need and upload it again."
        )
    return data


def decode(data: bytes, n_chars: int) -> Text:
    """The text of ``data`` with its first ``n_chars`` characters. Binary content raises
    DataError."""
    kind = next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)
    if kind:
        raise DataError(f"This file is {kind}, not a CSV table. {SAVE_AS_CSV}")
    bom = next((codec for bom, codec in _UNICODE_BOMS if data.startswith(bom)), None)
    if not bom and b"\x00" in data:
        raise DataError(
            "The file contains NUL bytes, so it is a binary file or text saved as UTF-16 "
            f"without a byte-order mark, not a plain CSV table. {SAVE_AS_CSV}"
        )
    for codec in [bom] if bom else _FALLBACK_CODECS:
        try:
            head, pieces = _decode_as(data, codec, n_chars)
        except UnicodeError:
            continue
        break
    else:  # only a BOM's codec fails here: Latin-1 decodes any byte
        raise DataError(f"The file says it is {bom.upper()} text but is damaged. {SAVE_AS_CSV}")
    payload = data if codec == "utf-8-sig" else b"".join(pieces)
    sample = head[:SNIFF_CHARS]
    if b"\x00" in payload or len(_CONTROL.findall(sample)) > _CONTROL_SHARE * len(sample):
        raise DataError(
            f"The file contains binary data (control characters), not a CSV table. {SAVE_AS_CSV}"
        )
    head = head.removeprefix("\ufeff")
    return Text(payload, head, not head.strip())


def _decode_as(data: bytes, codec: str, n_chars: int) -> tuple[str, list[bytes]]:
    """The first ``n_chars`` characters of ``data`` read as ``codec`` and, unless the codec is
    UTF-8, the whole text re-encoded as UTF-8 pieces. UnicodeError if ``data`` is not
    ``codec``."""
    decoder = codecs.getincrementaldecoder(codec)()
    head = ""
    pieces = []
    for start in range(0, len(data), CHUNK):
        final = start + CHUNK >= len(data)
        piece = decoder.decode(data[start : start + CHUNK], final)
        head += piece[: n_chars - len(head)]
        if codec != "utf-8-sig":
            pieces.append(piece.encode())
    return head, pieces
