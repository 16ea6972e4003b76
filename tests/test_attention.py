"""AttentionForestRegressor/Classifier: the paper's identities, brute-force leaf statistics,
the out-of-bag leave-one-out view, analytic gradients and scikit-learn conventions."""

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import approx_fprime
from sklearn.datasets import load_iris, make_friedman2
from sklearn.utils.estimator_checks import parametrize_with_checks

from forestviz import AttentionForestClassifier, AttentionForestRegressor
from forestviz.attention import EPS_GRID, KAPPA_GRID
from forestviz.attention.context import fit_context
from forestviz.attention.gradients import AttentionProblem
from forestviz.selection import CONFIRM_SE, one_standard_error

SMALL = {"n_estimators": 15, "min_samples_leaf": 5, "random_state": 0}


@pytest.fixture(scope="module")
def data():
    X, y = make_friedman2(160, noise=10.0, random_state=0)
    return X[:120], y[:120], X[120:]


@pytest.fixture(scope="module")
def abrf1(data):
    """ABRF-1 at a fixed ε (τ searched): on these 120 noisy rows the plain forest would win a
    full search, and these tests are about the attention model itself."""
    X, y, _ = data
    return AttentionForestRegressor(eps=0.5, **SMALL).fit(X, y)


@pytest.fixture(scope="module")
def searched(data):
    """The full search (the plain forest and every (ε, τ)), 40 trees so that every
    out-of-bag row is scored by every candidate."""
    X, y, _ = data
    return AttentionForestRegressor(**{**SMALL, "n_estimators": 40}).fit(X, y)


def _brute_force_leaf_stats(model, X, y, X_query):
    """Leaf means of y and of the standardised rows, by looping over trees with apply."""
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    Qs = (X_query - X.mean(axis=0)) / X.std(axis=0)
    values, distances = [], []
    for tree in model.estimators_:
        train_leaf, query_leaf = tree.apply(X.astype(np.float32)), tree.apply(
            X_query.astype(np.float32))
        values.append([y[train_leaf == leaf].mean() for leaf in query_leaf])
        keys = np.array([Xs[train_leaf == leaf].mean(axis=0) for leaf in query_leaf])
        distances.append(((Qs - keys) ** 2).sum(axis=1))
    return np.array(values).T, np.array(distances).T


def test_leaf_values_and_distances_match_brute_force(data, abrf1):
    X, y, X_test = data
    values, distances = _brute_force_leaf_stats(abrf1, X, y, X_test[:5])
    np.testing.assert_allclose(abrf1.tree_predictions(X_test[:5]), values)
    D = abrf1.tree_weight_parts(X_test[:5])[0] / (1 - abrf1.eps_)
    expected = np.exp(-(distances - distances.min(axis=1, keepdims=True)) / (2 * abrf1.tau_))
    np.testing.assert_allclose(D, expected / expected.sum(axis=1, keepdims=True), atol=1e-12)


def test_prediction_is_the_attention_weighted_leaf_values(data, abrf1):
    X_test = data[2]
    alpha = abrf1.tree_weights(X_test)
    np.testing.assert_allclose(alpha.sum(axis=1), 1.0)
    assert np.all(alpha >= 0)
    soft, contamination = abrf1.tree_weight_parts(X_test)
    np.testing.assert_allclose(soft + contamination, alpha)
    np.testing.assert_allclose(contamination[0], abrf1.eps_ * abrf1.w_)
    np.testing.assert_allclose(abrf1.predict(X_test),
                               np.einsum("st,st->s", alpha, abrf1.tree_predictions(X_test)))
    # one leaf look-up for what an explanation shows, same arrays as the separate calls
    both = abrf1.ensemble_outputs(X_test)
    for ours, separate in zip((*both.parts, both.tree_predictions),
                              (soft, contamination, abrf1.tree_predictions(X_test)), strict=True):
        np.testing.assert_array_equal(ours, separate)
    np.testing.assert_allclose(both.weights, alpha, rtol=1e-12)
    np.testing.assert_allclose(both.predictions(), abrf1.predict(X_test), rtol=1e-12)
    assert both.offset == 0.0 and both.scores is None and both.neighbors is None
    np.testing.assert_allclose(abrf1.w_.sum(), 1.0)
    assert np.all(abrf1.w_ >= 0)


