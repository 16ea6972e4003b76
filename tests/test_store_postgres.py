"""The library on PostgreSQL, the database several app replicas share: publish, versions,
open, and the append-only audit trail, on the server named by FORESTVIZ_TEST_POSTGRES_URL
(e.g. ``postgresql+psycopg://forestviz@127.0.0.1/forestviz_test``). Skipped, with the reason,
where no server is given or no PostgreSQL driver is installed (psycopg, pinned in
requirements-test.txt)."""

import importlib.util
import os
import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from forestviz.store import StoreConfig
from forestviz.store.library import open_library
from tests.store_helpers import HANG_GUARD, numbers, run_script, trained
from tests.test_store_processes import PUBLISH, TOGETHER

URL = os.environ.get("FORESTVIZ_TEST_POSTGRES_URL")


@pytest.fixture
def library(tmp_path):
    if not URL:
        pytest.skip("no PostgreSQL server: set FORESTVIZ_TEST_POSTGRES_URL to a test database "
                    "(postgresql+psycopg://USER@HOST/DB) to run it")
    if not any(importlib.util.find_spec(name) for name in ("psycopg", "psycopg2")):
        pytest.skip("no PostgreSQL driver: pip install psycopg[binary] to run it")
    return open_library(StoreConfig(tmp_path / "var", URL))


def test_the_library_on_postgresql(library):
    bench = trained()
    name = f"pg {uuid.uuid4().hex[:12]}"  # the database outlives the test: names are new
    first = library.publish(bench, name=name)
    second = library.publish(bench, name=name, description="second")
    assert (first.version, second.version) == (1, 2)
    opened = library.open_model(name, 1)
    positions = bench.model.test_rows[:3]
    assert numbers(opened.workbench, positions) == numbers(bench, positions)
    assert list(library.audit.query(model=name)["action"]) == [
        "model_published", "model_published", "model_opened"]
    with library.engine.connect() as connection, pytest.raises(DBAPIError,
                                                               match="append-only"):
        connection.execute(text("DELETE FROM audit_events"))


def test_two_processes_publishing_one_name_get_versions_1_and_2(library, tmp_path):
    """Here the race is real: both read no version, both insert 1, the unique constraint
    refuses the second commit and its retry takes 2."""
    name = f"pg {uuid.uuid4().hex[:12]}"
    ready = [tmp_path / "ready-a", tmp_path / "ready-b"]
    children = [run_script(PUBLISH.format(patch=TOGETHER), tmp_path / "var", wait=False,
                           READY=str(mine), ALL=":".join(map(str, ready)), MODEL_NAME=name,
                           FORESTVIZ_DATABASE_URL=URL) for mine in ready]
    versions = []
    for child in children:
        out, err = child.communicate(timeout=HANG_GUARD)
        assert child.returncode == 0, err
        versions.append(int(out.strip().splitlines()[-1]))
    assert sorted(versions) == [1, 2]
    assert sorted(v.version for v in library.versions(name)) == [1, 2]
