"""Reading the audit trail a page at a time (issue 36, item 6): a page is the slice of the
whole filtered trail it claims to be, the count is the number of matches, and the CSV export,
written a piece at a time, is the CSV of the whole trail in one piece (checked against pandas
on the full query), on a real SQLite library and a PostgreSQL one."""

import io
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import Session

from forestviz.io.export import csv_bytes
from forestviz.store import LOCAL, Actor
from forestviz.store import audit as trail_module
from forestviz.store.audit import event_row, facts
from forestviz.store.chain import append
from tests.store_databases import DATABASES, database_url
from tests.store_helpers import library_at

START = datetime(2026, 11, 1, tzinfo=UTC)
WHO = [Actor("ann", "ann@clinic.test"), Actor("=bob", None), LOCAL]
ACTIONS = ["model_opened", "row_explained", "rows_explained", "audit_viewed"]


@pytest.fixture(scope="module", params=DATABASES)
def trail(request, tmp_path_factory):
    """57 events: three actors, four actions, two models, one a minute; on SQLite and on
    PostgreSQL."""
    library = library_at(tmp_path_factory.mktemp("trail") / "var", database_url(request))
    with Session(library.engine) as session, session.begin():
        append(session, [event_row(WHO[i % 3], ACTIONS[i % 4],
                                   (f"model {i % 2}", 1 + i % 5) if i % 7 else None,
                                   detail=f"P{i:04d}", at=START + timedelta(minutes=i))
                         for i in range(57)])
    return library.audit


FILTERS = [{}, {"who": "ann@clinic.test"}, {"action": "row_explained"}, {"model": "model 1"},
           {"since": START + timedelta(minutes=10), "until": START + timedelta(minutes=40)},
           {"who": "local", "action": "audit_viewed"}, {"who": "nobody"}]


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("size", [1, 5, 10, 57, 100])
def test_pages_are_slices_of_the_whole_filtered_trail(trail, filters, size):
    whole = trail.query(**filters)  # oldest first
    assert trail.count(**filters) == len(whole)
    newest_first = whole.iloc[::-1].reset_index(drop=True)
    for page in range(-(-len(whole) // size) + 1):
        found = trail.query(**filters, limit=size, offset=page * size)
        expected = newest_first.iloc[page * size:(page + 1) * size].iloc[::-1]
        assert found["detail"].tolist() == expected["detail"].tolist()  # P0000… name events
        assert found["at"].tolist() == expected["at"].tolist()


@pytest.mark.slow
@given(st.sampled_from(FILTERS), st.integers(1, 60))
@example({}, 5)
@settings(max_examples=25, deadline=None)
def test_the_export_written_piece_by_piece_is_the_whole_csv(trail, filters, rows):
    whole = trail.query(**filters)
    whole["at"] = [moment.isoformat() for moment in whole["at"]]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trail_module, "EXPORT_ROWS", rows)
        pieces = list(trail.export(**filters))
    assert len(pieces) == max(1, -(-len(whole) // rows))  # no empty piece
    assert b"".join(pieces) == csv_bytes(whole)
    read = pd.read_csv(io.BytesIO(b"".join(pieces)), dtype=str, keep_default_na=False)
    assert read["detail"].tolist() == whole["detail"].tolist()
    assert ("'=bob" in set(read["subject"])) == ("=bob" in set(whole["subject"]))


def test_facts_are_compact_sorted_json_with_a_bounded_file_name():
    assert facts(rows=2, rows_digest="hmac-sha256:ab", file=None) == (
        '{"rows":2,"rows_digest":"hmac-sha256:ab"}')
    long = facts(file="x" * 1000, file_digest="d")
    assert long == '{"file":"' + "x" * trail_module.FILE_NAME_CHARS + '","file_digest":"d"}'
    assert len(long) < trail_module.DETAIL_CHARS
