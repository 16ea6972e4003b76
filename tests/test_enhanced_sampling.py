"""Algorithm 1 building blocks (forestviz.enhanced.sampling, forestviz.enhanced.reweighting)
and Algorithm 2 (forestviz.enhanced.cleaning)."""

from itertools import pairwise

import numpy as np
import pytest
from scipy.stats import chisquare
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.metrics import roc_curve

from forestviz.enhanced import EnhancedForestClassifier
from forestviz.enhanced.cleaning import clean
from forestviz.enhanced.reweighting import update_weights, youden_thresholds
from forestviz.enhanced.sampling import bootstrap_counts, fit_forest, n_subset_features


def test_bootstrap_counts_follow_s_and_never_draw_zero_weight_rows():
    rng = np.random.default_rng(0)
    w = rng.uniform(0.2, 3.0, size=50)
    w[[3, 17, 40]] = 0.0
    s = w / w.sum()
    totals = sum(bootstrap_counts(s, 50, rng) for _ in range(2000))
    assert totals.sum() == 50 * 2000
    assert np.all(totals[[3, 17, 40]] == 0)
    drawn = s > 0
    assert chisquare(totals[drawn], totals.sum() * s[drawn]).pvalue > 1e-3


def test_uniform_bootstrap_is_uniform():
    rng = np.random.default_rng(1)
    totals = sum(bootstrap_counts(None, 30, rng) for _ in range(2000))
    assert chisquare(totals).pvalue > 1e-3


def test_fit_forest_never_trains_on_zero_probability_rows():
    X, y = make_classification(200, 5, random_state=0)
    w = np.ones(200)
    w[:40] = 0.0
    trees, inbag = fit_forest(
        X.astype(np.float32), y, n_estimators=20, max_depth=3, max_features="sqrt",
        weights=w, probabilities=w / w.sum(), feature_subsets=None,
        rng=np.random.RandomState(0), n_jobs=2,
    )
    assert len(trees) == 20 and inbag.shape == (20, 200)
    assert not inbag[:, :40].any()
    # a tree's root holds exactly its in-bag rows
    assert [t.tree_.n_node_samples[0] for t in trees] == list(inbag.sum(axis=1))


def test_weight_update_matches_hand_computed_example():
    # w_i + λ(t − p_i) for y = 1, w_i + λ(p_i − t) for y = 0, clipped at 0 (Algorithm 1)
    y = np.array([1, 0, 1, 0])
    p1 = np.array([0.2, 0.7, 0.9, 0.1])
    proba = np.column_stack([1 - p1, p1])
    t = 0.5
    w = np.array([1.0, 1.0, 1.0, 0.05])
    new = update_weights(w, y, proba, np.array([1 - t, t]), learning_rate=0.2)
    np.testing.assert_allclose(new, [1.06, 1.04, 0.92, 0.0])


def test_multiclass_weight_update_uses_the_true_class_threshold():
    y = np.array([0, 1, 2])
    proba = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8], [0.2, 0.2, 0.6]])
    t = np.array([0.4, 0.3, 0.5])
    new = update_weights(np.ones(3), y, proba, t, learning_rate=0.5)
    np.testing.assert_allclose(new, [1 + 0.5 * (0.4 - 0.5), 1 + 0.5 * (0.3 - 0.1),
                                     1 + 0.5 * (0.5 - 0.6)])


def brute_youden(y_bool, score):
    """argmax over every candidate cut (each distinct score) of TPR − FPR, p ≥ t positive."""
    cuts = np.unique(score)[::-1]
    tpr = np.array([(score[y_bool] >= c).mean() for c in cuts])
    fpr = np.array([(score[~y_bool] >= c).mean() for c in cuts])
    return cuts[np.argmax(tpr - fpr)]


def test_youden_thresholds_match_brute_force_binary_and_multiclass():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 300)
    proba = rng.dirichlet(np.ones(3), 300)
    proba[np.arange(300), y] += 0.3
    proba /= proba.sum(axis=1, keepdims=True)
    t = youden_thresholds(y, proba, 3)
    for c in range(3):
        assert t[c] == pytest.approx(brute_youden(y == c, proba[:, c]))
    yb = (y == 1).astype(int)
    pb = np.column_stack([1 - proba[:, 1], proba[:, 1]])
    tb = youden_thresholds(yb, pb, 2)
    assert tb[1] == pytest.approx(brute_youden(yb == 1, pb[:, 1]))
    assert tb[0] == pytest.approx(1 - tb[1])
    assert tb[1] in roc_curve(yb, pb[:, 1])[2]


def test_subset_sizes_follow_scikit_learn_conventions():
    assert n_subset_features("sqrt", 20) == 4
    assert n_subset_features("log2", 20) == 4
    assert n_subset_features(None, 20) == 20
    assert n_subset_features(3, 20) == 3
    assert n_subset_features(0.5, 20) == 10
    with pytest.raises(ValueError):
        n_subset_features("cube", 20)


def test_cleaning_rounds_shrink_rows_and_features_and_follow_the_stop_rule():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::2], y[::2]
    estimator = EnhancedForestClassifier(n_estimators=15, max_depth=3, n_iterations=2,
                                         random_state=0)
    stages = []
    result = clean(estimator, X, y, max_rounds=6, sample_bucket=0.05, random_state=0,
                   progress=lambda stage, fraction: stages.append(stage))
    rounds = result.rounds
    assert 1 <= len(rounds) <= 6 and stages[0] == "cleaning round 1"
    for before, after in pairwise(rounds):
        assert set(after.rows) < set(before.rows)
        assert set(after.features) <= set(before.features)
        # the dropped bucket: at least 5% of the rows the forest was trained on (80% of them)
        n_trained = len(before.rows) - int(np.ceil(0.2 * len(before.rows)))
        assert len(before.rows) - len(after.rows) >= np.ceil(0.05 * n_trained)
    assert rounds[0].feature_reduction == 0 and rounds[0].sample_reduction == 0
    assert rounds[-1].sample_reduction > 0 or len(rounds) == 1
    aucs = [r.validation_auc for r in rounds]
    # every round but the last stayed within the tolerance of the best AUC seen so far
    assert all(a >= max(aucs[: i + 1]) - 0.01 for i, a in enumerate(aucs[:-1]))
    assert result.best.validation_auc == max(aucs)
    records = result.records()
    assert [r["n_rows"] for r in records] == [len(r.rows) for r in rounds]


def test_feature_cleaning_drops_features_below_the_importance_ratio():
    X, y = make_classification(300, 8, n_informative=2, n_redundant=0, shuffle=False,
                               random_state=0)
    estimator = EnhancedForestClassifier(n_estimators=20, max_depth=3, n_iterations=1,
                                         random_state=0)
    result = clean(estimator, X, y, clean_samples=False, max_rounds=2, random_state=0)
    first = result.rounds[0]
    assert len(result.rounds) == 2
    model = EnhancedForestClassifier(n_estimators=20, max_depth=3, n_iterations=1,
                                     random_state=0)
    # the same split and fit as round 1 (the split is drawn first from the same seed)
    rows = first.rows
    model.fit(X[rows], y[rows])
    imp = model.feature_importances_
    kept = np.flatnonzero(imp >= 0.1 * imp.max())
    np.testing.assert_array_equal(result.rounds[1].features, kept)
