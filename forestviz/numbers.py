"""Numbers as people read them: as many decimals as a feature's spread needs.

A feature's numbers print to the place of its spread's third significant digit (the spread:
its training standard deviation): "smoothness error = 0.00614" when the values spread by 0.003,
"mean area = 1001" when they spread by 350, "glucose = 127.5" when they spread by 32. Trailing
zeros are dropped ("148", not "148.0"). Two numbers that would print alike (a value and the
threshold it is tested against) get more decimals until they differ. Without a spread, numbers
print to four significant digits.

This module is the one home of how a number reads for a person (the page, the record, the card,
the command line's human output): never scientific notation ("230", not "2.3e+02"), thousands
grouped ("1,234"), a true minus ("−0.102", not "-0.102"), never "−0", "—" for nothing (None or
NaN), shares that add up to 100 % (:func:`percent_shares`). :func:`read_number` reads any of
these texts back. Machine outputs (JSON, CSV) keep the full float and never print through it.

Like :mod:`forestviz.names`, this module sits under everything and imports nothing of
forestviz: path sentences, tree drawings, tables and figures all print through it, so the
drawing's numbers and the text's numbers are the same.
"""

from __future__ import annotations

import math
from decimal import Decimal
from numbers import Real

SPREAD_DIGITS = 3
"""Significant digits of the spread that a feature's numbers show."""
MAX_DECIMALS = 17
# digits past which two numbers are not told apart: scikit-learn's trees compare float32 values,
# which hold about 7 significant digits; more would print rounding noise
MEANINGFUL_DIGITS = 7
NOTHING = "—"
"""What prints for no number at all (None, NaN)."""
MINUS = "−"
"""The true minus sign (U+2212) people read; "-" is a hyphen."""


def decimals(spread) -> int:
    """Decimals that show ``spread`` to ``SPREAD_DIGITS`` significant digits (0 for a spread of
    100 or more, or for no spread at all)."""
    spread = abs(float(spread))
    if not math.isfinite(spread) or spread == 0:
        return 0
    return min(max(0, SPREAD_DIGITS - 1 - math.floor(math.log10(spread))), MAX_DECIMALS)


def missing(value) -> bool:
    """Whether ``value`` is no number to print: None, NaN or an infinity."""
    return value is None or not math.isfinite(float(value))


def _signed(value: float, text: str, sign: bool, minus: str) -> str:
    """``text`` (the digits of ``abs(value)``) with its sign: ``minus`` before a negative
    number, "+" before a positive one when ``sign``, nothing before one that prints as 0."""
    if not any(c in "123456789" for c in text):
        return text
    return (minus if value < 0 else "+" if sign else "") + text


def decimal_text(value, places: int, *, sign: bool = False, minus: str = MINUS) -> str:
    """``value`` with exactly ``places`` decimals, trailing zeros kept (a risk "0.10", a
    threshold "0.606"), thousands grouped, a true minus, never "−0.000"; "—" for nothing."""
    if missing(value):
        return NOTHING
    value = float(value)
    return _signed(value, f"{abs(value):,.{places}f}", sign, minus)


def fixed(value, places: int) -> str:
    """``value`` with ``places`` decimals, trailing zeros (and a bare point) dropped, thousands
    grouped, a true minus; never "−0"; "—" for nothing."""
    text = decimal_text(value, places)
    return text.rstrip("0").rstrip(".") if "." in text else text


