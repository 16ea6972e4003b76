"""ABRF and AGBoost share one face of the protocol (forestviz.trees.contaminated): every number
of it comes from the same D(x) and f_k(x), and agrees with the model's own prediction and the
contamination formula α = (1 − ε)·D + ε·w written out here."""

import numpy as np
import pytest

from forestviz.trees.contaminated import ContaminatedEnsemble
from tests.ensemble_models import MODELS

NAMES = ["abrf1-regressor", "abrf1-classifier", "softmax-regressor", "agboost"]


@pytest.fixture(scope="module", params=NAMES)
def fitted(request):
    make, data = MODELS[request.param]
    X, y = data()
    return make().fit(X, y), X[:40]


def test_the_attention_families_share_the_contaminated_face(fitted):
    model, _ = fitted
    assert isinstance(model, ContaminatedEnsemble)


def test_every_number_of_the_face_comes_from_one_d_and_one_f(fitted):
    model, X = fitted
    full, lean = model.ensemble_outputs(X), model.lean_outputs(X)
    eps, w = model.contamination()
    assert eps == model.eps_
    np.testing.assert_array_equal(w, model.w_)
    D = model._attention(X)[0]  # the hook itself, against the formula written out
    np.testing.assert_allclose(full.weights, (1 - eps) * D + eps * w[None, :], rtol=0,
                               atol=1e-15)
    np.testing.assert_allclose(full.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(full.parts[0] + full.parts[1], full.weights)
    np.testing.assert_array_equal(lean.weights, full.weights)
    assert lean.parts is None
    np.testing.assert_array_equal(lean.tree_predictions, full.tree_predictions)
    assert lean.offset == full.offset == model.offset()
    np.testing.assert_array_equal(model.tree_weights(X), full.weights)
    for ours, theirs in zip(model.tree_weight_parts(X), full.parts, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(model.tree_predictions(X), full.tree_predictions)


def test_the_face_adds_up_to_the_models_own_prediction(fitted):
    model, X = fitted
    predicted = model.ensemble_outputs(X).predictions()
    if hasattr(model, "predict_proba"):
        np.testing.assert_allclose(predicted, model.predict_proba(X), rtol=0, atol=1e-12)
    else:
        np.testing.assert_allclose(predicted, model.predict(X), rtol=0, atol=1e-9)
