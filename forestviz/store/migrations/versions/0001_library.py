"""The model library and the audit trail (issue 28).

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

STAMP = sa.DateTime(timezone=True)

# the audit trail is append-only in the database too: any UPDATE or DELETE is refused
SQLITE_GUARDS = [f"""CREATE TRIGGER audit_events_no_{verb.lower()} BEFORE {verb} ON audit_events
BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END""" for verb in ("UPDATE",
                                                                                "DELETE")]
POSTGRESQL_GUARDS = [
    """CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'the audit trail is append-only'; END $$""",
    """CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()""",
]


def upgrade() -> None:
    op.create_table(
        "published_models",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("intended_use", sa.Text, nullable=False),
        sa.Column("dataset_name", sa.String(255), nullable=False),
        sa.Column("dataset_sha256", sa.String(64), nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("id_column", sa.Text),
        sa.Column("excluded", sa.JSON, nullable=False),
        sa.Column("task", sa.String(20), nullable=False),
        sa.Column("family", sa.String(40), nullable=False),
        sa.Column("n_trees", sa.Integer, nullable=False),
        sa.Column("n_train", sa.Integer, nullable=False),
        sa.Column("n_test", sa.Integer, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("metrics", sa.JSON, nullable=False),
        sa.Column("columns", sa.JSON, nullable=False),
        sa.Column("forestviz_version", sa.String(40), nullable=False),
        sa.Column("published_by", sa.String(255), nullable=False),
        sa.Column("published_email", sa.String(255)),
        sa.Column("published_at", STAMP, nullable=False),
        sa.Column("retired_by", sa.String(255)),
        sa.Column("retired_at", STAMP),
        sa.Column("blob_sha256", sa.String(64), nullable=False),
        sa.Column("blob_bytes", sa.Integer, nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_published_models_version"),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", STAMP, nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("email", sa.String(255)),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("model_name", sa.String(80)),
        sa.Column("model_version", sa.Integer),
        sa.Column("detail", sa.Text),
    )
    op.create_index("ix_audit_events_at", "audit_events", ["at"])
    op.create_index("ix_audit_events_action", "audit_events", ["action"])
    guards = {"sqlite": SQLITE_GUARDS, "postgresql": POSTGRESQL_GUARDS}
    for statement in guards.get(op.get_bind().dialect.name, []):
        op.execute(statement)


def downgrade() -> None:
    op.drop_table("audit_events")
    op.drop_table("published_models")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION audit_events_append_only()")
