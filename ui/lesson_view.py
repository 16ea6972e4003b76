"""Home's lesson, laid out: a step indicator, the step's sentence, its view for its row, and
Back, Next, "Open on Explain" and "Leave the lesson" (while a step is open it is Home's
whole page: Home stops after it). The steps and their numbers are
:class:`~forestviz.app.lesson.Lesson`'s; which step is open is the session's
:data:`ui.models.LESSON`, set to 1 when the demo's training arrives (:func:`ui.models._arrive`)."""

from __future__ import annotations

import streamlit as st

from forestviz.app.lesson import (
    PLAIN,
    SIMPLEX,
    SIMPLEX_DATASET,
    SIMPLEX_EPS,
    TREE,
    VIEWS,
    WEIGHTS,
    Stop,
    demo_lesson,
)
from forestviz.glossary import help_text
from ui import models
from ui.display import as_text


def _go(step: int) -> None:
    st.session_state[models.LESSON] = step


def _open(stop: Stop) -> None:
    """The step's row on the Explain page (the row picker keeps it)."""
    st.session_state[models.ROW] = stop.position


SHOWN = "lesson_shown_step"  # the step the last run showed: a new one is scrolled to
# one fixed script (nothing from a file or a user in it; the step number only makes each new
# step's element a new one, which Streamlit mounts and so runs): the lesson's box to the top of
# the window, where Next, at its foot, left the reader below the new step's sentence
SCROLL = """<script>/* step {step} */ setTimeout(() => {{
  const box = document.querySelector('.st-key-lesson');
  if (box) box.scrollIntoView({{block: 'start'}});
}}, 200);</script>"""


def _leave() -> None:
    st.session_state.pop(models.LESSON, None)
    st.session_state.pop(SHOWN, None)


def show() -> bool:
    """The open step of the lesson, when the current model is the demo's and a step is open;
    whether it showed one."""
    step = st.session_state.get(models.LESSON)
    bench = models.workbench()
    lesson = None if step is None or bench is None else demo_lesson(bench.model)
    if lesson is None:
        return False
    stop = lesson.stop(step)
    with st.container(border=True, key="lesson"):
        st.progress(step / len(lesson), text=f"Step {step} of {len(lesson)}: {stop.title}")
        st.markdown(as_text(stop.look))
        st.caption(as_text(f"Row {stop.row_id}. The view: {VIEWS[stop.view]}."))
        _view(bench, stop)
        buttons = st.container(horizontal=True, key="lesson_buttons")
        buttons.button("Back", key="lesson_back", icon=":material/arrow_back:",
                       disabled=step == 1, on_click=_go, args=(step - 1,))
        buttons.button("Next", key="lesson_next", icon=":material/arrow_forward:",
                       type="primary", disabled=step == len(lesson), on_click=_go,
                       args=(step + 1,))
        if buttons.button(f"Open row {stop.row_id} on Explain", key="lesson_explain",
                          icon=":material/search:", on_click=_open, args=(stop,)):
            st.switch_page("pages/explain.py")
        buttons.button("Leave the lesson", key="lesson_leave", icon=":material/close:",
                       on_click=_leave)
    if st.session_state.get(SHOWN) != step:  # a new step (or the lesson just opened)
        st.session_state[SHOWN] = step
        st.html(SCROLL.format(step=int(step)), unsafe_allow_javascript=True)
    return True


def _view(bench, stop: Stop) -> None:
    """The view the step points to, for its row (what draws it is imported here: Home, the
    first page, imports this module before any model is trained)."""
    from forestviz.app import lab
    from forestviz.explain import plots
    from ui import explain_view
    from ui.charts import chart
    from ui.lab_models import three_tree_forest

    if stop.table is not None:
        st.dataframe(stop.table, hide_index=True, key=f"lesson_table@{stop.number}")
    if stop.view == WEIGHTS:
        chart(plots.tree_weight_bars(stop.weights, width=plots.WIDTH),
              key=f"lesson_weights@{stop.number}")
    elif stop.view == SIMPLEX:
        eps = st.slider("ε (contamination)", 0.0, 1.0, SIMPLEX_EPS, step=0.05,
                        key="lesson_eps", help=help_text("ε"))
        model, X = three_tree_forest(SIMPLEX_DATASET, eps)
        D, w, alpha = lab.three_tree_weights(model, X[0])
        chart(plots.simplex_figure(D, w, eps, alpha=alpha), key="lesson_simplex")
    elif stop.view == TREE:
        e = bench.explain(stop.position)
        svg = explain_view.draw(bench, e, stop.tree)
        if svg is not None:
            st.image(svg, width="content", caption=f"Tree {stop.tree + 1}, row {stop.row_id}",
                     alt=f"Tree {stop.tree + 1} drawn with the path of row {stop.row_id}: "
                         "its tests from the top to the leaf the row reaches.")
    elif stop.view == PLAIN:
        st.caption(help_text("plain forest"))
