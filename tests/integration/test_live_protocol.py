"""uvicorn with app/web/live_protocol.py, as `scoreboard serve` runs it, and a real websocket
client: the live feed's direct writer puts whole frames on the socket, in order with the
ordinary sends, and refuses whenever the ordinary way must be taken (after a close, with
per-message compression). If a uvicorn release stopped offering the writer, the feed would
still work, only slower: the first test says so."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from app.realtime.hub import wire
from app.web.live_protocol import DIRECT_WRITE, LiveFeedProtocol
from bench.load import HOST, free_port

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
def serving(outcome: Outcome, *, compression: bool) -> Iterator[str]:
    port = free_port()
    config = uvicorn.Config(
        feed_app(outcome),
        host=HOST,
        port=port,
        ws=LiveFeedProtocol,
        ws_per_message_deflate=compression,
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield f"ws://{HOST}:{port}/ws"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


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
