"""Numbers people read (issue 39, item 2): one formatter (forestviz.numbers) for the page, the
record, the model card and the command line's human output. Never scientific notation, thousands
grouped, a true minus, "—" for nothing, shares adding up to 100 %; each number quoted in the
issue, and properties over every finite float (1e-12 and 1e15 included)."""

import math
import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from forestviz.card import views as card_views
from forestviz.cli.progress import cell_text
from forestviz.explain.drawing.drawn_numbers import Printed
from forestviz.explain.plots.population import dependence_figure
from forestviz.io.dataset import schema
from forestviz.numbers import (
    MAX_DECIMALS,
    aligned_texts,
    bound_text,
    decimal_text,
    difference_texts,
    distinct_texts,
    fixed,
    input_format,
    number_text,
    percent_shares,
    percent_text,
    plain_number,
    range_text,
    read_number,
    signed_number,
)
from forestviz.store.readable import detail_text

SCIENTIFIC = re.compile(r"\d[eE][−+-]?\d")
FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15)
SPREADS = st.one_of(st.none(), st.floats(1e-9, 1e9))


def people_form(text: str) -> bool:
    """A number as people read it: no exponent, no hyphen for a minus, digits grouped by
    threes before the point."""
    whole = text.lstrip("−+").partition(".")[0]
    return (not SCIENTIFIC.search(text) and "-" not in text
            and re.fullmatch(r"\d{1,3}(,\d{3})*", whole) is not None)


# ------------------------------------------------------------------ the issue's numbers
def test_the_numbers_quoted_in_issue_39():
    assert signed_number(230.0) == "+230" and plain_number(230.0, 2) == "230"  # "2.3e+02"
    assert plain_number(881.2115099303014, 4) == "881.2"  # printed whole in the picker
    assert decimal_text(0.0996, 2) == "0.10"  # the waterfall's end prints as its tile
    assert percent_shares([0.985, 0.015]) == ["99%", "1%"]  # not "99 %" beside "2 %"
    assert card_views.number(-0.102) == "−0.102"  # the card's intercept, not "-0.102"
    assert plain_number(1234.0, 4) == "1,234" and number_text(1234.0) == "1,234"
    assert plain_number(None) == plain_number(float("nan")) == "—"


def test_a_push_keeps_its_significant_zeros_beside_its_neighbours():
    """The waterfall's pushes at two significant digits: 0.0996 reads "+0.10" beside "+0.098"
    (it read "+0.1"); rounding up to a power of ten keeps two digits, not three."""
    assert [signed_number(v) for v in (0.0996, 0.098, -0.05, 0.9996, 99.96, 230.0)] == [
        "+0.10", "+0.098", "−0.050", "+1.0", "+100", "+230"]
    assert signed_number(-1e-20) == signed_number(0.0) == "0"


@given(FINITE, st.integers(1, 6))
@example(0.0996, 2)
@example(-9.9996, 4)
@example(5.71892869053029e-17, 2)  # past MAX_DECIMALS: cut there, by design
def test_a_push_shows_exactly_its_significant_digits(value, digits):
    text = plain_number(value, digits, zeros=True)
    assert people_form(text)
    shown = text.lstrip("−+").replace(",", "").replace(".", "").lstrip("0")
    within = abs(value) >= 10.0 ** (digits - 1 - MAX_DECIMALS)  # the decimals it may show
    if read_number(text) != 0 and abs(value) < 10 ** (digits - 1) and within:
        assert len(shown) == digits, text


def test_no_formatter_prints_scientific_notation_where_it_did():
    assert number_text(123456.0) == "123,456"  # was "1.235e+05"
    assert number_text(0.000012345) == "0.00001234"  # was "1.234e-05"
    assert range_text(123456.0, 234567.0) == "123,456–234,567"  # was "1.235e+05–2.346e+05"
    assert difference_texts(123456.0, 0.5) == ("123,456", "0.5", "123,456")
    assert distinct_texts(1e15, 1e15 + 2) == ["1,000,000,000,000,000", "1,000,000,000,000,002"]


def test_a_limit_in_a_message_is_a_power_of_ten_as_people_write_it():
    """Messages that named their limits as "±1e+30" and "at least 1e-30" (io/values.py,
    trees/loaded.py, parameters.py)."""
    assert [bound_text(v) for v in (1e30, 1e-30, -1e100, 1e7)] == ["10³⁰", "10⁻³⁰", "−10¹⁰⁰",
                                                                   "10⁷"]
    assert [bound_text(v) for v in (1e6, 0.5, 4294967295, 0, 2.5e-8)] == [
        "1,000,000", "0.5", "4,294,967,295", "0", "0.000000025"]


