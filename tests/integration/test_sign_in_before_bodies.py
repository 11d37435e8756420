"""An import or a player upload is signed in before its body is read (issue 32, item 3).

Seen before: an anonymous or wrong-token POST of a 16 MiB JSON body to
`/api/tournaments/{tid}/players` (or `players.csv`, or `/api/tournaments/import`: the routes
with SCOREBOARD_IMPORT_BODY_LIMIT_BYTES) was read and parsed before its 401; ten at once took
the server from 128 to 752 MiB and the judges' p99 from 29 to 1,776 ms. Now only the admin
token gets the large limit: without it, a body over the small limit is never read. The app
answers as it answers any failed sign-in (401, or 429 past the limit, counted), and the
connection closes after the answer.

The app is called as uvicorn calls it, with a body that the test counts as it is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message

from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app
from tests.integration.conftest import ADMIN_TOKEN
from tests.integration.judging_setup import club_opening

MiB = 1024 * 1024
LARGE = 16 * MiB  # the default import limit: a body as large as it allows
SMALL = 16 * 1024  # SCOREBOARD_BODY_LIMIT_BYTES, the default
FAILURES = 4  # SCOREBOARD_AUTH_FAILURES_PER_ADDRESS for these tests
CLIENT = ("203.0.113.30", 41000)  # a documentation address (RFC 5737)


@pytest.fixture
def served(database_url: str) -> Iterator[TestClient]:
    settings = Settings(
        database_url=database_url,
        admin_token=ADMIN_TOKEN,  # type: ignore[arg-type]
        auth_failures_per_address=f"{FAILURES}/minute",
    )
    with TestClient(create_app(settings), client=CLIENT) as client:
        yield client


class Sent:
    """One request, as uvicorn hands it to the app: the body comes in chunks of 1 MiB (with
    a Content-Length, or chunked), and each chunk the app asks for is counted."""

    def __init__(self, size: int, *, chunked: bool = False) -> None:
        self.size = size
        self.chunked = chunked
        self.read = 0  # bytes the app asked for
        self.messages: list[Message] = []

    async def receive(self) -> Message:
        chunk = min(MiB, self.size - self.read)
        self.read += chunk
        body = (b"[" + b" " * (chunk - 2) + b"]") if chunk >= 2 else b" " * chunk
        return {"type": "http.request", "body": body, "more_body": self.read < self.size}

    async def send(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def status(self) -> int:
        return int(self.messages[0]["status"])

    @property
    def headers(self) -> dict[str, str]:
        return {n.decode().lower(): v.decode() for n, v in self.messages[0]["headers"]}

    @property
    def problem(self) -> dict[str, Any]:
        body = b"".join(m.get("body", b"") for m in self.messages[1:])
        answer: dict[str, Any] = json.loads(body)
        return answer


def post(served: TestClient, path: str, sent: Sent, authorization: str | None) -> Sent:
    headers = [(b"host", b"testserver"), (b"content-type", b"application/json")]
    if authorization is not None:
        headers.append((b"authorization", authorization.encode()))
    if sent.chunked:
        headers.append((b"transfer-encoding", b"chunked"))
    else:
        headers.append((b"content-length", str(sent.size).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": CLIENT,
        "server": ("testserver", 80),
        "state": served.app_state.copy(),
    }
    portal = served.portal
    assert portal is not None
    portal.call(served.app, scope, sent.receive, sent.send)
    return sent


@pytest.fixture
def tid(store: TournamentStore) -> int:
    return store.import_log(club_opening()).tournament_id


def large_routes(tid: int) -> list[str]:
    return [
        f"/api/tournaments/{tid}/players",  # the one FastAPI parsed as JSON before the 401
        f"/api/tournaments/{tid}/players.csv",
        "/api/tournaments/import",
    ]


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_upload_without_the_admin_token_is_answered_before_its_body_is_read(
    served: TestClient, store: TournamentStore, tid: int, chunked: bool
) -> None:
    judge = store.issue_token(tid, 1)  # a good token, but not the admin's
    credentials = [
        (None, "an admin token is needed"),
        ("Bearer wrong-token", "this is not the admin token"),
        (f"Bearer {judge}", "this is not the admin token"),
        (f"Basic {ADMIN_TOKEN}", "an admin token is needed"),  # not a bearer: no token
    ]
    attempts = 0
    for path in large_routes(tid):
        for authorization, says in credentials[: FAILURES - attempts]:
            sent = post(served, path, Sent(LARGE, chunked=chunked), authorization)
            attempts += 1
            # Nothing read with a Content-Length; in chunks, no more than the small limit
            # (the first chunk, which passes it)
            assert sent.read == (MiB if chunked else 0), (path, authorization)
            assert sent.status == 401, (path, authorization, sent.problem)
            assert says in sent.problem["detail"]
            assert set(sent.problem) >= {"detail", "field", "rule"}
            assert sent.headers["www-authenticate"] == "Bearer"
            assert sent.headers["connection"] == "close"  # the rest is never read
    # Each was a failed sign-in: past the limit, 429, and still nothing read.
    for path in large_routes(tid):
        sent = post(served, path, Sent(LARGE, chunked=chunked), "Bearer wrong-token")
        assert sent.read == (MiB if chunked else 0)
        assert sent.status == 429, sent.problem
        assert "SCOREBOARD_AUTH_FAILURES_PER_ADDRESS" in sent.problem["detail"]
        assert sent.problem["field"] == "Authorization"
        assert int(sent.headers["retry-after"]) >= 1
        assert sent.headers["connection"] == "close"


def test_the_admin_token_keeps_the_large_limit(served: TestClient, tid: int) -> None:
    sent = post(served, f"/api/tournaments/{tid}/players", Sent(LARGE), f"Bearer {ADMIN_TOKEN}")
    assert sent.read == LARGE  # read whole, then refused for what it holds
    assert sent.status == 422, sent.problem
    over = post(served, "/api/tournaments/import", Sent(LARGE + 1), f"Bearer {ADMIN_TOKEN}")
    assert (over.status, over.read) == (413, 0)
    assert "SCOREBOARD_IMPORT_BODY_LIMIT_BYTES" in over.problem["detail"]


def test_a_small_upload_with_a_wrong_token_is_answered_as_before(
    served: TestClient, tid: int
) -> None:
    """Within the small limit, the app answers as it always has (the JSON route reads the
    body first, the text routes do not); the connection is kept."""
    for path in large_routes(tid):
        sent = post(served, path, Sent(SMALL), "Bearer wrong-token")
        assert sent.read <= SMALL
        assert sent.status == 401, sent.problem
        assert sent.problem["detail"] == "this is not the admin token"
        assert sent.headers["www-authenticate"] == "Bearer"
        assert "connection" not in sent.headers
