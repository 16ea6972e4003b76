"""The report's HTML building blocks, their escaping rules and their bounds
(:mod:`.document`).

Every user-provided text (feature, column and class names, category levels, row ids, values,
the data set's and model's names) is data, never markup: it goes through :func:`text` (values
and the report's own sentences) or :func:`name` (names: also cut to ``NAME_LIMIT`` characters,
whole in a ``title`` attribute and in the closing table of full names, :func:`full_names`).
Tables have a fixed layout at the width of the page; :func:`side_by_side` turns a wide table
(the similar rows, one column per data column) into a narrow one (one column per row).

**Bounds.** What a report lays out does not grow with what a file holds, so that its PDF is
printed in bounded time (WeasyPrint's layout time grows with the lines it breaks: 200 rows with
three text columns of 10,000-character values kept a PDF printing for more than 300 s). Every
text is cut here, at the one place it becomes markup, saying its full length: a value to
``VALUE_LIMIT`` characters, a sentence the report composes (whose names are cut already) to
``SENTENCE_LIMIT``, a full name (the closing table, a ``title``) to ``FULL_NAME_LIMIT``, each
ending "… (10,000 characters)" (:func:`forestviz.names.with_length`); a list in a sentence
stops after ``MAX_LISTED`` items; a table shows at most ``MAX_TABLE_ROWS`` rows and
``MAX_TABLE_COLUMNS`` columns, and says what it left out.
"""

from __future__ import annotations

import base64
import html
import numbers
from functools import partial

import pandas as pd

from forestviz.explain.row.values import VALUE_LIMIT, plain
from forestviz.names import NAME_LIMIT, DisplayNames

SENTENCE_LIMIT = 1_000  # characters of one sentence the report composes
FULL_NAME_LIMIT = 500  # characters of a name in the table of full names and in a title
MAX_LISTED = 20  # items of a list in a sentence (missing columns, class probabilities)
MAX_TABLE_ROWS = 50  # rows of one table (for a transposed table: its lines)
MAX_TABLE_COLUMNS = 8  # columns of one table, its first column included

# Columns whose cells are names (cut like column names); cells of SENTENCE_COLUMNS are sentences
# the report composes; other cells are values.
NAME_COLUMNS = frozenset({"feature", "column", "class", "id", "outcome"})
SENTENCE_COLUMNS = frozenset({"test", "marks"})


def text(value, limit: int = VALUE_LIMIT) -> str:
    """:func:`plain`, escaped."""
    return html.escape(plain(value, limit))


def sentence(value) -> str:
    """A sentence the report composes (names in it cut already), escaped and bounded."""
    return text(value, SENTENCE_LIMIT)


def name(names: DisplayNames, value) -> str:
    """A user-given name (column, feature, class, id) as the report shows it: escaped, cut to
    ``NAME_LIMIT`` characters and, when cut, in a ``title`` attribute up to
    ``FULL_NAME_LIMIT`` characters. Numbers are values (:func:`text`)."""
    if isinstance(value, numbers.Number):
        return text(value)
    shown = html.escape(names(value))
    if not names.is_shortened(value):
        return shown
    return f'<span title="{text(value, FULL_NAME_LIMIT)}">{shown}</span>'


def listing(parts: list[str], sep: str = ", ") -> str:
    """Markup items joined by ``sep``, the first ``MAX_LISTED`` of them, then how many more."""
    shown = sep.join(parts[:MAX_LISTED])
    left = len(parts) - MAX_LISTED
    return shown if left <= 0 else f"{shown} and {left:,} more"


def _left_out(rows: int, columns: int, shown_rows: int, shown_columns: int) -> str:
    """The note under a table cut by the caps (empty when nothing was left out)."""
    said = []
    if rows > shown_rows:
        said.append(f"the first {shown_rows} of its {rows:,} rows")
    if columns > shown_columns:
        said.append(f"the first {shown_columns} of its {columns:,} columns")
    if not said:
        return ""
    return (f'<p class="cut">This table shows {" and ".join(said)} (a report\'s tables stop '
            f"at {MAX_TABLE_ROWS} rows and {MAX_TABLE_COLUMNS} columns).</p>")


def _shows(names: DisplayNames, column):
    if column in NAME_COLUMNS:
        return partial(name, names)
    return sentence if column in SENTENCE_COLUMNS else text