def test_uniform_alpha_gives_the_mean_of_the_leaf_values(data):
    X, y, X_test = data
    model = AttentionForestRegressor(eps=1.0, tau=1.0, **SMALL).fit(X, y)
    model.w_ = np.full(model.n_estimators, 1 / model.n_estimators)
    np.testing.assert_allclose(model.predict(X_test),
                               model.tree_predictions(X_test).mean(axis=1))


def test_large_tau_gives_uniform_softmax_weights(data):
    X, y, X_test = data
    model = AttentionForestRegressor(mode="softmax", tau=1e12, **SMALL).fit(X, y)
    np.testing.assert_allclose(model.tree_weights(X_test), 1 / model.n_estimators, rtol=1e-9)


def test_small_tau_puts_all_weight_on_the_nearest_leaf_mean(data):
    X, y, X_test = data
    model = AttentionForestRegressor(mode="softmax", tau=1e-9, **SMALL).fit(X, y)
    _, distances = _brute_force_leaf_stats(model, X, y, X_test[:6])
    alpha = model.tree_weights(X_test[:6])
    np.testing.assert_array_equal(alpha.argmax(axis=1), distances.argmin(axis=1))
    np.testing.assert_allclose(alpha.max(axis=1), 1.0)


def _brute_force_oob_view(model, X, y):
    """Per training row s and tree k: whether tree k scores s out of bag (s not in its bootstrap
    sample and another training row in s's leaf), and then the leave-one-out leaf mean of y and
    squared distance to the leave-one-out key, by looping over trees, rows and their leaves."""
    n, T = len(y), len(model.estimators_)
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    scored, values, dists = np.zeros((n, T), dtype=bool), np.zeros((n, T)), np.zeros((n, T))
    for k, (tree, samples) in enumerate(zip(model.estimators_,
                                            model.forest_.estimators_samples_, strict=True)):
        leaves = tree.apply(X.astype(np.float32))
        in_bag = np.isin(np.arange(n), samples)
        for s in range(n):
            others = (leaves == leaves[s]) & (np.arange(n) != s)
            if in_bag[s] or not others.any():
                continue
            scored[s, k] = True
            values[s, k] = y[others].mean()
            dists[s, k] = ((Xs[s] - Xs[others].mean(axis=0)) ** 2).sum()
    return scored, values, dists


def _oob_losses(scored, values, dists, y, eps, tau, w):
    """Out-of-bag squared errors per row of the ABRF-1 model (ε, τ, w): each row by the
    sub-forest of its out-of-bag trees, α restricted to them and renormalised; rows no tree
    scores are dropped."""
    keep = scored.any(axis=1)
    scored, values, dists, y = scored[keep], values[keep], dists[keep], y[keep]
    scores = np.where(scored, -dists / (2 * tau), -np.inf)
    D = np.exp(scores - scores.max(axis=1, keepdims=True))
    D /= D.sum(axis=1, keepdims=True)
    alpha = (1 - eps) * D + (0.0 if w is None else eps * scored * w)
    prediction = (alpha * values).sum(axis=1) / alpha.sum(axis=1)
    return (prediction - y) ** 2


