"""A corpus of hostile model files, built in memory from a legitimate one.

``build(name, legit, marker)`` returns the bytes of the hostile file ``name``: ``legit`` is a
small model file written by ``forestviz.persistence.files.dumps``; ``marker`` is a path the files
in ``EXECUTING`` create (by running ``touch``, writing a file, …) when skops is allowed to load
them. ``OFFENDERS`` lists what the refusal must name; ``MEMORY_BOUND`` tightens the memory a
refusal may take for the bombs.
"""

from __future__ import annotations

import io
import json
import pickle
import struct
import zipfile
import zlib
from functools import cache
from itertools import count

import numpy as np
import skops.io as sio
from numpy.lib import format as npy

MiB = 2**20
BUILDERS = {}
OFFENDERS: dict[str, tuple[str, ...]] = {}
EXECUTING: set[str] = set()
MEMORY_BOUND = {"zip-bomb": 16 * MiB, "zip-bomb-lying-header": 16 * MiB,
                "npy-huge-shape": 16 * MiB, "directory-over-the-read-budget": 16 * MiB,
                "directory-declaring-the-whole-file": 16 * MiB}
_ids = count(10**15)  # node ids no legitimate node has


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
            "__id__": next(_ids), **fields}


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


# ------------------------------------------------------------------ references to code
@hostile("function-check_output", "sklearn.utils._testing.check_output")
def function_check_output(legit, marker):
    return injected(legit, node("FunctionNode", "sklearn.utils._testing.check_output"))


@hostile("call-check_output-touch", "sklearn.utils._testing.check_output", executes=True)
def call_check_output_touch(legit, marker):
    return injected(legit, call("sklearn.utils._testing.check_output",
                                list_of(value("touch"), value(marker))))


@hostile("function-numpy-savetxt", "sklearn.externals.array_api_compat.numpy.savetxt")
def function_numpy_savetxt(legit, marker):
    return injected(legit, node("FunctionNode",
                                "sklearn.externals.array_api_compat.numpy.savetxt"))


@hostile("call-numpy-savetxt", "sklearn.externals.array_api_compat.numpy.savetxt",
         executes=True)
def call_numpy_savetxt(legit, marker):
    return injected(legit, call("sklearn.externals.array_api_compat.numpy.savetxt",
                                value(marker), list_of(value(1.0))))


@hostile("function-numpy-load", "sklearn.externals.array_api_compat.numpy.load")
def function_numpy_load(legit, marker):
    return injected(legit, node("FunctionNode", "sklearn.externals.array_api_compat.numpy.load"))


@hostile("function-scipy-savemat", "scipy.io.matlab._mio.savemat")
def function_scipy_savemat(legit, marker):
    return injected(legit, node("FunctionNode", "scipy.io.matlab._mio.savemat"))


@hostile("function-numpy-ufunc-trusted-by-skops", "numpy.add")
def function_numpy_ufunc_trusted_by_skops(legit, marker):
    return injected(legit, node("FunctionNode", "numpy.add"))


@hostile("constructor-os-system", "os.system", executes=True)
def constructor_os_system(legit, marker):
    return injected(legit, node("ConstructorFromReduceNode", "os.system",
                                content=tuple_of(value(f"touch '{marker}'"))))


@hostile("function-builtins-eval", "builtins.eval")
def function_builtins_eval(legit, marker):
    return injected(legit, node("FunctionNode", "builtins.eval"))


@hostile("constructor-builtins-exec", "builtins.exec", executes=True)
def constructor_builtins_exec(legit, marker):
    return injected(legit, node("ConstructorFromReduceNode", "builtins.exec",
                                content=tuple_of(value(f"open({marker!r}, 'w').close()"))))


@hostile("constructor-builtins-open", "builtins.open", executes=True)
def constructor_builtins_open(legit, marker):
    return injected(legit, node("ConstructorFromReduceNode", "builtins.open",
                                content=tuple_of(value(marker), value("w"))))


@hostile("call-numpy-save", "numpy.save", executes=True)
def call_numpy_save(legit, marker):
    return injected(legit, call("numpy.save", value(marker), list_of(value(1.0))))


@hostile("operator-attrgetter", "operator.attrgetter")
def operator_attrgetter(legit, marker):
    return injected(legit, node("OperatorFuncNode", "operator.attrgetter",
                                attrs=tuple_of(value("__globals__"))))


@hostile("operator-methodcaller", "operator.methodcaller")
def operator_methodcaller(legit, marker):
    return injected(legit, node("OperatorFuncNode", "operator.methodcaller",
                                attrs=tuple_of(value("system"), value(f"touch '{marker}'"))))


@hostile("partial-os-system", "functools.partial", "os.system")
def partial_os_system(legit, marker):
    return injected(legit, node("PartialNode", "functools.partial", content={
        "func": node("FunctionNode", "os.system"), "args": tuple_of(value(f"touch '{marker}'")),
        "kwds": empty_dict(), "namespace": empty_dict()}))


@hostile("function-importlib", "importlib.import_module")
def function_importlib(legit, marker):
    return injected(legit, node("FunctionNode", "importlib.import_module"))


@hostile("object-check_output", "sklearn.utils._testing.check_output")
def object_check_output(legit, marker):
    return injected(legit, node("ObjectNode", "sklearn.utils._testing.check_output",
                                content=empty_dict()))


@hostile("object-numpy-save", "numpy.save")
def object_numpy_save(legit, marker):
    return injected(legit, node("ObjectNode", "numpy.save"))