def read_number(text: str) -> float:
    """The number a text of this module prints ("−1,234.5" → -1234.5; "—" → NaN)."""
    text = str(text).strip()
    if text == NOTHING:
        return math.nan
    return float(text.replace(MINUS, "-").replace(",", "").removeprefix("+"))


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """"1 other column", "3 other columns": ``n`` and its noun, plural unless ``n`` is 1
    (``plural``: default the noun with an "s")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def significant_places(value, digits: int = 4) -> int:
    """Decimals that show ``value`` to ``digits`` significant digits (none from
    10^(digits − 1) up; ``digits − 1`` for zero or a value that is not finite)."""
    value = abs(float(value))
    if not math.isfinite(value) or value == 0:
        return digits - 1
    return min(max(0, digits - 1 - math.floor(math.log10(value))), MAX_DECIMALS)


def aligned_texts(*numbers, digits: int = 4) -> list[str]:
    """Numbers read side by side (a prediction, its interval's ends, a range of tree values),
    all with the decimals that show the largest of them to ``digits`` significant digits,
    trailing zeros kept: "4.735, 4.600–4.879", not "4.735, 4.6–4.879"
    (:func:`decimal_text`)."""
    finite = [abs(float(v)) for v in numbers if not missing(v)]
    places = significant_places(max(finite, default=0.0), digits)
    return [decimal_text(v, places) for v in numbers]


def number_text(value, spread=None) -> str:
    """One number as a feature with ``spread`` prints it (four significant digits without a
    spread, :func:`plain_number`)."""
    return plain_number(value, 4) if spread is None else fixed(value, decimals(spread))


def significant_digits(text: str) -> int:
    """How many significant digits a printed number shows ("0.0150" → 3, "1,234.5" → 5)."""
    mantissa = text.lstrip("−+-").partition("e")[0]
    return len(mantissa.replace(",", "").replace(".", "").lstrip("0"))


def distinct_texts(*numbers, spread=None) -> list[str]:
    """:func:`number_text` of each number, with more digits only where two different numbers
    would print the same; numbers that :data:`MEANINGFUL_DIGITS` significant digits do not
    tell apart print as :func:`number_text` does (:func:`apart_note` says so beside them)."""
    first = None
    for extra in range(MAX_DECIMALS + 1):
        if spread is None:
            texts = [plain_number(v, 4 + extra) for v in numbers]
        else:
            texts = [fixed(v, decimals(spread) + extra) for v in numbers]
        first = first or texts
        if max(map(significant_digits, texts)) > MEANINGFUL_DIGITS:
            return first
        if len(set(texts)) == len(texts) or len(set(numbers)) < len(numbers):
            break
    return texts


def apart_note(texts, numbers) -> str:
    """" (apart past the 7th digit)" when different ``numbers`` print as the same ``texts``
    (:func:`distinct_texts`), else ""."""
    if len(set(texts)) < len(set(map(float, numbers))):
        return f" (apart past the {MEANINGFUL_DIGITS}th digit)"
    return ""


def range_text(low, high, spread=None) -> str:
    """"4.600–4.879": the two ends of a range as :func:`distinct_texts` prints them, with the
    decimals of the longer kept on both (not "4.6–4.879"); one number when they are equal."""
    if low == high:
        return distinct_texts(low, spread=spread)[0]
    texts = distinct_texts(low, high, spread=spread)
    places = max(len(text.partition(".")[2]) for text in texts)
    return "–".join(decimal_text(read_number(text), places) for text in texts)


def difference_texts(value, reference, spread=None) -> tuple[str, str, str]:
    """:func:`distinct_texts` of ``value`` and ``reference``, and ``value − reference`` as the
    difference of those two printed numbers, to their decimals: the three agree on the page
    (a path's "1.034 > 0.343, margin 0.691"), and the printed difference is at most one unit of
    its last decimal from the exact one. Without a spread: four significant digits."""
    shown, base = distinct_texts(value, reference, spread=spread)
    places = max(len(text.partition(".")[2]) for text in (shown, base))
    difference = float(Decimal(str(read_number(shown))) - Decimal(str(read_number(base))))
    return shown, base, plain_number(difference, 4) if spread is None else fixed(difference,
                                                                                  places)


def plain_number(value, digits: int = 3, *, sign: bool = False, minus: str = MINUS,
                 zeros: bool = False) -> str:
    """``value`` for a person to read: ``digits`` significant digits, never scientific notation,
    thousands grouped with commas, trailing zeros dropped: 123.4 → "123", 1234.5 → "1,234"
    (an integer part is never cut), 0.0996 → "0.0996", 0.000012345 → "0.0000123". ``sign``
    prints "+" before a positive number; ``minus`` is the character before a negative one (a
    true minus by default, "-" where a machine reads the text back). "—" when not finite; a
    number that rounds to zero prints "0" (never "−0"); "—" for None. ``zeros`` keeps the
    trailing zeros of the ``digits`` ("0.10", where a list of them reads "0.098")."""
    if missing(value):
        return NOTHING
    value = float(value)
    places = significant_places(value, digits)
    text = f"{abs(value):,.{places}f}"
    if zeros:  # rounded up to the next power of ten (0.0996 → 0.100): one decimal fewer
        places = min(places, significant_places(float(text.replace(",", "")), digits))
        text = f"{abs(value):,.{places}f}"
    if "." in text and (not zeros or not any(c in "123456789" for c in text)):
        text = text.rstrip("0").rstrip(".")
    return _signed(value, text, sign, minus)


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def bound_text(value) -> str:
    """A limit as a message says it: a power of ten past a million either way as people write
    it, "10³⁰", "10⁻³⁰", "−10¹⁰⁰" (not "1e+30"); any other number as :func:`plain_number` at
    :data:`MEANINGFUL_DIGITS` digits; "—" for nothing."""
    if missing(value) or value == 0:
        return plain_number(value)
    exponent = round(math.log10(abs(float(value))))
    if abs(exponent) > 6 and abs(float(value)) == 10.0 ** exponent:
        return (MINUS if value < 0 else "") + "10" + str(exponent).translate(SUPERSCRIPTS)
    return plain_number(value, MEANINGFUL_DIGITS)


def outcome_text(value) -> str:
    """A recorded outcome as people read it: a number to four significant digits ("275",
    "23.52", not "23.520193194084815"), a class as its label."""
    if isinstance(value, Real) and not isinstance(value, bool):
        return plain_number(value, 4)
    return str(value)


def signed_number(value, digits: int = 2) -> str:
    """A push with its sign and a true minus, ``digits`` significant digits, no scientific
    notation, its trailing zeros kept (a push of 0.0996 beside one of 0.098 reads "+0.10", not
    "+0.1"): "+0.061", "−0.058", "+120" (not "+1.2e+02")."""
    return plain_number(value, digits, sign=True, zeros=True)


def percent_text(share, places: int = 0) -> str:
    """A share of one (0.123) as a percentage with ``places`` decimals: "12.3%"; "—" for
    none."""
    return NOTHING if missing(share) else f"{decimal_text(100 * float(share), places)}%"


def percent_shares(shares, places: int = 0) -> list[str]:
    """Shares of one whole (summing to 1) as percentages with ``places`` decimals that add up
    to exactly 100 % (the largest remainder method: each share is rounded down, and the
    leftover units go to the largest remainders), so "99%" and "2%" of one weight never print
    side by side. Shares that do not sum to 1 are printed as they are rounded."""
    shares = [float(s) for s in shares]
    unit = 10.0 ** places
    scaled = [100 * unit * s for s in shares]
    if not shares or not math.isclose(sum(shares), 1.0, rel_tol=1e-9, abs_tol=1e-9):
        return [f"{s / unit:.{places}f}%" for s in (round(v) for v in scaled)]
    low = [math.floor(v + 1e-9) for v in scaled]
    order = sorted(range(len(shares)), key=lambda i: low[i] - scaled[i])
    for i in order[:round(100 * unit) - sum(low)]:
        low[i] += 1
    return [f"{v / unit:.{places}f}%" for v in low]


def input_format(typical, digits: int = 4) -> str:
    """The printf format of a number box whose values are like ``typical`` (a column's median):
    fixed decimals that show it to ``digits`` significant digits ("%.8f" for a dose of
    0.00004603, "%.0f" for an income of 150,000), never scientific notation, which Streamlit's
    "%g" shows for 0.00001; "%.3f" without a typical value."""
    return f"%.{significant_places(0.0 if missing(typical) else typical, digits)}f"
