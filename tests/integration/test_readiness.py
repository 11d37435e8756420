"""`/api/ready` (issue 16): a process is ready when its database answers and its schema is at
the migrations' head; Redis is reported and never makes it unready (app/web/health.py says
why). On both databases, with the machine's Redis and with one of the test's own that never
answers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.db.engine import head_revision, normalize_url
from app.settings import Settings
from app.web import create_app
from app.web.health import READY_FRESH, READY_TIMEOUT, ReadinessCheck
from tests.integration.conftest import ADMIN_TOKEN, fresh_postgres, postgres_url
from tests.integration.live_setup import SilentRedis, backplane_channel, redis_url

WAIT = 10.0  # seconds a change of readiness may take to show (it is checked once a second)


def ready_until(client: TestClient, condition: Callable[[Any], bool]) -> Any:
    """The /api/ready answer once `condition` holds for it (an answer is kept READY_FRESH)."""
    deadline = time.monotonic() + WAIT
    while True:
        response = client.get("/api/ready")
        if condition(response) or time.monotonic() > deadline:
            return response
        time.sleep(0.1)


def test_a_migrated_process_is_ready_and_says_it_uses_no_redis(client: TestClient) -> None:
    response = client.get("/api/ready")

    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["status"] == "ready"
    assert answer["database"] == "ok"
    assert answer["migrations"] == "at head"
    assert answer["schema_revision"] == answer["head_revision"] == head_revision()
    assert answer["redis"] == "not used"


def timed_ready(client: TestClient) -> tuple[Any, float]:
    """/api/ready's answer, and the seconds it took."""
    asked = time.monotonic()
    response = client.get("/api/ready")
    return response, time.monotonic() - asked


def quick(client: TestClient) -> ReadinessCheck:
    """The app's check, its answer kept 0.05 s and its parts given 0.5 s: the same check,
    with shorter waits for the test."""
    check: ReadinessCheck = client.app_state["readiness"]
    check.fresh, check.timeout = 0.05, 0.5
    return check


def test_a_schema_behind_the_code_is_not_ready_until_it_is_migrated(
    client: TestClient, database_url: str
) -> None:
    """A process started beside a database another version migrated (or one restored from an
    older backup) must get no traffic: it would read tables it does not know."""
    quick(client)
    assert client.get("/api/ready").status_code == 200
    engine = sqlalchemy.create_engine(normalize_url(database_url), poolclass=sqlalchemy.NullPool)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = 'older'")
        response = ready_until(client, lambda r: r.status_code == 503)
        assert response.status_code == 503, response.text
        assert response.json()["migrations"] == "not at head"
        assert response.json()["schema_revision"] == "older"
        assert response.json()["database"] == "ok"
    finally:
        with engine.begin() as connection:
            connection.execute(
                sqlalchemy.text("UPDATE alembic_version SET version_num = :head"),
                {"head": head_revision()},
            )
        engine.dispose()
    assert ready_until(client, lambda r: r.status_code == 200).status_code == 200


@contextmanager
def alembic_version_locked(database_url: str) -> Iterator[None]:
    """Another connection holds the alembic_version table in an exclusive lock: the database
    answers no reader of it, as when frozen mid-write."""
    engine = sqlalchemy.create_engine(normalize_url(database_url), poolclass=sqlalchemy.NullPool)
    connection = engine.connect()
    try:
        connection.begin()
        connection.exec_driver_sql("LOCK TABLE alembic_version IN ACCESS EXCLUSIVE MODE")
        yield
    finally:
        connection.rollback()
        connection.close()
        engine.dispose()


@pytest.fixture
def on_postgres() -> Iterator[tuple[TestClient, str]]:
    """A process on PostgreSQL only: a SQLite file in WAL mode never stops a reader (no
    writer blocks one), so it has no "does not answer" short of a broken disk."""
    url = postgres_url()
    fresh_postgres(url)
    settings = Settings(database_url=url, admin_token=ADMIN_TOKEN)  # type: ignore[arg-type]
    with TestClient(create_app(settings)) as client:
        yield client, url


def test_a_database_that_does_not_answer_makes_the_process_unready_within_the_timeout(
    on_postgres: tuple[TestClient, str],
) -> None:
    client, url = on_postgres
    check = quick(client)
    # A first connection on a loaded machine may take longer than the test's short timeout:
    # wait for the ready answer rather than demand it of the first check.
    assert ready_until(client, lambda r: r.status_code == 200).status_code == 200
    time.sleep(check.fresh)  # the answer kept from that check has gone stale
    with alembic_version_locked(url):
        response, took = timed_ready(client)
        assert response.status_code == 503, response.text
        assert response.json()["database"] == "unreachable"
        assert response.json()["migrations"] == "unknown"
        assert took < check.timeout + 1.0, took  # the check does not wait the database out
    assert ready_until(client, lambda r: r.status_code == 200).status_code == 200


def test_a_flood_of_checks_costs_one_database_query_a_second(client: TestClient) -> None:
    engine = client.app_state["store"].engine
    asked: list[str] = []
    lock = threading.Lock()

    def count(*args: Any) -> None:
        statement = args[2]
        # one check is more than one statement (SQLite's dialect asks for the table's
        # columns first): count the checks, by the one query each makes of the version
        if statement.startswith("SELECT version_num FROM alembic_version"):
            with lock:
                asked.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        started = time.monotonic()
        answers = [client.get("/api/ready").status_code for _ in range(200)]
        elapsed = time.monotonic() - started
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert set(answers) == {200}
    assert 1 <= len(asked) <= int(elapsed / READY_FRESH) + 2, (len(asked), elapsed)


def redis_settings(settings: Settings, url: str) -> Settings:
    return settings.model_copy(
        update={"redis_url": url, "redis_channel": backplane_channel(), "redis_socket_timeout": 0.5}
    )


def test_the_machines_redis_is_reported_reachable(settings: Settings) -> None:
    with TestClient(create_app(redis_settings(settings, redis_url()))) as client:
        response = client.get("/api/ready")
    assert response.status_code == 200, response.text
    assert response.json()["redis"] == "ok"


def test_a_redis_that_never_answers_is_reported_and_leaves_the_process_ready(
    settings: Settings,
) -> None:
    """Every process shares the one Redis: were it to make them unready, the proxy would
    send the judges nowhere, when their hands never need it (issue 14)."""
    with (
        SilentRedis() as silent,
        TestClient(create_app(redis_settings(settings, silent.url))) as client,
    ):
        response, took = timed_ready(client)
    assert response.status_code == 200, response.text
    assert response.json()["redis"] == "unreachable"
    assert response.json()["status"] == "ready"
    assert took < READY_TIMEOUT + 1.0, took


@pytest.mark.parametrize("path", ["/api/ready", "/api/health"])
def test_health_and_readiness_are_in_the_openapi_document(client: TestClient, path: str) -> None:
    document = client.get("/openapi.json").json()
    assert "get" in document["paths"][path]
