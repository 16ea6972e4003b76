"""The helpers several model families share, each against its formula or a library oracle:
the ε-contamination mix, leaf class tables, the standardisation, the held-out split, sample
weights, parameter checks, the exact nearest-row search and the multiclass AUC."""

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from forestviz.attention.weights import median_distance
from forestviz.enhanced.neighbors import TrainingNeighbors
from forestviz.enhanced.reweighting import auc_score
from forestviz.explain.row.summary import TrainingSummary
from forestviz.trees.checks import ATTENTION_CHECKS, check_sample_weight, one_of, parameter_check
from forestviz.trees.contamination import contaminate, softmax_part_to_D, weight_parts
from forestviz.trees.leaf_values import node_class_values, node_values, spread_columns
from forestviz.trees.rows import split_rows, standard_scaling

RNG = np.random.default_rng(12)


# ------------------------------------------------------------------ the contamination mix
def test_contamination_mix_and_its_parts_match_the_formula():
    D = softmax(RNG.normal(size=(7, 5)), axis=1)
    w = RNG.dirichlet(np.ones(5))
    for eps in (0.0, 0.3, 1.0):
        alpha = contaminate(D, w, eps)
        np.testing.assert_array_equal(alpha, (1 - eps) * D + eps * w[None, :])
        np.testing.assert_allclose(alpha.sum(axis=1), 1.0, rtol=1e-14)
        first, second = weight_parts(D, w, eps)
        assert first.shape == second.shape == D.shape and second.flags.writeable
        np.testing.assert_array_equal(first + second, alpha)
        np.testing.assert_array_equal(second, np.tile(eps * w, (7, 1)))
        recovered = softmax_part_to_D(first, eps)
        np.testing.assert_allclose(recovered, D if eps < 1 else np.full_like(D, 0.2), rtol=1e-14)
    eps = np.array([0.0, 0.5])[None, :, None]  # the mix of predictions, per ε, broadcast
    R, V = RNG.normal(size=(4, 1, 2)), RNG.normal(size=(4, 2, 2))
    np.testing.assert_array_equal(contaminate(R, V, eps), (1 - eps) * R + eps * V)


def test_median_distance_falls_back_to_the_mean_then_one():
    assert median_distance(np.array([[0.0, 1.0, 3.0]])) == 1.0
    assert median_distance(np.array([[0.0, 0.0, 3.0]])) == 1.0  # mean 1
    assert median_distance(np.array([[0.0, 0.0, 6.0]])) == 2.0
    assert median_distance(np.zeros((2, 3))) == 1.0


