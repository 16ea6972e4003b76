"""Tree drawings: real dtreeviz + graphviz renders of small trees, checked in the SVG itself."""

import re
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeRegressor

from forestviz.explain.drawing import treeviz
from forestviz.explain.drawing.drawn_names import display_name, display_names
from forestviz.explain.drawing.treeviz import TreeContext, TreeRenderError, render_tree
from forestviz.names import NAME_LIMIT
from tests.treeviz_helpers import HOSTILE, drawn_nodes, path_names, texts

pytestmark = pytest.mark.usefixtures("empty_cache")


def test_display_names_keep_the_text_but_no_markup():
    shown = [display_name(n) for n in HOSTILE]
    assert shown == ["‹script›alert(1)‹/script›", "a and b", "“quoted”", "O’Brien",
                     "BMI (kg/m²)", "tab here $x_1$ \\n"]
    assert not any(set(name) & set("<>&\"'\t") for name in shown)
    assert display_name("\x00\x07") == ""


def test_display_names_are_cut_and_stay_distinct():
    assert display_name("<" * 100) == "‹" * (NAME_LIMIT - 1) + "…"
    assert display_name("a&b" * 100, limit=10) == "a and ba …"
    alike = ["P" * 50 + "1", "P" * 50 + "2", "P" * 50 + "1", "Q"]
    assert display_names(alike) == ["P" * 39 + "…", "P" * 36 + "… #2", "P" * 36 + "… #3", "Q"]


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


@pytest.mark.slow
def test_long_names_do_not_widen_the_drawing(require_dot):
    """5,000-character feature, target and class names draw as wide as 40-character ones
    (about 60,000 px before names were cut)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] + X[:, 1] > 0, "sick", "well")
    forest = RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0).fit(X, y)

    def drawings(length):
        context = TreeContext.from_data(X, y, feature_names=[c * length for c in "LMN"],
                                        target_name="T" * length,
                                        class_names=["C" * length, "D" * length])
        return [render_tree(forest, 0, X[0], context=context, mode=mode, fancy=fancy)
                for mode, fancy in (("path", True), ("full", False))]

    def width_pt(svg):
        return float(ET.fromstring(svg).get("width").removesuffix("pt"))

    for long, short in zip(drawings(5000), drawings(NAME_LIMIT), strict=True):
        assert width_pt(long) <= 1.05 * width_pt(short)
        assert width_pt(long) * 96 / 72 <= 4000  # px
        assert re.search(rf"([LMNTCD])\1{{{NAME_LIMIT}}}", long) is None  # no name whole
        assert any("L" * (NAME_LIMIT - 1) + "…" in text for text in texts(long))


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# --------------------------------------------------------------------------- the cache
def test_svg_cache_is_bounded_by_entries_and_characters():
    cache = treeviz._SvgCache(max_entries=3, max_chars=10)
    for key in "abc":
        cache.put(key, "xx")
    assert cache.get("a") == "xx"  # a is now the most recently used
    cache.put("d", "xx")  # 4 entries: the least recently used (b) goes
    assert [cache.get(key) for key in "abcd"] == ["xx", None, "xx", "xx"]
    cache.put("e", "y" * 7)  # 2 + 2 + 2 + 7 > 10 characters: a, then c go
    assert [cache.get(key) for key in "acde"] == [None, None, "xx", "y" * 7]
    cache.put("f", "z" * 11)  # larger than the whole cache: not kept, nothing evicted
    assert cache.get("f") is None and cache.get("d") == "xx"


def test_svg_cache_under_eight_threads():
    cache = treeviz._SvgCache(max_entries=50, max_chars=2_000)
    value = {k: f"<svg>{k}</svg>" * (1 + k % 7) for k in range(400)}
    errors = []

    def check():
        with cache.lock:
            items = dict(cache.lru)
            chars = cache.lru.currsize
        if not (len(items) <= 50 and chars == sum(map(len, items.values())) <= 2_000
                and all(value[k] == v for k, v in items.items())):
            errors.append((len(items), chars))

    def hammer(seed):
        rng = np.random.default_rng(seed)
        for k in rng.integers(0, 400, 3_000).tolist():
            got = cache.get(k)
            if got is not None and got != value[k]:
                errors.append(("wrong value", k))
            cache.put(k, value[k])
            if k % 50 == 0:
                check()

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(hammer, range(8)))
    check()
    assert errors == []
    assert 0 < len(cache.lru) <= 50
