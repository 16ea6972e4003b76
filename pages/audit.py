"""Audit (admins): who opened, explained, disagreed, downloaded, published or retired which model
and when, and which sign-ins were refused; filtered, as a table and a CSV download; the purge
of the events older than the retention."""

from datetime import UTC, datetime

import streamlit as st

from forestviz.store.config import StoreError
from ui import audit_view, signin
from ui.display import show_error
from ui.library import required

signin.guard("audit")

st.title("Audit", anchor=False)
st.caption("The audit trail is append-only: events cannot be changed, and only those older than "
           "the retention can be removed, by an admin's purge, itself recorded. Times are UTC.")
filters = audit_view.choose_filters(datetime.now(UTC).date())
try:
    audit_view.show_trail(required().audit, filters)
    audit_view.purge_old(required().audit)
except StoreError as err:
    show_error(err)
