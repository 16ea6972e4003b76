"""Reasons that are reasons (issue 26, item 4): with equal weights the trees shown are chosen
by what this row gives them, and named so; boosting trees as corrections to a running total."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier

from forestviz.attention import AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import TrainingSummary, explain
from forestviz.explain.row.figures import figures
from forestviz.explain.row.tree_choice import (
    CORRECTION,
    PUSH,
    SCORE,
    WEIGHT,
    choose_trees,
    correction_table,
    equal_weights,
)

T = 20


def _explained(model, X, y, row=0, **options):
    summary = TrainingSummary.from_data(model.fit(X, y), X, y)
    return explain(model, X[row], summary=summary, **options), summary


def test_equal_weights_choose_the_trees_that_move_this_prediction_most():
    X, y = make_classification(300, 5, n_informative=3, random_state=0)
    e, summary = _explained(RandomForestClassifier(T, random_state=0), X, y, n_alternatives=1)
    choice = choose_trees(e, summary)
    assert choice.equal_weights and choice.criterion == PUSH
    # what tree k adds: its weight times its output less its own expected output
    pushes = (e.tree_predictions[:, 1] - e.contributions.tree_base_values[:, 1]) / T
    assert list(choice.trees) == np.argsort(-np.abs(pushes), kind="stable")[:5].tolist()
    np.testing.assert_allclose(choice.values, pushes[list(choice.trees)], atol=1e-12)
    assert choice.trees != tuple(range(5))  # not the tie broken by tree number
    assert choice.heading == "The 5 trees that move this prediction most"
    assert choice.note.startswith(f"Every tree counts the same here (equal weights, 1/{T} each)")
    for tree, steps, others in zip(choice.trees, choice.paths, choice.alternatives, strict=True):
        assert [s.node for s in steps] == [s.node for s in summary.machine.path(e.row, tree)]
        assert len(others) <= 1
        assert [a.leaf for a in others] == [
            a.leaf for a in summary.machine.alternatives(e.row, tree, max_flips=1)[:1]]


def test_the_per_tree_contributions_chart_shows_the_trees_drawn():
    """With equal weights the chart of contributions per tree follows the trees chosen by what
    they give this row (the ones drawn), not the tie of trees 1–5, and says so."""
    X, y = make_classification(300, 5, n_informative=3, random_state=0)
    e, summary = _explained(RandomForestClassifier(T, random_state=0), X, y)
    choice = choose_trees(e, summary)
    figure = figures(e, trees=choice.trees)["contributions_by_tree"]
    assert [trace.name for trace in figure.data] == [f"Tree {k + 1}" for k in choice.trees]
    assert figure.layout.title.text.startswith("Contributions through the trees drawn below")
    column = list(e.classes).index(e.classes[-1])
    for trace, tree in zip(figure.data, choice.trees, strict=True):  # α_k·φ_kj of that tree
        shown = dict(zip(trace.y, trace.x, strict=True))
        weighted = e.contributions.weighted_per_tree[tree, :, column]
        for name, value in shown.items():
            assert value == pytest.approx(weighted[e.contributions.feature_names.index(name)])


def test_row_dependent_weights_keep_the_explanations_trees():
    X, y = make_friedman1(300, n_features=5, random_state=0)
    e, summary = _explained(AttentionForestRegressor(T, eps=0.2, tau=0.5, random_state=0), X, y)
    choice = choose_trees(e, summary)
    assert not equal_weights(e.tree_weights) and choice.criterion == WEIGHT
    assert choice.trees == tuple(e.top_trees) and choice.paths == e.paths
    assert choice.note is None and choice.corrections is None
    assert choice.heading == "The 5 trees that carry this prediction"
    np.testing.assert_array_equal(choice.values, e.tree_weights[e.top_trees])


def test_erf_trees_keep_their_score():
    X, y = make_classification(300, 5, n_informative=3, random_state=1)
    e, summary = _explained(EnhancedForestClassifier(T, n_iterations=1, model_weighting=False,
                                                     random_state=0), X, y)
    choice = choose_trees(e, summary)
    assert choice.criterion == SCORE and choice.trees == tuple(e.top_trees)
    np.testing.assert_array_equal(choice.values, e.tree_scores.S[e.top_trees])
    assert "tree score S" in choice.heading


def test_boosting_trees_are_corrections_to_a_running_total():
    rng = np.random.default_rng(1)  # pure noise: the model keeps its plain GBM (equal weights)
    X, y = rng.normal(size=(300, 4)), rng.normal(size=300)
    e, summary = _explained(AttentionBoostingRegressor(30, random_state=0), X, y)
    assert e.offset and equal_weights(e.tree_weights)
    choice = choose_trees(e, summary)
    corrections = e.tree_weights * e.tree_predictions
    assert choice.criterion == CORRECTION
    assert list(choice.trees) == np.argsort(-np.abs(corrections), kind="stable")[:5].tolist()
    assert "running total that starts at the initial value" in choice.note
    table = choice.corrections
    assert table["tree"].tolist() == sorted(t + 1 for t in choice.trees)
    for _, row in table.iterrows():
        k = int(row["tree"]) - 1
        assert row["correction"] == pytest.approx(row["weight"] * row["value V_k"])
        assert row["running total"] == pytest.approx(e.offset + corrections[:k + 1].sum())
    every = correction_table(e, range(30))
    assert every["running total"].iloc[-1] == pytest.approx(e.prediction, abs=1e-9)
