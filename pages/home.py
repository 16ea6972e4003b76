"""Home: what forestviz does, and the data set already loaded."""

import streamlit as st

from forestviz.app import families
from forestviz.app.lesson import TITLES
from forestviz.registry import FAMILIES
from ui import catalog, lesson_view, models, signin, state
from ui.display import show_dataset_summary
from ui.state import CHOICE, DATASET

signin.guard("home")

models.follow_jobs(progress_in_sidebar=False)
st.title("forestviz", anchor=False)
if lesson_view.show():  # an open lesson is Home's whole page: a class reads it from the top
    st.stop()
st.markdown(
    "forestviz explains the predictions of random-forest-family models one sample at a time. "
    "It trains an Attention-based Random Forest, an Enhanced Random Forest or attention-weighted "
    "gradient boosting (AGBoost) next to plain baselines and shows which trees carry a single "
    "prediction, how much, and why. "
    "A bundled clinical data set is loaded already; bring your own CSV on the Data page."
)
st.subheader("Data set in use", anchor=False)
show_dataset_summary(st.session_state[DATASET])
signin.page_link("pages/data.py", label="Choose or upload data", icon=":material/table:")

dataset = st.session_state[DATASET]
default = families.default_settings(dataset.task)
st.subheader("See an explanation now", anchor=False)
quiet, busy = families.DEFAULT_FIRST_SCREEN_SECONDS
st.caption(f"Trains the default model ({FAMILIES[default.family].label}, {default.n_estimators} "
           "trees) and opens the explanation of the held-out row with the highest predicted "
           f"risk. On the bundled table the server has it ready: up to {quiet} s on a quiet "
           f"server, up to {busy} s on a busy one; on your own table, add its training.")
if st.button("Train the default model and explain a row", type="primary", key="home_explain",
             icon=":material/bolt:", disabled=models.training_in_progress()):
    models.start_training(dataset, st.session_state[CHOICE], default, origin="home")

# one place, filled or not: a publish shown on its own leaves what follows (and the focus) put
with st.container():
    catalog.open_asked()  # before the list: it may have changed since the click
    published = catalog.visible_versions()
    if published:
        st.subheader("Open a published model", anchor=False)
        st.caption("A model an analyst trained and published: it opens straight into Explain.")
        catalog.open_button(catalog.choose_version(published, key="home_published"),
                            key="home_open")

demo = families.ATTENTION_DEMO
st.subheader("See attention at work", anchor=False)
st.caption(demo.why + f" Trains {FAMILIES[demo.settings.family].label} "
           f"({demo.settings.n_estimators} trees) on that table and opens a lesson of "
           f"{len(TITLES)} steps, each with what to look at and the view that shows it.")
if st.button("See attention at work", key="home_attention", icon=":material/visibility:",
             disabled=models.training_in_progress()):
    dataset = state.use_bundled(demo.dataset)
    if models.start_training(dataset, st.session_state[CHOICE], demo.settings, origin="lesson"):
        st.rerun()  # a model the server has already opens its lesson at once, on top
if models.training_in_progress():
    models.wait_for_training()  # when it finishes, Home's button opens the explanation
models.show_outcome()
