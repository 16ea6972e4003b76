"""The one-standard-error rule (forestviz.selection) against hand-computed tables and DeLong's
formula by loops, and every family choosing its plain base model where attention or
reweighting cannot help, and attention where it must."""

import numpy as np
import pytest
from sklearn.datasets import make_friedman2
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold

from forestviz import (
    AttentionBoostingRegressor,
    AttentionForestClassifier,
    AttentionForestRegressor,
    EnhancedForestClassifier,
)
from forestviz.explain.row.explanation import explain
from forestviz.selection import (
    CONFIRM_SE,
    auc_one_standard_error,
    confirmed_auc_one_standard_error,
    confirmed_one_standard_error,
    one_standard_error,
    weighted_mean_and_se,
)


def test_one_standard_error_by_hand_a_clear_winner():
    losses = np.array([[1.0, 0.8, 0.5], [1.0, 0.9, 0.6], [1.0, 1.1, 0.7], [1.0, 0.8, 0.4]])
    selection = one_standard_error(losses)
    table = selection.table
    np.testing.assert_allclose(table["validation_loss"], [1.0, 0.9, 0.55])
    assert selection.best == selection.chosen == 2
    # c0 − c2 = (0.5, 0.4, 0.3, 0.6): mean 0.45, sd √(0.05/3), SE sd/2
    np.testing.assert_allclose(table["difference_to_best"], [0.45, 0.35, 0.0])
    np.testing.assert_allclose(table["difference_se"],
                               [np.sqrt(0.05 / 3) / 2, np.sqrt(0.01 / 3) / 2, 0.0])
    np.testing.assert_allclose(table["standard_error"],
                               [0.0, np.sqrt(0.06 / 3) / 2, np.sqrt(0.05 / 3) / 2])
    assert table["selected"].tolist() == [False, False, True]


def test_one_standard_error_by_hand_the_simplest_within_noise():
    losses = np.array([[1.0, 0.5], [1.0, 1.5], [1.0, 0.6], [1.0, 1.2]])
    selection = one_standard_error(losses)
    assert selection.best == 1  # mean 0.95 < 1.0 ...
    # ... but c0 − c1 = (0.5, −0.5, 0.4, −0.2): mean 0.05 ≤ SE = √(0.69/3)/2 ≈ 0.24
    np.testing.assert_allclose(selection.table.loc[0, "difference_se"], np.sqrt(0.69 / 3) / 2)
    assert selection.chosen == 0


def test_rows_not_scored_by_every_candidate_and_weightless_rows_are_left_out():
    losses = np.array([[1.0, 0.5], [1.0, 1.5], [1.0, 0.6], [1.0, 1.2], [9.0, np.nan],
                       [5.0, 0.0]])
    weight = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    selection = one_standard_error(losses, weight)
    assert selection.chosen == 0 and selection.best == 1
    np.testing.assert_allclose(selection.table["validation_loss"], [1.0, 0.95])
    assert selection.table["n_rows"].tolist() == [4, 4]


def test_weighted_standard_error_uses_kish_effective_size():
    values, weight = np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0, 1.0])
    mean, se = weighted_mean_and_se(values, weight)
    assert mean == pytest.approx(2.25)
    n_eff = 16 / 6
    variance = np.average((values - mean) ** 2, weights=weight) * n_eff / (n_eff - 1)
    assert se == pytest.approx(np.sqrt(variance / n_eff))
    with pytest.raises(ValueError, match="n_candidates"):
        one_standard_error(np.ones(3))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pure_noise_chooses_the_plain_forest(seed):
    rng = np.random.RandomState(seed)
    X, y = rng.uniform(size=(600, 5)), rng.normal(size=600)
    model = AttentionForestRegressor(random_state=seed).fit(X, y)
    assert model.selected_base_
    X_new = rng.uniform(size=(20, 5))
    T = len(model.estimators_)
    np.testing.assert_allclose(model.tree_weights(X_new), 1.0 / T)
    np.testing.assert_allclose(model.predict(X_new), model.tree_predictions(X_new).mean(axis=1))
    chosen = model.search_results_.loc[model.search_results_["selected"]]
    assert chosen["candidate"].iloc[0] in ("base", "base (leaf means)")
    if chosen["candidate"].iloc[0] == "base":  # the forest itself
        np.testing.assert_allclose(model.predict(X_new), model.forest_.predict(X_new))


