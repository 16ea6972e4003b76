"""A chunk of many rows gives, number for number, what each row alone gives (the Explain page
explains one row at a time; ``forestviz explain`` thousands at once, through other look-ups:
bit masks or a compiled descent for the leaves, tree-by-tree attention distances), and the
lean outputs the batch reads equal the full ones."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1

from forestviz.attention import AttentionForestClassifier
from forestviz.attention.weights import distances
from forestviz.trees.ensemble import as_ensemble
from forestviz.trees.threads import SMALL_BATCH
from tests.ensemble_models import MODELS

ROWS = 3 * SMALL_BATCH  # more rows than the single-row look-ups take


def fresh_rows(name, n_features):
    """Rows the model never saw, of its width."""
    if "regressor" in name or name == "agboost":
        return make_friedman1(ROWS, n_features=n_features, random_state=11)[0]
    return make_classification(ROWS, n_features, n_informative=4, random_state=11)[0]


def assert_rows_alone_equal_the_chunk(model, X):
    ensemble = as_ensemble(model)
    lean, full = ensemble.lean_outputs(X), ensemble.ensemble_outputs(X)
    np.testing.assert_array_equal(lean.weights, full.weights)
    np.testing.assert_array_equal(lean.tree_predictions, full.tree_predictions)
    assert lean.offset == full.offset
    if full.scores is not None:
        np.testing.assert_array_equal(lean.scores.S, full.scores.S)
    for i in range(0, len(X), 5):
        alone = ensemble.ensemble_outputs(X[i : i + 1])
        np.testing.assert_array_equal(full.weights[i], alone.weights[0])
        np.testing.assert_array_equal(full.tree_predictions[i], alone.tree_predictions[0])
        np.testing.assert_array_equal(full.parts[0][i], alone.parts[0][0])
        if full.scores is not None:
            for name in ("S", "S1", "S2"):
                np.testing.assert_array_equal(getattr(full.scores, name)[i],
                                              getattr(alone.scores, name)[0])
        if full.neighbors is not None:
            np.testing.assert_array_equal(full.neighbors[0][i], alone.neighbors[0][0])
            np.testing.assert_array_equal(full.neighbors[1][i], alone.neighbors[1][0])


AGBOOST_ROUNDING = pytest.mark.xfail(
    strict=True, reason="known: AGBoost's distances come from LeafStats.query, whose BLAS "
    "product of one row rounds otherwise than that of many (last bit of α)")


@pytest.fixture(scope="module", params=[pytest.param(name, marks=AGBOOST_ROUNDING)
                                        if name == "agboost" else name for name in MODELS])
def fitted(request):
    make, data = MODELS[request.param]
    X, y = data()
    return request.param, make().fit(X, y), X.shape[1]


def test_every_family_gives_a_row_in_a_chunk_what_it_gives_the_row_alone(fitted):
    name, model, width = fitted
    assert_rows_alone_equal_the_chunk(model, fresh_rows(name, width))


def test_deep_attention_trees_take_the_compiled_descent_and_agree_too():
    X, y = make_classification(1500, 8, n_informative=5, random_state=3)
    model = AttentionForestClassifier(12, min_samples_leaf=1, eps=0.3, tau=1.0,
                                      random_state=0).fit(X, y)
    flat = model.leaf_stats_.flat
    assert flat.masks is None  # trees of more than 64 leaves
    Q = make_classification(ROWS, 8, n_informative=5, random_state=4)[0]
    expected = np.column_stack([t.apply(Q.astype(np.float32)) for t in model.estimators_])
    np.testing.assert_array_equal(flat.apply_many(Q.astype(np.float32)) - flat.offsets, expected)
    assert_rows_alone_equal_the_chunk(model, Q)


def test_attention_distances_are_the_one_gather_reduction_to_the_last_bit():
    """Tree by tree, the cross terms are the same einsum reduction as over all (n, T, m) keys
    gathered at once: x̃ ∘ z² · A_k(x), then ||z∘x̃||² − 2·cross + Σ z²A², floored at 0."""
    X, y = make_classification(1500, 8, n_informative=5, random_state=3)
    model = AttentionForestClassifier(12, min_samples_leaf=2, eps=0.3, tau=1.0,
                                      random_state=0).fit(X, y)
    stats, zsq = model.leaf_stats_, np.linspace(0.5, 2.0, 8)
    Q = make_classification(ROWS, 8, n_informative=5, random_state=4)[0]
    leaves = stats.global_leaf_ids(Q)
    norms = (stats.leaf_means**2) @ zsq
    Xs = stats.standardize(Q)
    xz = Xs * zsq
    cross = np.einsum("ntm,nm->nt", stats.leaf_means[leaves], xz)
    expected = np.maximum(np.einsum("nm,nm->n", xz, Xs)[:, None] - 2.0 * cross + norms[leaves],
                          0.0)
    np.testing.assert_array_equal(distances(stats, leaves, Q, norms, zsq), expected)
    np.testing.assert_allclose(expected, (((Xs[:, None, :] - stats.leaf_means[leaves]) ** 2)
                                          * zsq).sum(axis=2), atol=1e-9)
