"""Display helpers: text from files is shown as text, errors as ``st.error``."""

import re

import streamlit as st

from forestviz.data import Dataset

# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of them
# keeps Markdown, Streamlit directives (``:red[...]``), math (``$``) and HTML inert.
_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def as_text(value: object) -> str:
    """``value`` as Markdown that renders literally (names and values from files are data)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", str(value))


def show_error(err: Exception) -> None:
    """Show a user-facing error (a ``DataError``) without a traceback."""
    st.error(as_text(err), icon=":material/error:")


def show_dataset_summary(dataset: Dataset) -> None:
    """Rows, features, task, classes and notes of the data set in use."""
    title = f"**{as_text(dataset.name)}**"
    if dataset.description:
        title += f" — {as_text(dataset.description)}"
    st.markdown(title)
    rows, features, task, classes = st.columns(4)
    rows.metric("Rows", f"{len(dataset.frame):,}")
    features.metric("Features", len(dataset.feature_columns))
    task.metric("Task", dataset.task)
    classes.metric("Classes", len(dataset.classes) if dataset.classes else "—")
    details = [f"Target: {dataset.target}", f"ID column: {dataset.id_column or 'none'}"]
    if dataset.classes:
        details.append("Classes: " + ", ".join(map(str, dataset.classes)))
    st.caption(as_text(" · ".join(details)))
    for note in dataset.notes:
        st.info(as_text(note), icon=":material/info:")
