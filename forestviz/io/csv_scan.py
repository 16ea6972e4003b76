"""The byte scanner: before any parser runs, the first value longer than ``max_cell`` characters
and the first row longer than ``max_line`` (so a 100 MB value is refused in a tenth of a second,
not parsed), and whether pyarrow's reader would read the file otherwise than pandas' C reader.

The UTF-8 bytes are read 1 MiB at a time with numpy. A value ends at a delimiter, CR or LF
outside double quotes; a row ends at CR, at an LF not after a CR, or at the end of the file.
Quotes are paired in order (RFC 4180): one that opens must follow a delimiter, a line end or
the file's start, else pandas reads the value as text with a quote inside and so does the scan
(quotes are then ignored). Characters are counted as the bytes that do not continue a UTF-8
sequence (``0b10xxxxxx``).

The two readers differ on a sign before a number (``+3``), a hexadecimal-looking value
(``0x1F``), blanks around a value or a quote (`` nan``, ``" x"``), a closing quote not followed
by a delimiter (``"x"y``) and a quote left open; the scan reports any of these, and then
:mod:`forestviz.io.csv_parse` uses pandas' reader.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

import numpy as np

from forestviz.io.csv_decode import CHUNK

TAB, LF, CR, SPACE, QUOTE, PLUS, ZERO = 9, 10, 13, 32, 34, 43, 48


@dataclass(frozen=True)
class Overlong:
    """The first value or row over its cap: its length in characters, its row (the file's first
    line is row 1), where that row starts and where the value starts (None for a row)."""

    length: int
    row: int
    row_start: int
    value_start: int | None


class _StrayQuote(Exception):
    """A quote inside a value: pandas reads it as text, so the scan must ignore quotes."""


def scan(buf: bytes, sep: int, max_cell: int, max_line: int) -> tuple[Overlong | None, bool]:
    """The first value over ``max_cell`` characters or row over ``max_line`` in UTF-8 ``buf``
    with delimiter byte ``sep`` (or None), and whether pyarrow reads it otherwise than pandas."""
    try:
        return _Scanner(buf, sep, quoted=True).run(max_cell, max_line)
    except _StrayQuote:
        return _Scanner(buf, sep, quoted=False).run(max_cell, max_line)


class _Scanner:
    """One pass over ``buf``; the state carried from one chunk to the next is the start of the
    value and of the row in progress, the rows ended so far and whether a quote is open."""

    def __init__(self, buf: bytes, sep: int, quoted: bool):
        self.buf = buf
        self.whole = np.frombuffer(buf, np.uint8)
        self.n = len(buf)
        self.sep = sep
        self.quoted = quoted
        self.blank = TAB if sep != TAB else SPACE  # the blank that is not the delimiter
        self.first = 3 if buf.startswith(codecs.BOM_UTF8) else 0
        self.cell = self.first  # where the value in progress started
        self.line = self.first  # where the row in progress started
        self.rows = 0  # rows ended before the current chunk
        self.inside = 0  # 1 while a quoted value runs on past the chunk
        self.differs = False

    def run(self, max_cell: int, max_line: int) -> tuple[Overlong | None, bool]:
        for offset in range(0, self.n, CHUNK):
            chunk = self.whole[offset : offset + CHUNK]
            ends = self._value_ends(chunk, offset)
            self._note_signs_and_hex(chunk, offset)
            if self.quoted:
                ends = self._outside_quotes(chunk, offset, ends)
            problem = self._overlong(ends, max_cell, max_line)
            if problem:
                return problem, self.differs
        return None, self.differs or bool(self.inside) or not self.quoted

    def _value_ends(self, chunk: np.ndarray, offset: int) -> np.ndarray:
        """Positions of every delimiter, CR and LF in the chunk; the file's end ends a value."""
        found = (chunk == self.sep) | (chunk == LF) | (chunk == CR)
        ends = np.flatnonzero(found) + offset
        if offset + CHUNK >= self.n:
            ends = np.append(ends, self.n)
        return ends

    def _note_signs_and_hex(self, chunk: np.ndarray, offset: int) -> None:
        """A ``+`` that starts a value (``+3``) or an ``x`` after a zero (``0x1F``)."""
        odd = np.flatnonzero(((chunk | 32) == ord("x")) | (chunk == PLUS)) + offset
        plus = self.whole[odd] == PLUS
        lead = self.whole[odd - 1]
        starts_value = np.isin(lead, (self.sep, LF, CR, SPACE, QUOTE))
        self.differs |= bool(np.any(np.where(plus, starts_value, lead == ZERO)))

    def _outside_quotes(self, chunk: np.ndarray, offset: int, ends: np.ndarray) -> np.ndarray:
        """The ends that lie outside quotes; raises _StrayQuote for a quote inside a value."""
        quotes = np.flatnonzero(chunk == QUOTE) + offset
        if not quotes.size and not self.inside:
            return ends
        before = np.searchsorted(ends, quotes)  # the ends before each quote
        quotes_before = np.bincount(before, minlength=ends.size + 1).cumsum()[: ends.size]
        ends = ends[(quotes_before + self.inside) & 1 == 0]
        opens = (np.arange(quotes.size) + self.inside) % 2 == 0  # else it closes a value
        last = self.n - 1
        neighbour = self.whole[np.where(opens, quotes - 1, np.minimum(quotes + 1, last))]
        at_edge = quotes == np.where(opens, self.first, last)  # the file's start or end
        fits = np.isin(neighbour, (self.sep, LF, CR, QUOTE)) | at_edge
        if not fits[opens].all():
            raise _StrayQuote
        self.differs |= not fits.all()  # "x"y
        self.inside = (self.inside + quotes.size) % 2
        inner = self.whole[(quotes + 2 * opens - 1) % self.n]  # the byte inside each quote
        self.differs |= bool(np.isin(inner, [TAB, SPACE]).any())  # " x"
        return ends

    def _overlong(self, ends: np.ndarray, max_cell: int, max_line: int) -> Overlong | None:
        """The first over-long value or row that ends in this chunk; moves the state on."""
        clipped = [np.clip(ends + step, 0, self.n - 1) for step in (-1, 0, 1)]
        pre, byte, post = (self.whole[where] for where in clipped)
        blanks = (pre == SPACE) | (pre == self.blank) | (post == SPACE) | (post == self.blank)
        self.differs |= bool(np.any(blanks))  # " x", "x "
        stop = (byte == CR) | ((byte == LF) & (pre != CR)) | (ends == self.n)
        stops = ends[stop]
        starts = np.concatenate(([self.cell], ends[:-1] + 1))  # where the values start
        begins = np.concatenate(([self.line], stops + 1))  # where the rows start
        for i in np.flatnonzero(ends - starts > max_cell):
            length = _chars(self.buf, starts[i], ends[i], value=True)
            if length > max_cell:
                k = int(np.count_nonzero(stop[:i]))
                return Overlong(length, self.rows + k + 1, begins[k], starts[i])
        for k in np.flatnonzero(stops - begins[:-1] > max_line):
            begin = begins[k] + (self.buf[begins[k] - 1 : begins[k] + 1] == b"\r\n")
            length = _chars(self.buf, begin, stops[k])
            if length > max_line:
                return Overlong(length, self.rows + int(k) + 1, begin, None)
        self.rows += stops.size
        if ends.size:
            self.cell = ends[-1] + 1
        self.line = begins[-1]
        return None


def _chars(buf: bytes, start: int, end: int, value: bool = False) -> int:
    """Characters in UTF-8 ``buf[start:end]``; a quoted ``value``'s quotes are not counted."""
    part = np.frombuffer(buf, np.uint8, end - start, start)
    count = 0
    for i in range(0, end - start, CHUNK):
        count += int(np.count_nonzero((part[i : i + CHUNK] & 0xC0) != 0x80))
    if value and buf[start : start + 1] == b'"':
        count -= buf.count(b'"', start, end) // 2 + 1
    return count
