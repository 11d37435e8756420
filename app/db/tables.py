"""The tables. The tournament log is the source of truth (STYLE.md, convention 2): every
hand, correction, void, penalty, seating and round end is one append-only `log_lines` row,
with who entered it, from which table token, and when. Nothing else is needed to rebuild a
tournament; the other tables hold credentials, idempotency records and the server processes
that are running."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def _utc_column(*, nullable: bool = False) -> Column[datetime]:
    return Column(DateTime(timezone=True), nullable=nullable)


class TournamentRow(SQLModel, table=True):
    __tablename__ = "tournaments"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    # Bumped once by every committed change: what live displays resume from (issue 5), and
    # the row a writer locks so that appends to one tournament are serialized.
    version: int = 0
    created_at: datetime = Field(sa_column=_utc_column())


class LogLine(SQLModel, table=True):
    __tablename__ = "log_lines"
    __table_args__ = (UniqueConstraint("tournament_id", "seq", name="uq_log_lines_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    seq: int  # the line's number in the tournament's log, from 1
    version: int  # the tournament version the line's change committed as
    type: str
    round: int | None = None
    table_number: int | None = Field(default=None, index=True)
    body: str = Field(sa_column=Column(Text, nullable=False))  # the JSON line, as exported
    entered_by: str  # "admin", "judge", "import"
    token_id: int | None = Field(default=None, foreign_key="table_tokens.id")
    entered_at: datetime = Field(sa_column=_utc_column())


class TableToken(SQLModel, table=True):
    """A judge's bearer token, scoped to one table of one tournament, or a head judge's, to
    every table of it (`role`, migration 0004; its `table_number` is 0). Only its SHA-256 is
    kept, so a database copy leaks no usable token."""

    __tablename__ = "table_tokens"

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    table_number: int
    token_hash: str = Field(unique=True, index=True)
    created_at: datetime = Field(sa_column=_utc_column())
    # rule TK-1: the end of its tournament day, or the organizer's time (migration 0002)
    expires_at: datetime = Field(sa_column=_utc_column())
    revoked_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    # "table" or "head_judge" (issue 18, part 3)
    role: str = Field(
        default="table",
        sa_column=Column(String(16), nullable=False, server_default="table"),
    )


class IdempotencyRecord(SQLModel, table=True):
    """One submission key: claimed while in progress, then the stored first answer."""

    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("tournament_id", "key", name="uq_idempotency_key"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    key: str
    request_hash: str
    done: bool = False
    status_code: int | None = None
    response_body: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    claimed_at: datetime = Field(sa_column=_utc_column())
    # The server process running the claim (ServerProcessRow.id); None for a claim made
    # before processes were named, which only the age of its claim can release.
    claimed_by: str | None = None


class ServerProcessRow(SQLModel, table=True):
    """One running server process and its heartbeat (app/services/processes.py): a claim
    whose process has no row, a stale heartbeat, or a dead pid on this host is released at
    once (issue 14)."""

    __tablename__ = "server_processes"

    id: str = Field(primary_key=True)  # random, made when the process starts
    host: str  # the host name and pid namespace the pid belongs to
    pid: int
    started_at: datetime = Field(sa_column=_utc_column())
    last_seen: datetime = Field(sa_column=_utc_column())
