"""The audit trail's hash chain (issue 38): each event's number in the chain, the hash of the
event before it and its own (forestviz.store.chain). Events already written keep these empty:
they were written before the chain began (and the append-only triggers refuse to change them).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("audit_events", sa.Column("seq", sa.Integer))
    op.add_column("audit_events", sa.Column("prev_sha256", sa.String(64)))
    op.add_column("audit_events", sa.Column("sha256", sa.String(64)))
    # one event per number: a fork of the chain is refused by the database itself
    op.create_index("ux_audit_events_seq", "audit_events", ["seq"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_audit_events_seq", "audit_events")
    for column in ("sha256", "prev_sha256", "seq"):
        op.drop_column("audit_events", column)
