"""The fast parts of the counterfactual search (forestviz.explain.counterfactual): the sweep's
answer is confirmed by the model and no nearer than the brute-force optimum; the program in
the box of the sweep's distance finds the optimum of the growing boxes; the program's pruned
parts add up to the forest's prediction on every row of the box; a search stopped by its time
shows a confirmed change, not marked proven, and says so."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.ensemble import RandomForestClassifier

from forestviz.explain.counterfactual import Space, what_would_change
from forestviz.explain.counterfactual.cells import feature_cells
from forestviz.explain.counterfactual.goal import goal_for
from forestviz.explain.counterfactual.milp import _reachable, nearest
from forestviz.explain.counterfactual.plain import PlainForest
from forestviz.explain.counterfactual.sweep import sweep
from forestviz.explain.counterfactual.wording import nearness, summary
from forestviz.explain.row.columns import ColumnMap
from tests.test_counterfactual import brute_force, table

SMALL = dict(seed=st.integers(0, 10_000), trees=st.integers(1, 5), depth=st.integers(1, 3),
             row=st.integers(0, 59), fixed=st.sampled_from(["", "a", "b", "c", "ac"]))


def small_case(seed, trees, depth, row, fixed):
    X, y, columns = table(seed)
    model = RandomForestClassifier(trees, max_depth=depth, random_state=seed).fit(X, y)
    space = Space.from_training(X, columns, fixed=tuple(fixed))
    x0 = X[row]
    return X, model, space, x0, goal_for(model, x0)


def swept_case(seed, trees, depth, row, fixed):
    """:func:`small_case`, its plain forest and the sweep's answer."""
    X, model, space, x0, goal = small_case(seed, trees, depth, row, fixed)
    forest = PlainForest.of(model)
    return X, model, space, x0, goal, forest, sweep(model, space, x0, goal,
                                                    feature_cells(forest, space, x0))


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**SMALL)
def test_the_sweep_is_confirmed_and_no_nearer_than_the_optimum(seed, trees, depth, row, fixed):
    X, model, space, x0, goal, _, swept = swept_case(seed, trees, depth, row, fixed)
    best = brute_force(model, X, x0, goal.after, fixed)
    if swept.row is None:
        return
    assert model.predict(swept.row[None])[0] == goal.after
    assert space.allows(x0, swept.row)
    assert swept.distance == pytest.approx(float(space.distance(x0, swept.row)))
    assert swept.distance >= best - 1e-9


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**SMALL)
def test_the_box_of_the_sweeps_distance_holds_the_optimum(seed, trees, depth, row, fixed):
    _, _, space, x0, goal, forest, swept = swept_case(seed, trees, depth, row, fixed)
    growing = nearest(forest, space, x0, goal.tightened(0.0))
    if swept.row is None:
        return
    bounded = nearest(forest, space, x0, goal.tightened(0.0), bound=swept.distance)
    assert growing is not None and growing.optimal
    if bounded is None:  # the box of the bound holds no nearer row: the sweep's is the nearest
        assert growing.objective == pytest.approx(swept.distance, rel=1e-6, abs=1e-9)
        return
    assert bounded.optimal
    assert bounded.objective == pytest.approx(growing.objective, rel=1e-6, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), row=st.integers(0, 59),
       radius=st.sampled_from([0.3, 1.0, 2.5]), fixed=st.sampled_from(["", "a", "c"]))
def test_what_the_program_leaves_out_changes_no_prediction_in_its_box(seed, row, radius, fixed):
    """Rows drawn inside the box fall in kept leaves, or in trees made constants, whose share
    of P(class 1) is the same for all of them."""
    X, y, columns = table(seed)
    model = RandomForestClassifier(6, max_depth=4, random_state=seed).fit(X, y)
    space = Space.from_training(X, columns, fixed=tuple(fixed))
    x0, forest = X[row], PlainForest.of(model)
    cells = feature_cells(forest, space, x0, radius)
    scores = forest.leaf_values()[:, [1]] / forest.n_trees
    kept, constant = _reachable(forest, cells, scores)
    low, high = space.bounds(x0, radius)
    rng = np.random.default_rng(seed)
    rows = np.repeat(x0[None], 50, axis=0)
    for j in (0, 1):
        if "ab"[j] not in fixed:
            rows[:, j] = rng.uniform(low[j], high[j], 50)
    rows[:, 1] = np.clip(np.round(rows[:, 1]), np.ceil(low[1]), np.floor(high[1]))
    if radius >= 1 and "c" not in fixed:
        rows[:, 2:] = np.eye(3)[rng.integers(0, 3, 50)]
    leaves = _leaf_numbers(forest, rows)
    constant_tree = np.array([not kept[start:stop].any() for start, stop in forest.tree_leaves()])
    assert np.all(kept[leaves] | constant_tree)
    np.testing.assert_allclose(scores[leaves[:, constant_tree], 0].sum(axis=1), constant[0],
                               atol=1e-12)


