"""The Audit page at 300,000 events (issue 36, item 6): one page run now (a count and one
page of 1,000 events, SQL LIMIT/OFFSET) against what every run did before (the newest 1,000
through the ORM and the whole filtered trail built as CSV), and the CSV export the page now
builds only on request, a piece of 5,000 events at a time, each measured in the same run on
the same real SQLite library.

    PYTHONPATH=. .venv/bin/python bench/audit_trail.py [--events 300000] [--repeat 3]

Goal: a page run ≤ 1 s at 300,000 events (the issue measured 17–48 s per click). Each step
prints its best wall time and that call's CPU time of this process; the ratio is the old run's
time over the new one's.
"""

import argparse
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from bench.timing import best_wall_and_cpu
from forestviz.io.export import csv_bytes
from forestviz.store import StoreConfig, open_library
from forestviz.store.audit import COLUMNS, utc
from forestviz.store.tables import AuditEvent
from ui.audit_view import PAGE_EVENTS, day_bounds

ACTIONS = ("model_opened", "row_explained", "rows_explained", "report_downloaded")


def fill(library, events: int) -> None:
    """``events`` events over the last 30 days, 50 actors, 4 actions, 20 models."""
    now = datetime.now(UTC)
    step = timedelta(days=29) / events
    rows = [{"at": now - (events - i) * step, "subject": f"user {i % 50}",
             "email": f"user{i % 50}@clinic.test", "action": ACTIONS[i % 4],
             "model_name": f"model {i % 20}", "model_version": 1 + i % 3,
             "detail": f"P{i:07d}"} for i in range(events)]
    with Session(library.engine) as session, session.begin():
        for start in range(0, events, 50_000):
            session.execute(insert(AuditEvent), rows[start:start + 50_000])


def old_run(engine, filters: dict) -> None:
    """What the page did on every run before: the newest 1,000 events through the ORM, then
    every matching event through the ORM into the CSV."""
    def query(limit):
        statement = select(AuditEvent).where(AuditEvent.at >= filters["since"],
                                             AuditEvent.at < filters["until"])
        statement = statement.order_by(AuditEvent.id.desc())
        if limit is not None:
            statement = statement.limit(limit)
        with Session(engine) as session:
            rows = session.scalars(statement).all()
        return pd.DataFrame([[utc(r.at), r.subject, r.email, r.action, r.model_name,
                              r.model_version, r.detail] for r in reversed(rows)],
                            columns=COLUMNS)

    query(PAGE_EVENTS)
    frame = query(None)
    frame["at"] = [moment.isoformat() for moment in frame["at"]]
    csv_bytes(frame)


def new_run(trail, filters: dict, page: int) -> None:
    """A page run now: the count (for the page picker), one page."""
    trail.count(**filters)
    trail.query(**filters, limit=PAGE_EVENTS, offset=(page - 1) * PAGE_EVENTS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        library = open_library(StoreConfig(Path(folder)))
        started = time.perf_counter()
        fill(library, args.events)
        print(f"{args.events:,} events written in {time.perf_counter() - started:.1f} s")
        today = datetime.now(UTC).date()
        since, until = day_bounds(today - timedelta(days=29), today)
        filters = {"since": since, "until": until}
        trail = library.audit
        last = -(-trail.count(**filters) // PAGE_EVENTS)
        old = best_wall_and_cpu(lambda: old_run(library.engine, filters), args.repeat)
        first = best_wall_and_cpu(lambda: new_run(trail, filters, 1), args.repeat)
        deepest = best_wall_and_cpu(lambda: new_run(trail, filters, last), args.repeat)
        who = best_wall_and_cpu(lambda: new_run(trail, {**filters, "who": "user7@clinic.test"}, 1),
                        args.repeat)
        export = best_wall_and_cpu(lambda: trail.export_csv(**filters), args.repeat)
        size = len(trail.export_csv(**filters))
    print(f"{'step':<46}{'wall s':>9}{'CPU s':>9}{'old / this':>12}")
    for label, (wall, cpu) in [
            ("before: every page run (ORM, whole CSV)", old),
            ("now: page run, page 1", first),
            (f"now: page run, page {last} (the oldest)", deepest),
            ("now: page run, one user's events", who),
            (f"now: the CSV on request ({size / 2**20:.0f} MiB)", export)]:
        print(f"{label:<46}{wall:>9.3f}{cpu:>9.3f}{old[0] / wall:>12.1f}")


if __name__ == "__main__":
    main()
