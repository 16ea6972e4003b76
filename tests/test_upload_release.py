"""A session gives its upload's tables back to the server's budget (``forestviz.app.uploads``)
when it uploads another file or closes the upload by choosing a bundled data set, through
the app's own pages (Streamlit's AppTest). The end of a session is tested in Chromium
(``tests/test_browser_memory.py``)."""

import gc

import numpy as np
import pandas as pd
import pytest

from forestviz.app.uploads import table_bytes
from tests.apptest_helpers import app, upload_csv
from ui import state


def csv_bytes(rows: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"id": np.arange(rows), "x": rng.normal(size=rows).round(4),
                          "note": rng.choice(["north", "south", "east"], rows),
                          "y": rng.normal(size=rows).round(4)})
    return frame.to_csv(index=False).encode()


def held() -> int:
    """Bytes the server's budget counts (the one of ``ui.state``, shared with AppTest's runs)."""
    gc.collect()
    return state.upload_budget().held_bytes()


def session_tables(at) -> int:
    """Bytes of the tables the session holds from its upload: the parsed file and its data
    set, counted independently of the budget."""
    upload, dataset = at.session_state["upload"], at.session_state["dataset"]
    assert dataset.frame is not upload.frame
    return table_bytes(upload.frame) + table_bytes(dataset.frame)


@pytest.mark.slow  # an AppTest session: seconds
def test_a_session_gives_its_tables_back_on_another_upload_and_on_a_bundled_data_set():
    at = app()
    before = held()
    upload_csv(at, "first.csv", csv_bytes(20_000, 1))
    assert not at.exception and not at.error
    assert len(at.session_state["dataset"].frame) == 20_000
    first = session_tables(at)
    assert held() - before == first

    upload_csv(at, "second.csv", csv_bytes(30_000, 2))
    assert not at.exception and not at.error
    assert len(at.session_state["dataset"].frame) == 30_000
    second = session_tables(at)
    assert second > first
    assert held() - before == second  # the first file's tables are gone

    at.radio(key="source_kind").set_value("bundled").run()
    assert not at.exception
    assert at.session_state["dataset_choice"].source.startswith("bundled:")
    assert "upload" not in at.session_state
    assert held() == before  # closing the upload gave everything back