def test_grid_search_table_and_choice(data, searched):
    """The table lists the plain forest and every (ε, κ); τ is κ·median training distance;
    the forest's and the Softmax rows' losses are the out-of-bag leave-one-out losses
    recomputed by brute force; exactly one candidate is chosen, by the one-standard-error
    rule read off the table itself, and the fitted model is that candidate."""
    X, y, _ = data
    table = searched.search_results_
    columns = ["candidate", "eps", "kappa", "tau", "validation_loss", "standard_error",
               "difference_to_best", "difference_se", "n_rows", "selected"]
    assert list(table.columns) in (columns, [*columns, "confirmed_difference", "confirmed_se"])
    assert len(table) == 2 + len(EPS_GRID) * len(KAPPA_GRID)
    forest, means, grid = table.iloc[0], table.iloc[1], table.iloc[2:]
    assert (forest["candidate"], means["candidate"]) == ("base", "base (leaf means)")
    assert set(grid["candidate"]) == {"attention"}
    assert set(grid["eps"]) == set(EPS_GRID) and set(grid["kappa"]) == set(KAPPA_GRID)
    median = np.median(_brute_force_leaf_stats(searched, X, y, X)[1])
    np.testing.assert_allclose(grid["tau"], grid["kappa"] * median, rtol=1e-12)

    view = _brute_force_oob_view(searched, X, y)
    assert (table["n_rows"] == view[0].any(axis=1).sum()).all()  # every row, every candidate
    T = len(searched.estimators_)
    mean_losses = _oob_losses(*view, y, 1.0, 1.0, np.full(T, 1 / T))
    np.testing.assert_allclose(means["validation_loss"], mean_losses.mean(), rtol=1e-10)
    np.testing.assert_allclose(means["standard_error"],
                               mean_losses.std(ddof=1) / np.sqrt(mean_losses.size))
    # the forest itself: scikit-learn's out-of-bag prediction from the trees' own values, on
    # the rows the leave-one-out view scores
    usable = view[0]  # out of bag, in a leaf with another row
    scored = usable.any(axis=1)
    own = np.stack([tree.predict(X) for tree in searched.forest_.estimators_], axis=1)
    own_prediction = (own * usable).sum(axis=1) / np.maximum(usable.sum(axis=1), 1)
    forest_losses = (own_prediction - y)[scored] ** 2
    np.testing.assert_allclose(forest["validation_loss"], forest_losses.mean(), rtol=1e-10)
    softmax_rows = grid[grid["eps"] == 0]  # ε = 0: no w, the Softmax model alone
    assert len(softmax_rows) == len(KAPPA_GRID)
    for tau, loss in softmax_rows[["tau", "validation_loss"]].itertuples(index=False):
        np.testing.assert_allclose(loss, _oob_losses(*view, y, 0.0, tau, None).mean(),
                                   rtol=1e-10)

    assert table["selected"].sum() == 1
    best = table["validation_loss"].idxmin()
    assert table.loc[best, "difference_to_best"] == 0.0
    simplest_first = pd.concat([table.iloc[:2], grid.sort_values(
        ["kappa", "eps"], ascending=False, kind="stable")])
    within = simplest_first[simplest_first["difference_to_best"]
                            <= simplest_first["difference_se"]]
    chosen = table.loc[table["selected"]].iloc[0]
    # attention, the plain rule's choice, is kept only when confirmed on rows it was not
    # chosen on (tests/test_selection.py); otherwise the rule among the two forests chooses
    confirmed = "confirmed_se" in table and (
        table["confirmed_difference"].iloc[0] + CONFIRM_SE * table["confirmed_se"].iloc[0] < 0)
    assert ("confirmed_se" in table) == (within.index[0] >= 2)
    if within.index[0] < 2 or confirmed:
        assert chosen.name == within.index[0]
    else:
        forests = one_standard_error(np.stack([forest_losses, mean_losses], axis=1))
        assert chosen.name == forests.chosen
    assert searched.selected_base_ == (chosen["candidate"] != "attention")
    if not searched.selected_base_:
        assert (searched.eps_, searched.tau_) == (chosen["eps"], chosen["tau"])


def _abrf1_qp_weights(model, X, y, omega):
    """ABRF-1's w from the paper's QP (Utkin & Konstantinov, eqs 15, 17-19), solved by cvxpy on
    the n × T problem itself: minimise Σ_s ω_s·(y_s − (1−ε)·Σ_k D_k(x_s)·B_k(x_s)
    − ε·Σ_k w_k·B_k(x_s))² over the unit simplex, with B and D from brute-force leaf statistics
    of all training rows at the fitted (ε, τ)."""
    values, distances = _brute_force_leaf_stats(model, X, y, X)
    scores = -distances / (2 * model.tau_)
    D = np.exp(scores - scores.max(axis=1, keepdims=True))
    D /= D.sum(axis=1, keepdims=True)
    softmax_prediction = (D * values).sum(axis=1)
    eps = model.eps_
    w = cp.Variable(values.shape[1], nonneg=True)
    residual = cp.multiply(np.sqrt(omega), y - (1 - eps) * softmax_prediction - eps * values @ w)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(residual)), [cp.sum(w) == 1])
    problem.solve(solver="CLARABEL")
    assert problem.status == cp.OPTIMAL

    def loss(weights):
        return np.sum(omega * (y - (1 - eps) * softmax_prediction - eps * values @ weights) ** 2)

    return w.value, loss