def table(frame: pd.DataFrame, names: DisplayNames, row_classes=None, *, css: str = "") -> str:
    """An HTML table of ``frame``'s first ``MAX_TABLE_ROWS`` rows and ``MAX_TABLE_COLUMNS``
    columns: column names and the cells of ``NAME_COLUMNS`` through :func:`name`, cells of
    ``SENTENCE_COLUMNS`` through :func:`sentence`, the others through :func:`text`."""
    shown = frame.iloc[:MAX_TABLE_ROWS, :MAX_TABLE_COLUMNS]
    head = "".join(f"<th>{name(names, c)}</th>" for c in shown.columns)
    shows = [_shows(names, c) for c in shown.columns]
    rows = []
    for i, values in enumerate(shown.itertuples(index=False)):
        cls = f' class="{row_classes[i]}"' if row_classes is not None and row_classes[i] else ""
        cells = "".join(f"<td>{show(v)}</td>" for show, v in zip(shows, values, strict=True))
        rows.append(f"<tr{cls}>{cells}</tr>")
    cls = f' class="{css}"' if css else ""
    return (f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
            "</table>" + _left_out(*frame.shape, *shown.shape))


def side_by_side(frame: pd.DataFrame, names: DisplayNames, *, heads: list[str],
                 first: pd.Series | None = None, first_head: str = "this row",
                 corner: str = "column", css: str = "side") -> str:
    """``frame`` transposed: one line per column of ``frame`` (its name in the first cell),
    one table column per row of ``frame``, headed by ``heads`` (names); ``first``, when given,
    a column of values before them (the explained row) headed ``first_head``; ``corner`` heads
    the first column. As wide as the number of rows, whatever the number of columns; bounded
    like :func:`table` (lines by ``MAX_TABLE_ROWS``, table columns by ``MAX_TABLE_COLUMNS``)."""
    columns = [first] if first is not None else []
    kept = MAX_TABLE_COLUMNS - 1 - len(columns)  # frame's rows shown after corner and first
    header = ([f"<th>{html.escape(corner)}</th>"]
              + ([f"<th>{html.escape(first_head)}</th>"] if columns else [])
              + [f"<th>{name(names, h)}</th>" for h in heads[:kept]])
    body = []
    for column in frame.columns[:MAX_TABLE_ROWS]:
        show = _shows(names, column)
        mine = [f"<td>{show(c[column]) if column in c.index else ''}</td>" for c in columns]
        cells = "".join(f"<td>{show(v)}</td>" for v in frame[column].iloc[:kept])
        body.append(f"<tr><th>{name(names, column)}</th>{''.join(mine)}{cells}</tr>")
    wide = 1 + len(columns) + len(frame)
    return (f'<table class="{css}"><thead><tr>{"".join(header)}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>"
            + _left_out(frame.shape[1], wide, len(body), len(header)))


def svg_image(svg: str, alt: str, css: str) -> str:
    """An SVG drawing as an ``<img>`` with a ``data:`` URI: self-contained, and an image's
    scripts never run. ``alt`` is escaped (and bounded) here."""
    data = base64.b64encode(svg.encode()).decode()
    return f'<img class="{css}" alt="{sentence(alt)}" src="data:image/svg+xml;base64,{data}">'


def full_names(names: DisplayNames) -> str:
    """The closing table of every name shown cut (or with a " #k" suffix), each up to
    ``FULL_NAME_LIMIT`` characters, at most ``MAX_TABLE_ROWS`` of them."""
    shortened = list(names.shortened().items())
    if not shortened:
        return ""
    rows = "".join(f"<tr><td>{html.escape(shown)}</td><td>{text(full, FULL_NAME_LIMIT)}</td>"
                   "</tr>" for full, shown in shortened[:MAX_TABLE_ROWS])
    return (f"<h2>Full names</h2><p>Names longer than {NAME_LIMIT} characters are cut in this "
            "report, ending in “…” (names that would then look alike get “#2”, “#3”, …); "
            f"here they are in full, up to {FULL_NAME_LIMIT:,} characters.</p>"
            '<table class="names"><thead><tr><th>shown as</th>'
            f"<th>full name</th></tr></thead><tbody>{rows}</tbody></table>"
            + _left_out(len(shortened), 2, min(len(shortened), MAX_TABLE_ROWS), 2))
