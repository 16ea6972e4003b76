"""Tree drawings: real dtreeviz + graphviz renders of small trees, checked in the SVG itself."""

import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeRegressor

from forestviz import treeviz
from forestviz.treeviz import TreeContext, TreeRenderError, display_name, render_tree

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ["<script>alert(1)</script>", "a&b", '"quoted"', "O'Brien", "BMI (kg/m²)",
           "tab\there $x_1$ \\n"]


@pytest.fixture(autouse=True)
def empty_cache():
    treeviz.clear_cache()
    yield
    treeviz.clear_cache()


@pytest.fixture(scope="module")
def clinic():
    """A small binary forest on string labels with hostile column names."""
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(loc=5.0, size=(240, len(HOSTILE))), 1)
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=240) > 10, "sick", "well")
    forest = RandomForestClassifier(n_estimators=4, max_depth=3, random_state=0).fit(X, y)
    context = TreeContext.from_data(X, y, feature_names=HOSTILE, target_name="out<come>")
    return forest, context, X


def drawn_nodes(svg):
    """{graphviz node title: highlighted?} for the tree's nodes (node<k> / leaf<k>)."""
    root = ET.fromstring(svg)
    nodes = {}
    for group in root.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        if group.get("class") == "node" and title.text.startswith(("node", "leaf")):
            nodes[title.text] = any("stroke-dasharray" in shape.attrib
                                    for shape in group.findall(f"{SVG}polygon"))
    return nodes


def path_names(tree, x):
    nodes = tree.decision_path(np.asarray(x, dtype=np.float32)[None, :]).indices
    return {f"leaf{n}" if tree.tree_.children_left[n] < 0 else f"node{n}" for n in nodes}


def texts(svg):
    return [el.text for el in ET.fromstring(svg).iter(f"{SVG}text") if el.text]


def test_display_names_keep_the_text_but_no_markup():
    shown = [display_name(n) for n in HOSTILE]
    assert shown == ["‹script›alert(1)‹/script›", "a and b", "“quoted”", "O’Brien",
                     "BMI (kg/m²)", "tab here $x_1$ \\n"]
    assert not any(set(name) & set("<>&\"'\t") for name in shown)
    assert display_name("\x00\x07") == ""


def test_path_drawing_highlights_the_rows_path(require_dot, clinic):
    forest, context, X = clinic
    tree = forest.estimators_[1]
    # a row sitting exactly on the root threshold: float32 rounding decides, as in apply
    x = X[7].copy()
    x[tree.tree_.feature[0]] = tree.tree_.threshold[0]
    svg = render_tree(forest, 1, x, context=context, mode="path")
    nodes = drawn_nodes(svg)
    assert set(nodes) == path_names(tree, x)
    assert all(nodes.values())  # every drawn node is on the path and highlighted


def test_full_drawing_highlights_exactly_the_path(require_dot, clinic):
    forest, context, X = clinic
    tree = forest.estimators_[2]
    svg = render_tree(forest, 2, X[11], context=context, mode="full")
    nodes = drawn_nodes(svg)
    assert len(nodes) == tree.tree_.node_count
    assert {name for name, lit in nodes.items() if lit} == path_names(tree, X[11])


def test_hostile_names_render_as_text(require_dot, clinic):
    forest, context, X = clinic
    for mode, fancy in (("path", True), ("full", False)):
        svg = render_tree(forest, 0, X[3], context=context, mode=mode, fancy=fancy)
        root = ET.fromstring(svg)  # well-formed XML
        assert not [el for el in root.iter() if el.tag.rsplit("}", 1)[-1].lower() == "script"]
        assert not [a for el in root.iter() for a in el.attrib if a.lower().startswith("on")]
        shown = texts(svg)
        for name in HOSTILE:
            assert display_name(name) in shown
        assert "sick" in " ".join(shown) or "well" in " ".join(shown)  # the class names


def test_regression_tree_with_a_depth_limit_and_note(require_dot, monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = X[:, 0] + rng.normal(scale=0.1, size=150)
    tree = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y)
    context = TreeContext.from_data(X, y, feature_names=["a", "b", "c"], target_name="y")
    monkeypatch.setattr(treeviz, "FULL_TREE_NODE_LIMIT", 7)
    depths = tree.tree_.compute_node_depths() - 1
    svg = render_tree(tree, 0, X[0], context=context, mode="full", fancy=False)
    shown = {int(name[4:]) for name in drawn_nodes(svg)}
    assert shown == set(np.flatnonzero(depths <= 2))  # 1 + 2 + 4 nodes fit in 7
    lit = {int(name[4:]) for name, on in drawn_nodes(svg).items() if on}
    assert lit == set(tree.decision_path(X[:1].astype(np.float32)).indices) & shown
    assert any(f"depth 0-2 of {tree.tree_.max_depth} shown" in t for t in texts(svg))
    deeper = render_tree(tree, 0, X[0], context=context, mode="full", max_depth=3, fancy=False)
    assert {int(name[4:]) for name in drawn_nodes(deeper)} == set(np.flatnonzero(depths <= 3))
    short = render_tree(tree, 0, X[0], context=context, mode="path", max_depth=1)
    path = tree.decision_path(X[:1].astype(np.float32)).indices
    assert set(drawn_nodes(short)) == {f"node{n}" for n in path[:2]}  # no stray leaf node


def test_cache_is_keyed_by_content(require_dot, clinic):
    forest, context, X = clinic
    first = render_tree(forest, 0, X[5], context=context)
    assert render_tree(forest, 0, X[5], context=context) is first
    twin = clone(forest).fit(context.X_train, context.y_train)  # same content, other object
    same_data = TreeContext.from_data(X.copy(), context.y_train.copy(), feature_names=HOSTILE,
                                      target_name="out<come>")
    assert render_tree(twin, 0, X[5], context=same_data) is first
    assert render_tree(forest, 0, X[5], context=context, mode="full") is not first
    renamed = TreeContext.from_data(X, context.y_train, target_name="outcome")
    assert renamed.fingerprint != context.fingerprint
    assert render_tree(forest, 0, X[5], context=renamed) is not first


def test_eight_threads_render_at_once(require_dot, clinic):
    forest, context, X = clinic
    jobs = [(k % 4, 20 + k) for k in range(8)]
    alone = [texts(render_tree(forest, k, X[row], context=context)) for k, row in jobs]
    treeviz.clear_cache()
    with ThreadPoolExecutor(max_workers=8) as pool:
        svgs = list(pool.map(lambda job: render_tree(forest, job[0], X[job[1]],
                                                     context=context), jobs))
    for (k, row), svg, expected in zip(jobs, svgs, alone, strict=True):
        assert set(drawn_nodes(svg)) == path_names(forest.estimators_[k], X[row])
        assert texts(svg) == expected  # this row's drawing, not another thread's


def test_errors_come_back_as_tree_render_errors(require_dot, clinic, monkeypatch, tmp_path):
    forest, context, X = clinic
    bad = X[0].copy()
    bad[2] = np.nan
    with pytest.raises(TreeRenderError, match="missing"):
        render_tree(forest, 0, bad, context=context)
    with pytest.raises(TreeRenderError, match="longer than"):
        render_tree(forest, 0, X[0], context=context, mode="full", timeout=1e-4)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TreeRenderError, match="Graphviz"):
        render_tree(forest, 0, X[0], context=context)
