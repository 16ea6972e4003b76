"""A one-page app for ``tests/test_browser_display.py``: each text of :data:`VALUES` through
every kind of element the app's pages feed from :func:`ui.display.as_text` and
:func:`ui.display.as_label` (caption, Markdown, the four alerts, a heading without anchor, a
metric's label, value and help, a progress text, a button's, a checkbox's and a number
input's label)."""

import streamlit as st

from ui.display import as_label, as_text

VALUES = ("http://evil.example/x", "contact a@b.co now", "www.phish.example",
          "`a@b.co`", "x``y@b.co", "mailto:x@y.co", "[x](http://evil.example)",
          "<http://angle.example>", "see(www.paren.example)", ":red[www.red.example]",
          "$www.math.example$", "Pima risk@5")

for i, value in enumerate(VALUES):
    st.caption(as_text(value))
    st.markdown(f"**{as_text(value)}**")
    st.error(as_text(value))
    st.warning(as_text(value))
    st.info(as_text(value))
    st.success(as_text(value))
    st.subheader(as_text(value), anchor=False)
    st.metric(as_label(value), as_text(value), help=as_text(value))
    st.progress(0.5, text=as_text(value))
    st.button(as_label(value), key=f"button{i}")
    st.checkbox(as_label(value), key=f"checkbox{i}")
    st.number_input(as_label(value), key=f"number{i}")
