"""The audit trail's retention (issue 38): the append-only guard lets one DELETE through, that
of events a purge has recorded (forestviz.store.purge). An event may be deleted only when a
later ``audit_purged`` event, written in the chain first, names it: its ``through_id`` is the
event's id or after it. Every other DELETE, and every UPDATE, is refused as before. No pragma
or session setting is involved (nothing a connection could set to switch the guard off): the
guard reads the trail itself.

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

REFUSED = "the audit trail is append-only"
# the purge events that name an event (CASE: a detail is read as JSON only for those)
SQLITE_NAMED = """EXISTS (SELECT 1 FROM audit_events AS purge WHERE purge.id > OLD.id
  AND CASE WHEN purge.action = 'audit_purged' AND json_valid(purge.detail)
      THEN json_extract(purge.detail, '$.through_id') END >= OLD.id)"""
SQLITE_GUARD = f"""CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN NOT {SQLITE_NAMED}
BEGIN SELECT RAISE(ABORT, '{REFUSED}'); END"""
SQLITE_OLD_GUARD = f"""CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN SELECT RAISE(ABORT, '{REFUSED}'); END"""
POSTGRESQL_GUARD = f"""CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$ BEGIN
  IF TG_OP = 'DELETE' AND EXISTS (SELECT 1 FROM audit_events AS purge WHERE purge.id > OLD.id
      AND CASE WHEN purge.action = 'audit_purged'
          THEN (purge.detail::jsonb ->> 'through_id')::bigint END >= OLD.id) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION '{REFUSED}';
END $$"""
POSTGRESQL_OLD_GUARD = f"""CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '{REFUSED}'; END $$"""


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS audit_events_no_delete")
        op.execute(SQLITE_GUARD)
    elif dialect == "postgresql":
        op.execute(POSTGRESQL_GUARD)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS audit_events_no_delete")
        op.execute(SQLITE_OLD_GUARD)
    elif dialect == "postgresql":
        op.execute(POSTGRESQL_OLD_GUARD)
