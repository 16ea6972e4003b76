"""forestviz: the Streamlit entry point (``streamlit run app.py``)."""

import streamlit as st

from ui.server import default_training
from ui.state import ensure_dataset

st.set_page_config(page_title="forestviz", layout="wide")

page = st.navigation(
    [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data", icon=":material/table:"),
        st.Page("pages/train.py", title="Train", icon=":material/model_training:"),
        st.Page("pages/explain.py", title="Explain", icon=":material/search:"),
        st.Page("pages/forest.py", title="Forest", icon=":material/forest:"),
        st.Page("pages/lab.py", title="Paper lab", icon=":material/school:"),
    ]
)
ensure_dataset()
page.run()
# then, in the background: what a trained model and the Explain page import, and the default
# model, loaded (or trained) once for every Home button
default_training()
