"""forestviz: the Streamlit entry point (``python -m ui.launch run app.py``: ``ui/launch.py``;
a plain ``streamlit run app.py`` works too, its first Home click only waits longer)."""

import streamlit as st

from ui.server import default_training
from ui.session_end import watch_this_session
from ui.state import ensure_dataset

st.set_page_config(page_title="forestviz", layout="wide")

page = st.navigation(
    [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data", icon=":material/table:"),
        st.Page("pages/train.py", title="Train", icon=":material/model_training:"),
        st.Page("pages/explain.py", title="Explain", icon=":material/search:"),
        st.Page("pages/models.py", title="Models", icon=":material/inventory_2:"),
        st.Page("pages/forest.py", title="Forest", icon=":material/forest:"),
        st.Page("pages/lab.py", title="Paper lab", icon=":material/school:"),
    ]
)
ensure_dataset()
watch_this_session()  # a closed tab's session (its uploads) is dropped once its TTL has passed
page.run()
# in the background: what a trained model and the Explain page import, and the default model,
# loaded (or trained) once for every Home button; ui.launch started it with the server (this
# finds it), a plain `streamlit run` starts it here, after the first page
default_training()
