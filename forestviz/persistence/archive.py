"""A model file's bytes, checked before anything is built from them.

A model file is a skops zip: ``schema.json`` (every object as a node naming its loader and
class) and one ``<digits>.npy`` member per array. :func:`checked_schema` refuses, reading no
more than the caps below allow:

* pickles (they run code when read), non-zip bytes, files over ``MAX_FILE_BYTES`` (256 MiB);
* over ``MAX_MEMBERS`` (20,000) members, names other than ``schema.json`` / ``<digits>.npy``
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
_ENTRY_BYTES = 96  # a generous central-directory entry (forestviz writes ~65 bytes)
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
    try:
        # zipfile makes an object per central-directory entry: bound them by the end record
        # zipfile itself reads (zip64 included; private API, as it has no public equivalent)
        end = zipfile._EndRecData(io.BytesIO(data))
        entries, size = end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]
        if entries > MAX_MEMBERS or size > MAX_MEMBERS * _ENTRY_BYTES:
            raise refused(f"it lists {entries:,} members in a {size:,}-byte directory; "
                           f"forestviz writes at most {MAX_MEMBERS:,} members")
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
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
    if len(infos) > MAX_MEMBERS or len(set(names)) < len(names) or "schema.json" not in names:
        raise refused("it has too many members, a member twice, or no schema.json")
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
