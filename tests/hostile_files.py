"""Hostile model files that are not model files, break the zip structure, or hold trees the
compiled code would misread (registered in ``hostile_models``)."""

from __future__ import annotations

import io
import json
import pickle
import struct
import zipfile
import zlib
from functools import cache

import numpy as np
import skops.io as sio
from hostile_models import (
    MiB,
    edit,
    hostile,
    injected,
    list_of,
    members,
    node,
    nodes_where,
    raw_zip,
    rezip,
    stored,
    value,
    with_array,
    with_names,
)


# -------------------------------------------------------------------- not a model file
@hostile("pickle")
def pickled_dict(legit, marker):
    return pickle.dumps({"harmless": [1, 2, 3]})


@hostile("pickle-protocol-0")
def pickled_dict_protocol_0(legit, marker):
    return pickle.dumps({"harmless": [1, 2, 3]}, protocol=0)


@hostile("not-a-zip")
def not_a_zip(legit, marker):
    return b"id,glucose\n1,120\n" * 100


@hostile("empty")
def empty_bytes(legit, marker):
    return b""


@hostile("schema-not-json")
def schema_not_json(legit, marker):
    return rezip({**members(legit), "schema.json": b"{'not': json"})


@hostile("schema-deeply-nested-json")
def schema_deeply_nested_json(legit, marker):
    return rezip({**members(legit), "schema.json": b"[" * 200_000 + b"]" * 200_000})


@hostile("schema-deeply-nested-nodes")
def schema_deeply_nested_nodes(legit, marker):
    deep = value(1)
    for _ in range(200):
        deep = list_of(deep)
    return injected(legit, deep)


@hostile("skops-file-of-another-program")
def skops_file_of_another_program(legit, marker):
    return sio.dumps(["a", "list", "of", "text"])


@hostile("table-replacing-a-method", "sets 'predict', which is not a fitted attribute")
def table_replacing_a_method(legit, marker):
    def change(schema):
        state = schema["content"]["object"]["content"]["estimator"]["content"]["content"]
        state["predict"] = state.pop("search_results_")
    return edit(legit, change)


@hostile("table-with-a-column-too-many", "columns do not fit together")
def table_with_a_column_too_many(legit, marker):
    """A search table naming one more column than it has: refused by the model's own
    ``__setstate__`` (forestviz.trees.ensemble), not half-built."""
    def change(schema):
        state = schema["content"]["object"]["content"]["estimator"]["content"]["content"]
        names = state["search_results_"]["content"]["__dataframe__"]["content"]["names"]
        names["content"].append(dict(names["content"][0], content='"extra"', __id__=1))
    return edit(legit, change)


@hostile("old-skops-protocol")
def old_skops_protocol(legit, marker):
    return edit(legit, lambda schema: schema.update(protocol=0))


@hostile("other-forestviz-format")
def other_forestviz_format(legit, marker):
    """A forestviz-model/3 file: the app's payload dict with its format inside."""
    def change(schema):
        payload = schema["content"]["object"]
        payload["content"]["format"] = value("forestviz-model/3")
        payload["key_types"]["content"].append(node("TypeNode", "builtins.str"))
        schema.clear()
        schema.update(payload, protocol=2)
    return edit(legit, change)


# ---------------------------------------------------------------------- zip structure
def _prefixed(prefix):
    """A builder of ``legit`` with every array member's name behind ``prefix``."""
    return lambda legit, marker: with_names(
        legit, lambda name: prefix + name if name.endswith(".npy") else name)


for _name, _prefix, _offender in (("name-parent-directory", "../", "'../"),
                                  ("name-absolute", "/", "'/"),
                                  ("name-subdirectory", "arrays/", "'arrays/"),
                                  ("name-backslash", "..\\", "..\\\\")):
    hostile(_name, _offender)(_prefixed(_prefix))


@hostile("duplicate-member")
def duplicate_member(legit, marker):
    files = members(legit)
    return raw_zip([stored(name, data) for name, data in files.items()]
                   + [stored("schema.json", b"{}")])


@hostile("too-many-members", "20,001 members")
def too_many_members(legit, marker):
    files = members(legit)
    return raw_zip([stored(name, data) for name, data in files.items()]
                   + [stored(f"{i}.npy", b"") for i in range(20_001 - len(files))])


@hostile("directory-understating-its-entries", "too many members")
def directory_understating_its_entries(legit, marker):
    files = members(legit)
    return raw_zip([stored(name, data) for name, data in files.items()]
                   + [stored(f"{i}.npy", b"") for i in range(25_000)], listed=len(files))


@hostile("directory-over-the-read-budget", "zip directory is over")
def directory_over_the_read_budget(legit, marker):
    """19,000 entries (fewer than the cap on members) of 200 bytes: refused while zipfile reads
    the 3.6 MiB directory, before a ZipInfo exists."""
    files = members(legit)
    return raw_zip([stored(name, data) for name, data in files.items()]
                   + [stored(f"{i:0150d}.npy", b"") for i in range(19_000)])