@pytest.mark.slow
def test_an_explanation_says_when_the_plain_forest_was_kept():
    rng = np.random.RandomState(0)
    X, y = rng.uniform(size=(600, 5)), rng.normal(size=600)
    plain = AttentionForestRegressor(random_state=0).fit(X, y)
    assert plain.selected_base_
    assert "kept its plain forest (equal tree weights)" in explain(
        plain, X[0], X_train=X, y_train=y).model_name
    X2, y2 = make_friedman2(1200, noise=0.0, random_state=0)
    attention = AttentionForestRegressor(random_state=0).fit(X2, y2)
    assert not attention.selected_base_
    assert explain(attention, X2[0], X_train=X2, y_train=y2).model_name == (
        "Attention-based random forest")


@pytest.mark.slow
def test_pure_noise_classes_choose_the_plain_forest():
    rng = np.random.RandomState(3)
    X, y = rng.uniform(size=(600, 4)), rng.choice(["a", "b"], size=600)
    model = AttentionForestClassifier(random_state=0).fit(X, y)
    assert model.selected_base_
    proba = model.predict_proba(X[:10])
    np.testing.assert_allclose(proba, model.tree_predictions(X[:10]).mean(axis=1))


def test_interchangeable_trees_choose_the_plain_forest():
    """One feature, one step: every tree finds the same split, so no weighting of the trees
    can change the prediction by more than noise."""
    rng = np.random.RandomState(4)
    x = rng.uniform(size=(500, 1))
    y = (x[:, 0] > 0.5).astype(float) + rng.normal(scale=0.1, size=500)
    model = AttentionForestRegressor(max_depth=1, random_state=0).fit(x, y)
    assert model.selected_base_


@pytest.mark.slow
def test_friedman_2_chooses_attention_and_beats_the_forest_held_out():
    """Friedman 2 at the ABRF paper's size (100 rows, Table 1), where attention must help: on
    most draws it is chosen, confirmed on rows it was not chosen on, and beats the same trees'
    plain average on 2,000 fresh rows."""
    X_test, y_test = make_friedman2(2000, noise=0.0, random_state=99)
    chosen, gains = 0, []
    for seed in range(5):
        X, y = make_friedman2(100, noise=0.0, random_state=seed)
        model = AttentionForestRegressor(random_state=0).fit(X, y)
        if model.selected_base_:
            continue
        chosen += 1
        forest = model.search_results_.iloc[0]
        assert forest["difference_to_best"] > forest["difference_se"]
        assert forest["confirmed_difference"] + CONFIRM_SE * forest["confirmed_se"] < 0
        plain = r2_score(y_test, model.tree_predictions(X_test).mean(axis=1))
        gains.append(r2_score(y_test, model.predict(X_test)) - plain)
    assert chosen >= 3
    assert min(gains) > 0 and np.mean(gains) > 0.03


def _delong_by_loops(y, a, b):
    """DeLong et al. (1988) by double loops: AUCs of scores a and b, and the variance of
    AUC_a − AUC_b from the placements V10 (positives) and V01 (negatives), Eq. 2-4."""
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)

    def psi(p, n, s):
        return 1.0 if s[p] > s[n] else 0.5 if s[p] == s[n] else 0.0

    v10 = np.array([[np.mean([psi(p, n, s) for n in neg]) for p in pos] for s in (a, b)])
    v01 = np.array([[np.mean([psi(p, n, s) for p in pos]) for n in neg] for s in (a, b)])
    d10, d01 = v10[0] - v10[1], v01[0] - v01[1]
    variance = d10.var(ddof=1) / pos.size + d01.var(ddof=1) / neg.size
    single = v10[0].var(ddof=1) / pos.size + v01[0].var(ddof=1) / neg.size
    return v10.mean(axis=1), variance, single


