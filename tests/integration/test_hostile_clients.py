"""No anonymous client can exhaust the server (issue 14): the live feed's limits per
connection and per address, and request bodies refused before anything reads them.

One real server process (`scoreboard serve`, SQLite) serves every test here, with at most
CONNECTIONS_PER_ADDRESS feed connections from one address so that the test can reach it;
the clients are real websocket clients and raw sockets on the loopback, which answers any
127.x.y.z: a client bound to 127.0.0.2 is another address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Iterator

import pytest
from in_process import IN_PROCESS_TIMEOUTS
from websockets.exceptions import ConnectionClosed

from app.db.engine import make_engine
from app.services.store import TournamentStore
from app.web.live import BAD_REQUEST, MAX_CLOSE_REASON, TOO_BIG, TOO_MANY
from bench.load import HOST, RoundOne, free_port
from tests.integration.judging_setup import club_opening, hand, self_draw
from tests.integration.live_setup import (
    ADMIN_TOKEN,
    TIMEOUT,
    Client,
    LiveServer,
    Message,
    Tournament,
    open_tournament,
    run,
)

pytestmark = pytest.mark.slow  # a real server process serves every test

CONNECTIONS_PER_ADDRESS = 5
CHANNELS_PER_CONNECTION = 64  # the default
MESSAGE_BYTES = 32 * 1024  # the default
BODY_LIMIT = 16 * 1024
IMPORT_BODY_LIMIT = 16 * 1024 * 1024
ELSEWHERE = "127.0.0.2"  # another address of this machine's loopback


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("hostile")
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS", str(CONNECTIONS_PER_ADDRESS))
        url = f"sqlite:///{folder / 'hostile.db'}"
        with LiveServer(url, free_port(), folder / "server.log") as live:
            yield live


@pytest.fixture(scope="module")
def store(server: LiveServer) -> Iterator[TournamentStore]:
    engine = make_engine(server.database_url, IN_PROCESS_TIMEOUTS)
    yield TournamentStore(engine)
    engine.dispose()


@pytest.fixture
def club(store: TournamentStore) -> Tournament:
    return open_tournament(store, club_opening(), (1, 2))


def from_address(server: LiveServer, address: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((address, 0))
    sock.connect((HOST, server.port))
    sock.setblocking(False)
    return sock


async def opening(client: Client, channels: int) -> list[Message]:
    read = [await client.recv() for _ in range(channels + 1)]
    assert [m.type for m in read] == ["hello"] + ["snapshot"] * channels, [m.body for m in read]
    return read


async def answer(client: Client) -> Message:
    """The next message that is not a heartbeat."""
    return (await client.until(lambda m: m.type != "heartbeat"))[-1]


async def admitted(url: str, within: float = TIMEOUT) -> None:
    """Connect until the server admits the connection (its hello and a snapshot): the room a
    client leaves is free once the server's handler has ended, after the close handshake."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        async with Client.open(url) as again:
            try:
                await opening(again, 1)
                return
            except ConnectionClosed:
                if again.close_code != TOO_MANY or asyncio.get_running_loop().time() > deadline:
                    raise
        await asyncio.sleep(0.02)  # the next try


async def refused(client: Client) -> tuple[int | None, str]:
    """Read until the server closes; its close code and reason (which must fit its frame)."""
    await client.closed()
    reason = client.close_reason or ""
    assert len(reason.encode()) <= MAX_CLOSE_REASON
    return client.close_code, reason


# -- the live feed, per connection --------------------------------------------------------------


@pytest.fixture
def field_of_256(store: TournamentStore) -> Tournament:
    """Round 1 of a 256-player event: players P0001 to P0256 at tables 1 to 64."""
    generated = RoundOne.generate(players=256, seed=256)
    return open_tournament(store, generated.setup_lines, generated.tables[:1])


