"""What the live feed tests share: real server processes, real websocket clients, and a
client-side copy of every channel that checks each message against the one before it.

    with LiveServer(url, free_port(), log_path) as server:       # `scoreboard serve`
        async with Client.open(server.ws_url(tid, "standings")) as client:
            await client.until_version("standings", 7)          # snapshot, then changes
            assert client.held["standings"].state == ...

`Held` is what a display keeps for one channel: the version and the state. A snapshot sets
both; a change must apply on top of exactly the version held (`since`), which is how a
duplicate or a missed version shows up. Redis and PostgreSQL come from the environment,
like the rest of the integration suite (tests/integration/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.realtime.backplane import CHANNEL
from app.realtime.channels import apply_change
from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app
from app.web.live_protocol import HttpProtocol, LiveFeedProtocol
from bench.load import HOST, Server, free_port, hand_headers

REDIS_ENV = "SCOREBOARD_TEST_REDIS_URL"
ADMIN_TOKEN = "live-feed-admin-token"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
TIMEOUT = 10.0  # seconds any single expected message may take; generous, but bounded
STALLED_CLOSE = 0.5  # seconds a client that stopped reading waits for the close handshake
CLOSE_WAIT = 1.0  # and any other client (Client.open)
SHUTDOWN_GRACE = 3.0  # seconds a server may take to stop before it is killed


def live_config(app: Any, port: int, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for a server in the test's own process: the live feed's
    protocol, as `scoreboard serve` runs it, and only warnings logged."""
    return uvicorn.Config(
        app, host=HOST, port=port, ws=LiveFeedProtocol, log_level="warning", **options
    )