def _leaf_numbers(forest: PlainForest, rows) -> np.ndarray:
    """Each row's leaf in every tree, in the program's leaf numbering."""
    out = []
    for (start, stop), tree in zip(forest.tree_leaves(), forest.trees, strict=True):
        t = tree.tree_
        nodes = np.flatnonzero(t.children_left < 0)  # leaves in node order
        order = np.argsort(_preorder_rank(t)[nodes])
        number = np.empty(t.node_count, dtype=np.intp)
        number[nodes[order]] = start + np.arange(stop - start)
        out.append(number[tree.apply(rows.astype(np.float32))])
    return np.stack(out, axis=1)


def _preorder_rank(t) -> np.ndarray:
    """Each node's position in a depth-first walk, left before right."""
    rank, stack, i = np.empty(t.node_count, dtype=np.intp), [0], 0
    while stack:
        node = stack.pop()
        rank[node], i = i, i + 1
        if t.children_left[node] >= 0:
            stack.extend((t.children_right[node], t.children_left[node]))
    return rank


@pytest.mark.slow
def test_a_search_stopped_by_its_time_shows_a_confirmed_change_not_proven():
    X, y, columns = table(5, n=200)
    model = RandomForestClassifier(30, random_state=0).fit(X, y)
    space = Space.from_training(X, columns)
    x0 = X[np.flatnonzero(model.predict(X) == 0)[0]]
    heard = []
    stopped = what_would_change(model, x0, space, alternatives=0, time_limit=0.0,
                                progress=lambda stage, f: heard.append((stage, f)))
    assert stopped.best is not None and not stopped.best.optimal
    assert model.predict(stopped.best.row[None])[0] == 1
    assert space.allows(x0, stopped.best.row)
    assert nearness(stopped.best) == ("The nearest change found, not proven the nearest: a "
                                      "nearer one may exist.")
    assert heard[-1] == ("done", 1.0) and all(0.0 <= f <= 1.0 for _, f in heard)
    proven = what_would_change(model, x0, space, alternatives=0, time_limit=600.0)
    assert proven.best.optimal
    assert proven.best.distance <= stopped.best.distance + 1e-9
    assert nearness(proven.best) == ("No nearer change of the columns that may change makes "
                                     "the model answer so (proven on its trees).")


@pytest.mark.slow
def test_a_row_every_tree_agrees_on_starts_from_the_training_rows():
    """Found walking the Explain page on an uploaded tumour table: a row whose risk is 1.00
    is a plateau (no single column's move changes any tree's answer), the beam stalled, and
    the page said no change makes the model answer otherwise. Here the rows sit near the
    corners of a cube, the class needs all three columns above 0, and the row is in the
    opposite corner: no one column's move changes a leaf's answer."""
    rng = np.random.default_rng(0)
    corners = np.array(np.meshgrid(*[[-3.0, 3.0]] * 3)).reshape(3, -1).T
    X = np.repeat(corners, 40, axis=0) + rng.normal(0, 0.3, size=(320, 3))
    y = (X > 0).all(axis=1).astype(int)
    model = RandomForestClassifier(20, random_state=0).fit(X, y)
    columns = ColumnMap.identity(["a", "b", "c"], [0.0, 0.0, 0.0])
    space = Space.from_training(X, columns)
    x0 = np.array([-3.0, -3.0, -3.0])
    goal = goal_for(model, x0)
    assert model.predict_proba(x0[None])[0, 1] == 0.0
    forest = PlainForest.of(model)
    cells = feature_cells(forest, space, x0)
    # a beam of no width stalls at once, as the plateau made it stall
    assert sweep(model, replace(space, rows=None), x0, goal, cells, width=0).row is None
    swept = sweep(model, space, x0, goal, cells, width=0)
    assert swept.row is not None and model.predict(swept.row[None])[0] == 1
    assert space.allows(x0, swept.row)
    assert swept.distance == pytest.approx(float(space.distance(x0, swept.row)))
    nearest_unlike = min(float(space.distance(x0, row)) for row in X[y == 1])
    assert swept.distance <= nearest_unlike + 1e-9  # pulled back from where it started
    # c cannot change: no change makes it, and the sentence says none was found
    fixed = what_would_change(model, x0, space.with_fixed(["c"]))
    assert fixed.best is None
    assert "was found" in summary(fixed)
