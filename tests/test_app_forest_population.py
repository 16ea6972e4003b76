"""The Forest page's whole-model section through Streamlit's AppTest, on a real training: the
importance bars are the mean |contribution| of the held-out rows' own explanations, and the
column picker moves the dependence and partial-dependence charts."""

import base64
import json

import numpy as np
import plotly.io
import pytest

from forestviz.app.workbench import Workbench
from tests.apptest_helpers import app, finish_jobs, train
from ui.display import as_text

pytestmark = pytest.mark.slow


def test_the_whole_model_section():
    at = app()
    bundle = train(at, "vanilla", trees=10)
    at.switch_page("pages/forest.py").run()
    assert not at.exception and not at.error
    figures = {f.layout.title.text.replace("<br>", " "): f for f in
               (plotly.io.from_json(c.proto.spec) for c in at.get("plotly_chart"))}
    bars = figures["Which columns move the predictions (held-out rows)"].data[0]
    bench = Workbench(at.session_state["dataset"], at.session_state["dataset_choice"], model=bundle)
    own = np.array([bench.explain(int(p)).contributions.total[:, 1]
                    for p in bundle.test_rows[:]])
    names = bench.explain(int(bundle.test_rows[0])).contributions.feature_names
    mean = dict(zip(names, np.abs(own).mean(axis=0), strict=True))
    drawn = np.frombuffer(base64.b64decode(bars.x["bdata"]), dtype=bars.x["dtype"])
    np.testing.assert_allclose(drawn, [mean[c] for c in bars.y], rtol=0, atol=1e-12)
    assert any(t.startswith("Every held-out row's contributions") for t in figures)
    column = at.selectbox(key="forest_dependence_column")
    assert column.value == bars.y[-1]  # the most important column first
    at.selectbox(key="forest_dependence_column").set_value("Age (years)").run()
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in
              at.get("plotly_chart")]
    assert "How Age (years) moves the predictions" in titles
    assert "Partial dependence on Age (years)" in titles


def test_the_trust_views_and_the_explain_pages_stability_line():
    at = app()
    bundle = train(at, "vanilla", trees=10)
    at.switch_page("pages/forest.py").run()
    assert not at.exception
    figures = {f.layout.title.text: f for f in
               (plotly.io.from_json(c.proto.spec) for c in at.get("plotly_chart"))}
    same = figures["Same top reasons among similar rows"].data[0]
    counts = np.frombuffer(base64.b64decode(same.y["bdata"]), dtype=same.y["dtype"])
    assert counts.sum() == len(bundle.test_rows)
    bench = Workbench(at.session_state["dataset"], at.session_state["dataset_choice"],
                      model=bundle)
    at.switch_page("pages/explain.py").run()
    position = at.session_state["explain_row"]
    expected = bench.whole().stability(bench.explain(position)).sentence()
    assert any(as_text(expected) in c.value for c in at.caption)


def test_cohorts_on_the_forest_page():
    at = app()
    bundle = train(at, "vanilla", trees=10)
    at.switch_page("pages/forest.py").run()
    bench = Workbench(at.session_state["dataset"], at.session_state["dataset_choice"],
                      model=bundle)
    (table,) = [d.value for d in at.dataframe if "mean in right" in d.value.columns]
    expected = bench.whole().cohorts("outcome").columns
    np.testing.assert_allclose(table["difference"], expected["difference"], rtol=0, atol=1e-12)
    at.radio(key="forest_cohort_split").set_value("column").run()
    at.selectbox(key="forest_cohort_column").set_value("Age (years)").run()
    at.number_input(key="forest_cohort_cut@Age (years)").set_value(40.0).run()
    assert not at.exception
    (table,) = [d.value for d in at.dataframe if "mean in Age (years) ≤ 40" in d.value.columns]
    expected = bench.whole().cohorts("column", "Age (years)", 40.0).columns
    np.testing.assert_allclose(table["difference"], expected["difference"], rtol=0, atol=1e-12)


def test_refits_on_demand():
    at = app()
    bundle = train(at, "vanilla", trees=10)
    at.switch_page("pages/forest.py").run()
    at.button(key="forest_refit").click().run()
    finish_jobs(at)
    assert not at.exception and not at.error
    figures = {f.layout.title.text: f for f in
               (plotly.io.from_json(c.proto.spec) for c in at.get("plotly_chart"))}
    kept = figures["Top reasons kept under refits"].data[0]
    counts = np.frombuffer(base64.b64decode(kept.y["bdata"]), dtype=kept.y["dtype"])
    assert counts.sum() == len(bundle.test_rows)
    refits = at.session_state["refits"][1]
    bench = Workbench(at.session_state["dataset"], at.session_state["dataset_choice"],
                      model=bundle)
    share = bench.whole().robustness(refits)
    np.testing.assert_array_equal(counts, np.bincount(np.rint(share * len(refits)).astype(int),
                                                      minlength=len(refits) + 1))
