"""The Paper lab's computations (forestviz.app.lab) against the papers' formulas and
scikit-learn."""

import numpy as np
import pytest

from forestviz.app import lab


def test_three_tree_weights_follow_the_contamination_model():
    model, X = lab.three_tree_forest("friedman1", 0.3)
    D, w, alpha = lab.three_tree_weights(model, X[5])
    assert D.shape == w.shape == alpha.shape == (3,)
    np.testing.assert_allclose(D.sum(), 1.0)
    np.testing.assert_allclose(alpha, 0.7 * D + 0.3 * w)  # ABRF: α = (1 − ε)·D + ε·w
    np.testing.assert_allclose(alpha.sum(), 1.0)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_machine_view_finds_the_leaf_scikit_learn_reaches(depth):
    tree, _, X, names = lab.small_tree(depth)
    for row in (0, 7, 42):
        view = lab.machine_view(tree, names, X[row])
        features = view.selection.drop(columns="t").to_numpy().argmax(axis=1)
        expected = np.where(X[row, features].astype(np.float32) > view.selection["t"], 1, -1)
        np.testing.assert_array_equal(view.outcomes, expected)
        reached = view.templates["this row's leaf"].to_numpy()
        assert reached.sum() == 1
        leaves = np.flatnonzero(tree.tree_.children_left == -1)  # in node order, as B's rows
        assert leaves[np.argmax(reached)] == tree.apply(X[row:row + 1].astype(np.float32))[0]
