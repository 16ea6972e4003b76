"""A model file's bytes, checked before anything is built from them.

A model file is a skops zip: ``schema.json`` (every object as a node naming its loader and
class) and one ``<digits>.npy`` member per array. :func:`checked_schema` refuses, reading no
more than the caps below allow:

* pickles (they run code when read), non-zip bytes, files over ``MAX_FILE_BYTES`` (256 MiB);
* over ``MAX_MEMBERS`` (20,000) members (counted by their directory entries' signature
  before zipfile reads the directory), a zip directory over what that many members take
  (refused while zipfile reads it, through :class:`_ReadBudget`), names other than
  ``schema.json`` / ``<digits>.npy``
  (no ``/``, ``\\``, ``..``), duplicates, encryption, compression other than deflate;
* zip bombs: over ``MAX_UNPACKED_BYTES`` (1 GiB) declared, a member expanding over
  ``MAX_RATIO`` (300) times, or a real size other than the declared one (read through a cap);
* a ``schema.json`` over ``MAX_SCHEMA_BYTES`` (64 MiB), not JSON, or of an older skops
  protocol; ``.npy`` headers declaring over ``MAX_ARRAY_BYTES`` (256 MiB), object or unknown
  dtypes.

What the schema may name, and the trees inside, are checked by :mod:`forestviz.persistence.files`.
"""

import io
import json
import math
import pickletools
import re
import zipfile

from numpy.lib import format as npy

SKOPS_PROTOCOL = 2  # the skops protocol forestviz writes (skops 0.16)

MiB = 2**20
# Measured on the largest models the app trains (500 trees): ABRF-1 on Pima writes 9.2 MiB that
# unpack to 132 MiB (5,537 members, arrays <= 17 MiB, deflate ratios <= 108, nesting 16); AGBoost
# on diabetes the largest schema.json (31 MiB, 6,042 members). The caps leave 2-8x headroom.
MAX_FILE_BYTES = 256 * MiB
MAX_MEMBERS = 20_000
MAX_UNPACKED_BYTES = 1024 * MiB
MAX_RATIO = 300  # deflate's ceiling is ~1032 (runs of zeros)
MAX_SCHEMA_BYTES = 64 * MiB
MAX_ARRAY_BYTES = 256 * MiB

_MEMBER_NAME = re.compile(r"schema\.json|[0-9]{1,24}\.npy")
_ZIP_MAGIC = b"PK\x03\x04"
_DIRECTORY_ENTRY = b"PK\x01\x02"  # a central directory file header's signature
_ENTRY_BYTES = 96  # a generous central-directory entry (forestviz writes ~65 bytes)
# what zipfile may read while it builds its directory: the end record and MAX_MEMBERS entries
_DIRECTORY_BUDGET = 128 * 1024 + MAX_MEMBERS * _ENTRY_BYTES
_PICKLE_PROBE = 64 * 1024  # protocol 0-1 pickles are recognised in their first 64 KiB
_ARRAY_KINDS = "biufcUS"  # and structured dtypes of these (a tree's nodes)


class ModelFileError(ValueError):
    """A file that cannot or must not be loaded; the message says why in plain words."""


def refused(reason: str) -> ModelFileError:
    """The error for a file refused for ``reason`` (a clause: "it is a pickle file")."""
    return ModelFileError(f"This model file was refused: {reason}. Load only model files "
                          "saved by forestviz.")


def checked_schema(data: bytes) -> dict:
    """The ``schema.json`` of ``data`` after every check but depth and trust."""
    _check_bytes(data)
    # every directory entry zipfile makes a ZipInfo of starts with this signature (APPNOTE.TXT
    # 4.3.12), so counting it bounds them before zipfile runs (0.2 s for 256 MiB)
    listed = data.count(_DIRECTORY_ENTRY)
    if listed > MAX_MEMBERS:
        raise refused(f"it has too many members: {listed:,} members listed, where forestviz "
                       f"writes at most {MAX_MEMBERS:,}")
    try:
        source = _ReadBudget(data, _DIRECTORY_BUDGET)
        with zipfile.ZipFile(source) as archive:
            source.budget = None  # the directory is read: members are bounded one by one
            _check_members(archive)
            for info in archive.infolist():
                if info.filename != "schema.json":
                    _check_array(archive, info)
            schema = _read_schema(archive)
    except ModelFileError:
        raise
    except Exception as err:  # zipfile, zlib and numpy raise many kinds on bad bytes
        raise ModelFileError("This file is not a forestviz model file, or it is damaged. "
                             "Choose a .skops file saved by forestviz.") from err
    return schema


