"""Model files that are safe to open: save and load fitted forestviz models.

A model file is a skops zip: ``schema.json`` (every object as a node naming its loader and
class) and one ``<digits>.npy`` member per array. Files come from users, so :func:`loads`
refuses, *before* skops builds any object:

* pickles (they run code when read), non-zip bytes, files over ``MAX_FILE_BYTES`` (256 MiB);
* over ``MAX_MEMBERS`` (20,000) members, names other than ``schema.json`` / ``<digits>.npy``
  (no ``/``, ``\\``, ``..``), duplicates, encryption, compression other than deflate;
* zip bombs: over ``MAX_UNPACKED_BYTES`` (1 GiB) declared, a member expanding over
  ``MAX_RATIO`` (300) times, or a real size other than the declared one (read through a cap);
* a ``schema.json`` over ``MAX_SCHEMA_BYTES`` (64 MiB), not JSON, nested over ``MAX_DEPTH``
  (64) levels, or of an older skops protocol; ``.npy`` headers declaring over
  ``MAX_ARRAY_BYTES`` (256 MiB), object or unknown dtypes;
* any node whose (loader, class) is not in ``TRUSTED_NODES``, the classes forestviz writes.
  skops *calls* named functions while loading (``sklearn.utils._testing.check_output`` ran
  commands, numpy's ``savetxt`` under ``sklearn.externals`` wrote files): no function, method,
  partial, operator or type but ``str`` is trusted, nothing by prefix or by skops' defaults.

Then every decision tree is checked (children inside the tree and after their parent, features
below the model's width, depth within ``max_depth``): scikit-learn's compiled code follows
them unchecked, which is why skops does not trust its ``Tree`` by default.
"""

import copy
import io
import json
import math
import pickletools
import re
import zipfile

import numpy as np
import pandas as pd
import skops.io as sio
from numpy.lib import format as npy
from sklearn.tree._tree import Tree

from forestviz import __version__

FILE_FORMAT = "forestviz-model/3"
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
MAX_DEPTH = 64

# Every (skops loader, class) forestviz writes: each model family dumped with every option that
# changes the stored classes (tests/test_persistence.py asserts equality).
TRUSTED_NODES = {
    "DictNode": ("builtins.dict",),
    "JsonNode": ("builtins.str",),
    "ListNode": ("builtins.list",),
    "LossNode": ("sklearn._loss._loss.CyHalfSquaredError",),
    "NdArrayNode": (
        "numpy.float32",
        "numpy.float64",
        "numpy.int64",
        "numpy.ndarray",
    ),
    "ObjectNode": (
        "forestviz.attention.AttentionForestClassifier",
        "forestviz.attention.AttentionForestRegressor",
        "forestviz.boosting.AttentionBoostingRegressor",
        "forestviz.enhanced.EnhancedForestClassifier",
        "forestviz.forest.FlatTrees",
        "forestviz.forest.LeafMasks",
        "forestviz.forest.LeafStats",
        "forestviz.neighbors.BlockSearch",
        "forestviz.neighbors.TrainingNeighbors",
        "forestviz.preprocessing.TablePreprocessor",
        "forestviz.sampling.LeafTable",
        "sklearn._loss.link.IdentityLink",
        "sklearn._loss.link.Interval",
        "sklearn._loss.loss.HalfSquaredError",
        "sklearn.dummy.DummyRegressor",
        "sklearn.ensemble._forest.ExtraTreesClassifier",
        "sklearn.ensemble._forest.ExtraTreesRegressor",
        "sklearn.ensemble._forest.RandomForestClassifier",
        "sklearn.ensemble._forest.RandomForestRegressor",
        "sklearn.ensemble._gb.GradientBoostingRegressor",
        "sklearn.tree._classes.DecisionTreeClassifier",
        "sklearn.tree._classes.DecisionTreeRegressor",
        "sklearn.tree._classes.ExtraTreeClassifier",
        "sklearn.tree._classes.ExtraTreeRegressor",
    ),
    "RandomStateNode": ("numpy.random.mtrand.RandomState",),
    "TreeNode": ("sklearn.tree._tree.Tree",),
    "TupleNode": ("builtins.tuple",),
    "TypeNode": ("builtins.str",),  # the type of a dict's keys
}
TRUSTED_TYPES = frozenset(name for names in TRUSTED_NODES.values() for name in names)

