"""Home's second demo, "See attention at work", through Streamlit's AppTest with its real
training: the table is Friedman 2, the model keeps its attention (it beat its own plain forest
on the rows held out in training), beats the same trees averaged equally on the held-out rows
too, and the Explain page opens on a row whose tree weights differ."""

import numpy as np
import pytest
from sklearn.metrics import r2_score

from forestviz.app.families import ATTENTION_DEMO
from forestviz.trees.ensemble import as_ensemble
from tests.apptest_helpers import app, finish_jobs, metric

pytestmark = pytest.mark.slow


def test_see_attention_at_work():
    at = app()
    at.button(key="home_attention").click().run()
    finish_jobs(at)
    assert not at.exception and not at.error
    assert at.session_state["dataset"].name == "friedman2"
    bundle = at.session_state["model"]
    assert bundle.settings == ATTENTION_DEMO.settings
    model = bundle.estimator
    assert not as_ensemble(model).diagnostics().selected_base
    attention = r2_score(bundle.y_test, model.predict(bundle.X_test))
    plain = r2_score(bundle.y_test, model.forest_.predict(bundle.X_test))
    assert attention > plain + 0.02
    assert at.title[0].value == "Explain"
    position = at.session_state["explain_row"]
    weights = model.tree_weights(bundle.X_test[list(bundle.test_rows).index(position)][None])[0]
    assert np.ptp(weights) > 0.01  # not a hundred equal bars
    assert float(metric(at, "Effective number of trees")) < 0.9 * bundle.n_trees