@given(st.integers(-300, 300), st.sampled_from([1.0, -1.0, 2.0, 1.5]))
def test_a_limit_reads_back_as_the_number_it_names(exponent, mantissa):
    value = mantissa * 10.0 ** exponent
    text = bound_text(value)
    assert not SCIENTIFIC.search(text) and "e" not in text
    if "10" in text and text.lstrip("−").startswith("10") and any(c in text for c in "⁰¹²³⁴⁵⁶⁷⁸⁹"):
        power = text.lstrip("−")[2:].translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        assert (-1 if text.startswith("−") else 1) * 10.0 ** int(power) == value
        assert abs(mantissa) == 1.0 and abs(exponent) > 6
    else:
        assert abs(mantissa) != 1.0 or abs(exponent) <= 6
        assert people_form(text)


def test_a_feature_value_prints_with_a_true_minus_and_grouped_thousands():
    assert number_text(-0.5, 1.0) == "−0.5"  # was "-0.5"
    assert number_text(1001.2, 350.0) == "1,001"
    assert number_text(-0.0001, 3.4) == "0"  # never "−0"
    assert fixed(-1234.5678, 2) == "−1,234.57"
    assert difference_texts(-1.5, 0.25, spread=1.0) == ("−1.5", "0.25", "−1.75")


def test_decimals_kept_where_a_column_has_them():
    assert decimal_text(0.5, 3) == "0.500" and decimal_text(-0.0004, 3) == "0.000"
    assert decimal_text(-0.102, 3) == "−0.102" and decimal_text(2.5, 1, sign=True) == "+2.5"
    assert aligned_texts(-1234.56, 12.25) == ["−1,235", "12"]
    assert aligned_texts(-234.56, 12.25) == ["−234.6", "12.2"]
    assert percent_text(0.1234, 1) == "12.3%" and percent_text(None) == "—"


def test_the_model_card_prints_nothing_as_a_dash_and_shares_adding_to_100():
    assert card_views.number(None) == "—"  # was "n/a"
    assert card_views.estimate({"value": 0.7881, "low": -0.0123, "high": 0.857}) == (
        "0.788 (−0.012 to 0.857)")
    shares = {"No": 0.6505, "Yes": 0.3495}  # 65.05 % and 34.95 %: rounded each, 65.1 + 35.0
    assert card_views.outcome_text({"shares": shares}) == "No 65.1%, Yes 34.9%"
    assert card_views.outcome_text({"mean": 152133.25, "sd": 0.000077}) == (
        "mean 152,133, standard deviation 0.000077")  # was "mean 1.521e+05, … 7.7e-05"


def test_the_model_card_prints_an_error_in_the_outcomes_units_to_its_meaning():
    """The card of a regression model printed its MAE as "47.111": a score's three decimals
    on a number in the outcome's units. It now has three significant digits, its interval's
    ends to the same decimals; R² keeps three decimals."""
    card = {"metrics": {"values": {
        "R²": {"value": 0.4567, "low": 0.3811, "high": 0.52},
        "MAE": {"value": 47.1111, "low": 44.567, "high": 50.02}}}}
    table = card_views.metrics_table(card)
    assert table["held-out value"].tolist() == ["0.457", "47.1"]
    assert table["95% interval"].tolist() == ["0.381 to 0.520", "44.6 to 50.0"]
    assert card_views.estimate(card["metrics"]["values"]["MAE"], "MAE") == "47.1 (44.6 to 50.0)"


def test_the_command_lines_tables_read_as_people_read_them():
    assert cell_text(-0.1024) == "−0.102" and cell_text(np.float64(0.5)) == "0.500"
    assert cell_text(np.int64(12345)) == "12,345" and cell_text(7) == "7"
    assert cell_text(None) == cell_text(float("nan")) == "—"
    assert cell_text("Pima risk@1") == "Pima risk@1" and cell_text(True) == "True"


def test_the_audit_detail_reads_as_facts_not_json():
    detail = ('{"calibrated":0.43012345678901,"events":12345,"interval":[0.4199999,0.63],'
              '"risk":0.5712345678,"row":"12","unfamiliar":true,"value":881.2115099303014}')
    assert detail_text(detail) == ("calibrated 0.43 · events 12,345 · interval 0.420–0.630 · "
                                   "risk 0.571 · row 12 · unfamiliar yes · value 881")
    assert detail_text('{"file_digest":"hmac-sha256:ab","shift":-2.5e-07}') == (
        "file digest hmac-sha256:ab · shift −0.00000025")
    assert detail_text("P00001") == "P00001" and detail_text("12") == "12"
    assert detail_text(None) == "—"


def test_a_drawn_number_reads_back_from_its_people_form():
    assert float(Printed("−1,234.5")) == -1234.5 and f"{Printed('−1,234.5'):.2f}" == "−1,234.5"
    assert read_number("+0.061") == 0.061 and math.isnan(read_number("—"))


# ------------------------------------------------------------------ properties
@given(FINITE, st.integers(1, 7))
@example(1e-12, 3)
@example(-1e-12, 3)
@example(1e15, 4)
@example(-999.96, 4)  # rounds up to a new thousands group: "−1,000"
@example(5e-324, 2)
def test_a_plain_number_is_people_form_and_reads_back_within_its_precision(value, digits):
    text = plain_number(value, digits)
    assert people_form(text)
    places = len(text.partition(".")[2])
    assert abs(read_number(text) - value) <= 0.5 * 10.0 ** -places * (1 + 1e-9) + 1e-300
    assert text.startswith("−") == (value < 0 and read_number(text) != 0)


