"""Head-judge tokens (issue 18, part 3)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04 15:20:00

A token gets a `role`: "table" (a judge's table token, as every token before this revision)
or "head_judge" (every table of its tournament, no admin action). A head-judge token's
`table_number` is 0: it names no table.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("table_tokens", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("role", sa.String(length=16), nullable=False, server_default="table")
        )


def downgrade() -> None:
    with op.batch_alter_table("table_tokens", schema=None) as batch_op:
        batch_op.drop_column("role")
