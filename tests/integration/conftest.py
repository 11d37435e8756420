"""The integration suite runs against both databases (issue 4).

Every test that takes `database_url` runs twice: on SQLite and on the PostgreSQL named by
SCOREBOARD_TEST_POSTGRES_URL. Without that variable the PostgreSQL half is skipped, saying
why, so the README's test command stays green on a laptop; `.ci/run` sets
SCOREBOARD_REQUIRE_POSTGRES=1, which turns the skip into a failure.

Each test gets a database already at the newest revision, as a migrated server leaves it
(issue 15): the migrations run once per session, into a SQLite file that every test gets a
copy of, and into the worker's PostgreSQL database, whose tables are emptied before each
test. A test marked `unmigrated` gets an empty database instead
(tests/integration/test_migrations.py runs the real migrations on it).

Under pytest-xdist each worker has its own PostgreSQL database, named after the configured
one and the worker (`h_suite` gives `h_suite_gw0`, `h_suite_gw1`), made when first needed
and kept for the next run; without xdist the configured database itself is used.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import sqlalchemy
from fastapi.testclient import TestClient
from in_process import IN_PROCESS_TIMEOUTS
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlmodel import SQLModel

import app.db.tables  # noqa: F401  (the tables register on SQLModel.metadata)
from app.db.engine import head_revision, make_engine, migrate, normalize_url
from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app
from bench.load import reset_postgres

POSTGRES_ENV = "SCOREBOARD_TEST_POSTGRES_URL"
ADMIN_TOKEN = "integration-admin-token-0123456789abcdef"
# How long emptying the tables waits for a lock that a connection left over from the test
# before still holds, before that connection is ended (it belongs to this worker's database).
RESET_LOCK_TIMEOUT = "5s"


def worker() -> str | None:
    """This pytest-xdist worker's id (gw0, gw1, ...), or None when xdist is not running."""
    return os.environ.get("PYTEST_XDIST_WORKER")


def configured_postgres_url() -> str:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        message = f"{POSTGRES_ENV} is not set: the PostgreSQL half of the suite is skipped"
        if os.environ.get("SCOREBOARD_REQUIRE_POSTGRES"):
            pytest.fail(message + " but SCOREBOARD_REQUIRE_POSTGRES demands it")
        pytest.skip(message)
    return url


def postgres_url() -> str:
    """This worker's PostgreSQL database (made if it is not there yet)."""
    url = configured_postgres_url()
    name = worker()
    if name is None:
        return url
    configured = make_url(url)
    own = configured.set(database=f"{configured.database}_{name}")
    worker_url = own.render_as_string(hide_password=False)
    _create_database(url, own.database or "")
    return worker_url


_created: set[str] = set()


def _create_database(maintenance_url: str, database: str) -> None:
    if database in _created:
        return
    engine = sqlalchemy.create_engine(
        normalize_url(maintenance_url), isolation_level="AUTOCOMMIT", poolclass=sqlalchemy.NullPool
    )
    try:
        with engine.connect() as connection:
            exists = connection.exec_driver_sql(
                "SELECT 1 FROM pg_database WHERE datname = %(name)s", {"name": database}
            ).scalar()
            if not exists:
                connection.exec_driver_sql(f'CREATE DATABASE "{database}"')
    finally:
        engine.dispose()
    _created.add(database)


def fresh_postgres(url: str) -> None:
    """The public schema at the newest revision with every table empty, as the migrations
    leave it. Emptying the tables (TRUNCATE, about 20 ms) is faster than a database made
    from a template (CREATE DATABASE ... TEMPLATE, about 200 ms) or the migrations (100 ms
    and more); a schema that a test left at another revision is migrated again."""
    engine = _reset_engine(url)
    try:
        with engine.connect() as connection:
            tables = set(
                connection.exec_driver_sql(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                ).scalars()
            )
            revision = None
            if "alembic_version" in tables:
                revision = connection.exec_driver_sql(
                    "SELECT version_num FROM public.alembic_version"
                ).scalar()
            connection.rollback()
            expected = set(SQLModel.metadata.tables)
            if revision == head_revision() and tables == expected | {"alembic_version"}:
                _empty_tables(connection, sorted(expected))
                return
    except OperationalError:
        engine.dispose()  # its kept connection may have been ended: the next test opens one
        raise
    reset_postgres(url)
    migrate(url)


@cache
def _reset_engine(url: str) -> sqlalchemy.Engine:
    """One engine a worker's database, whose one connection is kept from test to test:
    a PostgreSQL connection costs a process and about 10 ms, more than emptying the tables.
    Idle between tests, it holds no lock; a connection ended meanwhile is replaced."""
    return sqlalchemy.create_engine(
        normalize_url(url), pool_size=1, max_overflow=0, pool_pre_ping=True
    )


def _empty_tables(connection: sqlalchemy.Connection, tables: list[str]) -> None:
    names = ", ".join(f'public."{table}"' for table in tables)
    for attempt in range(2):
        try:
            with connection.begin():
                connection.exec_driver_sql(f"SET LOCAL lock_timeout = '{RESET_LOCK_TIMEOUT}'")
                connection.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
            return
        except OperationalError:
            if attempt:
                raise
            # A connection of an earlier test (a server that did not stop) holds a lock.
            with connection.begin():
                connection.exec_driver_sql(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file at the newest revision, migrated once per session (per worker)."""
    template = tmp_path_factory.mktemp("template") / "scoreboard.db"
    migrate(f"sqlite:///{template}")
    return template


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    unmigrated = request.node.get_closest_marker("unmigrated") is not None
    if request.param == "sqlite":
        path = tmp_path / "scoreboard.db"
        if not unmigrated:
            shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    url = postgres_url()
    if unmigrated:
        reset_postgres(url)
    else:
        fresh_postgres(url)
    return url


@pytest.fixture
def store(database_url: str) -> Iterator[TournamentStore]:
    # `database_url` is at the newest revision already (a copy of the template, or emptied
    # tables); a migrated test that changes the schema makes its own store.
    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    yield TournamentStore(engine)
    engine.dispose()


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        admin_token=ADMIN_TOKEN,  # type: ignore[arg-type]
        db_idle_in_transaction_timeout=IN_PROCESS_TIMEOUTS.idle_in_transaction,
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:  # `with` runs the lifespan
        yield test_client


@pytest.fixture
def admin_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_TOKEN}"}
