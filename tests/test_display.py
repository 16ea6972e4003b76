"""ui.display.as_text: names from files render as literal text, never as markup or links, and
copy as they are written: nothing invisible is added (issue 36).

No GFM Markdown library is installed, so the autolink check follows the grammar Streamlit's
frontend applies (mdast-util-gfm-autolink-literal, whose patterns are checked to still be in
the shipped bundle) on each text node as Markdown reads it (backslash escapes resolved; a
code span is no text node), the way Streamlit does, and :func:`read` follows CommonMark's
rules for escapes and code spans. tests/test_browser_names.py checks the real pages in
Chromium, tests/test_browser_copy.py what a user copies there."""

import re
from pathlib import Path

import icu
import pytest
import streamlit
from hypothesis import example, given
from hypothesis import strategies as st

from ui.display import as_label, as_text

HOSTILE = [
    "http://evil.example/x",
    "https://evil.example/cls",
    "HTTPS://EVIL.EXAMPLE",
    "www.phish.example",
    "WwW.Phish.Example",
    "contact a@b.co",
    "mailto:x@y.co",
    "xmpp:foo@bar.example/txt",
    "ftp://files.example/f",
    "see(www.paren.example)",
    "x.www.evil.example",
    "http://www.double.example",
    "<http://angle.example>",
    "<a@b.co>",
    "[x](http://evil)",
    "[x][ref]\n\n[ref]: http://evil.example",
    "![img](x)",
    "![img](https://evil.example/i.png)",
    "# heading",
    "<b>html</b>",
    '<a href="http://evil.example">click</a>',
    ":red[x]",
    ":material/home: :smile:",
    "$math$",
    "$$x^2$$",
    "`code`",
    "```block```",
    "**bold** _it_ ~~strike~~",
    "1. item",
    "- item",
    "> quote",
    "a | b\n--|--\n1 | 2",
    "line one\n\n    indented code",
    "    four spaces",
    "trailing \\",
    "&amp; &#x41;",
    "wwwww.many.example",
    "user.name+tag@sub.domain.example",
]

# The patterns remark-gfm's autolink literals search the (unescaped) text with, as shipped in
# Streamlit's frontend (mdast-util-gfm-autolink-literal), and their Python equivalents (\w is
# ASCII in JavaScript). The checks below are stricter than the shipped ones: they ignore the
# conditions on the character before a match and on the domain's last labels.
SHIPPED = (r"/(https?:\/\/|www(?=\.))([-.\w]+)([^ \t\r\n]*)/gi",
           r"/(?<=^|\s|\p{P}|\p{S})([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)/gu")
URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE | re.ASCII)
EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)
# GFM's own grammar, which the parse-time tokenizer follows, taken wider: any scheme's "://",
# "www." and an "@" before a domain with a dot (micromark's and cmark-gfm's e-mail needs one;
# "Pima risk@5" is no address).
GRAMMAR = re.compile(r"://|www\.|@[-\w]+\.[-\w]", re.IGNORECASE | re.ASCII)
INVISIBLE = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:][:Cf:]]")
_PIECE = re.compile(r"\\([!-/:-@\[-`{-~])|(`+)|(.)", re.DOTALL)


def read(markdown: str) -> tuple[list[str], list[str]]:
    """What CommonMark makes of ``markdown`` (one line) as to escapes and code spans: the
    text nodes (escapes resolved) and the code spans' contents. A run of backticks opens a
    span that the next run of the same length closes (one space dropped at each end when
    both ends have one), else it is literal text."""
    texts, codes, _ = _scan(markdown)
    return texts, codes


def outside_code_spans(markdown: str) -> list[str]:
    """The Markdown source of each text node (escapes kept)."""
    return _scan(markdown)[2]


def _scan(markdown: str) -> tuple[list[str], list[str], list[str]]:
    texts, codes, sources, current, start, i = [], [], [], [], 0, 0
    while i < len(markdown):
        piece = _PIECE.match(markdown, i)
        escaped, fence, char = piece.groups()
        # a code span's closing run is found in the raw text: no escape inside a code span
        closing = fence and re.compile(f"(?<!`){fence}(?!`)").search(markdown, piece.end())
        if not closing:
            current.append(escaped or fence or char)
            i = piece.end()
            continue
        texts.append("".join(current))
        sources.append(markdown[start:i])
        code = markdown[piece.end():closing.start()]
        if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
            code = code[1:-1]
        codes.append(code)
        current, start = [], closing.end()
        i = closing.end()
    texts.append("".join(current))
    sources.append(markdown[start:])
    return texts, codes, sources


def shown(markdown: str) -> str:
    """The text ``markdown`` shows (and a user copies), text nodes and code spans in order."""
    texts, codes = read(markdown)
    return texts[0] + "".join(code + text for code, text in zip(codes, texts[1:], strict=True))


def one_line(value: str) -> str:
    return re.sub(r"[ \t]*(?:\r\n?|\n)[ \t\r\n]*", " ", value).strip()


def invisible(text: str) -> list[str]:
    return [char for char in text if INVISIBLE.contains(char)]


def no_link_in_any_text_node(markdown: str) -> None:
    for text in read(markdown)[0]:
        assert not URL.search(text) and not EMAIL.search(text), text
        assert not GRAMMAR.search(text), text


