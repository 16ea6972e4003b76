"""ui.display.as_text: names from files render as literal text, never as markup or links.

No GFM Markdown library is installed, so the autolink check follows the grammar Streamlit's
frontend applies (mdast-util-gfm-autolink-literal, whose patterns are checked to still be in
the shipped bundle) on the text as Markdown reads it (backslash escapes resolved), the way
Streamlit does. tests/test_browser_names.py checks the real pages in Chromium."""

import re
from pathlib import Path

import pytest
import streamlit

from ui.display import WORD_JOINER, as_label, as_text

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
# GFM's own (cmark-gfm) grammar, which the parse-time tokenizer follows: any scheme's "://",
# "www." and an "@" directly followed by a domain character.
GRAMMAR = re.compile(r"://|www\.|@[-\w]", re.IGNORECASE | re.ASCII)


def as_markdown_reads(markdown: str) -> str:
    """The text Markdown makes of ``markdown`` when every punctuation character is escaped:
    backslash escapes resolved (what the autolink search runs on)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def original(markdown: str) -> str:
    """``markdown`` with the escapes and the inserted word joiners removed."""
    return as_markdown_reads(markdown).replace(WORD_JOINER, "")


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
    """The check is not vacuous: escaping the punctuation (as_text before the word joiners)
    leaves every URL and address a link, since the search runs on the unescaped text."""
    escaped = re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", value)
    text = as_markdown_reads(escaped)
    assert URL.search(text) or EMAIL.search(text) or "ftp://" in text


@pytest.mark.parametrize("value", HOSTILE)
def test_as_text_leaves_no_autolink(value):
    text = as_markdown_reads(as_text(value))
    assert not URL.search(text), text
    assert not EMAIL.search(text), text
    assert not GRAMMAR.search(text), text


@pytest.mark.parametrize("value", HOSTILE)
def test_as_text_escapes_every_markdown_character_and_keeps_the_text(value):
    escaped = as_text(value)
    assert not re.search(r"[!-/:-@\[-`{-~]", re.sub(r"\\.", "", escaped))
    assert "\n" not in escaped and "\r" not in escaped
    assert original(escaped) == re.sub(r"[ \t]*\n[ \t\n]*", " ", value)


def test_line_breaks_become_spaces_and_outer_white_space_cannot_indent():
    assert original(as_text("a\r\nb\rc\n\n  d")) == "a b c d"
    assert as_text("    code").startswith(WORD_JOINER + "    ")
    assert as_text("bold ").endswith(" " + WORD_JOINER)  # "**…**" still closes after it


@pytest.mark.parametrize("value", ["12:30", "P(yes) = 0.53", "x: y", "a.b.c", "wwwx", "@",
                                   "a @ b", "", "Glucose (mg/dl)", "café", "ε = 0.50"])
def test_ordinary_text_gets_no_invisible_characters(value):
    assert WORD_JOINER not in as_text(value)
    assert original(as_text(value)) == value


def test_a_word_joiner_goes_exactly_where_a_link_would_start():
    assert as_text("http://a.example") == f"http\\:{WORD_JOINER}\\/\\/a\\.example"
    assert as_text("WWW.a.example") == f"WWW{WORD_JOINER}\\.a\\.example"
    assert as_text("a@b.co") == f"a\\@{WORD_JOINER}b\\.co"
    assert as_text(3.5) == "3\\.5" and as_text(None) == "None"


@pytest.mark.parametrize("value", ["Glucose (mg/dL)", "P(Yes)", "BMI (kg/m²)", "a-b.c, d's",
                                   "share = 5 %; why?"])
def test_a_label_reads_as_written(value):
    """Issue 26: a label is also the accessible name ("Held\\-out row \\(ID…" was read)."""
    assert as_label(value) == value


@pytest.mark.parametrize("value", [*HOSTILE, "- a", "1. a", "12) a", "-5"])
def test_a_label_keeps_every_markup_character_escaped(value):
    """What :func:`as_label` leaves bare is markup nowhere inside one line: parentheses
    (brackets stay escaped, so no link), "/", quotes, "%;?=", and "-", "." and ")" except
    where they would start a list."""
    label = as_label(value)
    assert original(label) == original(as_text(value))
    text = as_markdown_reads(label)
    assert not URL.search(text) and not EMAIL.search(text) and not GRAMMAR.search(text), text
    bare = re.sub(r"\\.", "", label)
    assert not re.search(r"[!#$&*+:<>@\[\\\]^_`{|}~]", bare), label
    assert not re.match(r"\s*(?:\d{1,9}[.)]|-)", bare), label