def test_the_channel_limit_counts_every_channel_a_connection_follows_not_each_message(
    server: LiveServer, field_of_256: Tournament
) -> None:
    """Seen: the limit of 64 applied to each subscribe message, and one client subscribed 64
    new channels at a time up to 50,048."""
    club = field_of_256

    async def scenario() -> None:
        async with Client.open(server.ws_url(club.tid, "standings")) as client:
            await opening(client, 1)
            players = [f"player:P{n:04d}" for n in range(1, 3 * CHANNELS_PER_CONNECTION + 1)]
            first = players[: CHANNELS_PER_CONNECTION - 1]  # with the standings: the limit
            await client.send({"type": "subscribe", "channels": dict.fromkeys(first)})
            for _ in first:
                assert (await answer(client)).type == "snapshot"
            # 64 more, one message: none fits; the client hears so, and gets no snapshot
            more = players[CHANNELS_PER_CONNECTION - 1 : 2 * CHANNELS_PER_CONNECTION - 1]
            await client.send({"type": "subscribe", "channels": dict.fromkeys(more)})
            error = await answer(client)
            assert error.type == "error", error.body
            assert error.body["field"] == "channels"
            assert (
                f"at most {CHANNELS_PER_CONNECTION} channels a connection" in (error.body["detail"])
            )
            assert error.body["refused"] == more
            # one it already follows is still fine to subscribe again (a resume)
            await client.send({"type": "subscribe", "channels": {"standings": None}})
            assert (await answer(client)).body["channel"] == "standings"
            # after leaving one, there is room for exactly one
            await client.send({"type": "unsubscribe", "channels": [first[0]]})
            await client.send({"type": "subscribe", "channels": dict.fromkeys(more[:2])})
            got = [await answer(client), await answer(client)]
            assert {m.type for m in got} == {"snapshot", "error"}
            assert next(m for m in got if m.type == "error").body["refused"] == [more[1]]

        # In the URL: more than the limit is refused outright, naming the limit.
        many = ",".join(players[: CHANNELS_PER_CONNECTION + 1])
        async with Client.open(server.ws_url(club.tid, many)) as client:
            code, reason = await refused(client)
            assert (code, reason) == (BAD_REQUEST, "channels: at most 64 a connection")
            assert client.messages == []

    run(scenario())


def test_a_channel_the_tournament_does_not_have_is_not_followed(
    server: LiveServer, field_of_256: Tournament
) -> None:
    """The feed computes every followed channel at every update: made-up players and tables
    would make its work grow with what clients invent, not with the tournament."""

    async def scenario() -> None:
        url = server.ws_url(field_of_256.tid, "standings,player:nobody")
        async with Client.open(url) as client:
            hello = await client.recv()
            assert hello.type == "hello"
            read = [await answer(client), await answer(client)]
            assert {m.type for m in read} == {"snapshot", "error"}
            error = next(m for m in read if m.type == "error").body
            assert error["field"] == "channels"
            assert error["refused"] == ["player:nobody"]
            made_up = ["table:65", "table:999999", "player:P9999"]
            real = ["table:64", "player:P0256"]
            await client.send({"type": "subscribe", "channels": dict.fromkeys(made_up + real)})
            read = [await answer(client) for _ in range(3)]
            assert sorted(m.channel or "" for m in read if m.type == "snapshot") == sorted(real)
            (error,) = [m.body for m in read if m.type == "error"]
            assert error["refused"] == made_up

    run(scenario())


@pytest.mark.parametrize(
    ("path", "echoed"),
    [
        ("?channels=player:" + "x" * 201, "x" * 20),
        ("?channels=player:" + "%C3%A9" * 300, "é" * 20),  # two bytes each
        ("?channels=table:" + "1" * 5000, "1" * 20),
        ("?channels=" + "standings:" + "y" * 150, "y" * 20),
    ],
    ids=["player-201", "player-300-accented", "table-5000-digits", "standings-suffix"],
)
def test_a_bad_channel_name_is_refused_with_a_short_reason_that_does_not_repeat_it(
    server: LiveServer, club: Tournament, path: str, echoed: str
) -> None:
    """Seen: `?channels=player:` and 201 characters, and the close reason echoed the name,
    ran over 123 bytes and raised ProtocolError in the server."""

    async def scenario() -> None:
        url = f"ws://{HOST}:{server.port}/ws/tournaments/{club.tid}{path}"
        async with Client.open(url) as client:
            code, reason = await refused(client)
            assert code == BAD_REQUEST
            assert reason.startswith("channels: ")
            assert echoed not in reason
            assert client.messages == []

    run(scenario())


def test_a_long_tournament_id_in_the_path_is_refused_without_repeating_it(
    server: LiveServer,
) -> None:
    async def scenario() -> None:
        url = f"ws://{HOST}:{server.port}/ws/tournaments/{'t' * 300}"
        async with Client.open(url) as client:
            code, reason = await refused(client)
            assert (code, reason) == (BAD_REQUEST, "tournament: the tournament id is a number")

    run(scenario())


