"""The Paper lab's small models, cached for every session: the lab page and Home's lesson
(its ε step draws ABRF Fig. 1) share them."""

import streamlit as st

from forestviz.app import lab


@st.cache_resource(show_spinner="Fitting a 3-tree attention forest…", max_entries=32)
def three_tree_forest(name: str, eps: float):
    """Shared read-only by all sessions."""
    return lab.three_tree_forest(name, eps)