_NODE_KEYS = {"__loader__", "__module__", "__class__"}
_MEMBER_NAME = re.compile(r"schema\.json|[0-9]{1,24}\.npy")
_ZIP_MAGIC = b"PK\x03\x04"
_ENTRY_BYTES = 96  # a generous central-directory entry (forestviz writes ~65 bytes)
_PICKLE_PROBE = 64 * 1024  # protocol 0-1 pickles are recognised in their first 64 KiB
_ARRAY_KINDS = "biufcUS"  # and structured dtypes of these (a tree's nodes)
_TREE_LEAF, _NO_FEATURE = -1, -2  # scikit-learn's markers at leaves


class ModelFileError(ValueError):
    """A file that cannot or must not be loaded; the message says why in plain words."""


def _refused(reason: str) -> ModelFileError:
    return ModelFileError(f"This model file was refused: {reason}. Load only model files "
                          "saved by forestviz.")


def dumps(obj) -> bytes:
    """The model file of a fitted estimator, a ``TablePreprocessor`` or the app's payload dict
    (str keys); ``obj`` is not changed. TypeError for other contents, ModelFileError if too big."""
    plain, frames = _split_frames(obj)
    envelope = {"format": FILE_FORMAT, "forestviz_version": __version__, "object": plain,
                "frames": frames}
    data = sio.dumps(envelope, compression=zipfile.ZIP_DEFLATED)
    try:
        foreign = _foreign(_inspect(data))
    except ModelFileError as err:
        raise ModelFileError(f"This model cannot be saved. {err}") from None
    if foreign:
        raise TypeError(f"forestviz model files cannot hold {', '.join(foreign)}; only forests, "
                        "the TablePreprocessor, numpy arrays and plain values.")
    return data


def _split_frames(obj):
    """``obj`` without DataFrame attributes, and those by payload key (``""``: ``obj``)."""
    if isinstance(obj, dict):
        parts = {key: _without_frames(value) for key, value in obj.items()}
        return ({key: plain for key, (plain, _) in parts.items()},
                {key: frames for key, (_, frames) in parts.items() if frames})
    plain, frames = _without_frames(obj)
    return plain, ({"": frames} if frames else {})


def _without_frames(value):
    """A shallow copy of ``value`` without its DataFrame attributes, and those as columns."""
    frames = {name: _columns(frame) for name, frame in getattr(value, "__dict__", {}).items()
              if isinstance(frame, pd.DataFrame)}
    if not frames:
        return value, {}
    plain = copy.copy(value)
    for name in frames:
        delattr(plain, name)
    return plain, frames


def _columns(frame: pd.DataFrame) -> dict:
    if not frame.index.equals(pd.RangeIndex(len(frame))):
        raise TypeError("forestviz saves only DataFrames with a default index (0, 1, 2, …).")
    return {"names": frame.columns.tolist(),
            "values": [frame.iloc[:, j].to_numpy() for j in range(frame.shape[1])]}


def loads(data: bytes):
    """The object saved by :func:`dumps`; ModelFileError for anything else (module docstring)."""
    nodes = _inspect(data)
    foreign = _foreign(nodes)
    if foreign:
        raise _refused(f"it contains {', '.join(foreign)}, which forestviz never writes and "
                       "which could run code when loaded")
    try:  # trusting exactly the classes present, all of them in TRUSTED_NODES
        envelope = sio.loads(data, trusted=sorted({name for _, name in nodes}))
    except Exception as err:  # skops and the classes' __setstate__ raise many kinds
        raise ModelFileError(f"This model file could not be read ({err}). Train the model "
                             "again and save it anew.") from err
    obj = _unwrap(envelope)
    _check_trees(obj)
    _restore_frames(obj, envelope["frames"])
    return obj


