"""Decimals from a feature's spread (forestviz.numbers): the one rule drawings, tables and
sentences print numbers with."""

import pytest

from forestviz.numbers import decimals, distinct_texts, number_text


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
