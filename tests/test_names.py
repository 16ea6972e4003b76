"""forestviz.names: display names are short, distinct and one line; the full name is
kept."""

import random
from itertools import pairwise

import pytest

from forestviz.names import (
    ELLIPSIS,
    NAME_LIMIT,
    DisplayNames,
    clean,
    elide,
    elide_unique,
    wrap_name,
)

LONG = "Glucose concentration 2 hours after an oral glucose tolerance test " * 75  # 5,025


def test_short_names_stay_whole_and_long_ones_keep_their_head():
    assert NAME_LIMIT == 40
    assert elide("BMI (kg/m²)") == "BMI (kg/m²)"
    assert elide("x" * NAME_LIMIT) == "x" * NAME_LIMIT
    shown = elide(LONG)
    assert len(shown) == NAME_LIMIT and shown.endswith(ELLIPSIS)
    assert shown == LONG[: NAME_LIMIT - 1] + "…"
    assert elide(LONG, limit=10) == "Glucose c…"
    assert elide(12345) == "12345" and elide(None) == "None"
    with pytest.raises(ValueError, match="at least 1"):
        elide("name", limit=0)


def test_names_are_shown_on_one_line_without_reordering_controls():
    assert clean("a\tb\n\n c\r\x00d\u2028e  ") == "a b c d e"
    assert clean("abc\u202edef\u2066g\u200f") == "abcdefg"  # right-to-left overrides dropped
    assert clean("می\u200cخواهم") == "می\u200cخواهم"  # a Persian word keeps its ZWNJ
    assert clean("\x00\x07 ") == ""
    assert elide("\t" + "x" * 100) == "x" * 39 + "…"  # cleaned first, then counted


def test_the_cut_keeps_a_letter_with_its_accents():
    name = "e\u0301" * 30  # é as e + combining acute accent
    shown = elide(name, limit=10)
    assert shown == "e\u0301" * 4 + "…"  # the fifth é would lose its accent: left out whole
    assert len(shown) <= 10


def test_elide_unique_keeps_every_position_distinct():
    names = [LONG, LONG + " (mmol/L)", LONG, "a", "a", "a #2", "b"]
    shown = elide_unique(names)
    assert len(set(shown)) == len(names)
    assert all(len(text) <= NAME_LIMIT for text in shown)
    assert shown[0] == elide(LONG)
    assert shown[1] == elide(LONG, NAME_LIMIT - 3) + " #2"
    assert shown[2] == elide(LONG, NAME_LIMIT - 3) + " #3"
    assert shown[3:] == ["a", "a #2", "a #2 #2", "b"]  # never a text given before
    assert elide_unique([]) == []


def test_elide_unique_with_many_alike_names_and_a_tiny_limit():
    shown = elide_unique(["same"] * 120, limit=8)
    assert len(set(shown)) == 120
    assert max(map(len, shown[:99])) <= 8  # " #100" leaves no room in 8 characters


def test_display_names_are_stable_per_name_and_list_the_shortened_ones():
    names = DisplayNames()
    first, second = names(LONG), names(LONG + "!")
    assert names(LONG) == first and second != first
    assert names("age") == "age" and names("a\tb") == "a b"
    assert not names.is_shortened("age") and not names.is_shortened("a\tb")
    assert names.is_shortened(LONG) and names.is_shortened(LONG + "!")
    assert names.shortened() == {LONG: first, LONG + "!": second}


def test_wrap_name_loses_nothing_and_bounds_the_width():
    rng = random.Random(0)
    alphabet = "ab cd-é\u0301\t\n\u00a0x"
    for _ in range(2000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randrange(300)))
        width = rng.randrange(1, 90)
        lines = wrap_name(name, width)
        assert "".join(lines) == clean(name)
        assert all(0 < len(line) <= width for line in lines)
    lines = wrap_name(LONG)
    assert "".join(lines) == clean(LONG) and max(map(len, lines)) <= 80
    assert all(" " in (a[-1], b[0]) for a, b in pairwise(lines))  # between words