def _inspect(data: bytes) -> set[tuple[str, str]]:
    """The (loader, class) of every node in ``data``, checking everything but trust."""
    _check_bytes(data)
    try:
        # zipfile makes an object per central-directory entry: bound them by the end record
        # zipfile itself reads (zip64 included; private API, as it has no public equivalent)
        end = zipfile._EndRecData(io.BytesIO(data))
        entries, size = end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]
        if entries > MAX_MEMBERS or size > MAX_MEMBERS * _ENTRY_BYTES:
            raise _refused(f"it lists {entries:,} members in a {size:,}-byte directory; "
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
    return _nodes(schema)


def _check_bytes(data: bytes) -> None:
    if not isinstance(data, bytes):
        raise TypeError(f"a model file is bytes, not {type(data).__name__}")
    if len(data) > MAX_FILE_BYTES:
        raise _refused(f"it is {len(data) / MiB:,.0f} MiB; forestviz reads model files of "
                       f"at most {MAX_FILE_BYTES // MiB} MiB")
    if not data.startswith(_ZIP_MAGIC) and _is_pickle(data[:_PICKLE_PROBE]):
        raise _refused("it is a pickle file, and pickle files are refused: they can run code")
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
        raise _refused(f"it contains the member {foreign[0]!r}, a name forestviz never writes")
    if len(infos) > MAX_MEMBERS or len(set(names)) < len(names) or "schema.json" not in names:
        raise _refused("it has too many members, a member twice, or no schema.json")
    for info in infos:
        if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED,
                                                               zipfile.ZIP_DEFLATED):
            raise _refused(f"its member {info.filename} is encrypted or unusually compressed")
        if info.file_size > MAX_RATIO * info.compress_size + MiB:
            raise _refused(f"its member {info.filename} would expand {info.file_size:,} "
                           f"bytes from {info.compress_size:,} (a zip bomb)")
    unpacked = sum(info.file_size for info in infos)
    if unpacked > MAX_UNPACKED_BYTES:
        raise _refused(f"it would unpack to {unpacked / MiB:,.0f} MiB; forestviz reads at "
                       f"most {MAX_UNPACKED_BYTES // MiB} MiB")