@pytest.mark.parametrize("case", ["searched", "weighted", "fixed", "extra"])
def test_contamination_weights_solve_the_qp(data, abrf1, case):
    """w_ is the simplex QP's solution, checked against cvxpy, for the searched pair, with
    sample weights, for a fixed (ε, τ) and on an extremely randomised forest."""
    X, y, _ = data
    omega = (np.random.default_rng(0).uniform(0.2, 2.0, y.size) if case == "weighted"
             else np.ones(y.size))
    # ε fixed where the full search would keep the plain forest on these 120 noisy rows
    kwargs = {"fixed": {"eps": 0.5, "tau": 2.0}, "extra": {"base": "extra"},
              "weighted": {"eps": 0.5}}.get(case, {})
    model = abrf1 if case == "searched" else AttentionForestRegressor(**SMALL, **kwargs).fit(
        X, y, sample_weight=omega)
    assert model.eps_ > 0  # at ε = 0, w plays no role
    w, loss = _abrf1_qp_weights(model, X, y, omega)
    assert model.w_.min() >= 0
    np.testing.assert_allclose(model.w_.sum(), 1.0)
    np.testing.assert_allclose(model.w_, w, atol=1e-4)
    assert loss(model.w_) <= loss(w) * (1 + 1e-6)


def test_out_of_bag_view_uses_leave_one_out_leaf_means(data, abrf1):
    X, y, _ = data
    main = fit_context(abrf1, X, y, y[:, None], np.ones(len(y)), np.arange(len(y)), None,
                       np.random.RandomState(0), oob=True)
    val = main.val
    in_bag = np.zeros((len(y), len(main.forest.estimators_)), dtype=bool)
    for k, samples in enumerate(main.forest.estimators_samples_):
        in_bag[samples, k] = True
    row = val.rows[0]
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    for k, tree in enumerate(main.forest.estimators_):
        leaves = tree.apply(X.astype(np.float32))
        others = (leaves == leaves[row]) & (np.arange(len(y)) != row)
        assert val.mask[0, k] == (not in_bag[row, k])
        if val.mask[0, k]:
            np.testing.assert_allclose(val.V[0, k, 0], y[others].mean())
            key = Xs[others].mean(axis=0)
            np.testing.assert_allclose(val.d[0, k], ((Xs[row] - key) ** 2).sum())


def test_classifier_probabilities(data):
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    model = AttentionForestClassifier(**SMALL).fit(X, labels)
    proba = model.predict_proba(X)
    assert np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])
    np.testing.assert_allclose(proba, np.einsum("st,stc->sc", model.tree_weights(X),
                                                model.tree_predictions(X)))
    assert model.tree_predictions(X[:4]).shape == (4, 15, 3)
    assert model.score(X, labels) > 0.9


def test_classification_gram_stacks_rows_and_classes():
    X, y = load_iris(return_X_y=True)
    model = AttentionForestClassifier(**SMALL).fit(X, y)
    Y = model._targets(y)
    ctx = fit_context(model, X, y, Y, np.ones(len(y)), np.arange(len(y)), None,
                      np.random.RandomState(0), oob=False)
    V = ctx.train.V
    np.testing.assert_allclose(ctx.gram, sum(V[:, :, c].T @ V[:, :, c] for c in range(3)))
    np.testing.assert_allclose(ctx.Vty, sum(V[:, :, c].T @ Y[:, c] for c in range(3)))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["softmax", "abrf1", "abrf2", "abrf3"])
def test_reproducible_with_random_state(data, mode):
    X, y, X_test = data
    first = AttentionForestRegressor(mode=mode, **SMALL).fit(X, y).predict(X_test)
    second = AttentionForestRegressor(mode=mode, **SMALL).fit(X, y).predict(X_test)
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("mode", ["abrf2", "abrf3"])
def test_trained_attention_parameters(data, mode):
    """At a fixed τ (ABRF-2) or ε (ABRF-3) the plain forest is no candidate: the gradient
    runs."""
    X, y, X_test = data
    fixed = {"tau": 1.0} if mode == "abrf2" else {"eps": 0.5}
    model = AttentionForestRegressor(mode=mode, **fixed, **SMALL).fit(X, y)
    assert model.v_.shape == (15,) and np.all(model.v_ > 0)
    np.testing.assert_allclose(model.z_.mean(), 1.0)
    np.testing.assert_allclose(model.tree_weights(X_test).sum(axis=1), 1.0)
    if mode == "abrf2":
        assert model.eps_ == 0.0


@pytest.mark.parametrize("kwargs", [{"base": "extra"}, {"cv": 3}, {"loss": "l1"},
                                    {"distance": "raw", "eps": 0.5}])
