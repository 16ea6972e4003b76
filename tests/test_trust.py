"""How far an explanation can be relied on (forestviz.explain.whole.trust,
forestviz.app.whole_model): constructed cases, and a fitted model's stability against each similar
row's own explanation."""

import numpy as np
import pandas as pd
import pytest

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.whole import trust
from forestviz.io.bundled import load_dataset


def test_compacity_counts_columns_to_ninety_percent_of_the_movement():
    rows = np.array([[5.0, -3.0, 1.0, 1.0],  # |.| 5, 3, 1, 1: 9 of 10 after three
                     [0.0, 0.0, 0.0, 0.0],
                     [-9.5, 0.2, 0.2, 0.1],  # one column: 9.5 of 10
                     [1.0, 1.0, 1.0, 1.0]])  # four equal: 3 of 4 is 75 %
    np.testing.assert_array_equal(trust.compacity(rows), [3, 0, 1, 4])
    np.testing.assert_array_equal(trust.compacity(rows, share=0.5), [1, 0, 1, 2])


def test_stability_counts_neighbours_with_the_same_top_reasons_and_trees():
    mine = np.array([3.0, -2.0, 1.0, 0.1])
    weights = np.array([0.4, 0.3, 0.1, 0.1, 0.05, 0.05])
    same = np.tile(mine, (4, 1)) * np.array([[1], [2], [-1], [0.5]])  # sizes scaled, signs
    other = np.array([[0.1, 0.2, 3.0, 2.0]])  # top three columns 2, 3, 1: not {0, 1, 2}
    found = trust.stability(mine, weights, np.vstack([same, other]),
                            np.tile(weights, (5, 1)))
    assert found == trust.Stability(n=5, reasons_same=4, trees_same=5)
    shifted = np.roll(weights, 3)
    found = trust.stability(mine, weights, same, np.vstack([shifted, weights, shifted,
                                                            weights]))
    assert found.trees_same == 2
    equal = np.full(6, 1 / 6)
    found = trust.stability(mine, equal, same, np.tile(equal, (4, 1)))
    assert found.trees_same is None  # no tree carries a row more than another
    assert found.sentence() == ("The top 3 reasons are the same for 4 of the 4 most similar "
                                "training rows.")


@pytest.fixture(scope="module")
def bench():
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family="abrf1_qp", n_estimators=20, random_state=0))
    return bench


@pytest.mark.slow
def test_a_rows_stability_against_its_neighbours_own_explanations(bench):
    model = bench.model
    position = int(model.test_rows[0])
    e = bench.explain(position)
    found = bench.whole().stability(e)
    index = e.neighbors["row"].to_numpy()  # the similar rows the page lists and counts
    assert found.n == len(index) == trust.NEIGHBOURS
    np.testing.assert_array_equal(index, model.summary.nearest(e.row, trust.NEIGHBOURS)[0])

    def top(explanation, k):
        totals = pd.Series(np.abs(explanation.contributions.total[:, 1]),
                           index=explanation.contributions.feature_names)
        return set(totals.sort_values(ascending=False, kind="stable").index[:k])

    def heaviest(explanation):
        return set(np.argsort(-explanation.tree_weights, kind="stable")[:trust.TOP_TREES])

    originals = model.summary.original.iloc[index]
    theirs = [bench.explain(values=row) for _, row in originals.iterrows()]
    assert found.reasons_same == sum(top(t, 3) == top(e, 3) for t in theirs)
    equal = all(np.allclose(t.tree_weights, 1 / t.n_trees, rtol=0, atol=1e-12)
                for t in (e, *theirs))
    assert found.trees_same == (None if equal else sum(heaviest(t) == heaviest(e)
                                                       for t in theirs))
    table = bench.whole().trust().set_index("ID")
    row = table.loc[str(model.ids_test[0])]
    assert row["same top reasons"] == found.reasons_same
    assert (pd.isna(row["same heaviest trees"]) if found.trees_same is None
            else row["same heaviest trees"] == found.trees_same)
    assert row["compacity"] == trust.compacity(e.contributions.total[None, :, 1])[0]


@pytest.mark.slow
def test_robustness_to_the_fit(bench):
    from forestviz.app import whole_model

    model = bench.model
    population = bench.whole().population()
    function, args = whole_model.robustness_job(model, n_seeds=2)
    assert list(args[-1]) == [model.settings.random_state + 1, model.settings.random_state + 2]
    # the same seed refits the same model: its contributions, and a share of 1.0 for every row
    same = function(*args[:-1], [model.settings.random_state])
    np.testing.assert_allclose(same[0], population.contributions, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(whole_model.robustness(model, bench.dataset.X, same), 1.0)
    others = function(*args)
    share = whole_model.robustness(model, bench.dataset.X, others)
    expected = np.mean([[set(np.argsort(-np.abs(o[i]), kind="stable")[:3])
                         == set(np.argsort(-np.abs(population.contributions[i]),
                                           kind="stable")[:3]) for o in others]
                        for i in range(len(share))], axis=1)
    np.testing.assert_array_equal(share, expected)
    assert share.min() < 1.0  # other seeds, other trees: some rows' reasons change


def test_same_reasons_share_on_constructed_refits():
    original = np.array([[3.0, 2.0, 1.0, 0.0], [0.0, 1.0, 2.0, 3.0]])
    flipped = original[:, ::-1]
    np.testing.assert_array_equal(trust.same_reasons_share(original, [original, original]),
                                  [1.0, 1.0])
    np.testing.assert_array_equal(trust.same_reasons_share(original, [original, flipped]),
                                  [0.5, 0.5])
