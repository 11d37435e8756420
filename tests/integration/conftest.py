"""The integration suite runs against both databases (issue 4).

Every test that takes `database_url` runs twice: on a fresh SQLite file and on the
PostgreSQL named by SCOREBOARD_TEST_POSTGRES_URL (reset to an empty schema first). Without
that variable the PostgreSQL half is skipped, saying why, so the README's test command stays
green on a laptop; `.ci/run` sets SCOREBOARD_REQUIRE_POSTGRES=1, which turns the skip into a
failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy
from fastapi.testclient import TestClient
from in_process import IN_PROCESS_TIMEOUTS

from app.db.engine import make_engine, migrate, normalize_url
from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app

POSTGRES_ENV = "SCOREBOARD_TEST_POSTGRES_URL"
ADMIN_TOKEN = "integration-admin-token-0123456789abcdef"


def postgres_url() -> str:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        message = f"{POSTGRES_ENV} is not set: the PostgreSQL half of the suite is skipped"
        if os.environ.get("SCOREBOARD_REQUIRE_POSTGRES"):
            pytest.fail(message + " but SCOREBOARD_REQUIRE_POSTGRES demands it")
        pytest.skip(message)
    return url


def reset_postgres(url: str) -> None:
    """An empty public schema, so every test starts from the migrations."""
    engine = sqlalchemy.create_engine(normalize_url(url))
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP SCHEMA IF EXISTS public CASCADE")
        connection.exec_driver_sql("CREATE SCHEMA public")
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'scoreboard.db'}"
    url = postgres_url()
    reset_postgres(url)
    return url


@pytest.fixture
def store(database_url: str) -> Iterator[TournamentStore]:
    migrate(database_url)
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