def test_the_autolink_patterns_are_the_ones_streamlit_ships():
    bundles = list((Path(streamlit.__file__).parent / "static").rglob("StreamlitMarkdown*.js"))
    assert bundles, "Streamlit's Markdown bundle was not found"
    text = "".join(path.read_text(encoding="utf-8", errors="replace") for path in bundles)
    for pattern in SHIPPED:
        assert pattern in text, (
            f"Streamlit's autolink grammar changed ({pattern} is gone): check what "
            "ui.display.as_text must break, then update this test")




@pytest.mark.parametrize("value", [v for v in HOSTILE if GRAMMAR.search(v)])
def test_backslash_escapes_alone_would_still_autolink(value):
    """The check is not vacuous: escaping the punctuation leaves every URL and address a
    link, since the search runs on the unescaped text."""
    escaped = re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", value)
    (text,), _ = read(escaped)
    assert URL.search(text) or EMAIL.search(text) or "ftp://" in text


@pytest.mark.parametrize("value", HOSTILE)
def test_as_text_leaves_no_autolink(value):
    no_link_in_any_text_node(as_text(value))


@pytest.mark.parametrize("value", HOSTILE)
def test_as_text_escapes_every_markdown_character_and_keeps_the_text(value):
    escaped = as_text(value)
    for source in outside_code_spans(escaped):
        assert not re.search(r"[!-/:-@\[-`{-~]", re.sub(r"\\.", "", source)), escaped
    assert "\n" not in escaped and "\r" not in escaped
    assert shown(escaped) == one_line(value)
    assert not invisible(escaped)


def test_line_breaks_become_spaces_and_outer_white_space_cannot_indent():
    assert shown(as_text("a\r\nb\rc\n\n  d")) == "a b c d"
    assert as_text("    code") == "code"  # no indented code block
    assert as_text(" bold ") == "bold"  # "**…**" still closes after it


@pytest.mark.parametrize("value", ["12:30", "P(yes) = 0.53", "x: y", "a.b.c", "wwwx", "@",
                                   "a @ b", "", "Glucose (mg/dl)", "café", "ε = 0.50",
                                   "Pima risk@5", "House prices@12", "x@y", "a@b."])
def test_ordinary_text_is_one_text_node_as_written(value):
    texts, codes = read(as_text(value))
    assert codes == [] and texts == [value]


def test_a_word_that_could_be_a_link_is_a_code_span_and_nothing_else_changes():
    assert as_text("http://a.example") == "`http://a.example`"
    assert as_text("Signed in: a@b.co (admin)") == "Signed in\\: `a@b.co` \\(admin\\)"
    assert as_text("see(www.x.example), then") == "`see(www.x.example),` then"
    assert as_text("`a@b.co`") == "`` `a@b.co` ``"  # a longer fence, padded
    assert as_text("x``y@b.co") == "```x``y@b.co```"
    assert as_text("Pima risk@5") == "Pima risk\\@5"  # a model's reference: no address
    assert as_text(3.5) == "3\\.5" and as_text(None) == "None"


WORDS = st.sampled_from(["http://", "HTTPS://", "www.", "WwW.", "@", "a", "b.co", ".", "-",
                         "_", "`", "``", "\\", "*", "[", "]", "(", ")", "<", ">", ":", "/",
                         "5", " ", "  ", "\n", "\t", "é", "mailto:", "$", "|", "#", "\u2060"])


@given(st.lists(WORDS, max_size=12).map("".join))
@example("a@b.co`")
@example("` `x@y.co")
@example("``a@b.co ``")
@example("http://\\")
def test_any_text_shows_as_written_with_no_link_and_nothing_invisible_added(value):
    markdown = as_text(value)
    assert shown(markdown) == one_line(value)
    no_link_in_any_text_node(markdown)
    assert invisible(markdown) == invisible(value)


@pytest.mark.parametrize("value", ["Glucose (mg/dL)", "P(Yes)", "BMI (kg/m²)", "a-b.c, d's",
                                   "share = 5 %; why?"])
def test_a_label_reads_as_written(value):
    """Issue 26: a label is also the accessible name ("Held\\-out row \\(ID…" was read)."""
    assert as_label(value) == value


@pytest.mark.parametrize("value", [*HOSTILE, "- a", "1. a", "12) a", "-5", "1. a@b.co (x)"])
def test_a_label_keeps_every_markup_character_escaped(value):
    """What :func:`as_label` leaves bare is markup nowhere inside one line: parentheses
    (brackets stay escaped, so no link), "/", quotes, "%;?=", and "-", "." and ")" except
    where they would start a list; a code span's text is as written."""
    label = as_label(value)
    assert shown(label) == one_line(value)
    assert read(label)[1] == read(as_text(value))[1]
    no_link_in_any_text_node(label)
    for source in outside_code_spans(label):
        bare = re.sub(r"\\.", "", source)
        assert not re.search(r"[!#$&*+:<>@\[\\\]^_`{|}~]", bare), label
    assert not re.match(r"\s*(?:\d{1,9}[.)]|-)", re.sub(r"\\.", "", label)), label
