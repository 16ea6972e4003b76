"""Every chart on the Explain page has its numbers beside it (issue 39, item 1): right under each
plotly chart, a collapsed "Numbers in this chart" holding the table read from that chart's own
figure (as the browser receives it), and the chart's accessible description says those
numbers."""

import base64
import json

import numpy as np
import plotly.graph_objects as go
import pytest

from forestviz.explain.plots.alt import chart_text
from forestviz.explain.plots.chart_table import chart_table
from tests.apptest_helpers import app, finish_jobs
from tests.test_app_summary_first import in_order
from ui.charts import NUMBERS
from ui.display import as_text

pytestmark = pytest.mark.slow  # trains the default model


def arrays(value):
    """A figure's JSON with plotly's typed arrays ({"dtype", "bdata", "shape"}) as numpy
    arrays, as the browser reads them."""
    if isinstance(value, dict) and {"dtype", "bdata"} <= set(value):
        found = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return found.reshape([int(n) for n in str(shape).split(",")]) if shape else found
    if isinstance(value, dict):
        return {key: arrays(item) for key, item in value.items()}
    if isinstance(value, list):
        return [arrays(item) for item in value]
    return value


def test_every_chart_on_the_explain_page_has_its_numbers_under_it_collapsed():
    at = app()
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) >= 3  # the waterfall, the weights and contributions, the features
    numbers = [e for e in at.expander if e.label == NUMBERS]
    assert len(numbers) == len(charts)
    elements = in_order(at.main)
    for chart, expander in zip(charts, numbers, strict=True):
        fig = go.Figure(arrays(json.loads(chart.proto.spec)))  # the figure the browser draws
        at_chart = next(i for i, leaf in enumerate(elements) if leaf is chart)
        (table,) = expander.table
        shown = table.value
        assert elements[at_chart + 1] is table  # right under its chart
        expected = chart_table(fig).frame
        assert list(shown.columns) == [as_text(c) for c in expected.columns]
        assert shown.to_numpy().tolist() == expected.map(as_text).to_numpy().tolist()
        assert chart.proto.alt == chart_text(fig)
    assert all(not e.proto.expanded for e in numbers)
