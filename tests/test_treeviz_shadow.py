"""What dtreeviz is told about a fitted tree (forestviz.explain.drawing.shadow.ForestShadowTree):
node rows, class names and counts as the model has them, checked in the rendered SVG."""


import matplotlib as mpl
import numpy as np
import pytest
from dtreeviz.models.sklearn_decision_trees import ShadowSKDTree
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from forestviz.explain.drawing import treeviz
from forestviz.explain.drawing.shadow import ForestShadowTree
from forestviz.explain.drawing.treeviz import (
    TreeContext,
    display_names,
    render_tree,
)
from forestviz.numbers import read_number
from tests.treeviz_helpers import (
    HOSTILE,
    drawn_nodes,
    leaf_texts,
    small_regression_tree,
    texts,
    texts_by_node,
)

pytestmark = pytest.mark.usefixtures("empty_cache")


# ------------------------------------------- what dtreeviz is told (ForestShadowTree)
def rows_through(tree, X):
    """{node: training rows through it}, by descending the rows level by level with the
    fitted tree's public arrays (float32, as scikit-learn compares): a count independent of
    ``decision_path``. Node ids are in preorder, so a parent comes before its children."""
    t, X32 = tree.tree_, X.astype(np.float32)
    rows = {0: np.arange(len(X))}
    for node in range(t.node_count):
        if t.children_left[node] >= 0:
            left = X32[rows[node], t.feature[node]] <= t.threshold[node]
            rows[t.children_left[node]] = rows[node][left]
            rows[t.children_right[node]] = rows[node][~left]
    return rows


@pytest.fixture(scope="module")
def hostile_labels():
    """A forest on hostile string labels, whose trees hold codes 0, 1 as their classes_."""
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(300, 3)), 2)
    y = np.where(X[:, 0] > 0.3, "<ill>", np.where(X[:, 1] > 0, "O'well", "a&b"))
    forest = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    return forest, X, y


def test_shadow_tree_node_rows_and_classes(hostile_labels):
    forest, X, y = hostile_labels
    tree = forest.estimators_[1]
    assert list(tree.classes_) == [0, 1, 2]  # the labels are on the forest only
    shadow = ForestShadowTree(tree, X, y, classes=forest.classes_, feature_names=list("abc"))
    expected = rows_through(tree, X)
    samples = shadow.get_node_samples()
    assert set(samples) == set(expected)
    for node, rows in expected.items():
        assert list(samples[node]) == list(rows)
        assert shadow.get_node_nsamples(node) == rows.size
    leaves = np.bincount(tree.apply(X.astype(np.float32)), minlength=tree.tree_.node_count)
    assert [shadow.get_node_nsamples(leaf.id) for leaf in shadow.leaves] == [
        leaves[leaf.id] for leaf in shadow.leaves]
    assert list(shadow.classes()) == [0, 1, 2]
    assert list(shadow.y_train) == list(np.searchsorted(forest.classes_, y))
    assert shadow.class_names == dict(enumerate(forest.classes_))  # default: the forest's labels
    named = ForestShadowTree(tree, X, y, classes=forest.classes_, feature_names=list("abc"),
                             class_names=["ill", "well", "both"])
    assert named.class_names == {0: "ill", 1: "well", 2: "both"}
    with pytest.raises(ValueError, match="expected 3 class names"):
        ForestShadowTree(tree, X, y, classes=forest.classes_, feature_names=list("abc"),
                         class_names=["ill", "well"])
    with pytest.raises(ValueError, match="not fitted on"):
        ForestShadowTree(tree, X, np.where(y == "a&b", "other", y), classes=forest.classes_,
                         feature_names=list("abc"))
    lone = DecisionTreeClassifier(max_depth=2).fit(X, y)  # classes_: the string labels
    assert list(ForestShadowTree(lone, X, y, classes=lone.classes_,
                                 feature_names=list("abc")).classes()) == [0, 1, 2]
    regression = DecisionTreeRegressor(max_depth=2).fit(X, X[:, 0])
    assert ForestShadowTree(regression, X, X[:, 0], feature_names=list("abc")).classes() is None


