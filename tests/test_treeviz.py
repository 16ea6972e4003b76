"""Tree drawings: real dtreeviz + graphviz renders of small trees, checked in the SVG itself."""

import os
import re
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pytest
from dtreeviz.models.sklearn_decision_trees import ShadowSKDTree
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from forestviz.explain import treeviz
from forestviz.explain.shadow import ForestShadowTree
from forestviz.explain.treeviz import (
    TreeContext,
    TreeRenderError,
    display_name,
    display_names,
    render_tree,
)
from forestviz.names import NAME_LIMIT

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


def texts_by_node(svg):
    """{graphviz node title: its texts}; render under ``svg.fonttype: none`` so matplotlib's
    node and leaf images keep their text (``n=…``, class names) as text, not paths."""
    root = ET.fromstring(svg)
    return {group.find(f"{SVG}title").text: ["".join(el.itertext())
                                               for el in group.iter(f"{SVG}text")]
            for group in root.iter(f"{SVG}g") if group.get("class") == "node"}


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
def test_drawn_counts_and_class_names_are_the_models(require_dot, hostile_labels, monkeypatch,
                                                     lone):
    """Each drawn leaf says n = the training rows reaching it and the model's class, named
    from the forest's (or the lone tree's) labels; dtreeviz's own row loop never runs."""
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
    for leaf in leaves:
        majority = np.argmax(np.bincount(np.searchsorted(model.classes_, y[rows[leaf]]),
                                         minlength=3))
        assert drawn[f"leaf{leaf}"] == [f"n={rows[leaf].size}", shown[majority]]
    assert set(shown) <= set(drawn["legend"])
    monkeypatch.undo()
    named = TreeContext.from_data(X, y, feature_names=HOSTILE[:3], target_name="state",
                                  class_names=["<b>ill</b>", "well", "both"])
    svg = render_tree(model, 0 if lone else 2, X[0], context=named, mode="path")
    code = np.argmax(tree.predict_proba(X[:1]))  # columns in model.classes_ order
    assert f" {['‹b›ill‹/b›', 'well', 'both'][code]}" in texts(svg)  # "Prediction <name>"


def test_regression_leaves_show_their_rows(require_dot):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = X[:, 0] + rng.normal(scale=0.1, size=150)
    tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)
    context = TreeContext.from_data(X, y, feature_names=["a", "b", "c"], target_name="y")
    with mpl.rc_context({"svg.fonttype": "none"}):
        drawn = texts_by_node(render_tree(tree, 0, X[0], context=context, mode="full",
                                          fancy=False))
    for node, rows in rows_through(tree, X).items():
        if tree.tree_.children_left[node] < 0:
            assert drawn[f"leaf{node}"][-2:] == [f"y={y[rows].mean():.2f}", f"n={rows.size}"]


def test_the_row_box_moves_only_off_dtreevizs_own_edge(caplog):
    dot = "digraph G {\n node3 -> leaf9\n leaf9 -> X_y [dir=back]\n}"
    assert treeviz._hang_row_box(dot, 9, 3) == dot.replace("leaf9 -> X_y", "node3 -> X_y")
    assert treeviz._hang_row_box(dot, 8, 3) == dot  # no such edge: left as drawn, logged
    assert "no single edge 'leaf8 -> X_y'" in caplog.text


# ------------------------------------------------------------------ temporary files
DTREEVIZ_FILE = re.compile(r"(?:(?:node|leaf)\d+|legend)_\d+\.svg")


@pytest.fixture
def shared_tmp(tmp_path, monkeypatch):
    """A fresh directory as the process's temporary directory (what ``/tmp`` is to a server),
    so no other process's files disturb the count."""
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    return shared


@pytest.fixture
def seen_during_render(monkeypatch):
    """[(temporary directory, its files)] as ``dot`` starts, one entry per render."""
    seen = []
    run_dot = treeviz._run_dot

    def spy(source, timeout):
        seen.append((tempfile.gettempdir(), sorted(os.listdir(tempfile.gettempdir()))))
        return run_dot(source, timeout)

    monkeypatch.setattr(treeviz, "_run_dot", spy)
    return seen


