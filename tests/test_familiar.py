"""Familiar ground (:mod:`forestviz.explain.row.familiar`, issue 37 item 1): the flag rate of
ordinary rows against the binomial band of α, detection of the issue's unusual rows against
scikit-learn's IsolationForest fitted on the same training rows, and invariants over small
generated tables."""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import binomtest
from sklearn.ensemble import IsolationForest, RandomForestClassifier, RandomForestRegressor
from sklearn.metrics import roc_auc_score

from forestviz.explain.row.familiar import (
    FamiliarGround,
    independent_rows,
    shifted_rows,
)
from forestviz.io.bundled import load_dataset
from forestviz.io.preprocessing import TablePreprocessor


def encoded(table: str):
    """A bundled table's encoded rows, target and (feature, column) of its numeric columns."""
    data = load_dataset(table)
    pre = TablePreprocessor().fit(data.X)
    numeric = [(j, str(c)) for j, c in enumerate(pre.source_columns_) if c in pre.medians_]
    return pre.transform(data.X), data.y.to_numpy(), numeric


def forest(X, y, seed, trees=30):
    kind = RandomForestRegressor if y.dtype.kind == "f" else RandomForestClassifier
    return kind(trees, min_samples_leaf=2, random_state=seed).fit(X, y)


@pytest.mark.slow
@pytest.mark.parametrize("table", ["pima_diabetes", "breast_cancer", "diabetes"])
def test_the_flag_rate_of_ordinary_rows_is_within_the_binomial_band_of_alpha(table):
    """A model trained on half the rows; then, again and again, a fresh random calibration
    set of the other rows and one more of them, ordinary: whether it is flagged is a Bernoulli
    trial of probability about α, independent across draws (split-conformal), so the count
    over the draws must lie in the binomial 95 % band of α."""
    X, y, numeric = encoded(table)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(X))
    train, pool = order[: len(X) // 2], order[len(X) // 2:]
    ground = FamiliarGround(forest(X[train], y[train], 0), X[train], numeric)
    draws, alpha, flagged = 300, 0.05, 0
    for _ in range(draws):
        chosen = rng.choice(pool, 121, replace=False)
        calibrated = ground.calibrate(X[chosen[1:]], alpha)
        flagged += calibrated.assess(X[chosen[0]]).flagged
    assert binomtest(flagged, draws, alpha).pvalue > 0.05, flagged


@pytest.mark.slow
@pytest.mark.parametrize("table", ["pima_diabetes", "breast_cancer"])
def test_unusual_rows_are_told_apart_at_least_as_well_as_by_isolation_forest(table):
    """The issue's two constructions (one column moved by 4 training SDs; columns drawn
    independently), against rows never seen in training or calibration: AUROC of the score
    at least that of IsolationForest fitted on the same training rows."""
    X, y, numeric = encoded(table)
    order = np.random.default_rng(1).permutation(len(X))
    train, held, ordinary = np.array_split(order, [len(X) // 2, 3 * len(X) // 4])
    ground = FamiliarGround(forest(X[train], y[train], 1, trees=50), X[train],
                            numeric).calibrate(X[held])
    isolation = IsolationForest(random_state=1).fit(X[train])
    plain = X[ordinary]
    for unusual in (shifted_rows(plain, X[train], ground.features, 2),
                    independent_rows(len(plain), X[train], 3)):
        truth = np.r_[np.zeros(len(plain)), np.ones(len(unusual))]
        ours = roc_auc_score(truth, ground.scores(np.vstack([plain, unusual])))
        theirs = roc_auc_score(truth, -isolation.score_samples(np.vstack([plain, unusual])))
        assert ours >= theirs, (ours, theirs)


@pytest.mark.slow
def test_the_nearest_differ_in_the_column_that_was_moved():
    """A training row with one column moved far out: its nearest rows by proximity differ
    from it most in that column, and it is flagged."""
    X, y, numeric = encoded("pima_diabetes")
    train, held = X[:500], X[500:]
    ground = FamiliarGround(forest(train, y[:500], 4), train, numeric).calibrate(held)
    row = train[10].copy()
    j, name = numeric[3]
    row[j] += 10 * train[:, j].std()
    found = ground.assess(row)
    assert found.flagged and found.differ[0] == name
    assert found.share == 0 and found.p_value == pytest.approx(1 / (len(held) + 1))


small_tables = st.integers(8, 40).flatmap(lambda n: st.tuples(
    arrays(np.float64, (n, 3), elements=st.integers(-3, 3).map(float)),
    arrays(np.int64, n, elements=st.integers(0, 1)),
    st.integers(0, 2 ** 16)))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tables)
@example((np.zeros((8, 3)), np.zeros(8, dtype=np.int64), 0))  # constant columns: singular
def test_invariants_over_small_tables(table):
    """Scores are finite; p-values lie in (0, 1] and never rise with the score; a training
    row falls in its own leaves, so its nearest row has proximity 1; on the calibration rows
    themselves at most a share α is flagged."""
    X, y, seed = table
    half = len(X) // 2
    model = RandomForestClassifier(5, random_state=seed).fit(X[:half], y[:half])
    ground = FamiliarGround(model, X[:half], [(0, "a"), (1, "b"), (2, "c")]).calibrate(
        X[half:], 0.2)
    scores = ground.scores(X)
    assert np.isfinite(scores).all()
    p = ground.p_values(scores)
    assert ((p > 0) & (p <= 1)).all()
    ranked = np.argsort(scores, kind="stable")
    assert (np.diff(p[ranked]) <= 0).all()
    assert np.mean(ground.p_values(ground.scores(X[half:])) <= 0.2) <= 0.2
    found = ground.assess(X[0])
    assert found.proximity[0] == 1.0 and 0 < found.p_value <= 1
    assert found.flagged == (found.p_value <= 0.2)
    assert found.share == pytest.approx((found.p_value * (ground.held_out.size + 1) - 1)
                                        / ground.held_out.size)
