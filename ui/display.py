"""Display helpers: names and values from files are shown as plain text, errors as ``st.error``.

Everything Streamlit shows from a string (``st.markdown``, captions, alerts, metric labels and
values, widget labels, radio options, headings, progress texts) is GitHub-flavoured Markdown.
Text from a file (column names, class labels, row IDs, cell values, file and data-set names)
must never become markup there, so every page passes it through :func:`as_text`:

* every ASCII punctuation character is backslash-escaped (CommonMark allows that for all of
  them), which keeps links, images, emphasis, code, headings, lists, tables, raw HTML,
  Streamlit's directives (``:red[…]``, ``:material/…:``, emoji short codes) and math inert;
* escaping does not stop GFM's *autolink literals*: Streamlit's remark-gfm turns bare
  ``http://…``, ``https://…``, ``www.…`` and e-mail addresses (also after ``mailto:`` or
  ``xmpp:``) into links by searching the already-unescaped text, so :func:`as_text` also puts
  an invisible U+2060 WORD JOINER inside every ``://``, after every ``www`` before a dot and
  after every ``@``, which breaks that grammar while the text reads exactly the same;
* line breaks become spaces (a blank line followed by an indented line would start a code
  block); white space at the start gets a word joiner before it (four spaces would start one,
  too) and white space at the end one after it (so ``**{as_text(name)}**`` stays bold).

A widget's or metric's label is also its accessible name (and its help button's, "Help for
…"), taken as written: a screen reader would read every backslash. Labels go through
:func:`as_label`, which leaves unescaped the characters that are markup nowhere inside a line
once brackets, angle brackets and the rest stay escaped.

``st.dataframe`` cells and headers, ``st.text``, ``st.code``, selectbox and multiselect options
(``format_func`` texts) and text-input values are plain text already; plotly figures take names
through :func:`forestviz.explain.plots.plain`.
"""

import re

import streamlit as st

from forestviz.io.dataset import Dataset

# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of them
# keeps Markdown, Streamlit directives (``:red[...]``), math (``$``) and HTML inert.
_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# U+2060 WORD JOINER: invisible, no line-break opportunity, and neither white space, punctuation
# nor a word character, so GFM's autolink grammar accepts it neither inside nor before a link.
WORD_JOINER = "\u2060"
# Where GFM (remark-gfm's autolink literals) starts a link: "http(s)://" (any "://" is broken),
# "www." (case-insensitive) and "@" followed by a domain.
_AUTOLINK_STARTS = re.compile(r"(?<=:)(?=//)|(?i:(?<=www)(?=\.))|(?<=@)(?=[-\w])")
_LINE_BREAKS = re.compile(r"[ \t]*(?:\r\n?|\n)[ \t\r\n]*")
_OUTER_SPACE = re.compile(r"\A(?=\s)|(?<=\s)\Z")


def as_text(value: object) -> str:
    """``value`` as Markdown that renders literally and never as a link (names and values
    from files are data); it reads the same, on one line."""
    text = _LINE_BREAKS.sub(" ", str(value))
    text = _OUTER_SPACE.sub(WORD_JOINER, text)
    text = _AUTOLINK_STARTS.sub(WORD_JOINER, text)
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


# Never markup inside a line when "[", "]", "<", "`", "*", "_" … stay escaped: parentheses only
# follow "]" in a link, "/" only matters in links and HTML, "-", "." and ")" only start a list
# (kept escaped there: "- a", "1. a", "1) a").
_INERT = re.compile(r"\\([(),/'\"%;?=.-])")
_LIST_START = re.compile(r"\A(?:\d{1,9}\\[.)]|\\-)")


def as_label(value: object) -> str:
    """:func:`as_text` for a widget's or metric's label: the same text, inert, with no
    backslash before the characters that are plain there ("Glucose (mg/dL)" stays as it is),
    so that its accessible name reads as written."""
    text = as_text(value)
    start = _LIST_START.match(text)
    keep = start.end() if start else 0
    return text[:keep] + _INERT.sub(r"\1", text[keep:])


def show_error(err: Exception) -> None:
    """Show a user-facing error (a ``DataError``) without a traceback."""
    st.error(as_text(err), icon=":material/error:")


def show_dataset_summary(dataset: Dataset) -> None:
    """Rows, features, task, classes and notes of the data set in use."""
    title = f"**{as_text(dataset.name)}**"
    if dataset.description:
        title += f" — {as_text(dataset.description)}"
    st.markdown(title)
    # tiles as wide as their values, side by side while they fit: four equal columns cut
    # "classification" to "classific…" in a 700 px window
    tiles = st.container(horizontal=True, gap="large")
    tiles.metric("Rows", f"{len(dataset.frame):,}", width="content")
    tiles.metric("Features", len(dataset.feature_columns), width="content")
    tiles.metric("Task", dataset.task, width="content")
    tiles.metric("Classes", len(dataset.classes) if dataset.classes else "—", width="content")
    details = [f"Target: {dataset.target}", f"ID column: {dataset.id_column or 'none'}"]
    if dataset.classes:
        details.append("Classes: " + ", ".join(map(str, dataset.classes)))
    st.caption(as_text(" · ".join(details)))
    for note in dataset.notes:
        st.info(as_text(note), icon=":material/info:")