class _ReadBudget(io.BytesIO):
    """``data`` as a file that hands out at most ``budget`` bytes in all, then refuses the file
    (any number once ``budget`` is None).

    ``zipfile.ZipFile`` reads the end record (at most 64 KiB + 98 bytes, zip64 included), then
    the whole central directory the record declares, and builds a ``ZipInfo`` per entry before
    anything can be checked: measured, a 45 MiB directory of 1,000,000 entries takes 10.9 s and
    350 MiB (a 256 MiB file, ~5.7 million entries, about a minute and 2 GiB). Reading the file
    through this budget while the ZipFile is built bounds that work by the public file protocol
    alone, whatever the end record claims (each entry takes at least 46 bytes).
    """

    def __init__(self, data: bytes, budget: int | None):
        super().__init__(data)
        self.size, self.budget = len(data), budget

    def read(self, size: int | None = -1) -> bytes:
        if self.budget is not None:
            left = max(self.size - self.tell(), 0)
            wanted = left if size is None or size < 0 else min(size, left)
            if wanted > self.budget:
                raise refused(f"its zip directory is over {_DIRECTORY_BUDGET:,} bytes, more than "
                               f"the {MAX_MEMBERS:,} members forestviz writes at most take")
            self.budget -= wanted
        return super().read(size)


def _check_bytes(data: bytes) -> None:
    if not isinstance(data, bytes):
        raise TypeError(f"a model file is bytes, not {type(data).__name__}")
    if len(data) > MAX_FILE_BYTES:
        raise refused(f"it is {len(data) / MiB:,.0f} MiB; forestviz reads model files of "
                       f"at most {MAX_FILE_BYTES // MiB} MiB")
    if not data.startswith(_ZIP_MAGIC) and _is_pickle(data[:_PICKLE_PROBE]):
        raise refused("it is a pickle file, and pickle files are refused: they can run code")
    if not data.startswith(_ZIP_MAGIC):
        raise ModelFileError("This file is empty or not a zip archive: it is not a forestviz "
                             "model file. Choose a .skops file saved by forestviz.")


def _is_pickle(head: bytes) -> bool:
    """A protocol marker, or opcodes decoding up to STOP (``pickletools`` runs nothing)."""
    try:
        return head.startswith(b"\x80") or any(op.name == "STOP"
                                               for op, _, _ in pickletools.genops(head))
    except Exception:  # an unknown opcode, or the bytes end early
        return False


def _check_members(archive: zipfile.ZipFile) -> None:
    infos = archive.infolist()
    names = [info.filename for info in infos]
    foreign = [name for name in names if not _MEMBER_NAME.fullmatch(name)]
    if foreign:
        raise refused(f"it contains the member {foreign[0]!r}, a name forestviz never writes")
    if len(infos) > MAX_MEMBERS:
        raise refused(f"it has too many members: {len(infos):,} members, where forestviz "
                       f"writes at most {MAX_MEMBERS:,}")
    if len(set(names)) < len(names) or "schema.json" not in names:
        raise refused("it has a member twice, or no schema.json")
    for info in infos:
        if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED,
                                                               zipfile.ZIP_DEFLATED):
            raise refused(f"its member {info.filename} is encrypted or unusually compressed")
        if info.file_size > MAX_RATIO * info.compress_size + MiB:
            raise refused(f"its member {info.filename} would expand {info.file_size:,} "
                           f"bytes from {info.compress_size:,} (a zip bomb)")
    unpacked = sum(info.file_size for info in infos)
    if unpacked > MAX_UNPACKED_BYTES:
        raise refused(f"it would unpack to {unpacked / MiB:,.0f} MiB; forestviz reads at "
                       f"most {MAX_UNPACKED_BYTES // MiB} MiB")


def _check_array(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    """Refuse an .npy member by its header, then read it through a cap to its declared size."""
    with archive.open(info) as member:
        try:
            read_header = {(1, 0): npy.read_array_header_1_0,
                           (2, 0): npy.read_array_header_2_0}[npy.read_magic(member)]
            shape, _, dtype = read_header(member)
        except (KeyError, ValueError):
            raise refused(f"its array {info.filename} has an unknown header") from None
        if dtype.hasobject or not (dtype.kind in _ARRAY_KINDS or dtype.names):
            raise refused(f"its array {info.filename} holds {dtype}, never written by forestviz")
        size = math.prod(shape) * dtype.itemsize
        if size > MAX_ARRAY_BYTES:
            raise refused(f"its array {info.filename} declares {size / MiB:,.0f} MiB; "
                           f"forestviz reads arrays of at most {MAX_ARRAY_BYTES // MiB} MiB")
        if member.tell() + size != info.file_size or _drain(member, size) != size:
            raise refused(f"its array {info.filename} is not the size it declares")


def _drain(member, limit: int) -> int:
    """The number of bytes left in ``member``, reading at most ``limit + 1`` of them."""
    count = 0
    while count <= limit and (chunk := member.read(min(MiB, limit + 1 - count))):
        count += len(chunk)
    return count


def _read_schema(archive: zipfile.ZipFile) -> dict:
    with archive.open("schema.json") as member:
        text = member.read(MAX_SCHEMA_BYTES + 1)
    if len(text) > MAX_SCHEMA_BYTES:
        raise refused(f"its schema.json is over {MAX_SCHEMA_BYTES // MiB} MiB")
    try:
        schema = json.loads(text)
    except (ValueError, RecursionError):
        raise refused("its schema.json is not valid JSON") from None
    if not isinstance(schema, dict) or schema.get("protocol") != SKOPS_PROTOCOL:
        raise refused(f"it is not a skops file of protocol {SKOPS_PROTOCOL}, as forestviz writes")
    return schema