def test_auc_selection_matches_delong_by_loops_and_scikit_learn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    a = y + rng.normal(size=60)
    b = np.round(y * 0.5 + rng.normal(size=60), 1)  # ties
    selection = auc_one_standard_error(y, np.column_stack([b, a]))
    aucs, variance, single = _delong_by_loops(y, a, b)
    table = selection.table
    np.testing.assert_allclose(1 - table["validation_loss"], [aucs[1], aucs[0]])
    np.testing.assert_allclose(1 - table["validation_loss"],
                               [roc_auc_score(y, b), roc_auc_score(y, a)])
    assert selection.best == 1
    np.testing.assert_allclose(table.loc[0, "difference_to_best"], aucs[0] - aucs[1])
    np.testing.assert_allclose(table.loc[0, "difference_se"], np.sqrt(variance))
    np.testing.assert_allclose(table.loc[1, "standard_error"], np.sqrt(single))
    chosen = 0 if aucs[0] - aucs[1] <= np.sqrt(variance) else 1
    assert selection.chosen == chosen
    weight = rng.uniform(0.5, 2.0, 60)
    weighted = auc_one_standard_error(y, np.column_stack([b, a]), weight).table
    np.testing.assert_allclose(1 - weighted["validation_loss"],
                               [roc_auc_score(y, b, sample_weight=weight),
                                roc_auc_score(y, a, sample_weight=weight)])


def test_enhanced_forest_keeps_the_plain_forest_on_noise_and_scores_it_by_auc():
    rng = np.random.RandomState(5)
    X, y = rng.uniform(size=(500, 6)), rng.randint(0, 2, 500)
    model = EnhancedForestClassifier(n_estimators=60, random_state=0).fit(X, y)
    assert model.selected_base_ and not model.model_weighting_ and model.best_iteration_ == 0
    table = model.search_results_
    assert table["candidate"].iloc[0] == "base" and table["selected"].iloc[0]
    val = model.validation_indices_
    np.testing.assert_allclose(1 - table["validation_loss"].iloc[0],
                               roc_auc_score(y[val], model.validation_proba_[:, 1]))
    T = len(model.estimators_)
    np.testing.assert_allclose(model.tree_weights(X[:5]), 1.0 / T)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_agboost_on_noise_is_never_worse_than_its_boosting_machine(seed):
    """On pure noise a GBM overfits; AGBoost either keeps it (ε = 1, w uniform: the same
    predictions) or chooses a discounted attention that must not be worse on fresh rows."""
    rng = np.random.RandomState(seed)
    X, y = rng.uniform(size=(500, 5)), rng.normal(size=500)
    model = AttentionBoostingRegressor(n_estimators=50, random_state=0).fit(X, y)
    X_new, y_new = rng.uniform(size=(20_000, 5)), rng.normal(size=20_000)
    if model.selected_base_:
        assert model.eps_ == 1.0
        np.testing.assert_allclose(model.predict(X_new), model.gbm_.predict(X_new))
    else:
        gbm = np.mean((model.gbm_.predict(X_new) - y_new) ** 2)
        assert np.mean((model.predict(X_new) - y_new) ** 2) <= gbm


def test_confirmed_rule_keeps_a_clear_winner_and_reports_its_out_of_selection_gain():
    rng = np.random.RandomState(0)
    base = rng.normal(1.0, 0.1, size=200)
    losses = np.column_stack([base, base - 0.3, base + rng.normal(0, 0.05, 200)])
    selection = confirmed_one_standard_error(losses, random_state=0)
    assert selection.chosen == 1 and selection.table["selected"].tolist() == [False, True, False]
    # every fold's rule chooses candidate 1, so each row scores L_1 − L_0 = −0.3 exactly
    np.testing.assert_allclose(selection.table["confirmed_difference"], -0.3)
    np.testing.assert_allclose(selection.table["confirmed_se"], 0.0, atol=1e-12)


