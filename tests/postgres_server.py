"""A throwaway PostgreSQL server for the store tests: Debian's ``postgresql`` package (installed
by ``make test-system-deps``), ``initdb`` and ``pg_ctl`` in a temporary folder, listening on a
Unix socket in that folder only (no TCP: nothing else on the machine reaches it), on a port
no other server of this machine uses, stopped and removed when the test session ends.

``initdb`` refuses to run as root (tests may, in a container): there the cluster belongs to
the unprivileged ``nobody`` and its programs run through ``setpriv``. Each test gets a
database of its own (:meth:`PostgresServer.new_database`), so tests never see each other's
rows; under pytest-xdist each worker starts its own server. A test run killed outright
(SIGKILL) leaves its server running: ``pg_ctl -D /tmp/forestviz-pg-*/data stop`` ends it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

START_SECONDS = 60  # a hang guard: the server starts in well under a second
ROLE = "forestviz"
# a throwaway cluster: nothing is worth an fsync, and small buffers start fast
SETTINGS = ("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
            "-c", "listen_addresses=", "-c", "shared_buffers=16MB", "-c", "max_connections=40")


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server could be started here (the message says why, in one line)."""


def binaries() -> Path:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres``: on PATH, or the newest of
    Debian's ``/usr/lib/postgresql/<major>/bin``."""
    found = shutil.which("pg_ctl")
    if found is not None:
        return Path(found).parent
    majors = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                    key=lambda path: int(Path(path).parts[-3]))
    if not majors:
        raise PostgresUnavailable("PostgreSQL is not installed (Debian: apt-get install "
                                  "postgresql, which `make test-system-deps` runs)")
    return Path(majors[-1]).parent


def free_port() -> int:
    """A TCP port nothing listens on now: it names the server's socket file, and keeps the
    server's shared memory apart from any other server of this machine."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """One running cluster; :meth:`stop` ends it and removes its folder."""

    def __init__(self):
        self.bin = binaries()
        self.folder = Path(tempfile.mkdtemp(prefix="forestviz-pg-"))
        self.port = free_port()
        self._as_owner: list[str] = []
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("nobody")
            except KeyError:
                shutil.rmtree(self.folder, ignore_errors=True)
                raise PostgresUnavailable("running as root, and there is no user 'nobody' to "
                                          "own the cluster (initdb refuses root)") from None
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self._as_owner = ["setpriv", f"--reuid={owner.pw_uid}", f"--regid={owner.pw_gid}",
                              "--clear-groups"]
        try:
            self._run("initdb", "-D", "data", "-U", ROLE, "--auth=trust", "--no-sync",
                      "--encoding=UTF8", "--locale=C")
            self._run("pg_ctl", "-D", "data", "-l", "server.log", "-w", "-t",
                      str(START_SECONDS), "-o", " ".join(
                          [*SETTINGS, "-c", f"unix_socket_directories={self.folder}",
                           "-p", str(self.port)]), "start")
        except PostgresUnavailable:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise

    def _run(self, program: str, *args: str) -> None:
        try:
            done = subprocess.run([*self._as_owner, str(self.bin / program), *args],
                                  cwd=self.folder, capture_output=True, text=True,
                                  timeout=START_SECONDS, env={**os.environ, "LC_ALL": "C"})
        except OSError as err:  # setpriv or the program missing
            raise PostgresUnavailable(f"{program} could not run: {err}") from err
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace") if log.exists() else ""
            reason = (done.stderr + done.stdout + tail).strip().splitlines() or ["no output"]
            raise PostgresUnavailable(f"{program} failed: {reason[-1]}")

    def url(self, database: str = "postgres") -> str:
        """A SQLAlchemy URL of ``database`` on this server, over its socket."""
        return f"postgresql+psycopg://{ROLE}@/{database}?host={self.folder}&port={self.port}"

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(host=str(self.folder), port=self.port, user=ROLE,
                             dbname="postgres", autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        with contextlib.suppress(PostgresUnavailable, subprocess.TimeoutExpired):
            self._run("pg_ctl", "-D", "data", "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
