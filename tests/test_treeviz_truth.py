"""Tree drawings say what the Explanation says (issue 14, item 1): for every model family, the
numbers in the SVG text of the top trees' path drawings are the Explanation's numbers.

Each drawing is read back as text (graphviz's, and matplotlib's under ``svg.fonttype: none``)
and checked against numbers computed here without the drawing code: the leaf's words against
``explanation.tree_predictions[k]`` formatted as the page formats it, the training rows in the
leaf against ``tree.apply`` on the training rows, AGBoost's V_k against T·ν·h_k with h_k the raw
tree's own prediction, and the thresholds and the row's values against the short decimal forms
of the Explanation's path sentences (``PathStep.sentence``)."""

import re
from decimal import Decimal

import matplotlib as mpl
import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesRegressor, RandomForestClassifier

from forestviz import (
    AttentionBoostingRegressor,
    AttentionForestClassifier,
    AttentionForestRegressor,
    EnhancedForestClassifier,
)
from forestviz.explain.drawing.shadow import node_rows
from forestviz.explain.drawing.tree_outputs import ROWS as FROM_ROWS
from forestviz.explain.drawing.tree_outputs import SCALED, origin, tree_outputs
from forestviz.explain.drawing.treeviz import TreeContext, render_tree
from forestviz.explain.row.explanation import explain
from forestviz.numbers import apart_note, number_text, read_number
from forestviz.trees.fitted import estimator_trees
from tests.treeviz_helpers import (
    drawn_nodes,
    leaf_texts,
    path_names,
    row_edge_texts,
    texts,
    texts_by_node,
)

pytestmark = pytest.mark.usefixtures("empty_cache")

NAMES = ["glucose", "bmi", "pedigree", "drift"]
T = 10
TOP = 3


def table(seed, n=200):
    """Columns of unlike scales and digits, so one fixed-point precision cannot fit them all:
    integers near 120, one decimal near 30, three decimals near 1, five decimals near 0."""
    rng = np.random.default_rng(seed)
    return np.column_stack([np.round(rng.normal(120, 30, n)), np.round(rng.normal(30, 6, n), 1),
                            np.round(rng.uniform(0.08, 2.4, n), 3),
                            np.round(rng.normal(0, 0.01, n), 5)])


X = table(0)
ROWS = table(1, n=4)  # rows the models never saw
SCORE = (X[:, 0] - 120) / 30 + (X[:, 1] - 30) / 6 + X[:, 3] * 50
LABELS = np.where(SCORE + np.random.default_rng(2).normal(scale=0.8, size=200) > 0, "Yes", "No")
TARGET = 100 + 20 * SCORE + np.random.default_rng(3).normal(scale=5, size=200)

FAMILIES = {  # model, targets, the words naming where the leaf's number comes from
    "random forest": (lambda: RandomForestClassifier(T, max_depth=4, random_state=0),
                      LABELS, "(from its bootstrap sample)"),
    "extra trees": (lambda: ExtraTreesRegressor(T, max_depth=4, random_state=0),
                    TARGET, "(mean of the {n} training rows in this leaf)"),
    "attention forest regressor": (
        lambda: AttentionForestRegressor(T, eps=0.5, tau=1.0, max_depth=4, random_state=0),
        TARGET, "(mean of the {n} training rows in this leaf)"),
    "attention forest classifier": (
        lambda: AttentionForestClassifier(T, eps=0.5, tau=1.0, max_depth=4, random_state=0),
        LABELS, "(shares of the {n} training rows in this leaf)"),
    "enhanced forest": (lambda: EnhancedForestClassifier(T, max_depth=4, n_iterations=2,
                                                         random_state=0),
                        LABELS, "(from its bootstrap sample)"),
    "agboost": (lambda: agboost(0.5), TARGET, None),
}


def agboost(learning_rate):
    return AttentionBoostingRegressor(T, learning_rate=learning_rate, eps=0.5, tau=1.0,
                                      discount=1.0, random_state=0)


def short_forms(step):
    """(value, threshold) as the page's sentence prints them."""
    shown = step.texts()[:2]  # a value on its threshold says so after the test: not a form
    note = apart_note(shown, (step.value, step.threshold))
    value, _, threshold = step.sentence(lambda _: "").removesuffix(note).split()[1:]
    return value, threshold


def _plain(text):
    """A printed number as Decimal reads it: a true minus as "-", no thousands commas."""
    return text.replace("−", "-").replace(",", "")


def last_digit(text):
    """The place value of a short form's last digit (0.05 → 0.01, 148 → 1)."""
    return 10.0 ** Decimal(_plain(text)).as_tuple().exponent