# ------------------------------------------------------------------------- leaf class tables
def test_node_class_values_align_every_tree_with_the_classes():
    X = RNG.normal(size=(120, 3))
    labels = np.array(["a", "b", "c"])[RNG.integers(0, 3, 120)]
    # standalone trees on labels, one of which never saw class "c"
    trees = [DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, labels),
             DecisionTreeClassifier(max_depth=3, random_state=0).fit(X[labels != "c"],
                                                                     labels[labels != "c"])]
    values = node_class_values(trees, np.array(["a", "b", "c"]))
    size = trees[0].tree_.node_count
    np.testing.assert_allclose(values[:size], trees[0].tree_.value[:, 0, :], rtol=1e-15)
    np.testing.assert_allclose(values[size:, :2], trees[1].tree_.value[:, 0, :], rtol=1e-15)
    np.testing.assert_array_equal(values[size:, 2], 0.0)
    leaves = trees[1].apply(X.astype(np.float32)) + size
    np.testing.assert_allclose(values[leaves][:, :2], trees[1].predict_proba(X), rtol=1e-12)
    # a forest's trees hold class codes: columns by code
    forest = RandomForestClassifier(4, max_depth=3, random_state=0).fit(X, labels)
    coded = node_class_values(forest.estimators_, np.arange(3))
    offsets = np.cumsum([0] + [t.tree_.node_count for t in forest.estimators_])[:-1]
    proba = coded[forest.apply(X) + offsets].mean(axis=1)
    np.testing.assert_allclose(proba, forest.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(spread_columns(np.ones((2, 2)), [0, 2], 3),
                                  [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    assert node_values([DecisionTreeClassifier(max_depth=1).fit(X, labels)]).shape == (3,)


# -------------------------------------------------------------- standardisation and split
def test_standard_scaling_matches_scikit_learn_and_keeps_constant_columns():
    X = np.column_stack([RNG.normal(3.0, 2.0, 200), np.full(200, 7.0), RNG.normal(size=200)])
    center, scale = standard_scaling(X)
    scaler = StandardScaler().fit(X)
    np.testing.assert_allclose(center, scaler.mean_, rtol=1e-14)
    np.testing.assert_allclose(scale, scaler.scale_, rtol=1e-14)
    assert scale[1] == 1.0 and np.all(((X - center) / scale)[:, 1] == 0.0)


def test_split_rows_is_train_test_split_stratified_when_possible():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    train, test = split_rows(y, 0.2, 3)
    expected = train_test_split(np.arange(100), test_size=0.2, stratify=y, random_state=3)
    np.testing.assert_array_equal(train, np.sort(expected[0]))
    np.testing.assert_array_equal(test, np.sort(expected[1]))
    assert np.bincount(y[test]).tolist() == [10, 6, 4]
    lonely = np.array([0] * 9 + [1])  # a class of one row: a plain random split
    expected = train_test_split(np.arange(10), test_size=0.3, random_state=0)
    np.testing.assert_array_equal(split_rows(lonely, 0.3, 0)[1], np.sort(expected[1]))
    plain = split_rows(np.arange(10.0), 0.3, 0, stratify=False)
    assert plain[1].size == 3 and np.array_equal(np.sort(np.concatenate(plain)), np.arange(10))


# ------------------------------------------------------------------ checks of the estimators
def test_check_sample_weight_accepts_and_refuses_what_scikit_learn_does():
    X = np.zeros((4, 2))
    np.testing.assert_array_equal(check_sample_weight(None, X), np.ones(4))
    np.testing.assert_array_equal(check_sample_weight(2, X), np.full(4, 2.0))
    np.testing.assert_array_equal(check_sample_weight([1, 0, 2, 3], X), [1.0, 0.0, 2.0, 3.0])
    assert check_sample_weight(np.ones(4, dtype=np.float32), X).dtype == np.float32
    for bad, message in [([1, 2, 3], "inconsistent"), (np.ones((4, 1)), "1-D"),
                         ([1, np.nan, 1, 1], "NaN"), ([1, np.inf, 1, 1], "infinity"),
                         (np.inf, "finite"), ([1, -1, 1, 1], "negative"),
                         (np.zeros(4), "non-zero"), (0.0, "non-zero")]:
        with pytest.raises(ValueError, match=message):
            check_sample_weight(bad, X)


def test_parameter_check_names_the_first_failing_parameter_in_table_order():
    class Model:
        n_estimators, eps, tau, distance, validation_fraction, loss = 10, "auto", 2.0, "raw", .2, 1
        check = parameter_check({**ATTENTION_CHECKS, "loss": one_of("l2", "l1")})

    model = Model()
    with pytest.raises(ValueError, match=r"loss must be 'l2' or 'l1', got 1"):
        model.check()
    model.loss, model.eps, model.tau = "l1", 1.5, 0.0
    with pytest.raises(ValueError, match=r"eps must be 'auto' or a float in \[0, 1\], got 1.5"):
        model.check()
    model.eps = 0.5
    with pytest.raises(ValueError, match="tau must be"):
        model.check()
    model.tau = "auto"
    model.check()


# ---------------------------------------------------------------- the nearest-row search
@pytest.mark.parametrize("n_features", [2, 12])
def test_one_nearest_row_search_equals_scikit_learn_brute_force(n_features):
    """TrainingNeighbors (ERF's model weighting) and TrainingSummary.nearest (the explainer)
    are one search; both equal scikit-learn's brute-force exact neighbours, for the number of
    neighbours built for and for others (up to every row), identical rows left out."""
    X = np.round(RNG.normal(size=(300, n_features)), 1)  # 1 padding column in the blocks
    X[10:25] = X[0]  # exact duplicates: skipped for a query equal to them
    center, scale = standard_scaling(X)
    Z = (X - center) / scale
    search = TrainingNeighbors(Z, 5, np.random.RandomState(0))
    model = RandomForestClassifier(3, max_depth=2, random_state=0).fit(X, X[:, 0] > 0)
    summary = TrainingSummary.from_data(model, X, (X[:, 0] > 0).astype(int))
    # brute force with the exact metric (the default one expands ||a − b||², which puts exact
    # duplicates at 1e-8 instead of 0)
    brute = NearestNeighbors(n_neighbors=len(X), algorithm="brute",
                             metric=lambda a, b: np.sqrt(((a - b) ** 2).sum())).fit(Z)
    queries = np.vstack([X[:30], X[:10] + 0.05])
    distances, _ = brute.kneighbors((queries - center) / scale)
    for M in (5, 3, 9, 40, 299):
        index, distance = search.query((queries - center) / scale, n_neighbors=M)
        assert index.shape == (len(queries), M) and index.max() < len(X)
        for i, x in enumerate(queries):
            want = distances[i][distances[i] > 0][:M]
            got = distance[i][distance[i] > 0]
            np.testing.assert_allclose(got, want[: got.size], rtol=1e-12)
            assert not np.any(np.all(X[index[i][distance[i] > 0]] == x, axis=1))
            rows, dist = summary.nearest(x, M)
            np.testing.assert_allclose(dist, want, rtol=1e-12)
            np.testing.assert_allclose(np.sqrt((((X[rows] - x) / scale) ** 2).sum(axis=1)),
                                       dist, rtol=1e-12)
            assert np.all(np.diff(dist) >= 0)


# --------------------------------------------------------------------------------- the AUC
def test_multiclass_auc_is_scikit_learns_one_vs_rest_auc():
    y = RNG.integers(0, 4, 300)
    proba = RNG.dirichlet(np.ones(4), 300)
    weight = RNG.random(300)
    for w in (None, weight):
        assert auc_score(y, proba, w) == pytest.approx(
            roc_auc_score(y, proba, multi_class="ovr", sample_weight=w), rel=1e-14)
    missing = np.where(y == 2, 0, y)  # class 2 absent: the mean over the classes present
    expected = np.mean([roc_auc_score(missing == c, proba[:, c]) for c in (0, 1, 3)])
    assert auc_score(missing, proba) == pytest.approx(expected, rel=1e-14)
    assert np.isnan(auc_score(np.zeros(5, dtype=int), proba[:5]))
