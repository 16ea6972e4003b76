"""Connecting to the library's database and migrating it to the newest schema at open.

SQLite (the default, a file in the data directory) is created with mode 0600 before SQLite
opens it, runs in WAL mode (readers do not wait for a writer) and begins every transaction
with ``BEGIN IMMEDIATE``, so two processes publishing at once take turns instead of both
reading the same last version (SQLAlchemy's recipe for pysqlite's own transaction handling,
"Serializable isolation / Savepoints / Transactional DDL"). Any other URL (PostgreSQL for
several replicas) is used as given. Alembic's ``upgrade head`` runs on every open, from the
scripts shipped in ``forestviz/store/migrations``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import ArgumentError, InterfaceError, OperationalError, SQLAlchemyError

from forestviz.store import blobs
from forestviz.store.config import StoreConfig, StoreUnavailable

MIGRATIONS = Path(__file__).with_name("migrations")
SQLITE_BUSY_SECONDS = 30.0  # a writer waits this long for another (a publish holds it < 1 s)
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
        if url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_SECONDS})
            event.listen(engine, "connect", _sqlite_connected)
            event.listen(engine, "begin", _sqlite_begin)
            return engine
        connect_args = {"connect_timeout": CONNECT_SECONDS} if url.startswith(
            "postgresql") else {}
        return create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except ArgumentError as err:
        raise StoreUnavailable(f"FORESTVIZ_DATABASE_URL is not a database URL: {err}") from err


def _sqlite_connected(dbapi_connection, record) -> None:
    dbapi_connection.isolation_level = None  # transactions begin in _sqlite_begin
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


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
    """Turn a database that stopped answering mid-way (a server gone, a lock held past the
    busy timeout, a full disk) into StoreUnavailable; other errors pass."""
    try:
        yield
    except (OperationalError, InterfaceError) as err:
        raise StoreUnavailable(_first_line(err)) from err


def _first_line(err: Exception) -> str:
    text = str(getattr(err, "orig", None) or err)
    return text.strip().splitlines()[0] if text.strip() else type(err).__name__
