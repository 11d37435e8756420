"""A live channel has one name, however a client names it (issue 32, item 5;
tests/unit/test_channel_names.py has the rule): `table:01` and `standings:` are refused
in the address (1008) and in a subscribe (an `error` frame naming them), and the server's
hub holds one state for table 1, not one per spelling a client made up. A hostile client
with 200 connections of 64 spellings each took a judge's answer from 37 ms to 486 ms at the
99th percentile, and, the channels outliving their clients by a minute, to 1.6 s after it
had gone.

The server is uvicorn in a thread of this process, with the app and the protocols that
`scoreboard serve` runs, so that the test can look at its hub; the clients are real
websocket clients.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed

from app.realtime.hub import Feed
from app.web.live import BAD_REQUEST
from bench.load import HOST, import_log
from tests.integration.judging_setup import club_opening
from tests.integration.live_setup import TIMEOUT, Client, app_state, scoreboard_in_a_thread

# Other spellings of table 1 and of the standings: each was a channel of its own
TABLE_1_SPELLINGS = ["table:01", "table:001", "table:0001", "table:" + "0" * 150 + "1"]
OTHER_SPELLINGS = [*TABLE_1_SPELLINGS, "standings:", "clocks:"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[uvicorn.Server, int]]:
    """The club's opening (8 players, tables 1 and 2) on a server of this process."""
    url = f"sqlite:///{tmp_path / 'scoreboard.db'}"
    tournament = import_log(url, club_opening(), tmp_path)
    with scoreboard_in_a_thread(url) as server:
        yield server, tournament


def feed_url(server: uvicorn.Server, tournament: int, channels: str) -> str:
    return f"ws://{HOST}:{server.config.port}/ws/tournaments/{tournament}?channels={channels}"


def the_feed(server: uvicorn.Server, tournament: int) -> Feed:
    feed: Feed = app_state(server)["hub"].feeds[tournament]
    return feed


async def until(condition: Callable[[], Any], what: str) -> None:
    """Wait until `condition()` holds (it reads the server's hub from this thread)."""
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("spelling", OTHER_SPELLINGS)
def test_another_spelling_of_a_channel_in_the_address_is_refused_with_1008(
    served: tuple[uvicorn.Server, int], spelling: str
) -> None:
    server, tournament = served

    async def scenario() -> None:
        async with Client.open(feed_url(server, tournament, f"standings,{spelling}")) as client:
            with pytest.raises(ConnectionClosed):
                await client.recv()
            assert client.close_code == BAD_REQUEST
            assert (client.close_reason or "").startswith("channels: "), client.close_reason
            assert client.messages == []

    asyncio.run(scenario())


def test_another_spelling_in_a_subscribe_is_refused_and_the_hub_holds_one_channel(
    served: tuple[uvicorn.Server, int],
) -> None:
    server, tournament = served

    async def scenario() -> None:
        async with Client.open(feed_url(server, tournament, "table:1")) as client:
            assert [(await client.recv()).type for _ in range(2)] == ["hello", "snapshot"]
            wanted: dict[str, int | None] = dict.fromkeys(OTHER_SPELLINGS, None)
            wanted["table:001"] = 0  # with a version held, as a resuming client names one
            wanted["table:2"] = None
            await client.send({"type": "subscribe", "channels": wanted})
            read = await client.until(lambda m: m.type == "error")
            read += await client.until(lambda m: m.channel == "table:2")
            (error,) = [m.body for m in read if m.type == "error"]
            assert error["field"] == "channels"
            assert error["refused"] == OTHER_SPELLINGS
            assert "table:N" in error["detail"]
            assert [m.channel for m in read if m.type == "snapshot"] == ["table:2"]
            feed = the_feed(server, tournament)
            await until(
                lambda: set(feed.subscribers) == {"table:1", "table:2"},
                f"the hub follows {sorted(feed.subscribers)}",
            )
            # Another spelling is not the channel: leaving it, or asking for its snapshot,
            # leaves the channel followed and sends nothing.
            await client.send({"type": "unsubscribe", "channels": TABLE_1_SPELLINGS})
            await client.send({"type": "resync", "channels": TABLE_1_SPELLINGS})
            await client.send({"type": "resync", "channels": ["table:1"]})
            (snapshot,) = [
                m
                for m in await client.until(lambda m: m.type == "snapshot")
                if m.type != "heartbeat"
            ]
            assert snapshot.channel == "table:1"
            assert set(feed.subscribers) == {"table:1", "table:2"}
        # The client has gone; its channels linger (SCOREBOARD_WS_RESUME_SECONDS), one of each.
        await until(lambda: not feed.connections, "the client is still connected")
        assert {c for c in feed.states if c.startswith("table:")} == {"table:1", "table:2"}

    asyncio.run(scenario())


def test_many_connections_of_many_spellings_leave_the_hub_one_state_for_the_table(
    served: tuple[uvicorn.Server, int],
) -> None:
    """The probe's attack, small: connections that each subscribe every spelling of table 1
    they can (64, the channel limit), then leave."""
    server, tournament = served
    spellings = ["table:" + "0" * zeros + "1" for zeros in range(1, 65)]

    async def one_connection() -> None:
        async with Client.open(feed_url(server, tournament, "standings")) as client:
            await client.until(lambda m: m.type == "snapshot")
            await client.send({"type": "subscribe", "channels": dict.fromkeys(spellings)})
            (error,) = [m for m in await client.until(lambda m: m.type == "error")]
            assert error.body["refused"] == spellings

    async def scenario() -> None:
        async with Client.open(feed_url(server, tournament, "table:1")) as screen:
            await screen.until(lambda m: m.type == "snapshot")
            await asyncio.gather(*(one_connection() for _ in range(5)))
            feed = the_feed(server, tournament)
            assert set(feed.subscribers) == {"standings", "table:1"}
            assert set(feed.states) <= {"standings", "table:1"}, sorted(feed.states)

    asyncio.run(scenario())
