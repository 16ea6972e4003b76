"""dtreeviz's unwritten conventions (forestviz.explain.drawing.dtreeviz_conventions), checked
against the installed dtreeviz on a plain scikit-learn tree drawn through dtreeviz's public API
alone: the files a render writes, the graphviz names of nodes, leaves and the row's box, the
colours. An upgrade of dtreeviz that changes any of them fails here, in one place."""

import os
import re

import dtreeviz
import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from forestviz.explain.drawing import dtreeviz_conventions as conventions
from forestviz.explain.drawing.files import private_tempdir


def test_the_installed_dtreeviz_is_the_one_the_conventions_were_read_from():
    assert dtreeviz.__version__ == conventions.PINNED, (
        f"dtreeviz {dtreeviz.__version__} is installed; forestviz's drawings rely on "
        f"conventions read from {conventions.PINNED}: check each in "
        "forestviz/explain/drawing/dtreeviz_conventions.py against the new version, then pin it")


@pytest.fixture(scope="module")
def drawn(require_dot):
    """A depth-3 tree drawn whole with row 0 by dtreeviz itself: (tree, row's leaf, dot
    source, names of the files the render wrote, the leaf pictures found where the
    conventions say)."""
    X, y = make_classification(120, n_features=4, random_state=0)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    model = dtreeviz.model(tree, X, y, feature_names=[f"f{j}" for j in range(4)],
                           target_name="y", class_names=["a", "b"])
    with private_tempdir() as folder:
        render = model.view(x=X[0], fancy=True)
        files = sorted(os.listdir(folder))
        leaves = np.flatnonzero(tree.tree_.children_left < 0)
        pictures = {int(leaf): os.path.exists(conventions.leaf_image(leaf)) for leaf in leaves}
    return tree, int(tree.apply(X[:1].astype(np.float32))[0]), render.dot, files, pictures


def test_the_render_writes_the_files_named_there(drawn):
    tree, _, _, files, pictures = drawn
    ours = conventions.drawing_files(os.getpid())
    assert files and all(ours.fullmatch(name) for name in files), files
    assert all(pictures.values()), pictures  # every leaf's picture where leaf_image says
    splits = np.flatnonzero(tree.tree_.children_left >= 0)
    assert {f"{conventions.split_node(n)}_{os.getpid()}.svg" for n in splits} <= set(files)


def test_nodes_leaves_and_the_row_s_box_carry_the_names_used_there(drawn):
    tree, row_leaf, dot, _, _ = drawn
    for node in range(tree.tree_.node_count):
        name = (conventions.leaf_node(node) if tree.tree_.children_left[node] < 0
                else conventions.split_node(node))
        assert f"{name} [" in dot, name
    assert dot.count(conventions.row_edge(conventions.leaf_node(row_leaf))) == 1
    declared = re.findall(rf"^\s*{conventions.ROW_BOX} \[", dot, flags=re.MULTILINE)
    assert len(declared) == 1  # the box itself, besides the edge to it


def test_the_colours_named_there_exist():
    found = conventions.colours()
    assert set(found) == set(conventions.COLOUR_KEYS) and all(v is not None
                                                              for v in found.values())
