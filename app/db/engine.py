"""The database engine and the schema migrations.

SQLite (the embedded default) runs in WAL mode with a busy timeout, so readers never block
the writer and a second writer waits instead of failing. PostgreSQL is used when
SCOREBOARD_DATABASE_URL points at it. The server applies the Alembic migrations at start-up
(`create_app`'s lifespan); `scoreboard migrate` does the same by hand.

No stuck part may stall the judges (issue 14): on PostgreSQL every connection carries a
`lock_timeout`, an `idle_in_transaction_session_timeout` and a `statement_timeout`
(`DatabaseTimeouts`). A process frozen inside a write transaction (SIGSTOP, a VM pause)
holds its tournament's row lock: the server ends its session after the idle timeout, which
rolls the transaction back and frees the lock, and a writer waiting on that lock gives up
after the lock timeout instead of waiting for ever (the store retries it, then answers 503).
SQLite has no server to end a frozen holder's transaction: a writer waits the busy timeout,
then gets "database is locked", answered 503 as well.
"""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, inspect, pool, text
from sqlalchemy.exc import DBAPIError, OperationalError

import app
from app import metrics

# The settings name these without loading SQLAlchemy or Alembic (scoreboard slips reads the
# settings offline); every connection made here takes them.
from app.db.timeouts import DatabaseTimeouts as DatabaseTimeouts


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))


_PACKAGE = Path(app.__file__).resolve().parent
# A checkout has them at the top (migrations/); an installed wheel carries them inside app/.
MIGRATIONS = next(
    (path for path in (_PACKAGE.parent / "migrations", _PACKAGE / "_migrations") if path.is_dir()),
    _PACKAGE.parent / "migrations",
)


def normalize_url(url: str) -> str:
    """`postgresql://` means the psycopg 3 driver, the one this project installs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str, timeouts: DatabaseTimeouts | None = None, **options: Any) -> Engine:
    """An engine with the timeouts that end a stuck statement or lock, each statement timed
    (metrics.DATABASE_SECONDS)."""
    engine = _make_engine(url, timeouts, **options)
    event.listen(engine, "before_cursor_execute", _statement_started)
    event.listen(engine, "after_cursor_execute", _statement_ended)
    return engine


def _statement_started(_: Any, __: Any, ___: Any, ____: Any, context: Any, _____: Any) -> None:
    context.scoreboard_started = time.perf_counter()


def _statement_ended(_: Any, __: Any, ___: Any, ____: Any, context: Any, _____: Any) -> None:
    started = getattr(context, "scoreboard_started", None)
    if started is not None:
        metrics.DATABASE_SECONDS.observe(time.perf_counter() - started)


def _make_engine(url: str, timeouts: DatabaseTimeouts | None = None, **options: Any) -> Engine:
    url = normalize_url(url)
    limits = timeouts if timeouts is not None else DatabaseTimeouts()
    if url.startswith("sqlite"):
        busy_ms = _milliseconds(limits.sqlite_busy)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": busy_ms / 1000}
        )

        def sqlite_pragmas(dbapi_connection: Any, _: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
            cursor.execute("PRAGMA foreign_keys=ON")
            # WAL with synchronous=FULL: a hand acknowledged to a judge survives a power cut.
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.close()

        event.listen(engine, "connect", sqlite_pragmas)
        return engine
    engine = create_engine(url, pool_pre_ping=True, **options)

    def postgres_timeouts(dbapi_connection: Any, _: Any) -> None:
        # SET on connect rather than libpq `options` in the URL: those already carry the
        # search_path of a deployment (or a test) that keeps its tables in its own schema.
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET lock_timeout = {_milliseconds(limits.lock)}")
            cursor.execute(
                "SET idle_in_transaction_session_timeout = "
                f"{_milliseconds(limits.idle_in_transaction)}"
            )
            cursor.execute(f"SET statement_timeout = {_milliseconds(limits.statement)}")
        dbapi_connection.commit()  # a plain SET lasts for the session once committed

    event.listen(engine, "connect", postgres_timeouts)
    return engine


# SQLSTATE of PostgreSQL's lock_timeout (lock_not_available)
_LOCK_NOT_AVAILABLE = "55P03"
# What a retry of the same request may get past: a lock or statement timeout, the end of a
# session idle in its transaction, a serialization failure or a deadlock.
_TRANSIENT_STATES = {_LOCK_NOT_AVAILABLE, "57014", "25P03", "40001", "40P01"}


def is_lock_timeout(error: BaseException) -> bool:
    """The database gave up waiting for a lock another connection holds: PostgreSQL's
    lock_timeout, or SQLite's busy timeout ("database is locked")."""
    if not isinstance(error, DBAPIError):
        return False
    original = error.orig
    if getattr(original, "sqlstate", None) == _LOCK_NOT_AVAILABLE:
        return True
    return "database is locked" in str(original)


def _alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser reads "%" as interpolation: a password may contain one.
    config.set_main_option("sqlalchemy.url", normalize_url(url).replace("%", "%%"))
    config.attributes["configure_logger"] = False
    return config


@cache
def head_revision() -> str | None:
    """The newest revision of the migrations this code carries."""
    return ScriptDirectory(str(MIGRATIONS)).get_current_head()


def schema_revision(url: str, engine: Engine | None = None) -> str | None:
    """The revision the database's schema is at (None: never migrated). With `engine`, asked
    on one of its connections, which its pool keeps for what comes next."""
    used = engine or create_engine(normalize_url(url), poolclass=pool.NullPool)
    try:
        with used.connect() as connection:
            if not inspect(connection).has_table("alembic_version"):
                return None
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    finally:
        if engine is None:
            used.dispose()


def migrate(url: str, engine: Engine | None = None) -> None:
    """Bring the schema to the newest revision (idempotent). `engine`, if given, is the
    app's own for this URL: a schema already at the head is seen on its pool's connection,
    not on one opened for the look alone (a PostgreSQL connection costs a process)."""
    # A schema already at the head needs none of Alembic's machinery: every start of a test
    # app and every restart of a server would load the environment and the scripts for nothing.
    if schema_revision(url, engine) == head_revision():
        return
    command.upgrade(_alembic_config(url), "head")


def is_transient(error: BaseException) -> bool:
    """A database error that says nothing about the request: the database was busy, or the
    connection was lost (the server ended a frozen session, PostgreSQL restarted). The same
    request sent again is expected to go through (HTTP 503 with Retry-After)."""
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated or isinstance(error, OperationalError):
        return True
    return getattr(error.orig, "sqlstate", None) in _TRANSIENT_STATES
