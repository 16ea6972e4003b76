"""The Audit page's parts: the trail's filters, its newest events as a table and the whole
filtered trail as a CSV download (:class:`forestviz.store.audit.AuditTrail`)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

import streamlit as st

from forestviz.store.audit import ACTIONS

if TYPE_CHECKING:
    from forestviz.store.audit import AuditTrail

SHOWN_EVENTS = 1_000  # the newest events the table shows; the CSV holds every match
DEFAULT_DAYS = 30  # the date range first offered ends today and covers this many days
ANY = "any"
ACTION_LABELS = {ANY: "any action", **{action: action.replace("_", " ") for action in ACTIONS}}
CSV_NAME = "forestviz-audit.csv"


def day_bounds(first: date, last: date) -> tuple[datetime, datetime]:
    """The times of days ``first`` to ``last`` (UTC, both included) as the trail's ``since``
    (inclusive) and ``until`` (exclusive)."""
    return (datetime.combine(first, time.min, UTC),
            datetime.combine(last + timedelta(days=1), time.min, UTC))


def query_filters(who: str, action: str, model: str, days: tuple[date, ...]) -> dict:
    """The :meth:`AuditTrail.query` keywords of the page's filters: blank texts and ``any``
    filter nothing; a range still missing its last day (being picked) covers its first."""
    filters = {"who": who.strip() or None, "model": model.strip() or None,
               "action": None if action == ANY else action}
    if days:
        filters["since"], filters["until"] = day_bounds(days[0], days[-1])
    return filters


def choose_filters(today: date) -> dict:
    """The filter widgets, in a row; their :func:`query_filters`."""
    who, action, model, days = st.columns(4)
    return query_filters(
        who.text_input("Who (subject or e-mail)", key="audit_who"),
        action.selectbox("Action", list(ACTION_LABELS), format_func=ACTION_LABELS.get,
                         key="audit_action"),
        model.text_input("Model name", key="audit_model"),
        days.date_input("Dates (UTC)", (today - timedelta(days=DEFAULT_DAYS - 1), today),
                        max_value=today, key="audit_days"),
    )


def matching(count: int) -> str:
    return f"{count:,} matching event{'' if count == 1 else 's'}"


def show_trail(trail: AuditTrail, filters: dict) -> None:
    """The newest :data:`SHOWN_EVENTS` matching events (oldest first) and the CSV of all."""
    events = trail.query(**filters, limit=SHOWN_EVENTS)
    if events.empty:
        st.info("No event matches these filters.", icon=":material/info:")
    else:
        st.caption(f"The newest {SHOWN_EVENTS:,} matching events; the CSV has them all."
                   if len(events) == SHOWN_EVENTS else matching(len(events)))
        st.dataframe(events, hide_index=True, key="audit_table")
    st.download_button("Download the matching events (CSV)",
                       trail.export_csv(**filters), file_name=CSV_NAME,
                       mime="text/csv", icon=":material/download:", key="audit_csv",
                       on_click="ignore")
