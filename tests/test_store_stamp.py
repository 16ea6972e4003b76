"""The library's stamp (:meth:`forestviz.store.ModelLibrary.stamp`), which the pages listing
published models poll to run again when the list changed (issue 38: a publish on replica A
shown on B's open page), on SQLite and PostgreSQL (``tests/store_databases.py``): it changes
with every publish and retirement, seen from another connection as from another replica, and
with nothing else (events recorded, models opened, a publish refused)."""

import itertools

import pytest

from forestviz.store import LOCAL, AlreadyPublished, StoreError
from tests.store_helpers import library_at

pytestmark = pytest.mark.slow  # publishing builds a model card: seconds


def listing(library) -> list[tuple[str, bool]]:
    """What a page listing every version shows of it: each version and whether it is
    retired."""
    return [(info.ref, info.retired) for info in library.versions(include_retired=True)]


def test_the_stamp_changes_with_every_publish_and_retirement_and_nothing_else(
        bench, library, tmp_path, database):
    other = library_at(tmp_path / "var", database)  # another replica's connections
    assert library.stamp() is None and other.stamp() is None  # nothing published yet
    stamps, listings = [], []

    def step(action) -> None:
        action()
        stamps.append(other.stamp())
        assert library.stamp() == stamps[-1]  # one database, one stamp
        listings.append(listing(other))

    step(lambda: None)
    step(lambda: library.publish(bench, name="Pima risk", intended_use="Screening"))
    step(lambda: library.audit.record(LOCAL, "signed_in"))
    step(lambda: library.open_model("Pima risk"))
    step(lambda: library.publish(bench, name="Pima risk", description="second",
                                 intended_use="Screening"))
    step(lambda: refused(lambda: library.publish(bench, name="Pima risk",
                                                 description="second",
                                                 intended_use="Screening")))
    step(lambda: other.publish(bench, name="Other", intended_use="Screening"))
    step(lambda: library.retire("Pima risk", 1))
    step(lambda: refused(lambda: other.retire("Pima risk", 1)))  # retired already
    step(lambda: library.audit.record(LOCAL, "row_explained", detail="P0001"))
    step(lambda: other.retire("Other", 1))

    changes = [(listed != before, stamp != earlier) for (before, earlier), (listed, stamp)
               in itertools.pairwise(zip(listings, stamps, strict=True))]
    assert all(listed == stamped for listed, stamped in changes), (stamps, listings)
    assert sum(listed for listed, _ in changes) == 5  # 3 publishes, 2 retirements
    assert stamps[0] is None and all(isinstance(s, int) for s in stamps[1:])


def refused(action) -> None:
    with pytest.raises((AlreadyPublished, StoreError)):
        action()