@pytest.mark.slow
def test_fifty_drawings_leave_no_temporary_file(require_dot, clinic, shared_tmp,
                                                seen_during_render):
    forest, context, X = clinic
    rng = np.random.default_rng(2)
    Xr = rng.normal(size=(120, 2))
    regressor = DecisionTreeRegressor(max_depth=2, random_state=0).fit(Xr, Xr[:, 0])
    regression = TreeContext.from_data(Xr, Xr[:, 0], feature_names=["a", "b"])
    jobs = [(forest, k % 4, X[k], context, mode, k % 6 == 0)
            for k in range(30) for mode in ("path", "full") if mode == "path" or k < 6]
    jobs += [(regressor, 0, Xr[k], regression, ("path", "full")[k % 2], k % 7 == 0)
             for k in range(50 - len(jobs))]
    assert len(jobs) == 50
    for model, k, row, ctx, mode, fancy in jobs:
        render_tree(model, k, row, context=ctx, mode=mode, fancy=fancy)
        assert tempfile.tempdir == str(shared_tmp)
        assert os.listdir(shared_tmp) == []
    assert len(seen_during_render) == 50  # every job rendered (distinct keys, no cache hit)
    for directory, files in seen_during_render:  # dtreeviz wrote into a private directory
        assert os.path.dirname(directory) == str(shared_tmp)
        assert files and all(DTREEVIZ_FILE.fullmatch(name) for name in files)
        assert not os.path.exists(directory)


@pytest.mark.slow
def test_failed_drawings_leave_no_temporary_file(require_dot, clinic, shared_tmp, monkeypatch):
    forest, context, X = clinic
    with pytest.raises(TreeRenderError, match="longer than"):  # dot times out
        render_tree(forest, 0, X[0], context=context, mode="full", timeout=1e-4)
    assert tempfile.tempdir == str(shared_tmp) and os.listdir(shared_tmp) == []

    def broken(svg):
        raise ValueError("cannot read the node images")

    monkeypatch.setattr(treeviz, "inline_svg_images", broken)
    with pytest.raises(TreeRenderError, match="cannot read"):
        render_tree(forest, 1, X[0], context=context)
    assert tempfile.tempdir == str(shared_tmp) and os.listdir(shared_tmp) == []
    monkeypatch.undo()  # the real inline_svg_images, and no tempdir set (None)
    assert tempfile.tempdir is None or tempfile.tempdir != str(shared_tmp)
    monkeypatch.setattr(tempfile, "tempdir", None)
    render_tree(forest, 2, X[0], context=context)
    assert tempfile.tempdir is None  # restored as it was, not to the default it computed


def test_a_foreign_file_in_the_private_directory_survives(require_dot, clinic, shared_tmp,
                                                          monkeypatch, caplog):
    """Another thread's temporary file, created in our directory during a render (tempdir is
    process-wide), is neither deleted nor lost: the directory stays with just that file."""
    forest, context, X = clinic
    run_dot, private = treeviz._run_dot, []

    def other_thread_writes(source, timeout):
        private.append(tempfile.gettempdir())
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as other:
            other.write("someone else's data")
        return run_dot(source, timeout)

    monkeypatch.setattr(treeviz, "_run_dot", other_thread_writes)
    svg = render_tree(forest, 0, X[4], context=context, fancy=True)
    assert drawn_nodes(svg)
    (directory,) = private
    (left,) = os.listdir(directory)  # dtreeviz's files are gone, the other file is not
    assert left.endswith(".csv") and not DTREEVIZ_FILE.fullmatch(left)
    assert (Path(directory) / left).read_text() == "someone else's data"
    assert os.listdir(shared_tmp) == [os.path.basename(directory)]
    assert tempfile.tempdir == str(shared_tmp)
    assert "left the temporary directory" in caplog.text


def test_drawings_do_not_name_the_private_directory(require_dot, clinic, seen_during_render):
    forest, context, X = clinic
    svg = render_tree(forest, 0, X[4], context=context, mode="full", fancy=True)
    ((directory, files),) = seen_during_render
    assert files and directory not in svg and "<image" not in svg  # node images inlined


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