def test_a_message_nested_thousands_deep_is_answered_with_an_error_and_the_feed_goes_on(
    server: LiveServer, club: Tournament, store: TournamentStore
) -> None:
    """Seen: a subscribe message nested 100,000 deep raised RecursionError."""

    async def scenario() -> None:
        async with Client.open(server.ws_url(club.tid, "standings")) as client:
            await opening(client, 1)
            depth = 10_000  # 20 KB: within the size limit, far beyond what a parser recurses
            nested = '{"type": "subscribe", "channels": ' + "[" * depth + "]" * depth + "}"
            await client.connection.send(nested)
            error = await answer(client)
            assert error.type == "error"
            assert error.body == {
                "type": "error",
                "field": "message",
                "detail": "the message is nested too deep to read",
            }
            for junk in ("not json", "[1, 2]", b"\xff\xfe"):
                await client.connection.send(junk)
                assert (await answer(client)).type == "error"
            # the connection is still the feed's
            await client.send({"type": "subscribe", "channels": {"table:1": None}})
            snapshot = await client.until(lambda m: m.channel == "table:1")
            assert snapshot[-1].type == "snapshot"

        # 100,000 deep is 200 KB: over the size limit, refused before it is read (1009)
        async with Client.open(server.ws_url(club.tid, "standings")) as client:
            await opening(client, 1)
            await client.connection.send("[" * 100_000 + "]" * 100_000)
            code, _ = await refused(client)
            assert code == TOO_BIG
        # a number of thousands of digits (Python refuses to make an int of it)
        async with Client.open(server.ws_url(club.tid, "standings")) as client:
            await opening(client, 1)
            digits = "9" * 5000
            await client.connection.send(
                '{"type": "subscribe", "channels": {"table:2": ' + digits + "}}"
            )
            assert (await answer(client)).type == "error"

    run(scenario())


def test_a_message_over_the_size_limit_is_refused_with_1009(
    server: LiveServer, club: Tournament
) -> None:
    async def scenario() -> None:
        async with Client.open(server.ws_url(club.tid, "standings")) as client:
            await opening(client, 1)
            padding = " " * MESSAGE_BYTES
            await client.connection.send('{"type": "resync", "channels": []}' + padding)
            code, _ = await refused(client)
            assert code == TOO_BIG

    run(scenario())


def test_a_client_that_sends_too_many_messages_a_second_is_closed_with_4429(
    server: LiveServer, club: Tournament
) -> None:
    async def scenario() -> None:
        async with Client.open(server.ws_url(club.tid, "standings")) as client:
            await opening(client, 1)
            # A display sends a handful; these are 1,000 at once (the bucket holds 100).
            with contextlib.suppress(ConnectionClosed):
                for _ in range(1_000):
                    await client.send({"type": "resync", "channels": ["standings"]})
            code, reason = await refused(client)
            assert code == TOO_MANY
            assert reason.startswith("too many messages: at most 10 a second")

    run(scenario())


# -- the live feed, per address ---------------------------------------------------------------


def test_connections_from_one_address_are_limited_and_other_addresses_are_not(
    server: LiveServer, club: Tournament
) -> None:
    async def scenario() -> None:
        url = server.ws_url(club.tid, "standings")
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(Client.open(url))
                for _ in range(CONNECTIONS_PER_ADDRESS)
            ]
            for client in clients:
                await opening(client, 1)
            async with Client.open(url) as one_too_many:
                code, reason = await refused(one_too_many)
                assert (code, reason) == (
                    TOO_MANY,
                    f"too many connections from this address: at most "
                    f"{CONNECTIONS_PER_ADDRESS} (SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS)",
                )
            # another address is counted on its own
            async with Client.open(url, sock=from_address(server, ELSEWHERE)) as elsewhere:
                await opening(elsewhere, 1)
            # one leaves: there is room again
            await clients.pop().connection.close()
            await admitted(url)

    run(scenario())


# -- request bodies ---------------------------------------------------------------------------


def raw_request(server: LiveServer, head: str, body: bytes = b"") -> tuple[int, dict[str, str]]:
    """Send a request's head (and `body`, if any) on a raw socket, and read the answer
    without sending anything more. A server that waits for the rest of the body never
    answers: the read times out and the test fails."""
    with socket.create_connection((HOST, server.port), timeout=TIMEOUT) as sock:
        sock.sendall(head.encode() + body)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
    head_text, _, payload = answer.partition(b"\r\n\r\n")
    status = int(head_text.split()[1])
    return status, json.loads(payload)


