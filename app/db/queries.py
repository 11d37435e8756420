"""Every query of the application (STYLE.md, convention 4): routers and services call these
and never build a select themselves."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, delete, func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.db.tables import IdempotencyRecord, LogLine, ServerProcessRow, TableToken, TournamentRow


def as_utc(value: datetime) -> datetime:
    """SQLite hands timestamps back without their zone; every stored time is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# -- tournaments and their log -----------------------------------------------------------


def insert_tournament(session: Session, name: str, at: datetime) -> TournamentRow:
    row = TournamentRow(name=name, version=0, created_at=at)
    session.add(row)
    session.flush()
    return row


def get_tournament(session: Session, tournament_id: int) -> TournamentRow | None:
    return session.get(TournamentRow, tournament_id)


def list_tournaments(session: Session) -> Sequence[TournamentRow]:
    return session.exec(select(TournamentRow).order_by(col(TournamentRow.id))).all()


def bump_version(session: Session, tournament_id: int) -> int | None:
    """Take the tournament's write lock and count one more change; None if it does not exist.

    An UPDATE as the transaction's first statement locks the row on PostgreSQL and takes
    SQLite's write lock before anything is read, so concurrent writers queue up (with the busy
    timeout) instead of validating against a state another writer is about to change.
    """
    result = session.execute(
        update(TournamentRow)
        .where(col(TournamentRow.id) == tournament_id)
        .values(version=col(TournamentRow.version) + 1)
        .returning(col(TournamentRow.version))
    )
    version = result.scalar_one_or_none()
    return None if version is None else int(version)


def lines_after(session: Session, tournament_id: int, seq: int) -> Sequence[LogLine]:
    return session.exec(
        select(LogLine)
        .where(LogLine.tournament_id == tournament_id, LogLine.seq > seq)
        .order_by(col(LogLine.seq))
    ).all()


def last_seq(session: Session, tournament_id: int) -> int:
    value = session.exec(
        select(func.max(LogLine.seq)).where(LogLine.tournament_id == tournament_id)
    ).one()
    return int(value or 0)


def table_lines(session: Session, tournament_id: int, table: int) -> Sequence[LogLine]:
    """The audit list of one table: every line that names it, oldest first."""
    return session.exec(
        select(LogLine)
        .where(LogLine.tournament_id == tournament_id, LogLine.table_number == table)
        .order_by(col(LogLine.seq))
    ).all()


def table_audit_lines(
    session: Session, tournament_id: int, table: int, round_number: int | None = None
) -> Sequence[LogLine]:
    """The audit list of one table: every line that names it, and every line its judges'
    tokens entered (a penalty names the player, not the table), oldest first; with
    `round_number`, that round's lines only (table numbers start again each round)."""
    tokens = select(TableToken.id).where(
        TableToken.tournament_id == tournament_id, TableToken.table_number == table
    )
    query = select(LogLine).where(
        LogLine.tournament_id == tournament_id,
        or_(col(LogLine.table_number) == table, col(LogLine.token_id).in_(tokens)),
    )
    if round_number is not None:
        query = query.where(LogLine.round == round_number)
    return session.exec(query.order_by(col(LogLine.seq))).all()


def add_lines(session: Session, lines: Sequence[LogLine]) -> None:
    session.add_all(lines)
    session.flush()


# -- judges' tokens ----------------------------------------------------------------------


def insert_token(
    session: Session,
    tournament_id: int,
    table: int,
    token_hash: str,
    at: datetime,
    expires_at: datetime,
    role: str = "table",
) -> TableToken:
    row = TableToken(
        tournament_id=tournament_id,
        table_number=table,
        token_hash=token_hash,
        created_at=at,
        expires_at=expires_at,
        role=role,
    )
    session.add(row)
    session.flush()
    return row


def token_by_hash(session: Session, token_hash: str) -> TableToken | None:
    """The token with this hash, revoked or expired too: the caller says which (rule TK-2)."""
    return session.exec(select(TableToken).where(TableToken.token_hash == token_hash)).first()


def token_hashes_after(session: Session, after_id: int) -> Sequence[tuple[int, str]]:
    """(id, hash) of every token issued after `after_id`, revoked or not, oldest first."""
    query = select(TableToken.id, TableToken.token_hash).where(col(TableToken.id) > after_id)
    rows = session.exec(query.order_by(col(TableToken.id)))
    return [(token_id, hashed) for token_id, hashed in rows if token_id is not None]


def token_by_id(session: Session, tournament_id: int, token_id: int) -> TableToken | None:
    return session.exec(
        select(TableToken).where(
            TableToken.id == token_id, TableToken.tournament_id == tournament_id
        )
    ).first()


