"""The Explain page lays out the row's summary before any costly view (issue 38: Streamlit sends
elements as the script runs, so what comes first on the page is on screen first): its heading,
tiles and waterfall come before every other chart and every tree drawing (only the row picker
comes before it); a second run of the same row shows the same charts (built once)."""

import json

import pytest

from tests.apptest_helpers import app, finish_jobs

pytestmark = pytest.mark.slow  # trains the default model


def in_order(node) -> list:
    """The elements under ``node`` in the page's order (depth first)."""
    children = getattr(node, "children", None)
    if children is None:
        return [node]
    return [leaf for key in sorted(children) for leaf in in_order(children[key])]


def summary_keys(node) -> set[int]:
    """ids of the elements inside the summary's container (key ``explain_summary``)."""
    children = getattr(node, "children", None) or {}
    if "explain_summary" in str(getattr(node, "proto", "")):
        return {id(leaf) for leaf in in_order(node)}
    return set().union(*(summary_keys(child) for child in children.values()))


def test_the_summary_comes_before_every_costly_view_and_a_rerun_shows_the_same_charts():
    at = app()
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    assert not at.exception
    elements = in_order(at.main)
    inside = summary_keys(at.main)
    assert inside, "no summary container"
    last = max(i for i, leaf in enumerate(elements) if id(leaf) in inside)
    first = min(i for i, leaf in enumerate(elements) if id(leaf) in inside)
    kinds = [leaf.type for leaf in elements[first:last + 1]]
    assert "plotly_chart" in kinds and "metric" in kinds  # the waterfall and the tiles
    assert str(elements[first].value).startswith("Row ")  # its heading, first
    costly = [i for i, leaf in enumerate(elements) if id(leaf) not in inside
              and (leaf.type in ("plotly_chart", "image")
                   or (leaf.type == "header" and leaf.value == "How the forest reached it"))]
    assert {"image", "plotly_chart", "header"} == {
        elements[i].type for i in costly}  # the drawings and charts: all after it
    assert min(costly) > last
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    at.run()  # the same row again: its figures and waterfall from the cache, the same
    assert [json.loads(c.proto.spec) for c in at.get("plotly_chart")] == charts
