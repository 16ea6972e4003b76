"""The attention lens (forestviz.app.attention_lens): a model that kept its plain forest shows
what its best attention setting would say, equal to the attention model refitted at that
setting, and labelled as not used."""

import numpy as np
import pytest
from sklearn.base import clone

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.attention import AttentionForestClassifier
from forestviz.io.bundled import load_dataset
from tests.apptest_helpers import app, train


@pytest.fixture(scope="module")
def bench():
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family="abrf1_qp", n_estimators=30, random_state=0))
    return bench


@pytest.mark.slow
def test_the_lens_is_the_attention_model_refitted_at_the_best_setting(bench):
    model = bench.model.estimator
    assert model.selected_base_  # the plain forest was kept: equal weights
    lens = bench.attention_lens()
    table = model.search_results_
    attention = table[table["candidate"] == "attention"]
    best = attention.loc[attention["validation_loss"].idxmin()]
    assert (lens.eps, lens.tau, lens.loss) == (best["eps"], best["tau"],
                                               best["validation_loss"])
    assert lens.base_loss == table[table["candidate"] != "attention"]["validation_loss"].min()
    refit = AttentionForestClassifier(**{**model.get_params(), "eps": best["eps"],
                                         "tau": best["tau"]})
    refit.fit(bench.model.X_train, bench.model.y_train)
    x = bench.model.X_test[3]
    weights, predicted = lens.row(x)
    np.testing.assert_allclose(predicted, refit.predict_proba(x[None])[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(weights, refit.tree_weights(x[None])[0], rtol=0, atol=1e-12)
    assert np.ptp(weights) > 0  # attention: unequal weights, unlike the model's
    assert "not the model's prediction" in lens.sentence()
    assert bench.attention_lens() is lens  # refitted once
    # its loss named as the Train page's note names the same search's losses: a classifier's
    # squared error is its Brier score (the lens said "squared error" beside the note's name)
    assert lens.loss_name == "Brier score"
    assert "validation loss (Brier score) of" in lens.sentence()
    note = bench.comparison().selection
    assert "Brier score" in note and "squared error" not in note


def test_no_lens_for_a_model_that_kept_attention_or_has_none():
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family="vanilla", n_estimators=10, random_state=0))
    assert not bench.has_attention_lens() and bench.attention_lens() is None
    model = clone(AttentionForestClassifier(n_estimators=10, eps=0.3, tau=1.0, random_state=0))
    assert "eps" in model.get_params()


@pytest.mark.slow
def test_the_explain_page_labels_the_lens():
    at = app()
    bundle = train(at, "abrf1_qp", trees=30)
    assert bundle.estimator.selected_base_
    at.switch_page("pages/explain.py").run()
    at.toggle(key="explain_lens").set_value(True).run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert "Lens P(Yes)" in labels and "Model P(Yes)" in labels
    titles = [c.proto.spec for c in at.get("plotly_chart")]
    assert any("Attention lens (not used for the prediction)" in t for t in titles)
