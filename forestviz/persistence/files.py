"""Model files that are safe to open: save and load fitted forestviz models.

A model file is a skops zip: ``schema.json`` (every object as a node naming its loader and
class) and one ``<digits>.npy`` member per array. Files come from users, so :func:`loads`
refuses, *before* skops builds any object:

* what :mod:`forestviz.persistence.archive` refuses: pickles, non-zip bytes, files, members,
  arrays or a ``schema.json`` over its caps, zip bombs, names forestviz never writes;
* a ``schema.json`` nested over ``MAX_DEPTH`` (64) levels, or written by another version of
  forestviz (another ``FILE_FORMAT``: its classes may have lived in other modules);
* any node whose (loader, class) is not in ``TRUSTED_NODES``, the classes forestviz writes.
  skops *calls* named functions while loading (``sklearn.utils._testing.check_output`` ran
  commands, numpy's ``savetxt`` under ``sklearn.externals`` wrote files): no function, method,
  partial, operator or type but ``str`` is trusted, nothing by prefix or by skops' defaults.
  (skops adds its defaults, every scikit-learn estimator, to the names it is given; they widen
  nothing here, as every node outside ``TRUSTED_NODES`` is refused before skops runs. skops
  builds that list when imported by importing all of scikit-learn, 0.3-0.7 s on a quiet
  machine; the cost is accepted rather than hidden by patching scikit-learn for the whole
  process, ``docs/performance.md``.)

While skops builds the objects, the models' ``__setstate__`` check every learned array against
the trees it belongs to and rebuild every derived structure (flat nodes, leaf masks and tables,
neighbour blocks), which a file never holds (:mod:`forestviz.trees.loaded`, "derive, don't
trust"); what does not fit is refused in one line. Then every decision tree is checked again,
wherever it sits (children inside the tree and after their parent, features below the model's
width, ``max_depth`` the deepest leaf's depth, finite numbers): scikit-learn's compiled code
follows them unchecked, which is why skops does not trust its ``Tree`` by default. A
``TablePreprocessor`` is saved as plain data (column names, medians, levels) that its
``__setstate__`` checks and fits scikit-learn's encoder on again, so no encoder internals (a
``OneHotEncoder``'s output widths feed scipy's compiled sparse code) are ever read from a file;
one built without that state is refused here.
"""

import json
import zipfile

import numpy as np
import skops.io as sio

from forestviz import __version__
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.persistence.archive import ModelFileError, checked_schema, refused
from forestviz.registry import saved_classes
from forestviz.trees.loaded import DamagedState, Tree, tree_is_sound

# 4: classes in the package layout (forestviz.trees, …); 5: the TablePreprocessor saved as plain
# data (its __getstate__) and rebuilt on scikit-learn's ColumnTransformer when loaded; 7: no
# derived structure (flat nodes, leaf masks and tables, neighbour blocks) is saved: the models'
# __setstate__ check the learned arrays against the trees and rebuild the rest
FILE_FORMAT = "forestviz-model/7"
MAX_DEPTH = 64

# Every (skops loader, class) forestviz writes: the envelope, the app's payload and its
# TablePreprocessor, and each model family's classes from its registry entry
# (tests/test_persistence.py dumps every family with every option that changes the stored
# classes and asserts equality).
_ENVELOPE_NODES = {
    "DictNode": ("builtins.dict",),
    "JsonNode": ("builtins.str",),
    "ListNode": ("builtins.list",),
    "NdArrayNode": ("numpy.int64", "numpy.ndarray"),
    "ObjectNode": ("forestviz.io.preprocessing.TablePreprocessor",),
    "TreeNode": ("sklearn.tree._tree.Tree",),
    "TupleNode": ("builtins.tuple",),
    "TypeNode": ("builtins.str",),  # the type of a dict's keys
}
TRUSTED_NODES = {
    loader: tuple(sorted({*_ENVELOPE_NODES.get(loader, ()), *saved_classes().get(loader, ())}))
    for loader in sorted({*_ENVELOPE_NODES, *saved_classes()})
}
TRUSTED_TYPES = frozenset(name for names in TRUSTED_NODES.values() for name in names)

_NODE_KEYS = {"__loader__", "__module__", "__class__"}


def dumps(obj) -> bytes:
    """The model file of a fitted estimator, a ``TablePreprocessor`` or the app's payload dict
    (str keys); ``obj`` is not changed. TypeError for other contents, ModelFileError if too big."""
    # DataFrame attributes (the search tables) travel as plain columns: the models'
    # __getstate__ (forestviz.trees.ensemble.WeightedEnsemble)
    envelope = {"format": FILE_FORMAT, "forestviz_version": __version__, "object": obj}
    data = sio.dumps(envelope, compression=zipfile.ZIP_DEFLATED)
    try:
        foreign = _foreign(_inspect(data))
    except ModelFileError as err:
        raise ModelFileError(f"This model cannot be saved. {err}") from None
    if foreign:
        raise TypeError(f"forestviz model files cannot hold {', '.join(foreign)}; only forests, "
                        "the TablePreprocessor, numpy arrays and plain values.")
    return data