def test_confirmed_rule_refuses_the_best_of_many_noisy_candidates():
    """400 candidates no better than the base: the plain rule picks one of them by chance (the
    winner's curse); the confirmed rule scores that choice on rows it was not made on and keeps
    the base."""
    rng = np.random.RandomState(3)
    losses = rng.chisquare(1, size=(40, 401))
    plain = one_standard_error(losses)
    assert plain.chosen != 0
    confirmed = confirmed_one_standard_error(losses, random_state=0)
    assert confirmed.chosen == 0 and confirmed.table["selected"].tolist() == [True] + [False] * 400
    difference, se = confirmed.table.loc[0, ["confirmed_difference", "confirmed_se"]]
    assert difference + CONFIRM_SE * se >= 0


def test_confirmed_rule_by_hand():
    """The out-of-selection differences recomputed with explicit folds."""
    rng = np.random.RandomState(7)
    losses = np.column_stack([rng.normal(1, 0.3, 30), rng.normal(0.8, 0.3, 30),
                              rng.normal(0.85, 0.3, 30)])
    weight = rng.uniform(0.5, 2.0, 30)
    selection = confirmed_one_standard_error(losses, weight, n_folds=3, random_state=5)
    order = np.random.RandomState(5).permutation(30)
    difference = np.empty(30)
    for fold in np.array_split(order, 3):
        rest = np.setdiff1d(np.arange(30), fold)
        chosen = one_standard_error(losses[rest], weight[rest]).chosen
        difference[fold] = losses[fold, chosen] - losses[fold, 0]
    mean, se = weighted_mean_and_se(difference, weight)
    table = selection.table
    np.testing.assert_allclose(table["confirmed_difference"], mean)
    np.testing.assert_allclose(table["confirmed_se"], se)
    expected = one_standard_error(losses, weight).chosen if mean + CONFIRM_SE * se < 0 else 0
    assert selection.chosen == expected


def test_confirmed_auc_rule_by_hand_with_stitched_scores():
    """Each stratified fold's rows take the scores of the rule's choice on the other folds;
    the stitched scores' AUC is compared with the base model's by DeLong's paired variance
    (by loops) and scikit-learn's AUC."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 80)
    base = y + rng.normal(size=80)
    scores = np.column_stack([base, y + 0.4 * rng.normal(size=80), y + 0.45 * rng.normal(
        size=80)])
    selection = confirmed_auc_one_standard_error(y, scores, n_folds=4, random_state=3)
    stitched = scores[:, 0].copy()
    for rest, fold in StratifiedKFold(4, shuffle=True, random_state=3).split(scores, y):
        stitched[fold] = scores[fold, auc_one_standard_error(y[rest], scores[rest]).chosen]
    aucs, variance, _ = _delong_by_loops(y, stitched, base)
    np.testing.assert_allclose(aucs, [roc_auc_score(y, stitched), roc_auc_score(y, base)])
    table = selection.table
    np.testing.assert_allclose(table["confirmed_difference"], aucs[1] - aucs[0])
    np.testing.assert_allclose(table["confirmed_se"], np.sqrt(variance))
    kept = aucs[1] - aucs[0] + CONFIRM_SE * np.sqrt(variance) < 0
    assert kept  # a clear winner: much less noise than the base
    assert selection.chosen == auc_one_standard_error(y, scores).chosen != 0


def test_confirmed_auc_rule_refuses_the_best_of_many_noisy_candidates():
    """Forty scores as good as the base's: the plain rule picks one by chance; the stitched,
    out-of-selection AUC does not beat the base by two standard errors, so the base stays."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 60)
    signal = y + rng.normal(size=60)
    scores = signal[:, None] + 0.8 * rng.normal(size=(60, 41))
    assert auc_one_standard_error(y, scores).chosen != 0
    confirmed = confirmed_auc_one_standard_error(y, scores, random_state=0)
    assert confirmed.chosen == 0 and confirmed.table["selected"].tolist() == [True] + [False] * 40
    difference, se = confirmed.table.loc[0, ["confirmed_difference", "confirmed_se"]]
    assert difference + CONFIRM_SE * se >= 0
