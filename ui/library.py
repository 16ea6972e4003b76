"""The server's model library (:func:`forestviz.store.open_library`), opened once for every
session of the process and reused (opening runs the migrations)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from forestviz.store.config import StoreConfig

if TYPE_CHECKING:
    from forestviz.store.library import ModelLibrary


def library() -> ModelLibrary:
    """The library the environment names (``FORESTVIZ_DATA_DIR``, ``FORESTVIZ_DATABASE_URL``);
    StoreUnavailable (one line, not kept: the next call tries again) when it cannot be used."""
    return _opened(StoreConfig.from_env())


@st.cache_resource(show_spinner=False)
def _opened(config: StoreConfig) -> ModelLibrary:
    from forestviz.store.library import open_library

    return open_library(config)
