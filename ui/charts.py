"""Every chart on a page, with its text alternative and its numbers: the figure's title and
numbers in words (:func:`forestviz.explain.plots.alt.chart_text`), which Streamlit gives the
chart as its accessible description, and under it, collapsed, the same numbers as a table
(:func:`forestviz.explain.plots.chart_table.chart_table`), so that a screen reader, or anyone,
reads what the picture shows.

The figures keep their own look (``theme=None``: forestviz's white template,
:func:`forestviz.explain.plots.conventions.white_template`): Streamlit's chart theme prints
axis ticks and labels in a grey of 3.7 : 1 on white, below WCAG 2.1 AA's 4.5 : 1."""

from __future__ import annotations

import streamlit as st

from forestviz.explain.plots.alt import table_text
from forestviz.explain.plots.chart_table import chart_table
from ui.display import as_text

NUMBERS = "Numbers in this chart"
"""The label of the collapsed table under each chart."""


def chart(fig, *, place=st, **options):
    """``fig`` drawn in ``place`` (a container, column or ``st``) with its text alternative,
    the chart's numbers in a collapsed table under it; ``options`` are ``st.plotly_chart``'s
    (an ``int`` ``width`` is the width of both)."""
    table = chart_table(fig)
    width = options.get("width")
    box = place.container(width=width if isinstance(width, int) else "stretch")
    drawn = box.plotly_chart(fig, alt=table_text(table), theme=None, **options)
    if not table.frame.empty:
        with box.expander(NUMBERS, expanded=False):
            shown = table.frame.map(as_text).rename(columns=as_text)
            st.table(shown, hide_index=True)
            if table.left_out:
                st.caption(as_text(f"And {table.left_out}."))
    return drawn
