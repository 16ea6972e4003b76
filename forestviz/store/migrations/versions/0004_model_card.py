"""The model card of each published version (issue 38): the card as JSON (forestviz.card) and
the SHA-256 of its canonical JSON. Versions published before keep these empty: they were
published without a card.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("published_models", sa.Column("card", sa.JSON))
    op.add_column("published_models", sa.Column("card_sha256", sa.String(64)))


def downgrade() -> None:
    for column in ("card_sha256", "card"):
        op.drop_column("published_models", column)
