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
  ``xmpp:``) into links by searching the already-unescaped text nodes, so :func:`as_text`
  writes each word that could start one (a ``://``, a ``www.``, an ``@`` before a domain with
  a dot) as a code span, whose text is no text node: it shows in the code font, reads and
  copies exactly as written, and is never a link. The app adds no invisible character to
  what a user may copy (issue 36: a U+2060 WORD JOINER after every ``@`` and inside every
  ``://`` made a copied e-mail address or model reference another text);
* line breaks become spaces and the outer white space is dropped (HTML shows none; four
  spaces at the start would begin a code block, and ``**{as_text(name)}**`` stays bold).

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
# Where GFM (remark-gfm's autolink literals) may start a link: a scheme's "://" (it links
# http(s) only), "www." (any case) and an "@" before a domain with a dot (an e-mail address; a
# model's "Pima risk@5" is none). Python's \w is wider than JavaScript's ASCII one.
_LINK_START = re.compile(r"://|www\.|@[-\w]+\.[-\w]", re.IGNORECASE)
_WORDS = re.compile(r"\S+")
_BACKTICKS = re.compile(r"`+")
_LINE_BREAKS = re.compile(r"[ \t]*(?:\r\n?|\n)[ \t\r\n]*")


def as_text(value: object) -> str:
    """``value`` as Markdown that renders literally and never as a link (names and values
    from files are data); it reads, and copies, the same, on one line."""
    return _inert(value, _escaped)


def _inert(value: object, escape) -> str:
    """``value`` on one line, its outer white space dropped, each word that could become a
    link as a code span and the text between through ``escape(text, at_start)``."""
    text = _LINE_BREAKS.sub(" ", str(value)).strip()
    pieces, end = [], 0
    for word in _WORDS.finditer(text):
        if _LINK_START.search(word.group()):
            pieces += [escape(text[end:word.start()], end == 0), _code_span(word.group())]
            end = word.end()
    pieces.append(escape(text[end:], end == 0))
    return "".join(pieces)


def _code_span(word: str) -> str:
    """``word`` (no white space) as a CommonMark code span: its fence longer than any run of
    backticks in it, padded by a space (which the span drops) where it starts or ends with
    one."""
    fence = "`" * (1 + max(map(len, _BACKTICKS.findall(word)), default=0))
    pad = " " if word.startswith("`") or word.endswith("`") else ""
    return f"{fence}{pad}{word}{pad}{fence}"


def _escaped(text: str, at_start: bool) -> str:
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
    return _inert(value, _label_escaped)


def _label_escaped(text: str, at_start: bool) -> str:
    text = _escaped(text, at_start)
    start = _LIST_START.match(text) if at_start else None
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