@pytest.mark.parametrize("lone", [False, True], ids=["tree of a forest", "lone tree"])
def test_drawn_counts_and_votes_are_the_models(require_dot, hostile_labels, monkeypatch, lone):
    """Each drawn leaf says n = the training rows reaching it and the tree's own vote (its
    class and, under the pie, that class's share), named from the forest's (or the lone tree's)
    labels; dtreeviz's own row loop never runs."""
    forest, X, y = hostile_labels
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y) if lone else forest
    tree = model if lone else forest.estimators_[2]

    def dtreeviz_loop(self):
        raise AssertionError("dtreeviz's node -> rows loop ran: the override is not used")

    monkeypatch.setattr(ShadowSKDTree, "get_node_samples", dtreeviz_loop)
    context = TreeContext.from_data(X, y, feature_names=HOSTILE[:3], target_name="state")
    with mpl.rc_context({"svg.fonttype": "none"}):
        svg = render_tree(model, 0 if lone else 2, X[0], context=context, mode="full",
                          fancy=False)
    drawn = texts_by_node(svg)
    rows = rows_through(tree, X)
    shown = display_names(model.classes_)
    assert shown == ["‹ill›", "O’well", "a and b"]
    leaves = [n for n in range(tree.tree_.node_count) if tree.tree_.children_left[n] < 0]
    assert {name for name in drawn if name.startswith("leaf")} == {f"leaf{n}" for n in leaves}
    row_leaf = tree.apply(X[:1].astype(np.float32))[0]
    for leaf in leaves:
        share = tree.tree_.value[leaf, 0] / tree.tree_.value[leaf, 0].sum()  # predict_proba's
        vote = int(np.argmax(share))
        words, image = leaf_texts(svg, leaf)
        assert image == [f"n={rows[leaf].size}", shown[vote]]
        if leaf == row_leaf:  # a line too long for the leaf breaks after a ", "
            assert " ".join(words[:2]) == "this tree says: " + ", ".join(
                f"P({name}) = {p:.2f}" for name, p in zip(shown, share, strict=True))
        else:
            assert words == [f"P({shown[vote]}) = {share[vote]:.2f}"]
    assert set(shown) <= set(drawn["legend"])
    monkeypatch.undo()
    named = TreeContext.from_data(X, y, feature_names=HOSTILE[:3], target_name="state",
                                  class_names=["<b>ill</b>", "well", "both"])
    svg = render_tree(model, 0 if lone else 2, X[0], context=named, mode="path")
    code = np.argmax(tree.predict_proba(X[:1]))  # columns in model.classes_ order
    assert f" {['‹b›ill‹/b›', 'well', 'both'][code]}" in texts(svg)  # "Prediction <name>"


def test_regression_leaves_show_their_rows(require_dot):
    tree, X, y, context = small_regression_tree()
    with mpl.rc_context({"svg.fonttype": "none"}):
        svg = render_tree(tree, 0, X[0], context=context, mode="full", fancy=False)
    for node, rows in rows_through(tree, X).items():
        if tree.tree_.children_left[node] < 0:
            value, n = leaf_texts(svg, node)[1][-2:]
            name, printed = value.split("=")
            assert (name, read_number(printed)) == ("y", float(f"{y[rows].mean():.4g}"))
            assert n == f"n={rows.size}"


def test_a_leaf_no_training_row_reaches_is_a_box_of_words(require_dot):
    """Drawn over other rows than the tree's own (a lone tree over a subset), a leaf with no
    row has no pie: it still says what the tree says, and that no training row reached it."""
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(200, 2)), 2)
    y = np.where(X[:, 0] > 0, "up", "down")
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    leaves = tree.apply(X.astype(np.float32))
    empty = leaves[0]
    keep = leaves != empty
    context = TreeContext.from_data(X[keep], y[keep], feature_names=["a", "b"])
    share = tree.tree_.value[empty, 0] / tree.tree_.value[empty, 0].sum()
    top = int(np.argmax(share))
    full = render_tree(tree, 0, X[1 + np.argmax(keep[1:])], context=context, mode="full",
                       fancy=False)
    assert f"leaf{empty}" in drawn_nodes(full)
    assert leaf_texts(full, empty) == ([f"P({tree.classes_[top]}) = {share[top]:.2f}",
                                        "no training rows"], [])
    path = render_tree(tree, 0, X[0], context=context, mode="path", fancy=False)
    assert drawn_nodes(path)[f"leaf{empty}"]  # the row's leaf, highlighted
    assert leaf_texts(path, empty)[0] == [
        "this tree says: " + ", ".join(f"P({c}) = {p:.2f}"
                                       for c, p in zip(tree.classes_, share, strict=True)),
        "(the tree's own leaf value)", "training rows in this leaf: none"]


def test_the_row_box_moves_only_off_dtreevizs_own_edge(caplog):
    dot = "digraph G {\n node3 -> leaf9\n leaf9 -> X_y [dir=back]\n}"
    assert treeviz._hang_row_box(dot, 9, 3) == dot.replace("leaf9 -> X_y", "node3 -> X_y")
    assert treeviz._hang_row_box(dot, 8, 3) == dot  # no such edge: left as drawn, logged
    assert "no single edge 'leaf8 -> X_y'" in caplog.text
