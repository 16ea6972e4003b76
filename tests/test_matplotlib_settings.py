"""Matplotlib's process-wide settings under the server's threads
(:mod:`forestviz.explain.matplotlib_settings`): a report picture and a tree drawing never see
each other's settings and leave the process' settings as they were."""

import contextlib
import re
import threading

import matplotlib
import plotly.graph_objects as go
import pytest

from forestviz.app import lab
from forestviz.explain.drawing import treeviz
from forestviz.explain.matplotlib_settings import drawing_with
from forestviz.explain.report.charts import figure_svg

SETTINGS = ("svg.fonttype", "text.parse_math")
# when each node image was made, and the ids matplotlib draws at random for its clip paths
MADE = re.compile(r"<dc:date>[^<]*</dc:date>|\b[mp][0-9a-f]{10}\b")


def current() -> dict:
    return {name: matplotlib.rcParams[name] for name in SETTINGS}


def picture() -> str:
    return figure_svg(go.Figure(go.Bar(x=["a", "b"], y=[1.0, 2.0]),
                                layout={"title": {"text": "bars"}}))


def test_two_overlapping_rc_contexts_leave_the_first_ones_setting_for_good():
    """The cause, in matplotlib itself: a context entered inside another's and left after it
    restores the other's setting."""
    before = current()
    drawing = matplotlib.rc_context({"text.parse_math": not before["text.parse_math"]})
    try:
        with contextlib.ExitStack() as stack:
            drawing.__enter__()
            stack.enter_context(matplotlib.rc_context({"svg.fonttype": "none"}))
            drawing.__exit__(None, None, None)
        assert matplotlib.rcParams["text.parse_math"] != before["text.parse_math"]
    finally:
        matplotlib.rcParams.update(before)


def test_a_report_picture_waits_while_a_drawing_holds_its_settings():
    before = current()
    done: list[str] = []
    with drawing_with({"text.parse_math": False}):
        saver = threading.Thread(target=lambda: done.append(picture()))
        saver.start()
        saver.join(timeout=1.0)
        assert saver.is_alive() and not done  # it cannot pass the drawing's lock
        assert current()["svg.fonttype"] == before["svg.fonttype"]
    saver.join(timeout=60)
    assert len(done) == 1 and "<text" in done[0]  # its own setting: text stays text
    assert current() == before


@pytest.mark.usefixtures("require_dot", "empty_cache")
def test_a_tree_drawn_while_report_pictures_are_saved_is_the_tree_drawn_alone():
    tree, context, X, _ = lab.small_tree(2)
    alone = treeviz.render_tree(tree, 0, X[0], context=context, mode="full")
    treeviz.clear_cache()
    before = current()
    stop = threading.Event()
    saved: list[str] = []

    def save_pictures():
        while not stop.is_set():
            saved.append(picture())

    savers = [threading.Thread(target=save_pictures) for _ in range(2)]
    for saver in savers:
        saver.start()
    try:
        beside = treeviz.render_tree(tree, 0, X[0], context=context, mode="full")
    finally:
        stop.set()
        for saver in savers:
            saver.join(timeout=60)
    assert saved and MADE.sub("", beside) == MADE.sub("", alone)
    assert current() == before
