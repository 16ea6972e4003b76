"""Signed model files (forestviz.store.signing): a file the server signs still loads through
forestviz.persistence unchanged; a file whose class labels were exchanged inside (valid, and
predicting the other class for every row) is told from the signed one, as is a signature
made with another key; unsigned files get the warning the pages and reports show."""

import numpy as np
import pytest

from forestviz import persistence
from forestviz.app.workbench import Workbench
from forestviz.store import StoreConfig, StoreError
from forestviz.store.signing import WARNING, sign, signing_key, verify
from forestviz.trees.fitted import estimator_trees
from tests.store_helpers import library_at


@pytest.fixture(scope="module")
def model_file(bench):
    return bench.save()


@pytest.mark.slow
def test_a_signed_file_verifies_and_loads_unchanged(bench, model_file, tmp_path):
    library = library_at(tmp_path / "var")
    signed = library.sign_download(model_file)
    assert signed != model_file and library.sign_download(signed) == signed
    assert library.verify_file(signed).status == "signed"
    assert library.verify_file(signed).warning is None
    unsigned = library.verify_file(model_file)
    assert unsigned.status == "unsigned" and unsigned.warning == WARNING
    loaded = Workbench(bench.dataset, bench.choice).load(signed)
    plain = Workbench(bench.dataset, bench.choice).load(model_file)
    np.testing.assert_array_equal(loaded.test_predictions[loaded.name],
                                  plain.test_predictions[plain.name])
    assert verify(signed, None).status == "unsigned"  # no key: nothing can be verified


def test_exchanged_class_labels_are_caught(bench, model_file, tmp_path):
    key = signing_key(StoreConfig(tmp_path / "var"))
    signed = sign(model_file, key)
    payload = persistence.loads(model_file)
    for tree in estimator_trees(payload["estimator"]):  # each leaf's two class shares swapped
        tree.tree_.value[...] = tree.tree_.value[:, :, ::-1].copy()
    swapped = persistence.dumps(payload)  # a valid model file: every check passes...
    X = bench.model.X_test
    honest = bench.model.estimator.predict_proba(X)
    flipped = persistence.loads(swapped)["estimator"].predict_proba(X)
    # ...that gives every row the other class's probability (the decision threshold chosen on
    # held-out rows then names the other class for most rows, not for every one)
    np.testing.assert_allclose(flipped, honest[:, ::-1], atol=1e-12)
    assert verify(swapped, key).status == "unsigned"
    kept_signature = swapped[:-2] + signed[len(model_file) - 2:]  # the old signature moved over
    np.testing.assert_allclose(persistence.loads(kept_signature)["estimator"].predict_proba(X),
                               honest[:, ::-1], atol=1e-12)
    verdict = verify(kept_signature, key)
    assert verdict.status == "invalid" and verdict.warning.startswith(WARNING)
    assert verify(sign(model_file, b"another server's key" * 2), key).status == "invalid"
    edited = bytearray(signed)
    edited[-1] = ord("0") if edited[-1] != ord("0") else ord("1")
    assert verify(bytes(edited), key).status == "invalid"
    assert verify(signed + b"\0", key).status == "unsigned"
    with pytest.raises(ValueError, match="only a model file"):
        sign(b"not a zip", key)


def test_the_key_from_the_environment_is_shared_by_replicas(model_file, tmp_path):
    secret = "k" * 40
    first = signing_key(StoreConfig(tmp_path / "a", signing_key=secret))
    second = signing_key(StoreConfig(tmp_path / "b", signing_key=secret))
    assert verify(sign(model_file, first), second).status == "signed"
    own = signing_key(StoreConfig(tmp_path / "c"))
    assert own == signing_key(StoreConfig(tmp_path / "c")) and len(own) == 64
    assert verify(sign(model_file, first), own).status == "invalid"
    with pytest.raises(StoreError, match="at least 32"):
        signing_key(StoreConfig(tmp_path / "d", signing_key="short"))
