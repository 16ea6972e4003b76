"""The databases the store tests run on (a pytest plugin, named in ``tests/conftest.py``): each
test taking ``database`` runs twice, on SQLite (a file in the test's data directory: the URL
is None) and on PostgreSQL (a new database on this session's throwaway server,
:mod:`tests.postgres_server`). Where PostgreSQL cannot start, its runs skip with the reason on
a developer's machine and fail under CI (``CI=true``): nothing skips in CI.

Also the store tests' two common fixtures: ``bench``, a small trained workbench (a module may
define its own), and ``library``, a new library on each database."""

from __future__ import annotations

import os

import pytest

from tests.postgres_server import PostgresServer, PostgresUnavailable
from tests.store_helpers import library_at, trained

# the PostgreSQL runs go with the slow tier: the unit tier starts no server
DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)]


@pytest.fixture(scope="session")
def postgres():
    """This session's (this xdist worker's) PostgreSQL server, started at first use."""
    try:
        server = PostgresServer()
    except PostgresUnavailable as err:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL could not start: {err}")
        pytest.skip(f"PostgreSQL could not start: {err}")
    yield server
    server.stop()


def database_url(request) -> str | None:
    """The database URL of a fixture parametrized by :data:`DATABASES`: None (SQLite in its
    data directory) or a new, empty PostgreSQL database."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture(params=DATABASES)
def database(request) -> str | None:
    """The database URL of one test (:func:`database_url`)."""
    return database_url(request)


@pytest.fixture(scope="module")
def bench():
    """A small trained workbench (:func:`tests.store_helpers.trained`), once per module."""
    return trained()


@pytest.fixture
def library(tmp_path, database):
    """A new library in the test's folder on each database."""
    return library_at(tmp_path / "var", database)