def tokens_of(
    session: Session, tournament_id: int, *, live_at: datetime | None = None
) -> Sequence[TableToken]:
    """The tournament's tokens not revoked, by table; with `live_at`, not expired then."""
    query = select(TableToken).where(
        TableToken.tournament_id == tournament_id, col(TableToken.revoked_at).is_(None)
    )
    if live_at is not None:
        query = query.where(col(TableToken.expires_at) > live_at)
    return session.exec(query.order_by(col(TableToken.table_number), col(TableToken.id))).all()


def revoke_tokens(session: Session, rows: Sequence[TableToken], at: datetime) -> None:
    for row in rows:
        if row.revoked_at is None:
            row.revoked_at = at
            session.add(row)
    session.flush()


# -- idempotency keys --------------------------------------------------------------------


def idempotency_record(session: Session, tournament_id: int, key: str) -> IdempotencyRecord | None:
    return session.exec(
        select(IdempotencyRecord).where(
            IdempotencyRecord.tournament_id == tournament_id, IdempotencyRecord.key == key
        )
    ).first()


def claim_idempotency_key(
    session: Session,
    tournament_id: int,
    key: str,
    request_hash: str,
    at: datetime,
    owner: str | None = None,
) -> IdempotencyRecord | None:
    """Claim a new key for process `owner` and commit the claim; if the key exists already,
    return its record (whose answer or claim the caller then honours) and claim nothing."""
    record = IdempotencyRecord(
        tournament_id=tournament_id,
        key=key,
        request_hash=request_hash,
        claimed_at=at,
        claimed_by=owner,
    )
    session.add(record)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        return idempotency_record(session, tournament_id, key)
    return None


def retake_idempotency_key(
    session: Session,
    record_id: int,
    claimed_at: datetime,
    at: datetime,
    owner: str | None = None,
) -> bool:
    """Take over an abandoned claim (its request died with its process) for process `owner`;
    only one of several racing retries wins, because the old claim time must still match."""
    result = session.execute(
        update(IdempotencyRecord)
        .where(
            col(IdempotencyRecord.id) == record_id,
            col(IdempotencyRecord.done).is_(False),
            col(IdempotencyRecord.claimed_at) == claimed_at,
        )
        .values(claimed_at=at, claimed_by=owner)
    )
    session.commit()
    return bool(result.rowcount)  # type: ignore[attr-defined]


def finish_idempotency_key(
    session: Session,
    tournament_id: int,
    key: str,
    claimed_at: datetime,
    status_code: int,
    body: str,
) -> bool:
    """Store the answer, in the transaction of the change it answers; False if the claim
    was taken over meanwhile (the request looked dead and a retry owns the key now)."""
    result = session.execute(
        update(IdempotencyRecord)
        .where(
            col(IdempotencyRecord.tournament_id) == tournament_id,
            col(IdempotencyRecord.key) == key,
            col(IdempotencyRecord.claimed_at) == claimed_at,
            col(IdempotencyRecord.done).is_(False),
        )
        .values(done=True, status_code=status_code, response_body=body)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def release_idempotency_key(
    session: Session, tournament_id: int, key: str, claimed_at: datetime
) -> None:
    """Forget our claim on a key whose request was refused: the key was never used for a
    change. A claim a retry has taken over is not ours to forget."""
    session.execute(
        delete(IdempotencyRecord).where(
            col(IdempotencyRecord.tournament_id) == tournament_id,
            col(IdempotencyRecord.key) == key,
            col(IdempotencyRecord.claimed_at) == claimed_at,
            col(IdempotencyRecord.done).is_(False),
        )
    )
    session.commit()


# -- server processes ----------------------------------------------------------------------


def insert_server_process(
    session: Session, process_id: str, host: str, pid: int, at: datetime
) -> None:
    session.add(ServerProcessRow(id=process_id, host=host, pid=pid, started_at=at, last_seen=at))
    session.commit()


def server_process(session: Session, process_id: str) -> ServerProcessRow | None:
    return session.get(ServerProcessRow, process_id)


def server_processes_on(session: Session, host: str) -> Sequence[ServerProcessRow]:
    return session.exec(select(ServerProcessRow).where(ServerProcessRow.host == host)).all()


def beat(session: Session, process_id: str, at: datetime) -> bool:
    """A process's heartbeat; False if its row is gone (another process took it for dead)."""
    result = session.execute(
        update(ServerProcessRow).where(col(ServerProcessRow.id) == process_id).values(last_seen=at)
    )
    session.commit()
    return bool(result.rowcount)  # type: ignore[attr-defined]


def delete_server_processes(
    session: Session, process_ids: Sequence[str] = (), *, unseen_since: datetime | None = None
) -> None:
    """Forget these processes, and with `unseen_since` every one not seen since then."""
    conditions: list[ColumnElement[bool]] = (
        [col(ServerProcessRow.id).in_(list(process_ids))] if process_ids else []
    )
    if unseen_since is not None:
        conditions.append(col(ServerProcessRow.last_seen) < unseen_since)
    if conditions:
        session.execute(delete(ServerProcessRow).where(or_(*conditions)))
        session.commit()
