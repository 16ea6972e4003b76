"""Decimals from a feature's spread (forestviz.numbers): the one rule drawings, tables and
sentences print numbers with."""

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from forestviz.numbers import (
    aligned_texts,
    decimals,
    difference_texts,
    distinct_texts,
    number_text,
    outcome_text,
    percent_shares,
    plain_number,
    range_text,
    signed_number,
)


@pytest.mark.parametrize(("spread", "places"), [
    (0.003, 5), (0.0388, 4), (0.208, 3), (3.4, 2), (32.0, 1), (352.0, 0), (1e6, 0),
    (0.0, 0), (float("nan"), 0)])
def test_decimals_show_the_spread_to_three_significant_digits(spread, places):
    assert decimals(spread) == places


def test_numbers_print_to_their_features_spread():
    assert number_text(0.006137, 0.003) == "0.00614"  # not "0.00" (two fixed decimals)
    assert number_text(492.25, 352.0) == "492"
    assert number_text(127.5, 32.0) == "127.5"
    assert number_text(148.0, 32.0) == "148"  # no trailing zeros
    assert number_text(-0.0001, 3.4) == "0"
    assert number_text(0.0012345) == "0.001234"  # no spread: four significant digits


def test_a_value_and_its_threshold_never_print_alike():
    assert distinct_texts(148.0, 147.96, spread=32.0) == ["148", "147.96"]
    assert distinct_texts(0.5, 0.5, spread=32.0) == ["0.5", "0.5"]  # equal numbers stay equal
    assert distinct_texts(1.00004, 1.00001) == ["1.00004", "1.00001"]


def test_numbers_apart_only_past_seven_digits_print_alike_and_say_so():
    """A training median on a tree's threshold (found by `make fuzz-steps`: "0.15350726 >
    0.15350725", digits a float32 comparison does not hold): both print as one number would,
    with a note, and the margin is 0."""
    from forestviz.numbers import apart_note
    from forestviz.trees.paths import PathStep

    texts = distinct_texts(0.15350726, 0.15350725, spread=1.0)
    assert texts == ["0.15", "0.15"]
    assert apart_note(texts, (0.15350726, 0.15350725)) == " (apart past the 7th digit)"
    assert apart_note(["0.5", "0.5"], (0.5, 0.5)) == ""  # equal numbers: nothing to say
    assert difference_texts(0.15350726, 0.15350725, spread=1.0) == ("0.15", "0.15", "0")
    assert distinct_texts(0.1535073, 0.1535071, spread=1.0) == ["0.1535073", "0.1535071"]
    step = PathStep(tree=0, depth=0, node=0, feature=0, feature_name="dose",
                    threshold=0.15350725, direction=">", value=0.15350726, margin=1e-8,
                    scaled_margin=1e-8, fragile=True, spread=1.0)
    assert step.sentence() == "dose = 0.15 > 0.15 (apart past the 7th digit)"


def test_a_printed_margin_is_the_printed_value_minus_the_printed_threshold():
    """"Diabetes pedigree = 1.034 > 0.343, margin 0.691", never 0.692 beside those two: the
    three agree as printed, and the margin is within one unit of its last decimal of the
    exact difference, with its sign."""
    rng = np.random.default_rng(3)
    assert difference_texts(1.034, 0.3425, spread=0.331) == ("1.034", "0.343", "0.691")
    for _ in range(2000):
        spread = 10.0 ** rng.uniform(-4, 3)
        value, threshold = rng.normal(0, 3 * spread, size=2)
        shown, base, margin = difference_texts(value, threshold, spread=spread)
        places = max(len(t.partition(".")[2]) for t in (shown, base, margin))
        exact = [Decimal(t.replace("−", "-").replace(",", "")) for t in (shown, base, margin)]
        assert exact[2] == exact[0] - exact[1]
        assert abs(float(exact[2]) - (value - threshold)) <= 10.0 ** -places * (1 + 1e-9)
        assert np.sign(float(exact[2])) == np.sign(value - threshold)


