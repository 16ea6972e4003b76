"""A CSV file's dialect, read from its first records before any parsing: the delimiter (``,``
``;`` tab ``|``), from Excel's ``sep=;`` first line or sniffed as the candidate in the header
whose count agrees with most of the following records (counted outside double quotes), and
the header's column names.
"""

from __future__ import annotations

import csv
import io
import re

from forestviz.io.errors import SAVE_AS_CSV, DataError

DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
EXCEL_SEP_LINE = re.compile(r"sep=([,;\t|])\n")  # Excel's "sep=;" first line names the delimiter


def leading_records(text: str, n_records: int) -> tuple[list[str], bool]:
    """The first non-blank records of ``text``; a quoted field may span lines.

    Returns the records and whether the last one ended inside ``text`` (a newline outside quotes).
    """
    records = []
    start = 0
    in_quotes = False
    for match in re.finditer(r'["\n]', text):
        if match.group() == '"':
            in_quotes = not in_quotes
        elif not in_quotes:
            if text[start : match.start()].strip():
                records.append(text[start : match.start()])
                if len(records) == n_records:
                    return records, True
            start = match.end()
    if text[start:].strip():
        records.append(text[start:])
        return records, False
    return records, True


def count_outside_quotes(record: str, delimiter: str) -> int:
    """How often ``delimiter`` occurs in ``record`` outside double quotes."""
    return sum(part.count(delimiter) for part in record.split('"')[::2])


def sniff_delimiter(records: list[str], *, single: bool = False) -> str:
    """The candidate found in the header whose count agrees with most of the following records;
    with none in the header, a comma when a ``single`` column may be the whole table."""
    header, rows = records[0], records[1:]

    def score(delimiter):
        in_header = count_outside_quotes(header, delimiter)
        agree = sum(count_outside_quotes(row, delimiter) == in_header for row in rows)
        return in_header > 0, agree, in_header

    best = max(DELIMITERS, key=score)
    if score(best)[0]:
        return best
    if single:
        return ","
    raise DataError(
        "Only one column was found: the first line contains no comma, semicolon, tab or '|'. "
        "A table needs a target column and at least one other column. If the file is a table, "
        f"{SAVE_AS_CSV[0].lower()}{SAVE_AS_CSV[1:]}"
    )


def header_fields(header: str, delimiter: str) -> list[str]:
    """The column names in the header record, stripped of surrounding spaces."""
    try:
        reader = csv.reader(io.StringIO(header), delimiter=delimiter, skipinitialspace=True)
        fields = next(reader, [])
    except csv.Error:
        return []
    return [field.strip() for field in fields]


def more_values_than_names(delimiter: str) -> DataError:
    """The error for rows longer than the header (pandas would add a column per extra value)."""
    return DataError(
        "The rows have more values than the header has column names (read with "
        f"{DELIMITER_NAMES[delimiter]}s between values). Give every column a name in the first "
        "line, or check the separator, and upload again."
    )
