"""Schemathesis fuzzes every operation of the OpenAPI document, in-process (ASGI), on
SQLite: no answer is a 5xx, and every answer is documented (its status code, content type,
headers and body match the schema).

Each generated case is sent twice, with the admin token and with table 1's judge token, to
an imported tournament, so that generated bodies reach the rules and not only the token
check. Operations added later (admin, public) are fuzzed too, with no change here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.python.asgi import shutdown_lifespans

from app.db.engine import make_engine, migrate
from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app
from tests.integration.conftest import ADMIN_TOKEN
from tests.integration.judging_setup import club_opening

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
EXAMPLES_PER_OPERATION = 40


@schemathesis.serializer(
    "application/jsonl", "application/x-ndjson", "text/plain", "text/csv", "application/csv"
)
def _text_body(_: Any, value: Any) -> bytes:
    """Logs and player lists are uploaded as text: send a generated string as it is."""
    return value.encode() if isinstance(value, str) else json.dumps(value).encode()


# The document comes from the app itself. Loading it starts this app's lifespan, so it gets
# an in-memory database that nothing uses; the cases go to each test's own app (`app=`), on
# a fresh SQLite file with a tournament in it, through the same in-process ASGI transport.
schema = schemathesis.openapi.from_asgi(
    "/openapi.json",
    create_app(Settings(database_url="sqlite://", admin_token=ADMIN_TOKEN)),  # type: ignore[arg-type]
)


@dataclass(frozen=True)
class FuzzTarget:
    app: Any
    tournament_id: int
    credentials: dict[str, dict[str, str]]


@pytest.fixture
def fuzz_target(tmp_path: Path) -> Iterator[FuzzTarget]:
    url = f"sqlite:///{tmp_path / 'fuzz.db'}"
    migrate(url)
    engine = make_engine(url)
    store = TournamentStore(engine)
    tid = store.import_log(club_opening()).tournament_id
    judge = store.issue_token(tid, 1)
    try:
        yield FuzzTarget(
            app=create_app(Settings(database_url=url, admin_token=ADMIN_TOKEN)),  # type: ignore[arg-type]
            tournament_id=tid,
            credentials={
                "admin": {"Authorization": f"Bearer {ADMIN_TOKEN}"},
                "judge": {"Authorization": f"Bearer {judge}"},
            },
        )
    finally:
        shutdown_lifespans()  # the lifespans schemathesis started: they dispose their engines
        engine.dispose()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    derandomize=True,  # the same cases on every run: a failure in CI reproduces locally
    # One database per operation, shared by its examples: state carries over between
    # cases on purpose (a hand one case enters changes what the next case may do).
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
    database=None,
)
def test_no_operation_answers_5xx_or_off_schema(case: Any, fuzz_target: FuzzTarget) -> None:
    if "tournament_id" in (case.path_parameters or {}):
        case.path_parameters["tournament_id"] = fuzz_target.tournament_id
    for headers in fuzz_target.credentials.values():
        case.call_and_validate(app=fuzz_target.app, headers=headers, checks=CHECKS)
