"""uvicorn with app/web/live_protocol.py, as `scoreboard serve` runs it, and a real websocket
client: the live feed's direct writer puts whole frames on the socket, in order with the
ordinary sends, and refuses whenever the ordinary way must be taken (after a close, with
per-message compression). If a uvicorn release stopped offering the writer, the feed would
still work, only slower: the first test says so."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as connect_async
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from app.realtime.hub import wire
from app.web.live_protocol import DIRECT_WRITE, FIRST_PING_FROM
from bench.load import HOST
from tests.integration.live_setup import uvicorn_in_a_thread

Outcome = dict[str, Any]


def feed_app(outcome: Outcome) -> Any:
    """An ASGI app that writes through the extension, then sends, then closes."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket"
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        extension = scope["extensions"].get(DIRECT_WRITE)
        outcome["offered"] = extension is not None
        if extension is None:
            await send({"type": "websocket.close", "code": 1011})
            return
        write = extension["writer"].write
        outcome["first"] = write(wire(b'{"n":1}', text=False))
        if not outcome["first"]:
            await send({"type": "websocket.send", "bytes": b'{"n":1}'})
        await send({"type": "websocket.send", "bytes": b'{"n":2}'})
        outcome["text"] = write(wire('{"n":"três"}'.encode(), text=True))
        if not outcome["text"]:
            await send({"type": "websocket.send", "text": '{"n":"três"}'})
        await send({"type": "websocket.close", "code": 1000})
        outcome["after_close"] = write(wire(b"late", text=False))

    return app


@contextmanager
def serving(
    outcome: Outcome, *, compression: bool, app: Any = None, **options: Any
) -> Iterator[str]:
    app = app or feed_app(outcome)
    with uvicorn_in_a_thread(
        app, ws_per_message_deflate=compression, lifespan="off", **options
    ) as server:
        yield f"ws://{HOST}:{server.config.port}/ws"


def read_all(url: str, *, compression: bool) -> tuple[list[bytes | str], int | None]:
    with connect(url, compression="deflate" if compression else None) as client:
        received: list[bytes | str] = []
        try:
            while True:
                received.append(client.recv(timeout=5))
        except ConnectionClosed as closed:
            return received, closed.rcvd.code if closed.rcvd is not None else None


@pytest.mark.parametrize("compression", [False, True], ids=["plain", "compressed"])
def test_frames_written_directly_arrive_whole_and_in_order(compression: bool) -> None:
    outcome: Outcome = {}
    with serving(outcome, compression=compression) as url:
        received, code = read_all(url, compression=compression)

    assert outcome["offered"] is True  # the installed uvicorn still has what the writer reads
    assert received == [b'{"n":1}', b'{"n":2}', '{"n":"três"}']
    assert code == 1000
    # direct unless the connection compresses (its frames are its compressor's), never
    # after the close
    assert (outcome["first"], outcome["text"]) == (not compression, not compression)
    assert outcome["after_close"] is False


PING_INTERVAL = 2.0  # seconds: the server's below
OPENED_TOGETHER = 24


async def held_open(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Accepts, then holds the connection until the client goes."""
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


class PingTimes(ClientConnection):
    """A client connection that notes when each ping from the server arrived."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pings: list[float] = []

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame) and event.opcode is Opcode.PING:
            self.pings.append(time.monotonic())
        super().process_event(event)


def test_connections_opened_together_are_not_pinged_together() -> None:
    """A hall's phones reconnect within a second after a restart. If each were first pinged
    one whole interval after it opened, the server would ping all of them in one instant,
    every interval, and a judge's answer would wait behind the burst: the first ping of
    each comes after a random share of the interval (between FIRST_PING_FROM and all of it)."""

    async def first_pings(url: str) -> list[float]:
        async def one() -> float:
            async with connect_async(url, create_connection=PingTimes) as client:
                opened = time.monotonic()
                connection = cast(PingTimes, client)
                while not connection.pings:
                    assert time.monotonic() - opened < PING_INTERVAL + 5, "no ping came"
                    await asyncio.sleep(0.02)
                return connection.pings[0] - opened

        return await asyncio.gather(*(one() for _ in range(OPENED_TOGETHER)))

    with serving({}, compression=False, app=held_open, ws_ping_interval=PING_INTERVAL) as url:
        delays = asyncio.run(first_pings(url))

    assert min(delays) >= FIRST_PING_FROM * PING_INTERVAL - 0.1, delays
    assert max(delays) <= PING_INTERVAL + 0.5, delays
    # Uniform over a second: 24 of them within 0.3 s of each other has a chance of
    # 24 * 0.3**23 (1e-11); pinged one interval after opening, they all would be.
    assert max(delays) - min(delays) > 0.3, delays