@hostile("object-function-transformer-trusted-by-skops",
         "sklearn.preprocessing._function_transformer.FunctionTransformer")
def object_function_transformer_trusted_by_skops(legit, marker):
    return injected(legit, node("ObjectNode",
                                "sklearn.preprocessing._function_transformer.FunctionTransformer",
                                content=empty_dict()))


@hostile("type-subprocess-popen", "subprocess.Popen")
def type_subprocess_popen(legit, marker):
    return injected(legit, node("TypeNode", "subprocess.Popen"))


@hostile("method-of-a-trusted-class",
         "forestviz.attention.estimators.AttentionForestRegressor (as a MethodNode)")
def method_of_a_trusted_class(legit, marker):
    def change(schema):
        estimator = schema["content"]["object"]["content"]["estimator"]
        schema["content"]["object"]["content"]["estimator"] = {
            **{key: estimator[key] for key in ("__class__", "__module__")},
            "__loader__": "MethodNode", "__id__": next(_ids),
            "content": {"func": "fit", "obj": estimator}}
    return edit(legit, change)


@hostile("random-generator", "numpy.random._generator.Generator")
def random_generator(legit, marker):
    return injected(legit, node("RandomGeneratorNode", "numpy.random._generator.Generator",
                                content={"bit_generator": empty_dict(),
                                         "seed_seq": empty_dict()}))


@hostile("nested-tree-as-counter", "collections.Counter")
def nested_tree_as_counter(legit, marker):
    return retyped(legit, "DecisionTreeRegressor", "collections.Counter")


@hostile("nested-preprocessor-as-popen", "subprocess.Popen")
def nested_preprocessor_as_popen(legit, marker):
    return retyped(legit, "TablePreprocessor", "subprocess.Popen")


def preprocessor_state(schema) -> dict:
    """The content (a dict node's entries) of the first TablePreprocessor node of ``schema``."""
    found = next(nodes_where(schema, lambda n: n.get("__class__") == "TablePreprocessor"))
    return found["content"]["content"]


@hostile("preprocessor-without-its-state", "table preprocessor is damaged")
def preprocessor_without_its_state(legit, marker):
    """skops builds an object without calling ``__setstate__`` when its node has no content."""
    def change(schema):
        found = next(nodes_where(schema, lambda n: n.get("__class__") == "TablePreprocessor"))
        del found["content"]
    return edit(legit, change)


@hostile("preprocessor-level-not-text", "levels are damaged")
def preprocessor_level_not_text(legit, marker):
    def change(schema):
        levels = preprocessor_state(schema)["categories_"]["content"]
        first = next(iter(levels.values()))
        first["content"][0] = list_of(value("a list where a level goes"))
    return edit(legit, change)


@hostile("preprocessor-median-not-finite", "medians or levels are damaged")
def preprocessor_median_not_finite(legit, marker):
    def change(schema):
        medians = preprocessor_state(schema)["medians_"]["content"]
        next(iter(medians.values()))["content"] = "Infinity"
    return edit(legit, change)


@hostile("preprocessor-levels-fit-never-makes", "not ones fit makes")
def preprocessor_levels_fit_never_makes(legit, marker):
    """Kept levels out of order: fitting the encoder again gives other levels than saved."""
    def change(schema):
        levels = preprocessor_state(schema)["categories_"]["content"]
        kept = next(content for content in levels.values() if len(content["content"]) > 1)
        kept["content"].reverse()
    return edit(legit, change)


@hostile("preprocessor-foreign-field", "other fields than it writes")
def preprocessor_foreign_field(legit, marker):
    """An attribute the plain state never has (the old layout's encoded names, say)."""
    def change(schema):
        state = next(nodes_where(
            schema, lambda n: n.get("__class__") == "TablePreprocessor"))["content"]
        state["content"]["feature_names_out_"] = tuple_of(value("x"))
        state["key_types"]["content"].append(node("TypeNode", "builtins.str"))
    return edit(legit, change)


@hostile("preprocessor-too-wide-to-rebuild", "more than forestviz reads")
def preprocessor_too_wide_to_rebuild(legit, marker):
    """Its types pass, but fitting it again would encode 3,300 rows x over 1,650 columns (over
    MAX_REBUILD_CELLS); kept small, so that building the refused file stays cheap."""
    def change(schema):
        state = preprocessor_state(schema)
        state["max_levels"] = state["max_text_levels"] = value(10**6)
        levels = state["categories_"]["content"]
        column = next(iter(levels))
        levels[column] = tuple_of(*(value(f"level {i:04d}") for i in range(1_650)))
        state["other_levels_"]["content"].pop(column, None)
    return edit(legit, change)


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
@hostile("name-parent-directory", "'../")
def name_parent_directory(legit, marker):
    return with_names(legit, lambda name: "../" + name if name.endswith(".npy") else name)


@hostile("name-absolute", "'/")
def name_absolute(legit, marker):
    return with_names(legit, lambda name: "/" + name if name.endswith(".npy") else name)


@hostile("name-subdirectory", "'arrays/")
def name_subdirectory(legit, marker):
    return with_names(legit, lambda name: "arrays/" + name if name.endswith(".npy") else name)


@hostile("name-backslash", "..\\\\")
def name_backslash(legit, marker):
    return with_names(legit, lambda name: "..\\" + name if name.endswith(".npy") else name)


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