def _check_array(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    """Refuse an .npy member by its header, then read it through a cap to its declared size."""
    with archive.open(info) as member:
        try:
            read_header = {(1, 0): npy.read_array_header_1_0,
                           (2, 0): npy.read_array_header_2_0}[npy.read_magic(member)]
            shape, _, dtype = read_header(member)
        except (KeyError, ValueError):
            raise _refused(f"its array {info.filename} has an unknown header") from None
        if dtype.hasobject or not (dtype.kind in _ARRAY_KINDS or dtype.names):
            raise _refused(f"its array {info.filename} holds {dtype}, never written by forestviz")
        size = math.prod(shape) * dtype.itemsize
        if size > MAX_ARRAY_BYTES:
            raise _refused(f"its array {info.filename} declares {size / MiB:,.0f} MiB; "
                           f"forestviz reads arrays of at most {MAX_ARRAY_BYTES // MiB} MiB")
        if member.tell() + size != info.file_size or _drain(member, size) != size:
            raise _refused(f"its array {info.filename} is not the size it declares")


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
        raise _refused(f"its schema.json is over {MAX_SCHEMA_BYTES // MiB} MiB")
    try:
        schema = json.loads(text)
    except (ValueError, RecursionError):
        raise _refused("its schema.json is not valid JSON") from None
    if not isinstance(schema, dict) or schema.get("protocol") != SKOPS_PROTOCOL:
        raise _refused(f"it is not a skops file of protocol {SKOPS_PROTOCOL}, as forestviz writes")
    return schema


def _foreign(nodes) -> list[str]:
    return sorted(f"{name} (as a {loader})" for loader, name in nodes
                  if name not in TRUSTED_NODES.get(loader, ()))


def _nodes(value, depth: int = 0, found: set | None = None) -> set[tuple[str, str]]:
    """The (loader, class) of every dict with a node key anywhere in the JSON ``value``."""
    found = set() if found is None else found
    if depth > MAX_DEPTH:
        raise _refused(f"its objects are nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        if _NODE_KEYS & value.keys():
            loader, module, name = (value.get(key) for key in
                                    ("__loader__", "__module__", "__class__"))
            if not all(isinstance(part, str) for part in (loader, module, name)):
                raise _refused("it contains an object without a loader, module or class")
            found.add((loader, f"{module}.{name}"))
        value = list(value.values())
    if isinstance(value, list):
        for child in value:
            _nodes(child, depth + 1, found)
    return found


def _unwrap(envelope):
    saved = envelope.get("format") if isinstance(envelope, dict) else None
    if not isinstance(saved, str) or not saved.startswith("forestviz-model/"):
        raise ModelFileError("This skops file was not saved by forestviz.")
    if saved != FILE_FORMAT:
        raise ModelFileError(
            f"This model file was saved by another version of forestviz (file format {saved}, "
            f"forestviz {envelope.get('forestviz_version', 'unknown')}); this version reads "
            f"{FILE_FORMAT}. Train the model again and save it anew.")
    if not {"object", "frames"} <= envelope.keys():
        raise ModelFileError("This forestviz model file is damaged: its model is missing.")
    return envelope["object"]


def _restore_frames(obj, frames) -> None:
    """Put the DataFrame attributes :func:`_split_frames` took out back in place."""
    try:
        for where, attrs in frames.items():
            target = obj[where] if isinstance(obj, dict) else obj
            for name, columns in attrs.items():
                if not (name.isidentifier() and name.endswith("_") and name[0] != "_"):
                    raise ValueError(f"{name!r} is not a fitted attribute")
                frame = pd.DataFrame(dict(enumerate(columns["values"])))
                frame.columns = pd.Index(columns["names"])
                setattr(target, name, frame)
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise ModelFileError(f"This forestviz model file is damaged: its tables could not be "
                             f"read ({err}).") from err


def _check_trees(obj) -> None:
    """Refuse trees compiled code would follow out of bounds, or wider than their models."""
    widths = set()
    for item in _reachable(obj):
        if isinstance(item, Tree):
            if not _tree_is_sound(item):
                raise _refused("one of its decision trees is damaged")
            widths.add(item.n_features)
        elif hasattr(item, "tree_") or hasattr(item, "estimators_"):
            widths.add(getattr(item, "n_features_in_", None))
    if len(widths) > 1:
        raise _refused("its trees and models disagree on the number of features")


def _reachable(obj):
    """Every object reachable from ``obj`` through containers and attributes, once."""
    seen, stack = set(), [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set):
            stack.extend(item)
        elif isinstance(item, np.ndarray):
            stack.extend(item.ravel() if item.dtype == object else ())
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            stack.extend(vars(item).values())


def _tree_is_sound(tree: Tree) -> bool:
    """Node 0 is the root, every other node has exactly one parent, which comes before it,
    split features are below ``n_features`` and no path is longer than ``max_depth``."""
    n = tree.node_count
    left, right, feature = tree.children_left, tree.children_right, tree.feature
    nodes = np.arange(n)
    leaf = left == _TREE_LEAF
    inner = nodes[~leaf]
    children = np.concatenate([left[inner], right[inner]])
    if not (n >= 1 and np.all(right[leaf] == _TREE_LEAF) and np.all(feature[leaf] == _NO_FEATURE)
            and np.all((feature[inner] >= 0) & (feature[inner] < tree.n_features))
            and np.all(children < n) and np.all(children > np.concatenate([inner, inner]))
            and np.array_equal(np.bincount(children, minlength=n), nodes > 0)):
        return False
    parent = np.zeros(n, dtype=np.intp)
    parent[left[inner]] = parent[right[inner]] = inner
    depth = (nodes > 0).astype(np.intp)
    while np.any(parent > 0):  # pointer jumping: log2(depth) rounds
        depth, parent = depth + depth[parent], parent[parent]
    return int(depth.max()) <= tree.max_depth
