"""Decision Machines against scikit-learn and brute-force walks of the tree arrays (§4)."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.ensemble import (
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from forestviz.trees import DecisionMachine


def ancestors(tree):
    """Brute force: {leaf node: [(ancestor node, +1 right / −1 left), ...] root first}."""
    t = tree.tree_
    found, stack = {}, [(0, [])]
    while stack:
        node, trail = stack.pop()
        if t.children_left[node] < 0:
            found[node] = trail
            continue
        stack.append((t.children_left[node], [*trail, (node, -1)]))
        stack.append((t.children_right[node], [*trail, (node, 1)]))
    return found


def goes_right(tree, x32, node):
    return float(x32[tree.tree_.feature[node]]) > tree.tree_.threshold[node]


def brute_flips(tree, x):
    """Per leaf: how many of its ancestors' tests the row fails."""
    x32 = np.float32(x)
    return {leaf: sum((1 if goes_right(tree, x32, a) else -1) != s for a, s in trail)
            for leaf, trail in ancestors(tree).items()}


def random_tree(seed):
    """A random tree on data with ties (integer columns) and continuous columns."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(60, 300)), int(rng.integers(1, 6))
    X = np.where(rng.random(m) < 0.5, rng.integers(0, 6, size=(n, m)),
                 rng.normal(scale=10 ** rng.uniform(-3, 3), size=(n, m)))
    params = dict(max_depth=int(rng.integers(1, 12)), min_samples_leaf=int(rng.integers(1, 6)),
                  splitter=str(rng.choice(["best", "random"])), random_state=seed)
    if seed % 2:
        y = (X[:, 0] + rng.normal(size=n) > np.median(X[:, 0])).astype(int) + (seed % 3 == 0)
        return DecisionTreeClassifier(**params).fit(X, y), X
    return DecisionTreeRegressor(**params).fit(X, X @ rng.normal(size=m)), X


def rows_on_thresholds(tree, X, seed):
    """Rows whose tested feature sits on each threshold: at it (float64), at its float32
    rounding and one float32 step either side."""
    rng = np.random.default_rng(seed)
    inner = np.flatnonzero(tree.tree_.children_left >= 0)
    features, thresholds = tree.tree_.feature[inner], tree.tree_.threshold[inner]
    t32 = thresholds.astype(np.float32)
    values = [thresholds, t32, np.nextafter(t32, np.float32(np.inf)),
              np.nextafter(t32, np.float32(-np.inf))]
    out = []
    for value in values:
        base = X[rng.integers(0, X.shape[0], size=inner.size)].copy()
        base[np.arange(inner.size), features] = value
        out.append(base)
    return np.vstack([*out, X])


@pytest.mark.parametrize("seed", range(40))
def test_apply_equals_sklearn_on_random_trees_and_threshold_values(seed):
    tree, X = random_tree(seed)
    rows = rows_on_thresholds(tree, X, seed)
    machine = DecisionMachine.from_estimator(tree)
    expected = tree.apply(rows)
    np.testing.assert_array_equal(machine.apply(rows, method="matrix")[:, 0], expected)
    np.testing.assert_array_equal(machine.apply(rows)[:, 0], expected)  # compiled, > 64 rows
    np.testing.assert_array_equal(machine.apply(rows[:7])[:, 0], expected[:7])  # flat descent


@pytest.mark.parametrize("seed", range(6))
def test_templates_selection_and_thresholds_match_the_tree(seed):
    tree, _ = random_tree(seed)
    machine = DecisionMachine.from_estimator(tree)
    t = tree.tree_
    inner = np.flatnonzero(t.children_left >= 0)
    leaves = np.flatnonzero(t.children_left < 0)
    np.testing.assert_array_equal(machine.test_nodes, inner)
    np.testing.assert_array_equal(machine.leaf_nodes, leaves)
    np.testing.assert_array_equal(machine.thresholds, t.threshold[inner])
    S = machine.selection.toarray()
    np.testing.assert_array_equal(S, np.eye(t.n_features)[t.feature[inner]])
    expected = np.zeros((leaves.size, inner.size), dtype=int)
    for leaf, trail in ancestors(tree).items():
        for node, sign in trail:
            expected[np.searchsorted(leaves, leaf), np.searchsorted(inner, node)] = sign
    np.testing.assert_array_equal(machine.templates.toarray(), expected)
    np.testing.assert_array_equal(machine.leaf_depth, np.abs(expected).sum(axis=1))


def test_forest_blocks_and_apply_equal_the_forest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 1)
    forest = RandomForestClassifier(n_estimators=7, max_depth=6, random_state=0).fit(X, y)
    machine = DecisionMachine.from_estimator(forest)
    rows = np.vstack([rows_on_thresholds(t, X, k)[:200] for k, t in enumerate(forest.estimators_)])
    np.testing.assert_array_equal(machine.apply(rows, method="matrix"), forest.apply(rows))
    np.testing.assert_array_equal(machine.apply(rows), forest.apply(rows))
    B = machine.templates.toarray()
    for k, tree in enumerate(forest.estimators_):  # block-diagonal: tree k's leaves test only
        leaves = slice(machine.leaf_offsets[k], machine.leaf_offsets[k + 1])
        tests = slice(machine.test_offsets[k], machine.test_offsets[k + 1])
        assert B[leaves].sum() == B[leaves, tests].sum()
        assert np.abs(B[leaves]).sum() == np.abs(B[leaves, tests]).sum()
        np.testing.assert_allclose(machine.leaf_values[leaves],
                                   tree.tree_.value[machine.leaf_nodes[leaves], 0])
    np.testing.assert_array_equal(machine.classes, forest.classes_)


@pytest.mark.parametrize("kind", ["extra", "boosting", "boosting-multiclass", "list"])
def test_other_ensembles_and_lists_of_trees(kind):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] - X[:, 1]
    if kind == "extra":
        model = ExtraTreesRegressor(n_estimators=5, max_depth=5, random_state=0).fit(X, y)
        expected = model.apply(X)
    elif kind == "boosting":
        model = GradientBoostingRegressor(n_estimators=6, max_depth=3, random_state=0).fit(X, y)
        expected = model.apply(X)
    elif kind == "boosting-multiclass":
        model = GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0).fit(
            X, np.digitize(y, [-1, 1]))
        expected = model.apply(X).reshape(X.shape[0], -1)  # (n, stages, K), estimators_ raveled
    else:
        model = [DecisionTreeRegressor(max_depth=d, random_state=d).fit(X, y) for d in (1, 4)]
        expected = np.column_stack([t.apply(X.astype(np.float32)) for t in model])
    machine = DecisionMachine.from_estimator(model)
    np.testing.assert_array_equal(machine.apply(X, method="matrix"), expected)
    np.testing.assert_array_equal(machine.apply(X), expected)
    assert machine.classes is None  # boosting trees are regressors: leaf values, not classes


def test_single_leaf_tree_is_its_own_exit_leaf():
    X = np.arange(10.0)[:, None]
    tree = DecisionTreeRegressor().fit(X, np.ones(10))
    machine = DecisionMachine.from_estimator(tree)
    np.testing.assert_array_equal(machine.apply(X, method="matrix"), np.zeros((10, 1)))
    assert machine.path(X[0], 0) == []
    np.testing.assert_allclose(machine.soft_leaf_probabilities(X, 1.0), 1.0)


@pytest.mark.parametrize("seed", [1, 2, 5, 8])
def test_path_is_the_decision_path_with_signed_margins(seed):
    tree, X = random_tree(seed)
    scale = X.std(axis=0) + 0.5
    machine = DecisionMachine.from_estimator(tree, feature_scale=scale)
    rows = rows_on_thresholds(tree, X, seed)[:: max(1, len(X) // 40)]
    for x in rows:
        steps = machine.path(x, 0)
        nodes = tree.decision_path(x[None, :]).indices
        assert [s.node for s in steps] == list(nodes[:-1])
        assert [s.depth for s in steps] == list(range(len(steps)))
        for step in steps:
            x32 = float(np.float32(x[step.feature]))
            assert step.margin == x32 - step.threshold
            assert step.direction == ("<=" if x32 <= step.threshold else ">")
            assert (step.margin <= 0) == (step.direction == "<=")
            assert step.scaled_margin == pytest.approx(step.margin / scale[step.feature])
        if steps:
            fragile = [s.fragile for s in steps]
            assert sum(fragile) == 1
            smallest = np.argmin([abs(s.margin / scale[s.feature]) for s in steps])
            assert fragile[smallest]


def test_path_sentences_use_the_names():
    X = np.array([[100.0, 20.0], [148.0, 35.0], [130.0, 22.0], [90.0, 40.0]])
    tree = DecisionTreeClassifier(random_state=0).fit(X, [0, 1, 1, 0])
    machine = DecisionMachine.from_estimator(tree, feature_names=["Glucose (mg/dL)", "BMI"])
    steps = machine.path([148.0, 35.0], 0)
    assert steps[0].sentence() == f"Glucose (mg/dL) = 148 > {tree.tree_.threshold[0]:g}"
    # a value that rounds to the threshold at 4 digits gets more digits, never "x > x"
    close = machine.path([tree.tree_.threshold[0] + 1e-3, 35.0], 0)[0].sentence()
    left, right = close.split(" = ")[1].split(" > ")
    assert left != right


@pytest.mark.parametrize("seed", [1, 3, 4, 6, 9])
def test_alternatives_land_in_their_leaf_and_are_all_the_near_leaves(seed):
    tree, X = random_tree(seed)
    machine = DecisionMachine.from_estimator(tree, feature_names=[f"f{j}" for j in range(
        X.shape[1])])
    for x in rows_on_thresholds(tree, X, seed)[:: max(1, len(X) // 15)]:
        found = machine.alternatives(x, 0, max_flips=2)
        flips = brute_flips(tree, x)
        # every leaf 1-2 flips away is found (each leaf of a fitted tree holds a training row,
        # so its box is never empty)
        assert {a.leaf for a in found} == {leaf for leaf, f in flips.items() if 1 <= f <= 2}
        assert [(a.flips, a.distance) for a in found] == sorted(
            (a.flips, a.distance) for a in found)
        for a in found:
            assert tree.apply(a.row[None, :])[0] == a.leaf
            assert a.flips == flips[a.leaf] == len(a.tests)
            changed = np.flatnonzero(a.row != x)
            assert set(changed) <= {t.feature for t in a.tests}
            for t in a.tests:  # the row failed this test, the moved row passes it
                assert (float(np.float32(x[t.feature])) > t.threshold) != (t.direction == ">")
                assert (float(np.float32(t.new_value)) > t.threshold) == (t.direction == ">")
            if machine.classes is None:
                assert a.prediction == pytest.approx(tree.predict(a.row[None, :])[0])
            else:
                np.testing.assert_allclose(a.prediction, tree.predict_proba(a.row[None, :])[0])
            assert a.sentence().startswith("if f")
            assert ", this tree would say " + a.prediction_text in a.sentence()


def test_alternative_sentence_names_the_class_probability():
    X = np.array([[100.0], [110.0], [130.0], [150.0]])
    tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
    machine = DecisionMachine.from_estimator(tree, feature_names=["glucose"])
    (alt,) = machine.alternatives([100.0], 0)
    assert alt.sentence() == "if glucose were above 120, this tree would say P(yes) = 1.00"
    assert alt.prediction == (0.0, 1.0)


def test_soft_probabilities_match_the_product_formula():
    tree, X = random_tree(4)
    scale = np.linspace(0.5, 2.0, X.shape[1])
    machine = DecisionMachine.from_estimator(tree)
    P = machine.soft_leaf_probabilities(X[:20], scale, tree=0)
    x32 = X[:20].astype(np.float32).astype(np.float64)
    t = tree.tree_
    for col, leaf in enumerate(machine.leaf_nodes):
        expected = np.ones(20)
        for node, sign in ancestors(tree)[leaf]:
            f = t.feature[node]
            expected *= expit(sign * (x32[:, f] - t.threshold[node]) / scale[f])
        np.testing.assert_allclose(P[:, col], expected, rtol=1e-10, atol=1e-300)


def test_soft_probabilities_sum_to_one_and_tend_to_the_exit_leaf():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    forest = RandomForestClassifier(n_estimators=4, max_depth=5, random_state=0).fit(
        X, X[:, 0] > 0)
    machine = DecisionMachine.from_estimator(forest, feature_scale=X.std(axis=0))
    rows = rng.normal(size=(30, 3))
    leaves = machine.apply(rows)
    for scale in (3.0, 0.3):
        P = machine.soft_leaf_probabilities(rows, scale)
        for k in range(machine.n_trees):
            block = P[:, machine.leaf_offsets[k]:machine.leaf_offsets[k + 1]]
            np.testing.assert_allclose(block.sum(axis=1), 1.0)
    sharp = [machine.soft_leaf_probabilities(rows, 1e-6, tree=k) for k in range(4)]
    for k, block in enumerate(sharp):
        leaf_nodes = machine.leaf_nodes[machine.leaf_offsets[k]:machine.leaf_offsets[k + 1]]
        np.testing.assert_array_equal(leaf_nodes[block.argmax(axis=1)], leaves[:, k])
        np.testing.assert_allclose(block.max(axis=1), 1.0, atol=1e-6)
    # the exit leaf's probability grows as the scale shrinks
    exit_p = [machine.soft_leaf_probabilities(rows, s, tree=0)[
        np.arange(30), np.searchsorted(machine.leaf_nodes[:machine.leaf_offsets[1]],
                                       leaves[:, 0])] for s in (3.0, 0.3, 0.03)]
    assert np.all(exit_p[0] <= exit_p[1] + 1e-12) and np.all(exit_p[1] <= exit_p[2] + 1e-12)


def test_rows_with_missing_values_are_rejected():
    tree, X = random_tree(0)
    machine = DecisionMachine.from_estimator(tree)
    bad = X[:2].copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="impute"):
        machine.apply(bad)
    with pytest.raises(ValueError, match="impute"):
        machine.path(bad[0], 0)
    with pytest.raises(ValueError, match="features"):
        machine.apply(X[:, :0])


def test_feature_names_default_to_the_estimators_columns():
    frame = pd.DataFrame({"Glucose": [90.0, 150.0, 100.0, 160.0], "Age": [30.0, 50, 40, 60]})
    tree = DecisionTreeRegressor(random_state=0).fit(frame, [0.0, 1.0, 0.1, 0.9])
    machine = DecisionMachine.from_estimator(tree)
    assert machine.path(frame.iloc[1].to_numpy(), 0)[0].feature_name in {"Glucose", "Age"}
