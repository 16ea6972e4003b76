"""`forestviz audit verify` at 100,000 events (issue 38, item 3): the whole hash chain checked
against two references measured in the same run on the same library: reading the same rows
alone (the same columns, the same pieces of 10,000 by id), and hashlib over the same canonical
bytes alone (the hashing the check cannot avoid).

    PYTHONPATH=. .venv/bin/python bench/audit_verify.py [--events 100000] [--repeat 3]
        [--url postgresql+psycopg://USER@/DB?host=/socket/folder]

Goal: ≤ 5 s for 100,000 events. Each step prints its best wall time and that call's CPU time
of this process (a PostgreSQL server's own CPU is not in it); the ratios are verify's wall
time over each reference's.
"""

import argparse
import hashlib
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from bench.timing import best_wall_and_cpu
from forestviz.store import Actor, StoreConfig, open_library
from forestviz.store.audit import event_row
from forestviz.store.chain import CHAIN_COLUMNS, VERIFY_ROWS, append, content
from forestviz.store.tables import AuditEvent

ACTIONS = ("model_opened", "row_explained", "rows_explained", "report_downloaded")


def fill(library, events: int) -> None:
    """``events`` chained events over the last 30 days, 50 actors, 4 actions, 20 models."""
    now = datetime.now(UTC)
    step = timedelta(days=29) / events
    for start in range(0, events, 20_000):
        with Session(library.engine) as session, session.begin():
            append(session, [event_row(Actor(f"user {i % 50}", f"user{i % 50}@clinic.test"),
                                       ACTIONS[i % 4], (f"model {i % 20}", 1 + i % 3),
                                       detail=f"P{i:07d}", at=now - (events - i) * step)
                             for i in range(start, min(events, start + 20_000))])


def read_rows(engine) -> list:
    """The rows verify reads, the same way (pieces by id), and nothing else."""
    found, after = [], 0
    while True:
        with engine.connect() as connection:
            rows = connection.execute(select(*CHAIN_COLUMNS).where(AuditEvent.id > after)
                                      .order_by(AuditEvent.id).limit(VERIFY_ROWS)).all()
        found.extend(rows)
        if len(rows) < VERIFY_ROWS:
            return found
        after = rows[-1].id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--url", help="a database URL (default: SQLite in a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        library = open_library(StoreConfig(Path(folder), args.url))
        started = time.perf_counter()
        fill(library, args.events)
        print(f"{args.events:,} chained events written in {time.perf_counter() - started:.1f} s "
              f"({library.engine.dialect.name})")
        rows = read_rows(library.engine)
        data = [(row[-2].encode("ascii"), content(row[1:-2])) for row in rows]
        verdict = library.audit.verify()
        assert verdict.intact and verdict.checked == args.events, verdict.lines()
        verify = best_wall_and_cpu(library.audit.verify, args.repeat)
        reading = best_wall_and_cpu(lambda: read_rows(library.engine), args.repeat)
        hashing = best_wall_and_cpu(
            lambda: [hashlib.sha256(previous + body).hexdigest() for previous, body in data],
            args.repeat)
    print(f"{'step':<52}{'wall s':>9}{'CPU s':>9}{'verify / this':>15}")
    for label, (wall, cpu) in [("audit verify (read, canonical JSON, hash, compare)", verify),
                               ("reference: reading the same rows alone", reading),
                               ("reference: hashlib over the same bytes alone", hashing)]:
        print(f"{label:<52}{wall:>9.3f}{cpu:>9.3f}{verify[0] / wall:>15.1f}")


if __name__ == "__main__":
    main()