@given(FINITE, SPREADS)
@example(1e-12, None)
@example(1e15, None)
@example(-1e15, 1e-9)
@example(-2.5e-7, 3.0)
def test_a_feature_value_is_people_form_to_its_spreads_precision(value, spread):
    text = number_text(value, spread)
    assert people_form(text)
    if spread is not None:  # to the place of the spread's third significant digit
        place = 10.0 ** -min(max(0, 2 - math.floor(math.log10(spread))), 17)
        assert abs(read_number(text) - value) <= 0.5 * place * (1 + 1e-9) + 1e-300


@given(FINITE, FINITE, SPREADS)
@example(1e-12, 1e15, None)
@example(-3.0, -3.0000000001, 1.0)
def test_ranges_differences_and_aligned_numbers_are_people_form(a, b, spread):
    low, high = sorted((a, b))
    for text in (range_text(low, high, spread=spread), *difference_texts(a, b, spread=spread),
                 *aligned_texts(a, b), *distinct_texts(a, b, spread=spread)):
        for part in re.split(r"(?<=\d)–", text):
            assert people_form(part), text


@given(FINITE, st.integers(0, 6), st.booleans())
@example(-0.0004, 3, False)
@example(1e15, 0, True)
def test_fixed_decimals_read_back_within_half_a_unit(value, places, sign):
    text = decimal_text(value, places, sign=sign)
    assert people_form(text) and len(text.partition(".")[2]) == places
    error = abs(read_number(text) - value)  # a float's own rounding on top, at 1e15
    assert error <= 0.5 * 10.0 ** -places * (1 + 1e-9) + abs(value) * 2.0 ** -52
    assert text.startswith("+") == (sign and value > 0 and read_number(text) != 0)


@pytest.mark.parametrize("nothing", [None, float("nan"), np.nan, float("inf")])
def test_nothing_prints_as_a_dash_everywhere(nothing):
    assert {plain_number(nothing), decimal_text(nothing, 2), number_text(nothing),
            number_text(nothing, 1.0), fixed(nothing, 2), percent_text(nothing),
            signed_number(nothing), card_views.number(nothing), cell_text(nothing)} == {"—"}


@given(st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=12), st.integers(0, 2))
@example([0.985, 0.015], 0)
@example([1, 1, 1], 0)
@example([1, 1, 1, 1, 1, 1, 1], 1)
@example([1e-6] * 11 + [1.0], 2)
def test_shares_always_add_to_exactly_100(weights, places):
    shares = np.asarray(weights) / np.sum(weights)
    texts = percent_shares(shares, places)
    printed = [Decimal(t.removesuffix("%")) for t in texts]
    assert sum(printed) == 100  # exactly, in decimal arithmetic
    assert all(len(t.removesuffix("%").partition(".")[2]) == places for t in texts)
    unit = Decimal(10) ** -places  # each within one unit of its own share
    assert all(abs(p - Decimal(100 * s)) < unit for p, s in zip(printed, shares, strict=True))


# ------------------------------------------------------------------ found on the pages
def test_the_data_pages_examples_print_as_people_read_them():
    """Found by tests/test_app_numbers.py: the Data page listed "4.5118295115637776e-05"."""
    frame = pd.DataFrame({"dose": [4.5118295115637776e-05, -2.0, 150000.0],
                          "ward": ["north", "south", "east"], "smoker": [True, False, True]})
    examples = schema(frame).set_index("column")["examples"]
    assert examples["dose"] == "0.0000451183, −2, 150,000"
    assert examples["ward"] == "north, south, east" and examples["smoker"] == "True, False"


def test_the_dependence_hover_prints_a_rows_value_to_four_digits():
    """Found by tests/test_app_numbers.py: the Forest page's hovers read "dose =
    4.60270501117249e-05"."""
    frame = pd.DataFrame({"id": ["a", "b"], "value": [4.60270501117249e-05, 1234567.0],
                          "contribution": [31710.2, -0.5], "colour_column": ["age"] * 2,
                          "colour": [30.0, 61.5]})
    (trace,) = dependence_figure(frame, "dose", "cost").data
    assert list(trace.hovertext) == ["a: dose = 0.00004603, contribution +31,710; age = 30",
                                     "b: dose = 1,234,567, contribution −0.5000; age = 61.5"]


@given(FINITE)
@example(0.00001)  # Streamlit's "%g" showed "1e-05" in the what-if form
@example(150_000.0)
@example(float("nan"))
def test_a_number_box_shows_its_column_without_scientific_notation(typical):
    """The number boxes (what-if form, new patient, cohort cut, requested change) format
    their values with fixed decimals that show the column's typical value."""
    shown = input_format(typical) % (0.0 if typical != typical else typical)
    assert "e" not in shown.lower() and "inf" not in shown
    if typical == typical and typical != 0 and abs(typical) >= 1e-12:
        assert float(shown) == pytest.approx(typical, rel=1e-3)