def post_head(path: str, length: int | None, token: str | None = None) -> str:
    lines = [f"POST {path} HTTP/1.1", f"Host: {HOST}", "Content-Type: application/json"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
        lines.append("Idempotency-Key: big-1")
    lines.append("Transfer-Encoding: chunked" if length is None else f"Content-Length: {length}")
    return "\r\n".join(lines) + "\r\n\r\n"


def test_a_105_mb_body_without_a_token_is_refused_413_before_it_is_sent(
    server: LiveServer, club: Tournament
) -> None:
    """Seen: a 105 MB POST with no token was read and parsed before its 401 (the server
    peaked at 403 MiB)."""
    path = f"/api/tournaments/{club.tid}/hands"
    status, problem = raw_request(server, post_head(path, 105_000_000))
    assert status == 413
    assert problem["field"] == "body"
    assert "105,000,000 bytes" in problem["detail"]
    assert "at most 16 KiB" in problem["detail"]
    assert "SCOREBOARD_BODY_LIMIT_BYTES" in problem["detail"]


def test_a_10_mb_hand_is_refused_413_and_nothing_is_stored(
    server: LiveServer, club: Tournament, store: TournamentStore
) -> None:
    """Seen: a 10 MB hand was stored."""
    before = store.export(club.tid)
    path = f"/api/tournaments/{club.tid}/corrections"
    status, problem = raw_request(server, post_head(path, 10_000_000, club.tokens[1]))
    assert status == 413, problem
    # A body sent in chunks has no length to read: its chunks are counted.
    body = hand(1, 1, self_draw("ami", 10))
    body["padding"] = "x" * (BODY_LIMIT + 1)
    data = json.dumps(body).encode()
    chunks = b"".join(
        f"{len(data[i : i + 4096]):x}\r\n".encode() + data[i : i + 4096] + b"\r\n"
        for i in range(0, len(data), 4096)
    )
    status, problem = raw_request(
        server, post_head(f"/api/tournaments/{club.tid}/hands", None, club.tokens[1]), chunks
    )
    assert status == 413, problem
    assert "at most 16 KiB" in problem["detail"]
    assert store.export(club.tid) == before
    # the same hand, small and in chunks, is entered
    data = json.dumps(hand(1, 1, self_draw("ami", 10))).encode()
    small = f"{len(data):x}\r\n".encode() + data + b"\r\n0\r\n\r\n"
    head = post_head(f"/api/tournaments/{club.tid}/hands", None, club.tokens[1])
    head = head.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
    status, answer = raw_request(server, head, small)
    assert status == 201, answer


def test_imports_take_the_larger_limit(server: LiveServer, club: Tournament) -> None:
    path = "/api/tournaments/import"
    status, problem = raw_request(server, post_head(path, IMPORT_BODY_LIMIT + 1, ADMIN_TOKEN))
    assert status == 413
    assert "at most 16 MiB" in problem["detail"]
    assert "SCOREBOARD_IMPORT_BODY_LIMIT_BYTES" in problem["detail"]
    # a log of a few hundred KiB, far over the small limit, is imported
    log = "".join(line + "\n" for line in RoundOne.generate(players=512, seed=1).setup_lines)
    assert len(log) > 4 * BODY_LIMIT
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: text/plain\r\n"
        f"Authorization: Bearer {ADMIN_TOKEN}\r\nConnection: close\r\n"
        f"Content-Length: {len(log.encode())}\r\n\r\n"
    )
    status, answer = raw_request(server, head, log.encode())
    assert status == 201, answer


def test_a_16_mib_player_upload_without_the_admin_token_is_refused_before_it_is_sent(
    server: LiveServer, club: Tournament
) -> None:
    """Seen (issue 32): a 16 MiB player list with a wrong token was read and parsed before
    its 401. Only the admin token has the import limit: here nothing of the body is sent,
    and the server answers at once, then closes."""
    for path in (f"/api/tournaments/{club.tid}/players", "/api/tournaments/import"):
        for token in (None, "a-wrong-token", club.tokens[1]):
            status, problem = raw_request(server, post_head(path, IMPORT_BODY_LIMIT, token))
            assert status == 401, (path, token, problem)
            assert "admin token" in problem["detail"]
