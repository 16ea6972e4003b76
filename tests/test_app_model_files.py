"""Model files on the Train page through Streamlit's AppTest: a saved model loads in another
session and predicts the same; a file with foreign types, code or another format, or for
another data set, is refused with a message and the app keeps working."""

import collections

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.ensemble import RandomForestClassifier

from forestviz import persistence
from forestviz.persistence.model_file import ModelFile
from tests import hostile_arrays
from tests.apptest_helpers import app, choose_bundled, finish_jobs, train
from ui.display import as_text

pytestmark = pytest.mark.slow  # real training: seconds each


class ForeignDict(collections.OrderedDict):
    """A type from outside forestviz / scikit-learn: a file holding it must be refused."""


def test_model_save_and_load_round_trip():
    at = app()
    bundle = train(at, "abrf2", trees=10)
    data = ModelFile.of(bundle).dumps()
    other = app()
    other.switch_page("pages/train.py").run()
    other.file_uploader(key="model_file").set_value(("model.skops", data, "application/zip"))
    finish_jobs(other.run())
    assert not other.exception and not other.error
    loaded = other.session_state["model"]
    assert loaded is not bundle and type(loaded.estimator) is type(bundle.estimator)
    np.testing.assert_allclose(loaded.estimator.predict_proba(bundle.X_test),
                               bundle.estimator.predict_proba(bundle.X_test))
    np.testing.assert_array_equal(loaded.test_rows, bundle.test_rows)
    pd.testing.assert_frame_equal(loaded.estimator.search_results_,
                                  bundle.estimator.search_results_)
    other.switch_page("pages/explain.py").run()
    assert not other.exception and len(other.get("image")) >= 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"PK\x03\x04 not really a zip", "not a forestviz model file"),
        (sio.dumps({"format": persistence.FILE_FORMAT, "evil": ForeignDict(a=1)}),
         "test_app_model_files.ForeignDict"),
        (sio.dumps({"format": persistence.FILE_FORMAT, "run": eval}), "builtins.eval"),
        (sio.dumps({"format": persistence.FILE_FORMAT, "read": np.load}), "numpy.load"),
        (sio.dumps(RandomForestClassifier(3)), "not saved by forestviz"),
        (sio.dumps({"format": "forestviz-model/1", "object": RandomForestClassifier(3)}),
         "saved by another version of forestviz (file format forestviz-model/1"),
    ],
    ids=["garbage", "foreign-type", "eval", "numpy-load", "not-a-forestviz-file",
         "older-format"],
)
def test_a_foreign_model_file_is_refused_and_the_app_keeps_working(data, message):
    at = app()
    at.switch_page("pages/train.py").run()
    at.file_uploader(key="model_file").set_value(("evil.skops", data, "application/zip"))
    at.run()
    assert not at.exception
    (error,) = at.error
    assert as_text(message) in error.value
    assert "model" not in at.session_state
    bundle = train(at, "vanilla", trees=10, errors=1)  # the refused file is still chosen
    assert at.error[0].value == error.value
    assert len(at.dataframe[0].value) == 3  # the results table of the new model
    assert bundle.n_trees == 10


def test_a_model_for_other_data_is_refused():
    at = app()
    data = ModelFile.of(train(at, "vanilla", trees=10)).dumps()
    choose_bundled(at, "breast_cancer")
    at.switch_page("pages/train.py").run()
    at.file_uploader(key="model_file").set_value(("pima.skops", data, "application/zip"))
    at.run()
    (error,) = at.error
    assert "trained on the data set" in error.value and "pima" in error.value
    assert "model" not in at.session_state


def test_a_model_file_with_an_edited_array_is_one_line_and_the_app_keeps_working():
    """Issue 25: a file of the app's own classes whose leaf values lost a row is refused with
    the one line naming what was wrong; the model trained before stays."""
    at = app()
    bundle = train(at, "abrf1_qp", trees=10, auto=False)
    data = ModelFile.of(bundle).dumps()
    member = next(m for p, m in hostile_arrays.stored_arrays(data).items()
                  if p.endswith("leaf_stats_.leaf_values"))
    values = hostile_arrays.load_array(data, member)
    at.file_uploader(key="model_file").set_value(
        ("edited.skops", hostile_arrays.with_array(data, member, values[:-1]), "application/zip"))
    at.run()
    assert not at.exception
    (error,) = at.error
    assert error.value.startswith(as_text("This model file was refused: its leaf values are not"))
    assert "\n" not in error.value
    assert at.session_state["model"] is not None  # the trained model is still there
    at.switch_page("pages/explain.py").run()
    assert not at.exception and len(at.get("image")) >= 1
