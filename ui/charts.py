"""Every chart on a page, with its text alternative: the figure's title and numbers in words
(:func:`forestviz.explain.plots.alt.chart_text`), which Streamlit gives the chart as its
accessible description, so that a screen reader reads what the picture shows.

The figures keep their own look (``theme=None``: forestviz's white template,
:func:`forestviz.explain.plots.conventions.white_template`): Streamlit's chart theme prints
axis ticks and labels in a grey of 3.7 : 1 on white, below WCAG 2.1 AA's 4.5 : 1."""

from __future__ import annotations

import streamlit as st

from forestviz.explain.plots.alt import chart_text


def chart(fig, *, place=st, **options):
    """``fig`` drawn in ``place`` (a container, column or ``st``) with its text alternative;
    ``options`` are ``st.plotly_chart``'s."""
    return place.plotly_chart(fig, alt=chart_text(fig), theme=None, **options)
