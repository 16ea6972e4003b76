"""The Audit page's parts: the trail's filters, its matching events a page at a time (newest
first) and, on request, the whole filtered trail as a CSV download
(:class:`forestviz.store.audit.AuditTrail`), each detail readable
(:func:`forestviz.store.readable.detail_text`). Looking at the trail is itself in the trail: each
page seen (its filters and number) once per session, and each export (its filters, events,
file name and keyed digest). For a role that may purge the trail, its retention and, behind a
confirmation, the purge of older events (:mod:`forestviz.store.purge`), itself an event."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

import streamlit as st

from forestviz.store.audit import ACTIONS, facts
from forestviz.store.config import StoreError
from forestviz.store.readable import detail_text
from forestviz.store.roles import may
from ui import library
from ui.display import as_text, show_error

if TYPE_CHECKING:
    from forestviz.store.audit import AuditTrail

PAGE_EVENTS = 1_000  # events a page of the table shows; the CSV holds every match
VIEWED = "audit_viewed"  # session key: the pages of the trail recorded as seen
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


def shown(filters: dict) -> dict:
    """The filters as an event's facts (times in ISO 8601)."""
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in filters.items()}


def show_trail(trail: AuditTrail, filters: dict) -> None:
    """One page of the matching events (the newest first: page 1), recorded as seen, and
    the CSV of all of them once asked for."""
    key = f"audit_page@{sorted(shown(filters).items())}"  # new filters: page 1
    page = int(st.session_state.get(key, 1))  # the page picker's value, set before this run
    detail = facts(**shown(filters), page=page)
    seen = st.session_state.setdefault(VIEWED, set())
    if detail not in seen:  # before the query: the page shows its own viewing
        seen.add(detail)
        library.record("audit_viewed", detail=detail)
    actor = library.identity().actor
    total = trail.count(actor=actor, **filters)
    pages = max(1, -(-total // PAGE_EVENTS))
    if pages > 1:
        st.number_input(f"Page (of {pages:,}; 1 holds the newest events)", 1, pages, 1,
                        key=key)
    events = trail.query(**filters, actor=actor, limit=PAGE_EVENTS, offset=(page - 1) * PAGE_EVENTS)
    if events.empty:
        st.info("No event matches these filters.", icon=":material/info:")
    else:
        first = (page - 1) * PAGE_EVENTS + 1
        st.caption(matching(total) if total <= PAGE_EVENTS else
                   f"{matching(total)}; this page holds numbers {first:,} to "
                   f"{first + len(events) - 1:,} counted from the newest (shown oldest first); "
                   "the CSV has them all.")
        st.dataframe(events.assign(detail=events["detail"].map(detail_text)), hide_index=True,
                     key="audit_table")
    if st.button(f"Prepare the CSV of the {matching(total)}", key="audit_csv_make",
                 icon=":material/table_view:"):
        data = trail.export_csv(actor=actor, **filters)  # read and written a piece at a time
        library.record("audit_exported", detail=facts(
            **shown(filters), events=total, file=CSV_NAME,
            file_digest=library.digest(lambda found: found.data(data))))
        st.download_button("Download the matching events (CSV)", data, file_name=CSV_NAME,
                           mime="text/csv", icon=":material/download:", key="audit_csv",
                           on_click="ignore")


def purge_old(trail: AuditTrail) -> None:
    """The retention and, confirmed, the purge of the events older than it: for a role that
    may purge the trail (admins) only; a retention set below six months is said in one
    line."""
    actor = library.identity().actor
    if not may(actor.role, "purge_trail"):
        return
    with st.expander("Retention: purge the events older than it"):
        try:
            days = trail.config.retention_days
        except StoreError as err:
            show_error(err)
            return
        st.caption(f"Events are kept {days:,} days (FORESTVIZ_AUDIT_RETENTION_DAYS, at least "
                   "183: six months). A purge deletes the older events, is itself an event "
                   "naming the last one's hash, and the trail still verifies.")
        sure = st.checkbox(f"Delete the events older than {days:,} days", key="audit_purge_sure")
        if st.button("Purge", disabled=not sure, key="audit_purge",
                     icon=":material/delete_sweep:"):
            try:
                done = trail.purge(actor=actor)
            except StoreError as err:
                show_error(err)
            else:
                st.success(as_text(done.line()), icon=":material/check:")
