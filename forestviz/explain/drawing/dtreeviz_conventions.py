"""Every convention of dtreeviz that forestviz relies on beyond its public arguments, in one
place, read from dtreeviz :data:`PINNED` (``tests/test_dtreeviz_conventions.py`` checks each
against the installed dtreeviz, so that an upgrade fails there, loudly, and nowhere else).

dtreeviz's public API draws a tree (``DTreeVizAPI(shadow).view(...)``, its result's ``dot``
source, ``dtreeviz.utils.inline_svg_images``) and reads a tree through a subclassed
``ShadowSKDTree`` (:mod:`.shadow`). Three things it does not offer a hook for:

* **Its temporary files.** ``view`` writes each node's picture into
  ``tempfile.gettempdir()`` as ``node<id>_<pid>.svg``, ``leaf<id>_<pid>.svg`` and
  ``legend_<pid>.svg`` and never removes them; the directory is set through the documented
  ``tempfile.tempdir`` (:func:`~.files.private_tempdir`), the names
  are these.
* **Its graphviz node names.** A split node is ``node<id>``, a leaf ``leaf<id>`` (scikit-learn's
  node ids) and the box of the row's values ``X_y``, hung from the row's leaf by the edge
  ``leaf<id> -> X_y``. A leaf's text (:mod:`.leaf_text`) and the row's box under a cut tree
  (:mod:`.treeviz`) are added to or moved in the ``dot`` source by these names.
* **Its colours' names.** The words and the regression leaves forestviz draws take dtreeviz's
  default colours (``dtreeviz.colors.adjust_colors(None)``, public) by the keys of
  :data:`COLOUR_KEYS` (:func:`colours`).
"""

from __future__ import annotations

import os
import re
import tempfile

PINNED = "2.3.2"  # the dtreeviz these conventions were read from (requirements pin it)
ROW_BOX = "X_y"  # graphviz name of the box of the row's values
COLOUR_KEYS = ("text", "highlight", "scatter_marker", "scatter_marker_alpha", "split_line",
               "axis", "tick_label", "axis_label")


def colours() -> dict[str, object]:
    """dtreeviz's default colours of :data:`COLOUR_KEYS` (a key not listed there is a
    KeyError: a new use of dtreeviz's colours is added here first)."""
    from dtreeviz.colors import adjust_colors

    found = adjust_colors(None)
    return {key: found[key] for key in COLOUR_KEYS}


def split_node(node: int) -> str:
    """dtreeviz's graphviz name of split node ``node``."""
    return f"node{int(node)}"


def leaf_node(leaf: int) -> str:
    """dtreeviz's graphviz name of leaf ``leaf``."""
    return f"leaf{int(leaf)}"


def row_edge(name: str) -> str:
    """The ``dot`` edge hanging the row's box from the graphviz node ``name``."""
    return f"{name} -> {ROW_BOX}"


def leaf_image(leaf: int) -> str:
    """Where dtreeviz wrote leaf ``leaf``'s picture during this process's render (in the
    temporary directory of the render)."""
    return os.path.join(tempfile.gettempdir(), f"{leaf_node(leaf)}_{os.getpid()}.svg")


def drawing_files(pid: int, *, own: tuple[str, ...] = ()) -> re.Pattern:
    """The names of the files a render of process ``pid`` writes: dtreeviz's node, leaf and
    legend pictures, and forestviz's ``own`` prefixes written beside them the same way
    (``<prefix><id>_<pid>.svg``)."""
    prefixes = "|".join(map(re.escape, ("node", "leaf", *own)))
    return re.compile(rf"(?:(?:{prefixes})\d+|legend)_{int(pid)}\.svg")