def loads(data: bytes):
    """The object saved by :func:`dumps`; ModelFileError for anything else (module docstring)."""
    schema = checked_schema(data)
    saved = _json_text(schema, "format")
    if saved is not None and saved.startswith("forestviz-model/") and saved != FILE_FORMAT:
        # another version's classes (other module paths, say) are foreign here: say why
        raise _other_version(saved, _json_text(schema, "forestviz_version"))
    nodes = _nodes(schema)
    foreign = _foreign(nodes)
    if foreign:
        raise refused(f"it contains {', '.join(foreign)}, which forestviz never writes and "
                       "which could run code when loaded")
    try:  # trusting exactly the classes present, all of them in TRUSTED_NODES
        envelope = sio.loads(data, trusted=sorted({name for _, name in nodes}))
    except DamagedState as err:  # a model's __setstate__ found its saved state inconsistent
        raise refused(str(err)) from None
    except Exception as err:  # skops and the classes' __setstate__ raise many kinds
        reason = " ".join(str(err).split())  # one line, whatever the error held
        raise ModelFileError(f"This model file could not be read ({reason}). Train the model "
                             "again and save it anew.") from err
    obj = _unwrap(envelope)
    _check_objects(obj)
    return obj


def _inspect(data: bytes) -> set[tuple[str, str]]:
    """The (loader, class) of every node in ``data``, checking everything but trust."""
    return _nodes(checked_schema(data))


def _foreign(nodes) -> list[str]:
    return sorted(f"{name} (as a {loader})" for loader, name in nodes
                  if name not in TRUSTED_NODES.get(loader, ()))


def _nodes(value, depth: int = 0, found: set | None = None) -> set[tuple[str, str]]:
    """The (loader, class) of every dict with a node key anywhere in the JSON ``value``."""
    found = set() if found is None else found
    if depth > MAX_DEPTH:
        raise refused(f"its objects are nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        if _NODE_KEYS & value.keys():
            loader, module, name = (value.get(key) for key in
                                    ("__loader__", "__module__", "__class__"))
            if not all(isinstance(part, str) for part in (loader, module, name)):
                raise refused("it contains an object without a loader, module or class")
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
        raise _other_version(saved, envelope.get("forestviz_version"))
    if "object" not in envelope:
        raise ModelFileError("This forestviz model file is damaged: its model is missing.")
    return envelope["object"]


def _other_version(saved: str, version) -> ModelFileError:
    return ModelFileError(
        f"This model file was saved by another version of forestviz (file format {saved}, "
        f"forestviz {version or 'unknown'}); this version reads {FILE_FORMAT}. Train the model "
        "again and save it anew.")


def _json_text(schema: dict, key: str) -> str | None:
    """The text stored under ``key`` of the file's top dict, read from the JSON alone (no
    object is built); None where the file has no such text."""
    content = schema.get("content")
    node = content.get(key) if isinstance(content, dict) else None
    if not isinstance(node, dict) or node.get("__loader__") != "JsonNode":
        return None
    try:
        text = json.loads(node.get("content"))
    except (TypeError, ValueError):
        return None
    return text if isinstance(text, str) else None


def _check_objects(obj) -> None:
    """Refuse trees compiled code would follow out of bounds, or wider than their models, and
    preprocessors skops built without their state (``__setstate__`` checked the others)."""
    widths = set()
    for item in _reachable(obj):
        shadowed = _shadowed_methods(item)
        if shadowed:
            raise refused(f"its {type(item).__name__} sets {shadowed[0]!r}, which is not a "
                          "fitted attribute")
        if isinstance(item, TablePreprocessor) and not hasattr(item, "max_levels"):
            raise refused("its table preprocessor is damaged")
        if isinstance(item, Tree):
            if not tree_is_sound(item):
                raise refused("one of its decision trees is damaged")
            widths.add(item.n_features)
        elif hasattr(item, "tree_") or hasattr(item, "estimators_"):
            widths.add(getattr(item, "n_features_in_", None))
    if len(widths) > 1:
        raise refused("its trees and models disagree on the number of features")


def _shadowed_methods(item) -> list[str]:
    """Names in an object's state that would hide a method or property of its class (a file
    can name any attribute; ``model.predict`` must stay the class's method)."""
    if isinstance(item, type) or not hasattr(item, "__dict__"):
        return []
    cls = type(item)
    return sorted(name for name in vars(item)
                  if callable(getattr(cls, name, None)) or isinstance(getattr(cls, name, None),
                                                                       property))


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
