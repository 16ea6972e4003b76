"""A corpus of hostile model files, built in memory from a legitimate one: the registry and
the schema/zip helpers here, the builders in ``hostile_code`` (references to code) and
``hostile_files`` (not a model file, zip structure, damaged trees).

``build(name, legit, marker)`` returns the bytes of the hostile file ``name``: ``legit`` is a
small model file written by ``forestviz.persistence.files.dumps``; ``marker`` is a path the files
in ``EXECUTING`` create (by running ``touch``, writing a file, …) when skops is allowed to load
them. ``OFFENDERS`` lists what the refusal must name; ``MEMORY_BOUND`` tightens the memory a
refusal may take for the bombs.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from itertools import count

from numpy.lib import format as npy

MiB = 2**20
BUILDERS = {}
OFFENDERS: dict[str, tuple[str, ...]] = {}
EXECUTING: set[str] = set()
MEMORY_BOUND = {"zip-bomb": 16 * MiB, "zip-bomb-lying-header": 16 * MiB,
                "npy-huge-shape": 16 * MiB, "directory-over-the-read-budget": 16 * MiB,
                "directory-declaring-the-whole-file": 16 * MiB}
NODE_IDS = count(10**15)  # node ids no legitimate node has


def hostile(name, *offenders, executes=False):
    """Register a builder ``(legit, marker) -> bytes`` under ``name``."""
    def register(builder):
        BUILDERS[name] = builder
        if offenders:
            OFFENDERS[name] = offenders
        if executes:
            EXECUTING.add(name)
        return builder
    return register


def build(name: str, legit: bytes, marker: str) -> bytes:
    return BUILDERS[name](legit, marker)


# ------------------------------------------------------------------- schema nodes and zips
def node(loader, dotted, **fields):
    module, _, name = dotted.rpartition(".")
    return {"__class__": name, "__module__": module, "__loader__": loader,
            "__id__": next(NODE_IDS), **fields}


def value(content):
    return node("JsonNode", "builtins.str", content=json.dumps(content), is_json=True)


def tuple_of(*items):
    return node("TupleNode", "builtins.tuple", content=list(items))


def list_of(*items):
    return node("ListNode", "builtins.list", content=list(items))


def empty_dict():
    return node("DictNode", "builtins.dict", content={}, key_types=list_of())


def call(dotted, *args):
    """A node skops loads by calling ``dotted(*args)``: the constructor of a loss."""
    return node("LossNode", dotted, __reduce__={"args": tuple_of(*args)}, content=empty_dict())


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def rezip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def edit(legit: bytes, change) -> bytes:
    """``legit`` with ``change(schema)`` applied to its parsed schema.json."""
    files = members(legit)
    schema = json.loads(files["schema.json"])
    change(schema)
    files["schema.json"] = json.dumps(schema).encode()
    return rezip(files)


def injected(legit: bytes, hostile_node) -> bytes:
    """``legit`` with ``hostile_node`` as one more entry of the envelope dict (loaded with it)."""
    def change(schema):
        schema["content"]["extra"] = hostile_node
        schema["key_types"]["content"].append(node("TypeNode", "builtins.str"))
    return edit(legit, change)


def nodes_where(value, predicate):
    """Every node dict under ``value`` that ``predicate`` accepts."""
    if isinstance(value, dict):
        if predicate(value):
            yield value
        value = list(value.values())
    if isinstance(value, list):
        for child in value:
            yield from nodes_where(child, predicate)


def retyped(legit: bytes, class_name: str, dotted: str) -> bytes:
    """``legit`` with every node of class ``class_name`` claiming to be ``dotted``."""
    def change(schema):
        for found in nodes_where(schema, lambda n: n.get("__class__") == class_name):
            found["__module__"], _, found["__class__"] = dotted.rpartition(".")
    return edit(legit, change)


def raw_zip(entries, listed: int | None = None) -> bytes:
    """A zip written byte by byte, nothing checked: (name, data, method, size, crc) entries,
    ``data`` already compressed with ``method``; its end record states ``listed`` entries."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, data, method, size, crc in entries:
        encoded, offset = name.encode(), out.tell()
        out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 33, crc, len(data),
                              size, len(encoded), 0) + encoded + data)
        central.write(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, method, 0, 33, crc,
                                  len(data), size, len(encoded), 0, 0, 0, 0, 0, offset)
                      + encoded)
    directory = central.getvalue()
    listed = len(entries) if listed is None else listed
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, listed, listed, len(directory),
                      out.tell(), 0)
    return out.getvalue() + directory + end


def stored(name: str, data: bytes):
    return name, data, zipfile.ZIP_STORED, len(data), zlib.crc32(data)


def with_names(legit: bytes, rename) -> bytes:
    """``legit`` rewritten byte by byte with every member name passed through ``rename``."""
    return raw_zip([stored(rename(name), data) for name, data in members(legit).items()])


def first_array(files: dict[str, bytes]) -> str:
    return next(name for name in files if name.endswith(".npy"))


def with_array(legit: bytes, header: dict, body: bytes = b"\0" * 64) -> bytes:
    """``legit`` with its first array replaced by an .npy of ``header`` and ``body``."""
    files = members(legit)
    buffer = io.BytesIO()
    npy.write_array_header_1_0(buffer, header)
    files[first_array(files)] = buffer.getvalue() + body
    return rezip(files)



import hostile_code  # noqa: E402, F401  (registers its builders)
import hostile_files  # noqa: E402, F401
