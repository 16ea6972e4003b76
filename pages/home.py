"""Home: what forestviz does, and the data set already loaded."""

import streamlit as st

from ui.display import show_dataset_summary
from ui.state import DATASET

st.title("forestviz")
st.markdown(
    "forestviz explains the predictions of random-forest-family models one sample at a time. "
    "It trains an Attention-based Random Forest, an Enhanced Random Forest or attention-weighted "
    "gradient boosting (AGBoost) next to plain baselines and shows which trees carry a single "
    "prediction, how much, and why. "
    "A bundled clinical data set is loaded already; bring your own CSV on the Data page."
)
st.subheader("Data set in use")
show_dataset_summary(st.session_state[DATASET])
st.page_link("pages/data.py", label="Choose or upload data", icon=":material/table:")
