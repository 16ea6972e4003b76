"""A chart's text alternative: its title and the numbers it shows, in words a screen reader
reads (WCAG 2.1, success criterion 1.1.1, "Non-text content").

:func:`chart_text` is the chart's table (:func:`~forestviz.explain.plots.chart_table
.chart_table`, the numbers the page lists beside the chart) in one text, line by line, so the
sentence, the table and the picture cannot disagree: "Reasons both ways: P(Yes). base value:
0.35; Glucose = 173: +0.28; …; and 3 smaller bars not listed." The page passes it to
``st.plotly_chart(alt=…)`` and the record puts it in the ``alt`` of the chart's picture, so both
say the same.
"""

from __future__ import annotations

from forestviz.explain.plots.chart_table import ChartTable, chart_table

CHARS = 1_000  # a text alternative longer than this is cut (the record's SENTENCE_LIMIT)


def _line(table: ChartTable, cells: list[str]) -> str:
    """One line of the table in words: "Glucose = 173: +0.28" (a named line with one number),
    "Tree 3: part A 0.1, part B 0.2", "round 2, validation AUC 0.873"."""
    headers = list(table.frame.columns)
    pairs = [f"{header} {cell}" for header, cell in zip(headers, cells, strict=True) if cell]
    if not table.named or not cells[0]:
        return ", ".join(pairs)
    if len(cells) == 2:
        return f"{cells[0]}: {cells[1]}"
    return f"{cells[0]}: " + ", ".join(pairs[1:])


def table_text(table: ChartTable) -> str:
    """``table`` in one text, at most :data:`CHARS` characters."""
    lines = [_line(table, [str(c) for c in row]) for row in table.frame.itertuples(index=False)]
    body = "; ".join([*lines, *([f"and {table.left_out}"] if table.left_out else [])])
    text = ". ".join(p for p in (table.title, body) if p) + "."
    return text if len(text) <= CHARS else text[:CHARS - 1] + "…"


def chart_text(fig) -> str:
    """``fig``'s title and the numbers it shows (its :func:`chart_table`), in one text."""
    return table_text(chart_table(fig))