@contextmanager
def uvicorn_in_a_thread(app: Any, **options: Any) -> Iterator[uvicorn.Server]:
    """uvicorn with the live feed's protocol in a thread of the test's own process, so that
    the test can look at what the server holds; yields the server (its port is
    `server.config.port`), and stops it after."""
    port = free_port()
    server = uvicorn.Server(live_config(app, port, **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def scoreboard_in_a_thread(database_url: str) -> Iterator[uvicorn.Server]:
    """The scoreboard's app on `database_url`, with the protocols `scoreboard serve` runs it
    with, in a thread of the test's own process (uvicorn_in_a_thread; `app_state` reaches
    its store and hub)."""
    settings = Settings(database_url=database_url, admin_token=ADMIN_TOKEN)  # type: ignore[arg-type]
    with uvicorn_in_a_thread(create_app(settings), http=HttpProtocol) as server:
        yield server


def app_state(server: uvicorn.Server) -> dict[str, Any]:
    """What the app's lifespan handed to its requests: its store and hub among them."""
    state: dict[str, Any] = server.lifespan.state  # type: ignore[attr-defined]
    return state


def redis_url() -> str:
    """The Redis the backplane tests use, or a skip that says why (a failure under .ci/run)."""
    url = os.environ.get(REDIS_ENV)
    if not url:
        message = f"{REDIS_ENV} is not set: the tests of the Redis backplane are skipped"
        if os.environ.get("SCOREBOARD_REQUIRE_REDIS"):
            pytest.fail(message + " but SCOREBOARD_REQUIRE_REDIS demands them")
        pytest.skip(message)
    return url


def backplane_channel() -> str:
    """The backplane's pub/sub channel for the servers this test process starts. Redis
    pub/sub knows no database numbers: each user of the machine's Redis (their own
    SCOREBOARD_TEST_REDIS_URL database) and each pytest-xdist worker hears only its own."""
    number = urlsplit(os.environ.get(REDIS_ENV) or "").path.strip("/") or "0"
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return f"{CHANNEL}:test-{number}-{worker}"


def with_database_number(url: str, number: int) -> str:
    """The same Redis, another database number (keys of other users stay out of our way)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{number}"))


def now() -> datetime:
    return datetime.now(UTC)


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# -- processes ----------------------------------------------------------------------------


class LiveServer(Server):
    """`scoreboard serve` (bench.load.Server) with a known admin token, and with the Redis
    backplane only when `redis_url` is given: a stray SCOREBOARD_REDIS_URL in the
    environment never turns it on."""

    def __init__(
        self,
        database_url: str,
        port: int,
        log_path: Path,
        redis_url: str | None = None,
        options: Sequence[str] = (),
    ) -> None:
        super().__init__(database_url, port, log_path, options)
        self.redis_url = redis_url

    def start(self, ready_within: float = 30.0) -> None:
        with pytest.MonkeyPatch.context() as environment:
            environment.setenv("SCOREBOARD_ADMIN_TOKEN", ADMIN_TOKEN)
            environment.delenv("SCOREBOARD_WS_COMPRESSION", raising=False)  # the default
            if self.redis_url is None:
                environment.delenv("SCOREBOARD_REDIS_URL", raising=False)
            else:
                environment.setenv("SCOREBOARD_REDIS_URL", self.redis_url)
                environment.setenv("SCOREBOARD_REDIS_CHANNEL", backplane_channel())
            super().start(ready_within)

    def stop(self, grace: float = SHUTDOWN_GRACE) -> None:
        """SIGTERM, and SIGKILL if it has not exited within SHUTDOWN_GRACE."""
        super().stop(grace)

    def seconds_to_stop(self, limit: float) -> float:
        """SIGTERM, then how long a graceful shutdown took (`limit` and a SIGKILL if longer)."""
        assert self.process is not None
        started = time.monotonic()
        self.process.terminate()
        try:
            self.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.kill()
            return limit
        return time.monotonic() - started

    def ws_url(
        self,
        tid: int,
        channels: str | Iterable[str] | None = None,
        *,
        since: int | None = None,
        format: str | None = None,
    ) -> str:
        query = {}
        if channels is not None:
            query["channels"] = channels if isinstance(channels, str) else ",".join(channels)
        if since is not None:
            query["since"] = str(since)
        if format is not None:
            query["format"] = format
        text = "&".join(f"{key}={value}" for key, value in query.items())
        return f"ws://{HOST}:{self.port}/ws/tournaments/{tid}" + (f"?{text}" if text else "")

    def rss(self) -> int:
        """The server's resident memory in bytes (Linux)."""
        assert self.process is not None
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024


class RedisServer:
    """A redis-server of our own on a free port, to stop and start again (the machine's
    Redis is never touched)."""

    def __init__(self, log_path: Path) -> None:
        self.port = free_port()
        self.log_path = log_path
        self.url = f"redis://{HOST}:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    "redis-server",
                    "--port",
                    str(self.port),
                    "--bind",
                    HOST,
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--daemonize",
                    "no",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + TIMEOUT
        while self.cli("ping") != "PONG":
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {self.log_path.read_text()}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)  # no goodbye to its subscribers
            self.process.wait(timeout=TIMEOUT)

    def cli(self, *args: str) -> str:
        done = subprocess.run(
            ["redis-cli", "-h", HOST, "-p", str(self.port), *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        return done.stdout.strip()

    def subscribers(self, channel: str) -> int:
        """How many connections listen on a pub/sub channel (PUBSUB NUMSUB)."""
        lines = self.cli("pubsub", "numsub", channel).splitlines()
        return int(lines[1]) if len(lines) == 2 else 0


# -- tournaments ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Tournament:
    tid: int
    tokens: dict[int, str]


def open_tournament(
    store: TournamentStore, lines: Sequence[str], tables: Iterable[int]
) -> Tournament:
    """Import a log as the organizer would, and a judge's token for each table."""
    tid = store.import_log(lines).tournament_id
    return Tournament(tid, {table: store.issue_token(tid, table) for table in tables})


def http_client() -> httpx.AsyncClient:
    """For bursts of requests: idle connections are dropped well before uvicorn's own
    keep-alive timeout (5 s), so a request never goes out on one the server is closing."""
    limits = httpx.Limits(max_connections=64, keepalive_expiry=1.0)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(30.0))


class Api:
    """The HTTP side of a test: judges' and admin writes, and the public reads."""

    def __init__(self, http: httpx.AsyncClient, base_url: str, tournament: Tournament) -> None:
        self.http = http
        self.base = f"{base_url}/api/tournaments/{tournament.tid}"
        self.tournament = tournament
        # Keys unique to this Api: an id() was reused by the next Api made after one was
        # freed, and its first hand's key met the earlier hand's (rightly refused, 422)
        self._prefix = f"live-{uuid.uuid4().hex[:12]}"
        self._keys = 0

    async def judge(self, route: str, body: dict[str, Any], *, table: int) -> dict[str, Any]:
        """A judge's write; hands, corrections and voids carry a fresh Idempotency-Key."""
        self._keys += 1
        response = await self.send(route, body, table=table, key=f"{self._prefix}-{self._keys}")
        assert response.status_code == 201, response.text
        answer: dict[str, Any] = response.json()
        return answer

    async def send(
        self, route: str, body: dict[str, Any], *, table: int, key: str
    ) -> httpx.Response:
        """One try of a judge's write under the tablet's own Idempotency-Key, whatever the
        answer: a tablet's retry carries the same key, to this process or another."""
        headers = hand_headers(self.tournament.tokens[table], key)
        return await self.http.post(f"{self.base}/{route}", json=body, headers=headers)

    async def hand(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.judge("hands", body, table=body["table"])

    async def admin(self, route: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        response = await self.http.post(f"{self.base}/{route}", json=body, headers=ADMIN)
        assert response.status_code == 201, response.text
        answer: dict[str, Any] = response.json()
        return answer

    async def get(self, route: str = "") -> Any:
        response = await self.http.get(self.base + (f"/{route}" if route else ""))
        assert response.status_code == 200, response.text
        return response.json()

    async def version(self) -> int:
        return int((await self.get())["version"])

    async def standings(self) -> dict[str, Any]:
        """GET /standings in the live channel's shape: rows keyed by player id."""
        answer = await self.get("standings")
        (current,) = answer["rounds"]
        rows = {str(row["player"]): row for row in current.pop("standings")}
        current.pop("draw", None)
        return {**current, "rows": rows, "version": answer["version"]}


# -- websocket clients ----------------------------------------------------------------------


@dataclass
class Message:
    raw: bytes | str
    body: dict[str, Any]
    at: float  # time.monotonic() when it was read

    @property
    def type(self) -> str:
        return str(self.body["type"])

    @property
    def channel(self) -> str | None:
        return self.body.get("channel")

    @property
    def version(self) -> int:
        return int(self.body["version"])


@dataclass
class Held:
    """One channel as a display holds it."""

    version: int
    state: dict[str, Any]


class ChainBroken(AssertionError):
    pass


class Client:
    """A real websocket client that keeps every message it read and every channel's state.

    Every snapshot and change goes through `hold`, which raises ChainBroken as soon as a
    change does not apply on top of the version held (a duplicate or a missed version) or a
    snapshot goes back in time."""

    def __init__(
        self, connection: ClientConnection, held: dict[str, Held] | None = None, name: str = ""
    ) -> None:
        self.connection = connection
        self.name = name or "a client"
        self.messages: list[Message] = []
        self.held: dict[str, Held] = dict(held or {})
        self.close_code: int | None = None
        self.close_reason: str | None = None

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        url: str,
        *,
        held: dict[str, Held] | None = None,
        name: str = "",
        sock: socket.socket | None = None,
        **options: Any,
    ) -> AsyncIterator[Client]:
        """Connect; `held` is what a reconnecting client kept from its last connection.
        Its close waits a second at most for the server's (websockets waits 10 s): a client
        that stopped reading with frames still coming holds them unread, its library stops
        reading the socket, and the server's close frame behind them never reaches it. Seen
        adding 10 s to one run in two of a test that read in the background until told to
        stop; what the tests check is what the server sent, not that handshake."""
        options.setdefault("close_timeout", CLOSE_WAIT)
        async with connect(
            url, proxy=None, max_size=None, open_timeout=TIMEOUT, sock=sock, **options
        ) as connection:
            yield cls(connection, held, name)

    async def recv(self, timeout: float | None = TIMEOUT) -> Message:
        """The next message (None: however long it takes); ConnectionClosed (its code kept)
        when the server closed."""
        try:
            raw = await asyncio.wait_for(self.connection.recv(), timeout)
        except ConnectionClosed as closed:
            if closed.rcvd is not None:
                self.close_code, self.close_reason = closed.rcvd.code, closed.rcvd.reason
            raise
        message = Message(raw, json.loads(raw), time.monotonic())
        self.messages.append(message)
        self.hold(message)
        return message

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[None]:
        """Read every message in the background while the block runs, as a display does
        (each one through `hold`, with the moment it was read); a broken chain or a closed
        connection fails the block when it ends."""

        async def read_on() -> None:
            while True:
                await self.recv(timeout=None)

        reader = asyncio.create_task(read_on())
        try:
            yield
        finally:
            if reader.done():
                reader.result()  # raises what stopped it, naming the client
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def holds(self, channel: str, version: int, timeout: float = TIMEOUT) -> None:
        """While `reading`: until the channel's state is at `version` or later."""
        deadline = time.monotonic() + timeout
        while (held := self.held.get(channel)) is None or held.version < version:
            if time.monotonic() > deadline:
                at = None if held is None else held.version
                raise TimeoutError(f"{self.name}, {channel}: at version {at}, not {version}")
            await asyncio.sleep(0.02)

    def reached(self, channel: str, version: int) -> Message | None:
        """The message with which the channel's state first stood at `version` or later."""
        states = (m for m in self.messages if m.type in ("snapshot", "change"))
        return next((m for m in states if m.channel == channel and m.version >= version), None)

    def hold(self, message: Message) -> None:
        channel = message.channel
        if channel is None:
            return
        held = self.held.get(channel)
        if message.type == "snapshot":
            if held is not None and message.version < held.version:
                raise ChainBroken(
                    f"{self.name}, {channel}: snapshot of version {message.version} "
                    f"after {held.version}"
                )
            self.held[channel] = Held(message.version, dict(message.body["data"]))
        elif message.type == "change":
            since, version = message.body["since"], message.version
            if held is None:
                raise ChainBroken(
                    f"{self.name}, {channel}: a change ({since} -> {version}) before a snapshot"
                )
            # A clock whose deadline passes changes with no commit: version == since then.
            if since != held.version or version < since:
                raise ChainBroken(
                    f"{self.name}, {channel}: change {since} -> {version} "
                    f"on top of version {held.version}"
                )
            self.held[channel] = Held(version, apply_change(channel, held.state, message.body))

    async def until(
        self, done: Callable[[Message], bool], timeout: float = TIMEOUT
    ) -> list[Message]:
        """Read until a message satisfies `done`; the messages read, that one last."""
        deadline = time.monotonic() + timeout
        read = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no such message within {timeout} s; read {read}")
            message = await self.recv(left)
            read.append(message)
            if done(message):
                return read

    async def until_version(
        self, channel: str, version: int, timeout: float = TIMEOUT
    ) -> list[Message]:
        """Read until the channel's state is at `version` or later."""
        held = self.held.get(channel)
        if held is not None and held.version >= version:
            return []
        return await self.until(
            lambda m: m.channel == channel and m.version >= version and m.type != "heartbeat",
            timeout,
        )

    async def quiet(self, seconds: float) -> list[Message]:
        """Everything that arrives within `seconds` (a test expects nothing, or only this)."""
        deadline = time.monotonic() + seconds
        read = []
        while (left := deadline - time.monotonic()) > 0:
            try:
                read.append(await self.recv(left))
            except TimeoutError:
                break
        return read

    async def closed(self, timeout: float = TIMEOUT) -> list[Message]:
        """Read until the server closes the connection; the messages read before."""
        read = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                read.append(await self.recv(max(0.0, deadline - time.monotonic())))
            except ConnectionClosed:
                return read

    async def send(self, request: dict[str, Any]) -> None:
        await self.connection.send(json.dumps(request))

    def of_type(self, kind: str) -> list[Message]:
        return [m for m in self.messages if m.type == kind]

    def of(self, channel: str, kind: str | None = None) -> list[Message]:
        return [m for m in self.messages if m.channel == channel and kind in (None, m.type)]


def stalled(url: str, name: str = "") -> Any:
    """A client that will stop reading: a small fixed receive buffer, and at most one frame
    queued in the websockets library, so that what the server writes to it piles up in the
    server rather than in the client. (Its own keepalive pings are off.) Its close waits
    briefly: behind the frames it does not read, the server's close frame never reaches it,
    and the default close_timeout added 10 s to each test that left one open."""
    sock = small_socket(urlsplit(url).port or 80)
    return Client.open(
        url, name=name, sock=sock, max_queue=1, ping_interval=None, close_timeout=STALLED_CLOSE
    )


def small_socket(port: int, receive_buffer: int = 65536) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect((HOST, port))
    sock.setblocking(False)
    return sock


def run(scenario: Any) -> Any:
    """Run one async scenario on its own event loop (the suite has no async plugin)."""
    return asyncio.run(scenario)


def dated(seconds_from_now: float) -> str:
    moment = now().timestamp() + seconds_from_now
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


# -- a Redis that never answers (issue 14) ----------------------------------------------


class SilentRedis:
    """A stand-in Redis: it accepts every connection and reads what it is sent, and never
    answers anything."""

    def __init__(self) -> None:
        self.listener = socket.create_server((HOST, 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"redis://{HOST}:{self.port}/0"
        self.connections: list[socket.socket] = []
        self.closed: list[socket.socket] = []  # by the client: it gave up waiting
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> SilentRedis:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop_reading()
        self.listener.close()
        for connection in self.connections:
            connection.close()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            readable = [self.listener, *(c for c in self.connections if c not in self.closed)]
            ready, _, _ = select.select(readable, [], [], 0.05)
            for sock in ready:
                if sock is self.listener:
                    self.connections.append(self.listener.accept()[0])
                elif not self._read(sock):
                    self.closed.append(sock)

    @staticmethod
    def _read(sock: socket.socket) -> bool:
        """Read what is there without waiting; False once the client has closed it."""
        while True:
            try:
                if not sock.recv(65536, socket.MSG_DONTWAIT):
                    return False
            except BlockingIOError:
                return True
            except OSError:
                return False

    def _stop_reading(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=TIMEOUT)

    def wait_for_clients(self, count: int) -> None:
        deadline = time.monotonic() + TIMEOUT
        while len(self.connections) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.connections) >= count, len(self.connections)

    def given_up(self) -> int:
        """How many of its clients have closed their connection: a client whose wait for an
        answer timed out closes it (redis-py does). The test reads the rest itself, the
        reading thread stopped, so that a close already sent is counted."""
        self._stop_reading()
        for sock in self.connections:
            if sock not in self.closed and not self._read(sock):
                self.closed.append(sock)
        return len(self.closed)