def page_says(e, k, names):
    """What the Explain page prints for tree k (ui/explain_view.tree_section)."""
    value = e.tree_predictions[k]
    if e.task == "regression":
        return f"{value:.4g}"
    return ", ".join(f"P({c}) = {p:.2f}" for c, p in zip(names, value, strict=True))


def drawings(family, make=None, fancy=False):
    default, y, said_from = FAMILIES[family]
    model = (make or default)().fit(X, y)
    classes = getattr(model, "classes_", None)
    context = TreeContext.from_data(X, y, feature_names=NAMES, target_name="progression")
    for x in ROWS[:2]:
        e = explain(model, x, X_train=X, y_train=y, top_k=TOP)
        for rank, k in enumerate(e.top_trees):
            with mpl.rc_context({"svg.fonttype": "none"}):
                svg = render_tree(model, int(k), x, context=context, mode="path", fancy=fancy)
            yield model, classes, e, rank, int(k), x, svg, said_from


def check_path_numbers(tree, e, rank, x, svg, drawn):
    """The drawn path is the tree's, each threshold prints as the sentence's, and each of the
    row's values as its most precise form on the path (the others are roundings of it); a
    value off the path prints to its feature's spread (the box lists every feature, one a
    line: name, then value)."""
    assert set(drawn_nodes(svg)) == path_names(tree, x)
    box = drawn["X_y"]
    assert box[0::2] == NAMES
    shown = dict(zip(NAMES, box[1::2], strict=True))
    forms = {}
    for step in e.paths[rank]:
        value, threshold = short_forms(step)
        (label,) = drawn[f"node{step.node}"]
        name, printed = label.rsplit("@", 1)
        assert name == NAMES[step.feature]
        assert printed == threshold
        forms.setdefault(step.feature, []).append(value)
    for feature, printed in forms.items():
        finest = max(printed, key=lambda t: -Decimal(_plain(t)).as_tuple().exponent)
        assert shown[NAMES[feature]] == finest
        for text in printed:
            error = abs(read_number(shown[NAMES[feature]]) - read_number(text))
            assert error <= last_digit(text) / 2
    for feature in set(range(len(NAMES))) - set(forms):
        assert shown[NAMES[feature]] == number_text(x[feature], X[:, feature].std())


def leaf_of(tree, x):
    return int(tree.apply(np.asarray(x, dtype=np.float32)[None, :])[0])


def training_rows(tree, leaf):
    return np.flatnonzero(tree.apply(X.astype(np.float32)) == leaf)


@pytest.mark.parametrize("family", ["random forest", "attention forest classifier",
                                    "enhanced forest"])
def test_classifier_leaves_say_the_models_vote(require_dot, family):
    seen_other_shares = False
    for model, classes, e, rank, k, x, svg, said_from in drawings(family):
        tree = model.estimators_[k]
        drawn = texts_by_node(svg)
        leaf = leaf_of(tree, x)
        rows = training_rows(tree, leaf)
        counts = [int(np.sum(LABELS[rows] == c)) for c in classes]
        words, image = leaf_texts(svg, leaf)
        says = page_says(e, k, classes)
        vote = classes[int(np.argmax(e.tree_predictions[k]))]
        assert image == [f"n={rows.size}", vote]  # dtreeviz's pie label: the model's class
        assert words == [f"this tree says: {says}", said_from.format(n=rows.size),
                         f"training rows in this leaf: {counts[0]} No / {counts[1]} Yes"]
        assert row_edge_texts(svg) == ["Prediction", vote]
        seen_other_shares |= not np.allclose(e.tree_predictions[k],
                                             np.array(counts) / rows.size)
        check_path_numbers(tree, e, rank, x, svg, drawn)
    # the drawings met a leaf whose training rows disagree with the tree's own vote
    assert seen_other_shares == (family != "attention forest classifier")


@pytest.mark.parametrize("family", ["extra trees", "attention forest regressor"])
def test_regression_leaves_say_the_models_value(require_dot, family):
    for model, _, e, rank, k, x, svg, said_from in drawings(family):
        tree = model.estimators_[k]
        drawn = texts_by_node(svg)
        leaf = leaf_of(tree, x)
        rows = training_rows(tree, leaf)
        says = page_says(e, k, None)
        assert np.isclose(e.tree_predictions[k], TARGET[rows].mean())  # their own definition
        words, image = leaf_texts(svg, leaf)
        assert image[-1] == f"n={rows.size}"
        name, printed = image[-2].split("=")
        assert (name, read_number(printed)) == ("progression", float(says))
        assert words == [f"this tree says: {says}", said_from.format(n=rows.size),
                         f"training rows in this leaf: {rows.size} (the dots)"]
        label, printed = row_edge_texts(svg)
        assert (label, read_number(printed)) == ("Prediction", float(says))
        check_path_numbers(tree, e, rank, x, svg, drawn)


