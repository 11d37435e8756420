"""A guess from an address over its failed sign-ins is answered 429 by the HTTP protocol as
soon as its headers are read, before any ASGI task or app (issue 14, bench/hostile.py: most
of a guess's cost was uvicorn's own work for the request). What the protocol cannot decide at
once goes on to the app's guard (app/web/guards.py, `refuse_guessers`), which answers the
same. uvicorn's real protocol and config, a transport of the test's own."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from app.settings import Settings
from app.web.guards import RateLimits
from app.web.live_protocol import HttpProtocol

GUESSER = "10.1.2.3"
PROXY = "127.0.0.1"  # uvicorn's FORWARDED_ALLOW_IPS default
FAILURES = 3


class Transport(asyncio.Transport):
    def __init__(self, peer: str) -> None:
        super().__init__()
        self.peer = peer
        self.written = b""
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": (self.peer, 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class App:
    """The ASGI app behind the protocol: records what reaches it, answers 204."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def request(token: str, *, extra: str = "", body: bytes = b'{"hand": 1}') -> bytes:
    return (
        f"POST /api/tournaments/1/hands HTTP/1.1\r\nHost: hall\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{extra}\r\n"
    ).encode() + body


async def connected(
    rate_limits: RateLimits, app: App, peer: str = GUESSER
) -> tuple[HttpProtocol, Transport]:
    config = Config(app=app, proxy_headers=True, forwarded_allow_ips=PROXY)
    config.load()
    state = ServerState()
    # what uvicorn's server sets every second (Server.on_tick)
    state.default_headers = [(b"date", b"Thu, 03 Dec 2026 15:00:00 GMT"), *config.encoded_headers]
    protocol = HttpProtocol(
        config=config, server_state=state, app_state={"rate_limits": rate_limits}
    )
    transport = Transport(peer)
    protocol.connection_made(transport)
    return protocol, transport


def answers(written: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """The HTTP answers written, in order: status, headers, body."""
    found = []
    while written:
        head, _, rest = written.partition(b"\r\n\r\n")
        status_line, *lines = head.decode().split("\r\n")
        headers = {k.lower(): v for k, _, v in (line.partition(": ") for line in lines)}
        length = int(headers.get("content-length", "0"))
        found.append((int(status_line.split()[1]), headers, rest[:length]))
        written = rest[length:]
    return found


def blocked_limits(known_token: str | None = None) -> RateLimits:
    settings = Settings(auth_failures_per_address=f"{FAILURES}/minute")
    rate_limits = RateLimits(settings, issued_after=lambda after: [])
    for n in range(FAILURES + 1):  # rule: the address is over its failed sign-ins
        rate_limits.failed_authentication(GUESSER, f"guess-{n}")
    assert rate_limits.blocked_for(GUESSER) is not None
    if known_token is not None:
        rate_limits.signed_in(known_token)
    return rate_limits


def test_guesses_are_answered_429_without_reaching_the_app_on_a_kept_connection() -> None:
    async def run() -> None:
        rate_limits, app = blocked_limits(), App()
        protocol, transport = await connected(rate_limits, app)
        protocol.data_received(request("bad-1") + request("bad-2"))
        await asyncio.sleep(0.05)
        assert app.paths == []  # no ASGI task: nothing of the app ran
        [first, second] = answers(transport.written)
        for status, headers, body in (first, second):
            assert status == 429
            assert 1 <= int(headers["retry-after"]) <= 60
            assert "connection" not in headers  # kept: no new connection for each guess
            assert "date" in headers and "server" in headers  # as uvicorn's own answers
            problem = json.loads(body)
            assert problem["field"] == "Authorization"
            assert "SCOREBOARD_AUTH_FAILURES_PER_ADDRESS" in problem["detail"]
        # The same answer as the app's guard gives (guards.refuse_guessers)
        start, body_message = rate_limits.guess_refused(int(first[1]["retry-after"]))
        assert first[2] == body_message["body"]
        assert not transport.closed
        assert protocol.timeout_keep_alive_task is not None  # the idle connection is timed

    asyncio.run(run())


@pytest.mark.parametrize(
    ("token", "peer", "extra"),
    [
        pytest.param("judge-token-known", GUESSER, "", id="a token that signed in"),
        # shaped like a table token: only a load of the tokens issued since can tell
        pytest.param("A" * 32, GUESSER, "", id="table-shaped, not loaded yet"),
        pytest.param("bad-1", PROXY, f"X-Forwarded-For: {GUESSER}\r\n", id="behind a proxy"),
        pytest.param("bad-1", "10.9.9.9", "", id="another address"),
    ],
)
def test_what_cannot_be_decided_at_once_goes_on_to_the_app(
    token: str, peer: str, extra: str
) -> None:
    async def run() -> None:
        app = App()
        protocol, transport = await connected(blocked_limits("judge-token-known"), app, peer)
        protocol.data_received(request(token, extra=extra))
        await asyncio.sleep(0.05)
        assert app.paths == ["/api/tournaments/1/hands"]
        assert [status for status, _, _ in answers(transport.written)] == [204]

    asyncio.run(run())


def test_a_guess_that_asks_to_close_is_answered_and_closed() -> None:
    async def run() -> None:
        app = App()
        protocol, transport = await connected(blocked_limits(), app)
        protocol.data_received(request("bad-1", extra="Connection: close\r\n"))
        await asyncio.sleep(0.05)
        assert [status for status, _, _ in answers(transport.written)] == [429]
        assert transport.closed and app.paths == []

    asyncio.run(run())


def test_a_good_request_after_a_refused_guess_on_the_same_connection_reaches_the_app() -> None:
    """The refused guess's body is dropped, and the next request is read as usual."""

    async def run() -> None:
        app = App()
        protocol, transport = await connected(blocked_limits("judge-token-known"), app)
        protocol.data_received(request("bad-1", body=b'{"x": "' + b"y" * 4000 + b'"}'))
        protocol.data_received(request("judge-token-known"))
        await asyncio.sleep(0.05)
        assert [status for status, _, _ in answers(transport.written)] == [429, 204]
        assert app.paths == ["/api/tournaments/1/hands"]

    asyncio.run(run())
