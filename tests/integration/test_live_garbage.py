"""A live feed connection that ends is freed by its reference counts, at once, never left in
a reference cycle for Python's garbage collector (app/web/live_protocol.py, "Reference
cycles"). The collector stops the event loop while it walks what is young: 200 connections
dropped together left 30,000 objects in cycles, and the collection that found them held a
judge's hand 51 ms (bench/hostile.py).

The server is uvicorn in a thread of this process, with the app and both protocols that
`scoreboard serve` runs, so that the test can see what the server left: with the collector
off, an object in a cycle stays tracked until it is collected, and one freed by its counts
is gone.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
import types
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from pathlib import Path

import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.realtime.hub import Connection
from app.web.live_protocol import FrameWriter, HttpProtocol, LiveFeedProtocol
from bench.load import HOST, RoundOne, import_log
from tests.integration.live_setup import scoreboard_in_a_thread

# What a live feed connection is made of on the server: none may outlive its connection.
SERVER_SIDE = (HttpToolsProtocol, LiveFeedProtocol, FrameWriter, Connection)
TIMEOUT = 10.0


def server_side() -> list[object]:
    # not isinstance: it asks a dead weak proxy, which raises
    return [item for item in gc.get_objects() if issubclass(type(item), SERVER_SIDE)]


def left_behind(before: AbstractSet[int]) -> dict[str, int]:
    """What this test's server still holds: objects of a server another test of this worker
    left running are in `before` (ids of objects the test holds, so none is reused)."""
    counts: dict[str, int] = {}
    for item in server_side():
        if id(item) not in before:
            name = type(item).__qualname__
            counts[name] = counts.get(name, 0) + 1
    return counts


def held_by(before: AbstractSet[int]) -> list[str]:
    """Who holds what was left, so that a failure says which reference outlived it: the
    coroutine and the line it waits at, the method a timer or callback will call."""
    left = [item for item in server_side() if id(item) not in before]
    return [
        f"{type(item).__qualname__} <- "
        + ", ".join(sorted({_described(r) for r in gc.get_referrers(item) if r is not left}))
        for item in left
    ]


def _described(referrer: object) -> str:
    if isinstance(referrer, types.CoroutineType):
        frame = referrer.cr_frame
        line = frame.f_lineno if frame is not None else "done"
        return f"coroutine {referrer.cr_code.co_qualname} at line {line}"
    if isinstance(referrer, types.MethodType):
        return f"method {referrer.__func__.__qualname__}"
    if isinstance(referrer, types.FrameType):
        return f"frame {referrer.f_code.co_qualname} at line {referrer.f_lineno}"
    return type(referrer).__qualname__


@contextmanager
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


async def follow_and_leave(url: str) -> None:
    """A screen that follows the standings and closes, one cut off, and one refused for
    sending too many messages (4429): each way a connection ends."""
    async with connect(url) as ws:
        assert json.loads(await ws.recv())["type"] == "hello"
        assert json.loads(await ws.recv())["type"] == "snapshot"
    ws = await connect(url)
    await ws.recv()
    await ws.recv()
    ws.transport.abort()
    async with connect(url) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(200):
                await ws.send(json.dumps({"type": "resync", "channels": ["standings"]}))
            while True:
                await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429


def test_a_connection_that_ends_leaves_nothing_for_the_garbage_collector(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'scoreboard.db'}"
    tournament = import_log(url, RoundOne.generate(players=16, seed=3).setup_lines, tmp_path)
    with scoreboard_in_a_thread(url) as server:
        port = server.config.port
        feed = f"ws://{HOST}:{port}/ws/tournaments/{tournament}?channels=standings"
        with collector_off():
            earlier = server_side()  # held, so that no new object takes one of their ids
            before = {id(item) for item in earlier}
            asyncio.run(follow_and_leave(feed))
            # The server's handlers finish just after the clients have gone. Its own count
            # of them is cheap to look at; a walk of every object is not: in a worker that
            # has run a thousand tests it holds the GIL for a good part of a second, and
            # walked again and again it kept the server's thread from finishing (the test
            # failed so twice in full runs, never alone).
            deadline = time.monotonic() + TIMEOUT
            state = server.server_state
            while (state.connections or state.tasks) and time.monotonic() < deadline:
                time.sleep(0.05)
            while True:
                walked_at = time.monotonic()
                if not left_behind(before) or walked_at > deadline:
                    break
                time.sleep(max(0.05, time.monotonic() - walked_at))  # the GIL half the time
            assert left_behind(before) == {}, held_by(before)


def test_scoreboard_serve_runs_both_protocols(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above holds for what `scoreboard serve` runs: uvicorn with both protocols."""
    from app.cli import serving

    chosen: dict[str, object] = {}
    monkeypatch.setattr(serving.uvicorn, "run", lambda *_, **options: chosen.update(options))
    serving.serve(None, None, None, None)

    assert chosen["http"] is HttpProtocol
    assert chosen["ws"] is LiveFeedProtocol