@pytest.mark.parametrize("nu", [0.5, 0.1], ids=["T*nu=5", "T*nu=1"])
def test_agboost_leaves_say_the_scaled_contribution(require_dot, nu):
    """V_k = T·ν·h_k with T·ν and ν named, never "<target> = h_k"; also when T·ν = 1, where
    V_k and h_k are the same number and only the residuals tell a boosting tree."""
    for model, _, e, rank, k, x, svg, _ in drawings("agboost", lambda: agboost(nu)):
        tree = model.estimators_[k]
        drawn = texts_by_node(svg)
        leaf = leaf_of(tree, x)
        rows = training_rows(tree, leaf)
        h = float(tree.predict(np.asarray(x, dtype=np.float32)[None, :])[0])  # the raw tree
        V = e.tree_predictions[k]
        assert np.isclose(V, T * nu * h)  # what the Explanation holds is V_k, not h_k
        words, image = leaf_texts(svg, leaf)
        assert image[-1] == f"n={rows.size}"
        name, printed = image[-2].split("=")
        assert (name, read_number(printed)) == ("V_k", float(f"{V:.4g}"))
        assert words == [f"this tree says: V_k = {V:.4g}".replace("-", "−"),
                         f"(= {T} trees × ν {nu} × leaf value {h:.4g})".replace("-", "−"),
                         f"dots: residuals of the {rows.size} training rows",
                         f"in this leaf, × {T} × {nu}"]
        assert not any("progression" in text for text in image + words)
        label, printed = row_edge_texts(svg)
        assert (label, read_number(printed)) == ("Prediction", float(f"{V:.4g}"))
        check_path_numbers(tree, e, rank, x, svg, drawn)


@pytest.mark.parametrize("nu", [0.5, 0.1])
def test_boosting_dots_are_the_residuals_each_tree_was_fitted_to(nu):
    """The rows a boosting tree's drawing shows are T·ν·(y − F_{k−1}), F_{k−1} read from the
    boosting machine's own staged predictions; a forest's tree shows the targets."""
    model = agboost(nu).fit(X, TARGET)
    trees = estimator_trees(model)
    staged = [np.full(len(X), model.init_), *model.gbm_.staged_predict(X)]
    for k in (0, 4, T - 1):
        outputs = tree_outputs(model, trees, k)
        source, dots = origin(outputs, trees, k, node_rows(trees[k], X), X, TARGET)
        assert source == SCALED
        assert np.allclose(dots, T * nu * (TARGET - staged[k]))
    forest = ExtraTreesRegressor(T, max_depth=4, random_state=0).fit(X, TARGET)
    trees = estimator_trees(forest)
    outputs = tree_outputs(forest, trees, 3)
    assert origin(outputs, trees, 3, node_rows(trees[3], X), X, TARGET) == (FROM_ROWS, None)


@pytest.mark.slow
def test_fancy_and_full_drawings_say_the_same(require_dot):
    """Node histograms change nothing in the row's leaf; a full drawing names what its leaves
    show in its title and gives every other leaf the tree's own share of its class."""
    plain = list(drawings("random forest"))
    fancy = list(drawings("random forest", fancy=True))
    for (model, *_, k, x, svg, _), (*_, fancy_svg, _) in zip(plain, fancy, strict=True):
        leaf = leaf_of(model.estimators_[k], x)
        assert leaf_texts(fancy_svg, leaf)[0] == leaf_texts(svg, leaf)[0]
    model, context = plain[0][0], TreeContext.from_data(X, LABELS, feature_names=NAMES)
    tree, x = model.estimators_[0], ROWS[0]
    svg = render_tree(model, 0, x, context=context, mode="full", fancy=False)
    assert texts(svg)[:2] == [
        "Leaves: the class and P(class) under each pie are this tree's own vote (from its "
        "bootstrap sample);", "the pie and n count the training rows in the leaf"]
    for leaf in np.flatnonzero(tree.tree_.children_left < 0):
        if leaf != leaf_of(tree, x):
            share = tree.tree_.value[leaf, 0] / tree.tree_.value[leaf, 0].sum()
            top = int(np.argmax(share))
            assert leaf_texts(svg, leaf)[0] == [f"P({model.classes_[top]}) = {share[top]:.2f}"]