@pytest.mark.slow
def test_other_selection_schemes_and_losses(data, kwargs):
    X, y, X_test = data
    model = AttentionForestRegressor(**SMALL, **kwargs).fit(X, y)
    assert np.isfinite(model.search_results_["validation_loss"]).all()
    assert np.isfinite(model.predict(X_test)).all()
    np.testing.assert_allclose(model.w_.sum(), 1.0)


def test_fixed_pair_needs_no_validation_forest(data):
    X, y, X_test = data
    model = AttentionForestRegressor(base="extra", eps=0.5, tau=2.0, **SMALL).fit(X, y)
    assert (model.eps_, model.tau_) == (0.5, 2.0) and not model.selected_base_
    table = model.search_results_
    assert table["candidate"].tolist() == ["base", "base (leaf means)", "attention"]
    assert table["selected"].tolist() == [False, False, True]
    assert np.isnan(table["validation_loss"]).all()
    np.testing.assert_allclose(model.tree_weights(X_test).sum(axis=1), 1.0)


def test_progress_callback(data):
    X, y, _ = data
    calls = []
    AttentionForestRegressor(**SMALL).fit(X, y, progress=lambda s, f: calls.append((s, f)))
    assert {stage for stage, _ in calls} >= {"forest", "search", "done"}
    assert all(0.0 <= fraction <= 1.0 for _, fraction in calls)
    assert calls[-1] == ("done", 1.0)


@pytest.mark.parametrize(("name", "value"), [("eps", 1.5), ("eps", -0.1), ("tau", 0.0),
                                             ("tau", -1.0), ("mode", "abrf4"),
                                             ("base", "boosted"), ("loss", "l3")])
def test_invalid_parameters_name_the_parameter(data, name, value):
    X, y, _ = data
    with pytest.raises(ValueError, match=name):
        AttentionForestRegressor(**{name: value}).fit(X, y)


def test_non_finite_input_raises(data, abrf1):
    X, y, X_test = data
    bad = X_test.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        abrf1.predict(bad)
    with pytest.raises(ValueError, match="infinity"):
        AttentionForestRegressor(**SMALL).fit(np.where(X > 50, np.inf, X), y)


def test_single_row_matches_batch(data, abrf1):
    X_test = data[2]
    batch = abrf1.tree_weights(X_test)
    np.testing.assert_allclose(abrf1.tree_weights(X_test[3:4]), batch[3:4])


def _random_problem(eps, mask=None, C=2, seed=0):
    rng = np.random.default_rng(seed)
    n, T, m = 12, 5, 3
    weight = rng.random(n)
    return AttentionProblem(rng.random((n, T, m)), rng.normal(size=(n, T, C)),
                            rng.normal(size=(n, C)), weight / weight.sum(), 0.7, eps, mask)


@pytest.mark.parametrize(("eps", "with_psi"), [(0.0, False), (0.4, True)])
def test_gradient_matches_finite_differences(eps, with_psi):
    problem = _random_problem(eps)
    rng = np.random.default_rng(1)
    params = rng.normal(scale=0.5, size=5 + 3 + (5 if with_psi else 0))
    _, gradient = problem.loss_and_grad(params, penalty=0.01)
    numeric = approx_fprime(params, lambda p: problem.loss(p, penalty=0.01), 1e-7)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-4, atol=1e-6)


def test_zero_parameters_are_the_softmax_model():
    problem = _random_problem(0.0)
    a, D, *_ = problem.forward(np.zeros(8))
    d = problem.Q.sum(axis=2)
    expected = np.exp(-d / (2 * problem.tau))
    np.testing.assert_allclose(D, expected / expected.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(a, -d / (2 * problem.tau))


@parametrize_with_checks(
    [AttentionForestRegressor(n_estimators=8, min_samples_leaf=2, random_state=0),
     AttentionForestClassifier(n_estimators=8, min_samples_leaf=2, random_state=0)],
    expected_failed_checks=lambda estimator: {
        "check_sample_weight_equivalence_on_dense_data":
            "bootstrap draws rows with probabilities ∝ sample_weight (as scikit-learn's own "
            "RandomForest*, which fails this check too) and leaf means are unweighted",
        "check_classifiers_train": "binary predict uses the Youden threshold chosen on "
            "held-out rows (forestviz.trees.decision), not argmax of predict_proba"})
@pytest.mark.slow
def test_scikit_learn_conventions(estimator, check):
    check(estimator)
