"""Regression leaves drawn at a readable size (forestviz.explain.drawing.leaf_plot): the strip's
data checked on the figure, and its size and place checked in real drawings."""

import xml.etree.ElementTree as ET

import matplotlib as mpl
import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from forestviz import AttentionBoostingRegressor
from forestviz.explain.drawing.leaf_plot import LEAF, ROW_LEAF, leaf_strip, value_range
from forestviz.explain.drawing.treeviz import TreeContext, render_tree
from tests.treeviz_helpers import SVG, leaf_texts, small_regression_tree

pytestmark = pytest.mark.usefixtures("empty_cache")

DTREEVIZ_LEAF = (0.75, 0.8)  # inches: dtreeviz's fixed size of a regression leaf


def test_the_strip_draws_every_row_at_its_value_and_the_leaf_value_as_a_line():
    values = np.random.default_rng(0).normal(50, 10, 37)
    y_range = (0.0, 100.0)
    fig = leaf_strip(values, 48.5, y_range, size=ROW_LEAF, target="V_k")
    (ax,) = fig.axes
    (dots,) = ax.collections
    offsets = dots.get_offsets()
    assert np.array_equal(offsets[:, 1], values)
    assert ((offsets[:, 0] > 0) & (offsets[:, 0] < 1)).all()  # the jitter stays in the strip
    (line,) = ax.lines
    assert list(line.get_ydata()) == [48.5, 48.5] and line.get_linestyle() == "--"
    assert ax.get_ylim() == y_range
    assert tuple(fig.get_size_inches()) == ROW_LEAF
    assert [t.get_text() for t in ax.texts] == ["V_k=48.5\nn=37"]
    again = leaf_strip(values, 48.5, y_range, size=ROW_LEAF).axes[0].collections[0]
    assert np.array_equal(again.get_offsets(), offsets)  # the same drawing every time
    assert tuple(leaf_strip(values, 48.5, y_range, size=LEAF).get_size_inches()) == LEAF


def test_the_value_axis_holds_every_value_with_a_margin():
    low, high = value_range([3.0, 9.0, 5.0], [10.0])
    assert (low, high) == pytest.approx((3.0 - 0.21, 10.0 + 0.21))
    assert value_range([2.0, 2.0]) == pytest.approx((1.97, 2.03))


def _images(svg, leaf):
    """(width, height) in graph units of the pictures drawn in leaf ``leaf``."""
    root = ET.fromstring(svg)
    (group,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"
                and g.find(f"{SVG}title").text == f"leaf{leaf}"]
    return [(float(s.get("width").removesuffix("px")), float(s.get("height").removesuffix("px")))
            for s in group.findall(f"{SVG}svg")]


def _check_size(image, inches):
    """The picture fills its cell (less graphviz's padding) at its own aspect ratio."""
    width, height = image
    assert width == pytest.approx(72 * inches[0], abs=6)
    assert width / height == pytest.approx(inches[0] / inches[1], rel=0.03)


@pytest.mark.slow
def test_a_boosting_trees_leaves_are_drawn_readable_in_path_and_full_drawings(require_dot):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = 50 * X[:, 0] + 10 * rng.normal(size=300)
    model = AttentionBoostingRegressor(8, learning_rate=0.5, eps=0.5, tau=1.0,
                                       random_state=0).fit(X, y)
    context = TreeContext.from_data(X, y, feature_names=list("abcd"), target_name="y")
    tree, x = model.estimators_[2], X[0]
    row_leaf = int(tree.apply(x[None, :].astype(np.float32))[0])
    with mpl.rc_context({"svg.fonttype": "none"}):
        path = render_tree(model, 2, x, context=context, mode="path", fancy=False)
        full = render_tree(model, 2, x, context=context, mode="full", fancy=False)
    (image,) = _images(path, row_leaf)  # one picture: the readable one, not dtreeviz's too
    _check_size(image, ROW_LEAF)
    assert image[0] > 3 * 72 * DTREEVIZ_LEAF[0]
    rows = np.flatnonzero(tree.apply(X.astype(np.float32)) == row_leaf)
    assert leaf_texts(path, row_leaf)[1][-1] == f"n={rows.size}"
    leaves = np.flatnonzero(tree.tree_.children_left < 0)
    for leaf in leaves:
        (image,) = _images(full, leaf)
        _check_size(image, ROW_LEAF if leaf == row_leaf else LEAF)
        n = int(np.sum(tree.apply(X.astype(np.float32)) == leaf))
        assert leaf_texts(full, leaf)[1][-1] == f"n={n}"


def test_regression_and_classification_leaves_keep_their_kind(require_dot):
    """A lone regression tree gets the strip too; a classifier's leaves keep dtreeviz's pies."""
    tree, X, y, context = small_regression_tree()
    leaf = int(tree.apply(X[:1].astype(np.float32))[0])
    (image,) = _images(render_tree(tree, 0, X[0], context=context), leaf)
    _check_size(image, ROW_LEAF)
    labels = np.where(y > 0, "high", "low")
    forest = RandomForestClassifier(3, max_depth=2, random_state=0).fit(X, labels)
    context = TreeContext.from_data(X, labels, feature_names=["a", "b", "c"])
    leaf = int(forest.estimators_[0].apply(X[:1].astype(np.float32))[0])
    (pie,) = _images(render_tree(forest, 0, X[0], context=context), leaf)
    assert pie[0] < 72 * ROW_LEAF[0] / 2  # dtreeviz's own pie, at its own size
