"""The report's HTML building blocks and their escaping rules (:mod:`forestviz.explain.report`).

Every user-provided text (feature, column and class names, row ids, values, the data set's and
model's names) is data, never markup: it goes through :func:`text` (values) or :func:`name`
(names: also cut to ``NAME_LIMIT`` characters, whole in a ``title`` attribute and in the closing
table of full names, :func:`full_names`). Tables have a fixed layout at the width of the page;
:func:`side_by_side` turns a wide table (the similar rows, one column per data column) into a
narrow one (one column per row).
"""

from __future__ import annotations

import base64
import html
import numbers
from functools import partial

import numpy as np
import pandas as pd

from forestviz.names import NAME_LIMIT, DisplayNames

# Columns whose cells are names (cut like column names); other cells are values that wrap.
NAME_COLUMNS = frozenset({"feature", "column", "class", "id", "outcome"})


def text(value) -> str:
    """A value as the report shows it: floats to 4 significant digits, no value (None, NaN) as
    "—", anything else escaped."""
    if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
        return "—"
    if isinstance(value, float | np.floating):
        return f"{value:.4g}"
    return html.escape(str(value))


def name(names: DisplayNames, value) -> str:
    """A user-given name (column, feature, class, id) as the report shows it: escaped, cut to
    ``NAME_LIMIT`` characters and, when cut, whole in a ``title`` attribute. Numbers are
    values (:func:`text`)."""
    if isinstance(value, numbers.Number):
        return text(value)
    shown = html.escape(names(value))
    if not names.is_shortened(value):
        return shown
    return f'<span title="{html.escape(str(value))}">{shown}</span>'


def table(frame: pd.DataFrame, names: DisplayNames, row_classes=None, *, css: str = "") -> str:
    """An HTML table: column names and the cells of ``NAME_COLUMNS`` through :func:`name`."""
    head = "".join(f"<th>{name(names, c)}</th>" for c in frame.columns)
    shows = [partial(name, names) if c in NAME_COLUMNS else text for c in frame.columns]
    rows = []
    for i, values in enumerate(frame.itertuples(index=False)):
        cls = f' class="{row_classes[i]}"' if row_classes is not None and row_classes[i] else ""
        cells = "".join(f"<td>{show(v)}</td>" for show, v in zip(shows, values, strict=True))
        rows.append(f"<tr{cls}>{cells}</tr>")
    cls = f' class="{css}"' if css else ""
    return (f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
            "</table>")


def side_by_side(frame: pd.DataFrame, names: DisplayNames, *, heads: list[str],
                 first: pd.Series | None = None, first_head: str = "this row",
                 corner: str = "column", css: str = "side") -> str:
    """``frame`` transposed: one line per column of ``frame`` (its name in the first cell),
    one table column per row of ``frame``, headed by ``heads`` (names); ``first``, when given,
    a column of values before them (the explained row) headed ``first_head``; ``corner`` heads
    the first column. As wide as the number of rows, whatever the number of columns."""
    columns = [first] if first is not None else []
    header = ([f"<th>{html.escape(corner)}</th>"]
              + ([f"<th>{html.escape(first_head)}</th>"] if columns else [])
              + [f"<th>{name(names, h)}</th>" for h in heads])
    body = []
    for column in frame.columns:
        show = partial(name, names) if column in NAME_COLUMNS else text
        mine = [f"<td>{show(c[column]) if column in c.index else ''}</td>" for c in columns]
        cells = "".join(f"<td>{show(v)}</td>" for v in frame[column])
        body.append(f"<tr><th>{name(names, column)}</th>{''.join(mine)}{cells}</tr>")
    return (f'<table class="{css}"><thead><tr>{"".join(header)}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def svg_image(svg: str, alt: str, css: str) -> str:
    """An SVG drawing as an ``<img>`` with a ``data:`` URI: self-contained, and an image's
    scripts never run. ``alt`` is escaped here."""
    data = base64.b64encode(svg.encode()).decode()
    return f'<img class="{css}" alt="{html.escape(alt)}" src="data:image/svg+xml;base64,{data}">'


def full_names(names: DisplayNames) -> str:
    """The closing table of every name shown cut (or with a " #k" suffix), in full."""
    shortened = names.shortened()
    if not shortened:
        return ""
    rows = "".join(f"<tr><td>{html.escape(shown)}</td><td>{html.escape(full)}</td></tr>"
                   for full, shown in shortened.items())
    return (f"<h2>Full names</h2><p>Names longer than {NAME_LIMIT} characters are cut in this "
            "report, ending in “…” (names that would then look alike get “#2”, “#3”, …); "
            "here they are in full.</p><table class=\"names\"><thead><tr><th>shown as</th>"
            f"<th>full name</th></tr></thead><tbody>{rows}</tbody></table>")
