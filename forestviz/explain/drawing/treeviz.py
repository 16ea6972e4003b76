"""Tree drawings: one fitted tree with a row's path highlighted, as SVG (dtreeviz + graphviz).

:func:`render_tree` draws tree ``tree_index`` of a model for row ``x``. dtreeviz needs the
training data; it comes in a :class:`TreeContext` (built once per data set, with a content
fingerprint), so the call stays ``render_tree(model, tree_index, x, context=..., mode=...)``.

* Names are data, never markup (:mod:`~.drawn_names`: look-alikes for
  ``& < > " '`` and control characters, so ``dot`` never fails, cut to ``NAME_LIMIT``
  characters), and matplotlib's mathtext is off (``$`` stays a dollar sign) while dtreeviz
  draws, a setting no other thread's picture sees (:mod:`~forestviz.explain.matplotlib_settings`).
* dtreeviz is not thread-safe (every render writes the same per-process temporary files), so
  renders are serialised by a process-wide lock; finished SVGs go to a bounded LRU cache
  (cachetools, behind a lock) keyed by content: (tree arrays' fingerprint, training-data
  fingerprint, row, the tree's outputs, options; for a boosting tree also the trees before it).
* dtreeviz writes its node images into ``tempfile.gettempdir()`` and never removes them: each
  render runs in a private temporary directory, removed afterwards
  (:func:`~.files.private_tempdir`).
* One source of truth per number. The leaves show the model's own f_k, the tree's output as
  the prediction uses it (:mod:`~.tree_outputs`: a bootstrap tree's own vote,
  an attention forest's leaf mean, AGBoost's V_k = T·ν·h_k), and say in words what the tree
  says and what dtreeviz's pies, dots and ``n`` count, the training rows in the leaf
  (:mod:`~.leaf_text`). Thresholds and the row's values print as the page's
  path sentences do (:mod:`~.drawn_numbers`), while the highlighted path is
  the one ``apply`` reports (the row as float32, the exact thresholds). Rows must be finite
  (impute first).
* dtreeviz sees a tree through :class:`~.shadow.ForestShadowTree`, a
  subclass of its scikit-learn shadow tree overriding public hooks: the node → training rows
  map (dtreeviz loops over rows in Python) is one sparse transpose of ``decision_path``, the
  classes are the model's (a forest's trees are fitted on codes 0..C-1; names come from the
  forest), and predictions, thresholds and the path are the model's. dtreeviz's output is
  edited in one place (:func:`_hang_row_box`) and added to in one
  (:func:`~.leaf_text.add_leaf_labels`: no hook exists for a leaf's text);
  a regression leaf's strip of dots, which dtreeviz draws at a fixed 0.75 inch, is drawn
  again at a readable size (:mod:`~.leaf_plot`) and shown instead.
* Speed: besides that map, ``fancy=None`` keeps node histograms to small drawings
  (``FANCY_SPLIT_LIMIT``); bigger ones show split nodes as text.
* Full trees of more than ``FULL_TREE_NODE_LIMIT`` nodes are drawn down to the depth that
  fits, with a note in the drawing's title, unless ``max_depth`` is given.
* Missing ``dot``, a ``dot`` failure or timeout and dtreeviz errors raise
  :class:`TreeRenderError` with a message the app can show.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
from dataclasses import dataclass

import cachetools
import dtreeviz
import numpy as np
from dtreeviz.utils import inline_svg_images
from sklearn.base import is_classifier

from forestviz.explain.drawing.drawn_names import display_name, display_names
from forestviz.explain.drawing.drawn_numbers import drawn_numbers
from forestviz.explain.drawing.dtreeviz_conventions import leaf_node, row_edge, split_node
from forestviz.explain.drawing.files import TreeRenderError, private_tempdir, run_dot
from forestviz.explain.drawing.leaf_plot import write_leaf_images
from forestviz.explain.drawing.leaf_text import LeafWords, add_leaf_labels, dot_string
from forestviz.explain.drawing.shadow import ForestShadowTree, class_codes, node_rows
from forestviz.explain.drawing.tree_outputs import SCALED, origin, tree_outputs
from forestviz.explain.matplotlib_settings import drawing_with
from forestviz.trees.fitted import estimator_trees
from forestviz.trees.rows import standard_scaling

FONT = "DejaVu Sans"
FULL_TREE_NODE_LIMIT = 127
# fancy=None draws node histograms when at most this many split nodes are shown and, for
# regression trees (whose split nodes are scatter plots of the training rows), the training
# set has at most FANCY_REGRESSION_ROWS rows; otherwise split nodes are text.
FANCY_SPLIT_LIMIT = 8
FANCY_REGRESSION_ROWS = 5000
ROW_FEATURES_SHOWN = 40
"""The row's box lists every feature up to this many (one per line); a longer row lists the
features its path tests."""
DOT_TIMEOUT = 60.0
CACHE_ENTRIES = 256
CACHE_BYTES = 64 << 20

_RENDER_LOCK = threading.Lock()  # dtreeviz + matplotlib + tempfile.tempdir: one at a time
_log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class TreeContext:
    """Training rows and names dtreeviz draws node histograms from; build with
    :meth:`from_data`. ``y_train`` holds the labels the model was fitted on; ``spreads`` the
    features' training standard deviations (as :class:`~forestviz.explain.TrainingSummary`
    scales them), which set the decimals the drawing prints (:mod:`forestviz.numbers`);
    ``indicators`` the features that are one level of a category (printed yes / no)."""

    X_train: np.ndarray
    y_train: np.ndarray
    feature_names: tuple[str, ...]
    target_name: str
    class_names: tuple[str, ...] | None
    fingerprint: str
    spreads: np.ndarray
    indicators: frozenset[int] = frozenset()

    @classmethod
    def from_data(cls, X_train, y_train, *, feature_names=None, target_name="target",
                  class_names=None, indicators=()) -> TreeContext:
        X = np.ascontiguousarray(X_train, dtype=np.float64)
        y = np.asarray(y_train)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(f"X_train {X.shape} and y_train {y.shape} do not match")
        if not np.isfinite(X).all():
            raise ValueError("X_train contains NaN or infinite values; impute them first")
        names = tuple(str(n) for n in (feature_names if feature_names is not None
                                       else [f"x{j}" for j in range(X.shape[1])]))
        if len(names) != X.shape[1]:
            raise ValueError(f"expected {X.shape[1]} feature names, got {len(names)}")
        classes = None if class_names is None else tuple(str(c) for c in class_names)
        digest = hashlib.blake2b(digest_size=16)
        indicators = frozenset(int(j) for j in indicators)
        digest.update(repr((X.shape, names, str(target_name), classes,
                            sorted(indicators))).encode())
        digest.update(X.tobytes())
        digest.update(y.tobytes() if y.dtype.kind in "biuf" else "\x1f".join(map(str, y)).encode())
        return cls(X, y, names, str(target_name), classes, digest.hexdigest(),
                   standard_scaling(X)[1], indicators)


class _SvgCache:
    """LRU of SVG strings bounded by entry count and total characters, thread-safe.

    A ``cachetools.LRUCache`` sized by ``len`` (characters, ``max_chars``), trimmed to
    ``max_entries`` after each insertion; cachetools caches are not thread-safe, so every
    access holds ``lock``. An SVG longer than ``max_chars`` is not kept (and evicts nothing);
    a key already cached keeps its first SVG (callers may compare drawings by identity)."""

    def __init__(self, max_entries, max_chars):
        self.max_entries = max_entries
        self.lru = cachetools.LRUCache(maxsize=max_chars, getsizeof=len)
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            return self.lru.get(key)

    def put(self, key, svg):
        if len(svg) > self.lru.maxsize:
            return
        with self.lock:
            if key not in self.lru:
                self.lru[key] = svg
                while len(self.lru) > self.max_entries:
                    self.lru.popitem()

    def clear(self):
        with self.lock:
            self.lru.clear()


_SVG_CACHE = _SvgCache(CACHE_ENTRIES, CACHE_BYTES)
_NODE_ROWS = cachetools.LRUCache(maxsize=8)  # node -> training rows maps; under _RENDER_LOCK


def clear_cache() -> None:
    """Forget every cached drawing and node -> training rows map."""
    _SVG_CACHE.clear()
    with _RENDER_LOCK:
        _NODE_ROWS.clear()


def render_tree(model, tree_index: int, x, *, context: TreeContext, mode: str = "path",
                max_depth: int | None = None, fancy: bool | None = None,
                timeout: float = DOT_TIMEOUT, imputed=frozenset()) -> str:
    """SVG of tree ``tree_index`` of ``model`` (a forest, a tree or a list of trees) with the
    path of row ``x`` highlighted.

    ``mode="path"`` draws only the path; ``"full"`` the whole tree (depth-limited with a
    note above ``FULL_TREE_NODE_LIMIT`` nodes). ``max_depth`` draws depths 0..max_depth.
    ``fancy`` draws node histograms (None: automatic, see ``FANCY_SPLIT_LIMIT``).
    ``timeout`` bounds the ``dot`` run in seconds. ``imputed``: the features whose value in
    ``x`` stood in for a missing one (:meth:`~forestviz.explain.Explanation.imputed_features`),
    printed as such: "0.0326 (imputed)".
    """
    if mode not in ("path", "full"):
        raise ValueError(f"mode must be 'path' or 'full', got {mode!r}")
    trees = estimator_trees(model)
    if not 0 <= tree_index < len(trees):
        raise IndexError(f"tree_index must be in [0, {len(trees)}), got {tree_index}")
    tree = trees[tree_index]
    row = np.asarray(x, dtype=np.float64).ravel()
    if row.size != context.X_train.shape[1]:
        raise ValueError(f"x has {row.size} values, the training rows {context.X_train.shape[1]}")
    if not np.isfinite(row).all():
        raise TreeRenderError("The row has missing or infinite values; fill them in first.")
    classes = getattr(model, "classes_", getattr(tree, "classes_", None))
    outputs = tree_outputs(model, trees, tree_index)
    # a boosting tree's drawing shows the residuals the trees before it left: they are content
    earlier = "".join(_tree_fingerprint(t, None) for t in trees[:tree_index]) * outputs.additive
    imputed = tuple(sorted({int(j) for j in imputed}))
    key = (_tree_fingerprint(tree, classes), context.fingerprint, tree_index, row.tobytes(),
           outputs.digest(), earlier, mode, max_depth, fancy, imputed)
    svg = _SVG_CACHE.get(key)
    if svg is None:
        with _RENDER_LOCK:
            svg = _SVG_CACHE.get(key)
            if svg is None:
                svg = _draw(trees, tree_index, classes, row, context, outputs, key[:2], mode,
                            max_depth, fancy, timeout, imputed)
        _SVG_CACHE.put(key, svg)
    return svg


def _draw(trees, tree_index, classes, row, context, outputs, model_key, mode, max_depth, fancy,
          timeout, imputed):
    if shutil.which("dot") is None:
        raise TreeRenderError("Tree drawings need Graphviz: the `dot` program is not installed "
                              "(Debian/Ubuntu: apt-get install graphviz).")
    tree = trees[tree_index]
    path = tree.decision_path(row[None, :].astype(np.float32)).indices  # root first
    depth_range, note = _depth_range(tree, tree_index, mode, max_depth)
    if fancy is None:
        fancy = _auto_fancy(tree, path, context, mode, depth_range)
    shown = _shown(tree, path, mode, depth_range)
    try:
        shadow, numbers, words = _shadow(trees, tree_index, classes, row, path, context,
                                         outputs, model_key, shown, imputed)
        if mode == "full":
            note = words.note() if note is None else f"{note}\n{words.note()}"
        leaves = {leaf: words.lines(leaf, on_path=leaf == path[-1])
                  for leaf in sorted(shown) if tree.tree_.children_left[leaf] < 0}
        # view() writes node images, dot embeds them by path, inline_svg_images reads them back
        with private_tempdir():
            with drawing_with({"text.parse_math": False}):
                render = dtreeviz.DTreeVizAPI(shadow).view(
                    x=numbers.row_values(), show_just_path=mode == "path", fancy=fancy,
                    depth_range_to_display=depth_range, fontname=FONT,
                    instance_orientation="TD", max_X_features_TD=ROW_FEATURES_SHOWN,
                    title=None if note is None else dot_string(note))
                images = {} if shadow.is_classifier() else write_leaf_images(
                    shadow.y_train, shadow.rows_by_node, shadow.outputs, leaves,
                    row_leaf=int(path[-1]), target=shadow.target_name, fontname=FONT)
            dot = add_leaf_labels(render.dot, leaves, path_leaf=int(path[-1]), fontname=FONT,
                                  images=images)
            if depth_range is not None and path.size - 1 > depth_range[1]:
                dot = _hang_row_box(dot, path[-1], path[depth_range[1]])
            return inline_svg_images(run_dot(dot, timeout))
    except TreeRenderError:
        raise
    except Exception as exc:  # dtreeviz/matplotlib failures reach the app as one error type
        raise TreeRenderError(f"Tree {tree_index} could not be drawn: {exc}") from exc


def _hang_row_box(dot, leaf, node):
    """``dot`` with the row's box hung under split node ``node`` instead of leaf ``leaf``.

    The one edit of dtreeviz's output, on its public result (``DTreeVizRender.dot``), when
    ``depth_range_to_display`` cuts the row's exit leaf off: dtreeviz still draws the edge
    ``leaf<id> -> X_y`` (box of the row's values, labelled with the prediction), and graphviz
    would add a bare stray node ``leaf<id>`` for it. No parameter of ``view`` moves the box, and
    a shadow tree cut at that depth would draw the cut node as a leaf with its own, wrong,
    prediction. The edge is dtreeviz's fixed text, not names (names are never matched here).
    """
    edge = row_edge(leaf_node(leaf))
    if dot.count(edge) != 1:
        _log.warning("dtreeviz drew no single edge %r; the row's box is left in place", edge)
        return dot
    return dot.replace(edge, row_edge(split_node(node)))


def _depth_range(tree, tree_index, mode, max_depth):
    """dtreeviz's inclusive depth range and the note shown when a full tree is cut (trees
    numbered from 1, as the Explain page numbers them)."""
    if max_depth is not None:
        return (0, int(max_depth)), None
    if mode == "path" or tree.tree_.node_count <= FULL_TREE_NODE_LIMIT:
        return None, None
    per_level = np.bincount(tree.tree_.compute_node_depths() - 1)
    depth = max(int(np.searchsorted(np.cumsum(per_level), FULL_TREE_NODE_LIMIT,
                                    side="right")) - 1, 0)
    note = (f"Tree {tree_index + 1}: depth 0-{depth} of {tree.tree_.max_depth} shown "
            f"({tree.tree_.node_count} nodes); choose a maximum depth to see more")
    return (0, depth), note


def _auto_fancy(tree, path, context, mode, depth_range):
    if not is_classifier(tree) and context.X_train.shape[0] > FANCY_REGRESSION_ROWS:
        return False
    nodes = path if mode == "path" else np.arange(tree.tree_.node_count)
    split = tree.tree_.feature[nodes] >= 0
    if depth_range is not None:
        split &= tree.tree_.compute_node_depths()[nodes] - 1 <= depth_range[1]
    return int(split.sum()) <= FANCY_SPLIT_LIMIT


def _shown(tree, path, mode, depth_range) -> set[int]:
    """The nodes a drawing shows: the path's or all, down to the depth range's end."""
    nodes = path if mode == "path" else np.arange(tree.tree_.node_count)
    if depth_range is not None:
        nodes = nodes[tree.tree_.compute_node_depths()[nodes] - 1 <= depth_range[1]]
    return {int(node) for node in nodes}


def _shadow(trees, tree_index, classes, row, path, context, outputs, model_key, shown,
            imputed):
    """The :class:`~.shadow.ForestShadowTree` of one drawing (drawable names,
    the model's outputs, the printed thresholds), the numbers it prints
    (:class:`~.drawn_numbers.DrawnNumbers`) and its leaves' :class:`LeafWords`.

    The node → training rows map is kept per (tree, training data) in an LRU (under the render
    lock). The rows drawn are the training targets, or, for a boosting tree, the residuals it
    was fitted to on the scale of V_k (:func:`~.tree_outputs.origin`), named
    ``V_k``."""
    tree = trees[tree_index]
    rows = _NODE_ROWS.get(model_key)
    if rows is None:
        rows = _NODE_ROWS[model_key] = node_rows(tree, context.X_train)
    classifier = is_classifier(tree)
    codes = class_codes(classes, context.y_train) if classifier else None
    source, residuals = origin(outputs, trees, tree_index, rows, context.X_train,
                               codes if classifier else context.y_train)
    names = context.class_names or (tuple(map(str, classes)) if classifier else None)
    names = None if names is None else tuple(display_names(names))
    target = display_name(context.target_name)
    y = context.y_train if residuals is None else residuals
    if source == SCALED:
        target = "V_k"
    numbers = drawn_numbers(tree, row, path, shown, None if classifier else outputs.values,
                            context.spreads, context.indicators, imputed)
    shadow = ForestShadowTree(tree, context.X_train, y, classes=classes if classifier else None,
                              feature_names=display_names(context.feature_names),
                              target_name=target, class_names=names, rows_by_node=rows,
                              outputs=outputs.values, thresholds=numbers.threshold_values(),
                              path=path)
    return shadow, numbers, LeafWords(outputs, source, rows, codes, names, target)


def _tree_fingerprint(tree, classes) -> str:
    """Content hash of a fitted tree's structure and leaf values (and the model's classes)."""
    t = tree.tree_
    digest = hashlib.blake2b(digest_size=16)
    for array in (t.feature, t.threshold, t.children_left, t.children_right, t.value,
                  t.n_node_samples):
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(repr((type(tree).__name__, None if classes is None else list(classes)))
                  .encode())
    return digest.hexdigest()