def test_aligned_numbers_share_the_decimals_of_the_largest_at_four_digits():
    assert aligned_texts(4.735, 4.6, 4.879) == ["4.735", "4.600", "4.879"]
    assert aligned_texts(152.3, 98.21, 204.54) == ["152.3", "98.2", "204.5"]
    assert aligned_texts(12345.6, 3) == ["12,346", "3"]
    assert aligned_texts(-0.0001, 3.0) == ["0.000", "3.000"]  # never "-0.000"
    assert aligned_texts(0.001234, 0.0021) == ["0.001234", "0.002100"]
    assert aligned_texts(float("nan"), 2.5) == ["—", "2.500"]
    for numbers in ([4.735, 4.6, 4.879], [152.3, 98.21, 204.54], [-7.25, 0.5]):
        texts = aligned_texts(*numbers)
        for text, number in zip(texts, numbers, strict=True):  # each rounds its own number
            assert abs(_read(text) - number) <= 0.5 * 10.0 ** -len(text.partition(".")[2])


def test_a_range_keeps_the_decimals_of_its_longer_end():
    assert range_text(4.6, 4.879, spread=0.5) == "4.600–4.879"  # not "4.6–4.879"
    assert range_text(27.6, 32.9, spread=6.0) == "27.6–32.9"
    assert range_text(148.0, 151.0, spread=32.0) == "148–151"
    assert range_text(0.14, 0.14, spread=0.05) == "0.14"
    assert range_text(0.1404, 0.1406, spread=0.05) == "0.1404–0.1406"  # told apart first
    assert range_text(123456.0, 234567.0) == "123,456–234,567"  # was "1.235e+05–2.346e+05"


def _read(text: str) -> float:
    return float(text.replace("−", "-").replace(",", "").replace("+", ""))


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15),
       st.integers(1, 6))
@example(230.0, 2)  # printed "2.3e+02" by the sentence of issue 35
@example(881.2115099303014, 4)  # printed whole in the held-out picker
@example(-0.0001, 2)
def test_plain_numbers_never_use_an_exponent_and_read_back_to_their_digits(value, digits):
    text = plain_number(value, digits)
    assert "e" not in text.lower()
    assert not text.startswith("-")  # a true minus for people
    shown = _read(text)
    # the printed number is the value rounded to `digits` significant digits (the integer part
    # never cut): the error is at most half a unit of the last printed place
    places = len(text.partition(".")[2])
    assert abs(shown - value) <= 0.5 * 10.0 ** -places * (1 + 1e-9) + 1e-300
    if abs(value) >= 1:
        assert len(text.replace(",", "").replace("−", "").replace(".", "").lstrip("0")) >= min(
            digits, len(str(int(abs(value)))))
    if abs(shown) >= 1000:
        assert "," in text


def test_plain_numbers_of_issue_35():
    assert signed_number(230.0) == "+230"
    assert plain_number(881.2115099303014, 4) == "881.2"
    assert plain_number(1234567.8, 3) == "1,234,568"
    assert plain_number(float("nan")) == "—"
    assert plain_number(-0.00001, 2) == "−0.00001"
    assert plain_number(-1e-20, 2) == "0"  # past the last decimal printed: never "−0"


@given(st.lists(st.floats(0.001, 1.0), min_size=1, max_size=8), st.integers(0, 1))
@example([0.985, 0.015], 0)  # "99 % … 2 %": tree sides that added to 101 %
@example([1, 1, 1], 0)
def test_percent_shares_add_up_to_a_hundred(weights, places):
    shares = np.asarray(weights) / np.sum(weights)
    texts = percent_shares(shares, places)
    numbers = [float(t.removesuffix("%")) for t in texts]
    assert sum(numbers) == pytest.approx(100.0)
    unit = 10.0 ** -places
    assert all(abs(n - 100 * s) < unit + 1e-9 for n, s in zip(numbers, shares, strict=True))


def test_a_recorded_outcome_prints_as_people_read_it():
    assert outcome_text(np.float64(23.520193194084815)) == "23.52"
    assert outcome_text(881.2115099303014) == "881.2" and outcome_text(np.int64(275)) == "275"
    assert outcome_text("Yes") == "Yes" and outcome_text(True) == "True"
