"""A two-page app for ``tests/test_upload_caps.py``, served as the app is (an ``st.App`` behind
``ui.upload_caps.UploadCaps``): page ``few`` has an uploader capped at 1 MB, page ``many`` one
at the server's ``server.maxUploadSize``, page ``none`` no uploader. The app's own uploaders
(``ui/patients.py``, ``pages/data.py``, ``pages/train.py``) are the same call."""

import streamlit as st
from starlette.middleware import Middleware

from ui import upload_caps

SMALL_MB = 1


def few() -> None:
    upload_caps.file_uploader("A small CSV", key="few", max_mb=SMALL_MB, type=["csv"])


def many() -> None:
    upload_caps.file_uploader("A large CSV", key="many", type=["csv"])


def none() -> None:
    st.write("No uploader here.")


if __name__ != "__main__":  # the server's import
    app = st.App(__file__, middleware=[Middleware(upload_caps.UploadCaps)])
else:
    page = st.navigation([st.Page(few, default=True), st.Page(many), st.Page(none)])
    upload_caps.showing(page.url_path)
    page.run()
