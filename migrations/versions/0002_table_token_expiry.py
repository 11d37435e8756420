"""Table tokens expire (issue 14, rule TK-1)

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 00:50:00

A token issued before this revision had no end; it gets one day from its issue, so no tablet
of an earlier day opens a table for good.
"""

from collections.abc import Sequence
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EARLIER_TOKENS_LAST = timedelta(days=1)


def upgrade() -> None:
    with op.batch_alter_table("table_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
    tokens = sa.table(
        "table_tokens",
        sa.column("id", sa.Integer()),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("expires_at", sa.DateTime(timezone=True)),
    )
    connection = op.get_bind()
    # Row by row in Python: date arithmetic in SQL is not the same on SQLite and PostgreSQL.
    for token_id, created_at in connection.execute(sa.select(tokens.c.id, tokens.c.created_at)):
        connection.execute(
            tokens.update()
            .where(tokens.c.id == token_id)
            .values(expires_at=created_at + EARLIER_TOKENS_LAST)
        )
    with op.batch_alter_table("table_tokens", schema=None) as batch_op:
        batch_op.alter_column(
            "expires_at", existing_type=sa.DateTime(timezone=True), nullable=False
        )


def downgrade() -> None:
    with op.batch_alter_table("table_tokens", schema=None) as batch_op:
        batch_op.drop_column("expires_at")