@hostile("directory-declaring-the-whole-file", "zip directory is over")
def directory_declaring_the_whole_file(legit, marker):
    """An end record whose directory starts at byte 0: 4 MiB of member data read as one."""
    data = raw_zip([stored("schema.json", bytes(4 * MiB))])
    end = data.rindex(b"PK\x05\x06")  # its directory size and offset are at +12 and +16
    return data[:end + 12] + struct.pack("<LL", end, 0) + data[end + 20:]


@cache
def _zeros_deflated(gib: float) -> tuple[bytes, int]:
    """``gib`` GiB of zeros as one raw deflate stream (~1 KiB per MiB) and its CRC-32:
    identical fully flushed blocks, so it costs a CRC pass rather than a deflate pass."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(MiB)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(int(gib * 1024)):
        crc = zlib.crc32(zeros, crc)
    return block * int(gib * 1024) + compressor.flush(), crc


@hostile("zip-bomb", "zip bomb")
def zip_bomb(legit, marker):
    bomb, crc = _zeros_deflated(1.5)
    files = members(legit)
    return raw_zip([stored(name, data) for name, data in files.items()]
                   + [("1.npy", bomb, zipfile.ZIP_DEFLATED, 3 * 2**29, crc)])


@hostile("zip-bomb-lying-header")
def zip_bomb_lying_header(legit, marker):
    """Declares 10 kB and the CRC of its real 1.5 GiB: only 10 kB are ever inflated."""
    bomb, crc = _zeros_deflated(1.5)
    files = members(legit)
    return raw_zip([stored(name, data) for name, data in files.items()]
                   + [("1.npy", bomb, zipfile.ZIP_DEFLATED, 10_000, crc)])


@hostile("npy-huge-shape", "declares")
def npy_huge_shape(legit, marker):
    return with_array(legit, {"descr": "<f8", "fortran_order": False, "shape": (10**11,)})


@hostile("npy-size-mismatch", "not the size it declares")
def npy_size_mismatch(legit, marker):
    return with_array(legit, {"descr": "<f8", "fortran_order": False, "shape": (2,)})


@hostile("npy-object-dtype", "object")
def npy_object_dtype(legit, marker):
    return with_array(legit, {"descr": "|O", "fortran_order": False, "shape": (1,)},
                      pickle.dumps(print))


@hostile("npy-unknown-dtype")
def npy_unknown_dtype(legit, marker):
    return with_array(legit, {"descr": "<x9", "fortran_order": False, "shape": (1,)})


# ------------------------------------------------------ trees compiled code would misread
def with_tree_nodes(legit: bytes, change) -> bytes:
    """``legit`` with ``change(nodes)`` applied to its first tree's node array."""
    files = members(legit)
    schema = json.loads(files["schema.json"])
    tree = next(nodes_where(schema, lambda n: n.get("__loader__") == "TreeNode"))
    name = tree["content"]["content"]["nodes"]["file"]
    nodes = np.load(io.BytesIO(files[name]))
    change(nodes)
    buffer = io.BytesIO()
    np.save(buffer, nodes)
    files[name] = buffer.getvalue()
    return rezip(files)


def with_every_tree(legit: bytes, change) -> bytes:
    """``legit`` with ``change(tree_node)`` applied to every tree node of its schema."""
    def apply(schema):
        for tree in list(nodes_where(schema, lambda n: n.get("__loader__") == "TreeNode")):
            change(tree)
    return edit(legit, apply)


@hostile("tree-child-outside-the-tree", "decision trees is damaged")
def tree_child_outside_the_tree(legit, marker):
    return with_tree_nodes(legit, lambda nodes: nodes["left_child"].__setitem__(0, 10**6))


@hostile("tree-cycle", "decision trees is damaged")
def tree_cycle(legit, marker):
    return with_tree_nodes(legit, lambda nodes: nodes["right_child"].__setitem__(0, 0))


@hostile("tree-feature-outside-the-data", "decision trees is damaged")
def tree_feature_outside_the_data(legit, marker):
    return with_tree_nodes(legit, lambda nodes: nodes["feature"].__setitem__(0, 10**6))


@hostile("tree-deeper-than-its-max-depth", "decision trees is damaged")
def tree_deeper_than_its_max_depth(legit, marker):
    def change(tree):
        tree["content"]["content"]["max_depth"] = value(1)
    return with_every_tree(legit, change)


@hostile("tree-wider-than-its-model", "disagree on the number of features")
def tree_wider_than_its_model(legit, marker):
    def change(tree):
        tree["__reduce__"]["args"]["content"][0] = value(1000)
    return with_every_tree(legit, change)
