"""Connecting to the library's database and migrating it to the newest schema at open.

SQLite (the default, a file in the data directory) is created with mode 0600 before SQLite
opens it, runs in WAL mode (readers do not wait for a writer) and begins every transaction
with ``BEGIN IMMEDIATE``, so two processes publishing at once take turns instead of both
reading the same last version (SQLAlchemy's recipe for pysqlite's own transaction handling,
"Serializable isolation / Savepoints / Transactional DDL"). Any other URL (PostgreSQL for
several replicas) is used as given, except an in-memory SQLite database (``sqlite://``), which
every new connection would see empty: it is refused in one line. Alembic's ``upgrade head``
runs on every open, from the scripts shipped in ``forestviz/store/migrations``.

A lock held by another process is waited for at most :data:`LOCK_WAIT_SECONDS` (a publish
holds it for milliseconds); once a wait ran out, the engine's transactions do not wait at all
for :data:`LOCK_PAUSE_SECONDS`, so a page run that records several events while another
process holds the database waits once, not once per event. A publish from the command line
waits up to :data:`PUBLISH_WAIT_SECONDS` through :func:`patient`: two publishers on a loaded
machine then take turns instead of one failing. Within a page run every wait, a publish's too,
is also cut to what is left of the run's budget (:mod:`.waits`: 2 s in all). A lock that
outlasts the wait is :class:`~forestviz.store.config.StoreBusy` ("busy …; try again", one
line); :func:`reached` turns every other failure, like a corrupt file or a full disk, into one
line too (StoreUnavailable) and the app goes on in memory.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DatabaseError,
    IntegrityError,
    InterfaceError,
    SQLAlchemyError,
)

from forestviz.store import blobs, waits
from forestviz.store.config import StoreBusy, StoreConfig, StoreUnavailable

MIGRATIONS = Path(__file__).with_name("migrations")
LOCK_WAIT_SECONDS = 1.5  # a transaction waits this long for another's lock (a publish: ms)
LOCK_PAUSE_SECONDS = 10.0  # after a wait ran out, transactions do not wait for this long
PUBLISH_WAIT_SECONDS = 30.0  # a publish (an explicit act) waits for another publisher this long
_WAIT_OPTION = "forestviz_lock_wait"
IN_MEMORY = ("FORESTVIZ_DATABASE_URL names an in-memory SQLite database, which every "
             "connection would see empty: name a file (sqlite:////path/forestviz.db) or leave "
             "it unset")
CONNECT_SECONDS = 5  # a database server that does not answer in time is unavailable


def connect(config: StoreConfig) -> Engine:
    """The migrated engine of ``config``; StoreUnavailable (one line) when the data directory
    cannot be written or the database cannot be reached, opened or migrated."""
    try:
        blobs.private_folder(config.data_dir)
        blobs.private_folder(config.blob_dir)
        if config.sqlite_path is not None:
            blobs.private_file(config.sqlite_path)
        engine = _engine(config.url)
        migrate(engine)
    except OSError as err:
        where = f" '{err.filename}'" if err.filename else ""
        raise StoreUnavailable(f"{err.strerror or err}{where}") from err
    except (SQLAlchemyError, ImportError) as err:
        raise StoreUnavailable(_first_line(err)) from err
    return engine


def _engine(url: str) -> Engine:
    try:
        if make_url(url).get_backend_name() == "sqlite":
            if _in_memory(url):
                raise StoreUnavailable(IN_MEMORY)
            engine = create_engine(url, connect_args={"timeout": LOCK_WAIT_SECONDS})
            lock = _LockWait()
            event.listen(engine, "connect", _sqlite_connected)
            event.listen(engine, "begin", lock.begin)
            event.listen(engine, "handle_error", lock.failed)
            return engine
        connect_args = {"connect_timeout": CONNECT_SECONDS} if url.startswith(
            "postgresql") else {}
        return create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except ArgumentError as err:
        raise StoreUnavailable(f"FORESTVIZ_DATABASE_URL is not a database URL: {err}") from err


def _sqlite_connected(dbapi_connection, record) -> None:
    dbapi_connection.isolation_level = None  # transactions begin in _LockWait.begin
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _in_memory(url: str) -> bool:
    found = make_url(url)
    return (not found.database or ":memory:" in found.database
            or found.query.get("mode") == "memory")


class _LockWait:
    """The wait for another process's lock of one SQLite engine: :data:`LOCK_WAIT_SECONDS`,
    or none for :data:`LOCK_PAUSE_SECONDS` after a wait ran out; never more than what is left
    of a page run's budget (:func:`forestviz.store.waits.allowed`), which the wait is taken
    from."""

    def __init__(self):
        self._lock = threading.Lock()
        self._paused_until = -float("inf")

    def begin(self, connection) -> None:
        with self._lock:
            paused = time.monotonic() < self._paused_until
        wait = connection.get_execution_options().get(_WAIT_OPTION)
        if wait is None:
            wait = 0.0 if paused else LOCK_WAIT_SECONDS
        wait = waits.allowed(wait)
        with waits.Spent():
            connection.exec_driver_sql(f"PRAGMA busy_timeout = {round(wait * 1000)}")
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    def failed(self, context) -> None:
        if _busy(context.original_exception):
            with self._lock:
                self._paused_until = time.monotonic() + LOCK_PAUSE_SECONDS


def patient(bound: Engine) -> Engine:
    """``bound`` whose SQLite transactions wait up to :data:`PUBLISH_WAIT_SECONDS` for another
    process's lock, paused or not (the same pool; other databases ignore the option)."""
    return bound.execution_options(**{_WAIT_OPTION: PUBLISH_WAIT_SECONDS})


def migrate(engine: Engine) -> None:
    """Bring the schema to Alembic's head (nothing to do when it is there)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        connection.commit()


@contextlib.contextmanager
def reached():
    """Turn a database that stopped answering mid-way (a server gone, a full disk, a file
    that is not a database any more) into StoreUnavailable, a lock held past the wait into
    StoreBusy; an IntegrityError (another publisher took the version number) passes."""
    try:
        yield
    except IntegrityError:
        raise
    except (DatabaseError, InterfaceError) as err:
        if _busy(err.orig):
            raise StoreBusy(_first_line(err)) from err
        raise StoreUnavailable(_first_line(err)) from err


def _busy(error) -> bool:
    """SQLite's SQLITE_BUSY, or one of its extended codes (the low byte)."""
    return (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_BUSY


def _first_line(err: Exception) -> str:
    text = str(getattr(err, "orig", None) or err)
    return text.strip().splitlines()[0] if text.strip() else type(err).__name__
