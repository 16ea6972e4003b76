"""A timer's rerun of the page keeps a click that is already waiting (ui/timers.py), in
Streamlit's own script runner (AppTest): the click stands as a rerun request made while the
timer's fragment runs, naming its own query string as a page link names its page."""

import pytest
from streamlit.testing.v1 import AppTest

CLICKED = "clicked=1"


def timer_fragment_reruns_the_page(helper: bool) -> None:
    """The script: on its first run a fragment finds its watch changed while a click waits,
    and reruns the page by ``ui.timers.rerun_page`` (``helper``) or a plain ``st.rerun``
    (AppTest runs the function's own text: it sees no name of this module)."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    from ui import timers

    ctx = get_script_run_ctx()
    runs = st.session_state.setdefault("query strings", [])
    runs.append(ctx.query_string)

    @st.fragment
    def follow():
        if len(runs) == 1:  # the watch changed, and the user's click reached the server
            ctx.script_requests.request_rerun(RerunData(
                query_string="clicked=1", page_script_hash=ctx.page_script_hash))
            if helper:
                timers.rerun_page()
            else:
                st.rerun(scope="app")

    follow()


@pytest.mark.parametrize("helper, second_run", [
    (True, CLICKED),  # the click's run comes next, with what it asked for
    (False, ""),  # why the helper exists: Streamlit folds the click into the timer's rerun
])
def test_a_timers_rerun_keeps_the_click_waiting(helper, second_run):
    app = AppTest.from_function(timer_fragment_reruns_the_page, args=(helper,)).run()
    assert not app.exception
    assert app.session_state["query strings"] == ["", second_run]
