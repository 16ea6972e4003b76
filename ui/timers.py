"""A timer's rerun of the whole page never takes the place of the user's click.

A fragment with ``run_every`` (the library's follow, :func:`ui.catalog._follow`; a training's
progress, :func:`ui.models.job_status`) is run by a timer in the browser and asks for a run of
the whole page when what it watches has changed. Streamlit 1.67 folds a rerun asked for while
another is pending into one, and the one asked for last names the page: a click on another
page's link that reaches the server while the timer's fragment runs (it is not stopped for a
click until it draws something) was folded into the fragment's rerun of the page it was on, and
the user stayed where they were (seen in ``tests/test_browser_library_follow.py`` under load:
Models clicked just as the open Home page followed a publish, Home drawn again).

:func:`rerun_page` first draws an empty placeholder: every drawing is where Streamlit stops a
run for a pending rerun (what its own ``st.rerun`` does after asking, to stop at once), so a
click already there runs instead, with the page it names; the whole page runs either way. Left
open: a click that lands between that placeholder and the request, a few bytecodes apart.
"""

from __future__ import annotations

import streamlit as st


def rerun_page() -> None:
    """From a timer's fragment: run the whole page again, unless a click already asked for
    a run (then that runs, with the page it names)."""
    st.empty()  # where a pending click stops this run
    st.rerun(scope="app")