def test_the_row_box_prints_each_feature_to_its_own_spread(require_dot):
    """dtreeviz prints every number with one fixed-point precision: two decimals would print
    0.00 for the drift column, five would print 120.00000 for glucose. Each value prints to
    its feature's spread instead (glucose spreads by 30: whole; drift by 0.01: 4 decimals)."""
    model = RandomForestClassifier(T, max_depth=4, random_state=0).fit(X, LABELS)
    context = TreeContext.from_data(X, LABELS, feature_names=NAMES, target_name="outcome")
    x = ROWS[0]
    svg = render_tree(model, 0, x, context=context, mode="path", fancy=False)
    box = texts_by_node(svg)["X_y"][1::2]
    path = {int(model.estimators_[0].tree_.feature[n])
            for n in model.estimators_[0].decision_path(x[None, :].astype(np.float32)).indices}
    for j in set(range(len(NAMES))) - path:
        assert box[j] == number_text(x[j], X[:, j].std())
    assert re.fullmatch(r"−?\d+", box[0]) and re.fullmatch(r"−?0\.\d{1,4}", box[3])


def test_a_categorys_levels_draw_as_yes_and_no(require_dot):
    """One-hot levels of a category (issue 14, item 3): the row's box prints whether the row
    has each level ("yes" / "no", not 1 / 0), a split on a level prints "no | yes" (rows
    without it go left), and the path drawn is the tree's own path, which the page's sentence
    words as "sex = F" / "sex is not F"."""
    rng = np.random.default_rng(4)
    female = rng.integers(0, 2, 300).astype(float)
    glucose = np.round(rng.normal(120, 30, 300))
    data = np.column_stack([glucose, female, 1 - female])
    outcome = np.where((glucose > 130) ^ (female == 1), "Yes", "No")
    model = RandomForestClassifier(5, max_depth=3, random_state=0).fit(data, outcome)
    context = TreeContext.from_data(data, outcome, feature_names=["glucose", "sex=F", "sex=M"],
                                    indicators=[1, 2])
    checked = 0
    for row in (np.array([140.0, 1.0, 0.0]), np.array([100.0, 0.0, 1.0])):
        for k, tree in enumerate(model.estimators_):
            svg = render_tree(model, k, row, context=context, mode="path", fancy=False)
            drawn = texts_by_node(svg)
            assert drawn["X_y"][1::2][1:] == ["yes" if row[1] else "no",
                                              "yes" if row[2] else "no"]
            t, path = tree.tree_, path_names(tree, row)
            for node in (int(name[4:]) for name in path if name.startswith("node")):
                if t.feature[node] in (1, 2):
                    label = ["sex=F", "sex=M"][t.feature[node] - 1]
                    assert drawn[f"node{node}"] == [f"{label}@no | yes"]
                    has_level = row[t.feature[node]] > 0.5  # "yes" goes right
                    child = t.children_right[node] if has_level else t.children_left[node]
                    assert {f"node{child}", f"leaf{child}"} & path
                    checked += 1
    assert checked >= 5


def test_an_imputed_value_is_drawn_as_imputed(require_dot):
    """Issue 26, item 3: a value that stood in for a missing one prints "(imputed)" in the
    row's box (a missing category's levels "no (missing)"), the others as measured; the
    drawing of the same row without the mark is another drawing, not the cached one."""
    model = RandomForestClassifier(T, max_depth=4, random_state=0).fit(X, LABELS)
    context = TreeContext.from_data(X, LABELS, feature_names=NAMES, target_name="outcome")
    x = ROWS[0]
    plain = render_tree(model, 0, x, context=context, mode="path", fancy=False)
    marked = render_tree(model, 0, x, context=context, mode="path", fancy=False,
                         imputed=frozenset({1}))
    box, measured = texts_by_node(marked)["X_y"][1::2], texts_by_node(plain)["X_y"][1::2]
    assert box[1] == f"{measured[1]} (imputed)"
    assert box[:1] + box[2:] == measured[:1] + measured[2:]
    rng = np.random.default_rng(4)
    female = rng.integers(0, 2, 300).astype(float)
    data = np.column_stack([np.round(rng.normal(120, 30, 300)), female, 1 - female])
    outcome = np.where(female == 1, "Yes", "No")
    levels = RandomForestClassifier(2, max_depth=2, random_state=0).fit(data, outcome)
    context = TreeContext.from_data(data, outcome, feature_names=["glucose", "sex=F", "sex=M"],
                                    indicators=[1, 2])
    svg = render_tree(levels, 0, np.array([140.0, 0.0, 0.0]), context=context, mode="path",
                      fancy=False, imputed=frozenset({1, 2}))
    assert texts_by_node(svg)["X_y"][1::2][1:] == ["no (missing)", "no (missing)"]
