"""How the hub hands a frame to one client (app/realtime/hub.py, Connection.offer): straight
onto the socket when nothing is waiting before it, in the client's bounded queue otherwise,
and never out of order. The socket here is a list; every frame written to it is read back
by websockets' own client protocol, as a browser would read it."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from app.realtime import hub as hub_module
from app.realtime.hub import SEND_SLICE, Connection, Feed, Hub, Wires
from app.realtime.replica import Replica

CLUB_LOG = Path(__file__).resolve().parents[2] / "examples" / "club.jsonl"


class Socket:
    """What the server's FrameWriter would take: bytes, while `open`."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.open = True

    def write(self, frame: bytes) -> bool:
        if not self.open:
            return False
        self.written.append(frame)
        return True

    def read(self) -> list[tuple[Opcode, bytes]]:
        """The frames written, as a client parses them."""
        client = ClientProtocol(parse_uri("ws://hall/"), state=State.OPEN)
        client.receive_data(b"".join(self.written))
        return [(event.opcode, bytes(event.data)) for event in client.events_received()]


async def _never(*_: Any) -> None:
    raise AssertionError("an idle client's frame went through the writer task")


def connection(socket: Socket, *, text: bool = False) -> Connection:
    return Connection(_never, _never, write_now=socket.write, text=text)


def queued(client: Connection) -> list[bytes]:
    return [frame for _, frame in client.queue.items or ()]


def test_an_idle_client_gets_the_frame_on_its_socket_at_once() -> None:
    socket = Socket()
    client = connection(socket)
    client.offer("standings", b'{"type":"change"}')
    client.offer(None, b'{"type":"heartbeat"}')
    assert socket.read() == [
        (Opcode.BINARY, b'{"type":"change"}'),
        (Opcode.BINARY, b'{"type":"heartbeat"}'),
    ]
    assert client.queue.empty()


def test_a_text_client_gets_text_frames() -> None:
    socket = Socket()
    connection(socket, text=True).offer("standings", '{"name":"Zoë"}'.encode())
    assert socket.read() == [(Opcode.TEXT, '{"name":"Zoë"}'.encode())]


def test_a_frame_is_serialized_once_for_every_client_of_its_kind() -> None:
    sockets = [Socket() for _ in range(3)]
    clients = [connection(sockets[0]), connection(sockets[1]), connection(sockets[2], text=True)]
    wires: Wires = {}
    for client in clients:
        client.offer("standings", b"{}", wires)
    assert sockets[0].written[0] is sockets[1].written[0]  # the same bytes object
    assert set(wires) == {False, True}
    assert [socket.read() for socket in sockets] == [
        [(Opcode.BINARY, b"{}")],
        [(Opcode.BINARY, b"{}")],
        [(Opcode.TEXT, b"{}")],
    ]


def test_a_refused_frame_waits_in_the_queue_and_later_ones_queue_behind_it() -> None:
    socket = Socket()
    client = connection(socket)
    socket.open = False  # over the high-water mark: the client is not reading
    client.offer("standings", b"1")
    socket.open = True
    client.offer("standings", b"2")  # the socket would take it, but 1 must go first
    assert socket.written == []
    assert queued(client) == [b"1", b"2"]


def test_frames_queue_while_the_writer_holds_some_it_has_not_sent() -> None:
    socket = Socket()
    client = connection(socket)
    client.busy = True  # e.g. fresh snapshots after an overflow, not yet sent
    client.offer("standings", b"3")
    assert socket.written == []
    assert queued(client) == [b"3"]


def test_a_channel_waiting_for_a_fresh_snapshot_gets_no_change() -> None:
    socket = Socket()
    client = connection(socket)
    client.resync.add("standings")
    client.offer("standings", b"stale")
    client.offer("clocks", b"fresh")
    assert socket.read() == [(Opcode.BINARY, b"fresh")]


def test_without_a_direct_writer_every_frame_goes_through_the_queue() -> None:
    client = Connection(_never, _never)
    client.offer("standings", b"1")
    assert queued(client) == [b"1"]


# -- a flush, slice by slice ------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    seq: int
    version: int
    body: str


class LogStore:
    """The store as the feed's copy follows it: a log whose lines carry their versions."""

    def __init__(self, lines: list[str], version: int) -> None:
        self.lines = [Line(seq, version, body) for seq, body in enumerate(lines, start=1)]

    def append(self, body: str, version: int) -> None:
        self.lines.append(Line(len(self.lines) + 1, version, body))

    def lines_after(self, _: int, seq: int) -> list[Line]:
        return self.lines[seq:]


def test_a_flush_lets_the_loop_run_between_slices_and_no_heartbeat_runs_ahead() -> None:
    """A hand reaches SEND_SLICE clients, then the event loop may answer a judge or send a
    heartbeat, then the next slice. A heartbeat meanwhile names the version the clients
    still waiting hold, never the one whose change has not reached them yet."""
    lines = CLUB_LOG.read_text(encoding="utf-8").splitlines()
    first_hand = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "hand")

    async def scenario() -> None:
        store = LogStore(lines[:first_hand], 7)
        hub = Hub(store, send_timeout=10.0, close_grace=5.0)  # type: ignore[arg-type]
        feed = Feed(1, hub, Replica(store, 1))  # type: ignore[arg-type]
        sockets = [Socket() for _ in range(SEND_SLICE + 3)]
        for socket in sockets:
            feed._join(connection(socket), "standings", None)
        await feed._flush(7)  # the state the clients hold
        store.append(lines[first_hand], 8)

        flush = asyncio.create_task(feed._flush(8))
        seen: list[tuple[int, int]] = []  # (clients holding the change, heartbeat version)
        while not flush.done():
            seen.append((sum(bool(s.written) for s in sockets), feed.heartbeat_version()))
            await asyncio.sleep(0)
        await flush

        assert seen[0] == (0, 7)
        assert (SEND_SLICE, 7) in seen  # between the slices, the loop ran
        assert all(len(s.written) == 1 for s in sockets)
        assert feed.heartbeat_version() == 8
        ((opcode, payload),) = sockets[-1].read()
        assert json.loads(payload)["since"] == 7 and json.loads(payload)["version"] == 8

    asyncio.run(scenario())


# -- the hub's rounds hold no client past its turn -------------------------------------------


class QuietStore:
    """A store that never commits: the hub's own rounds (heartbeats, sweeps) are all that run."""

    def subscribe(self, _: Any) -> None:
        pass

    def stored_version(self, _: int) -> int | None:
        return None


def test_a_client_that_left_is_held_by_none_of_the_hubs_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The heartbeat and sweep rounds kept, across their sleep, the last client they looked
    at: one that had left stayed in memory, its socket's protocol and buffers with it, until
    another client came (seen by tests/integration/test_live_garbage.py in a full run:
    `Connection <- coroutine Hub._sweep`)."""
    monkeypatch.setattr(hub_module, "SWEEP_INTERVAL", 0.001)
    monkeypatch.setattr(hub_module, "HEARTBEAT_INTERVAL", 0.001 * hub_module.HEARTBEAT_SLICES)

    async def scenario() -> list[str]:
        """What still refers to the client that left, while the hub runs on."""
        hub = Hub(QuietStore(), send_timeout=10.0, close_grace=5.0)  # type: ignore[arg-type]
        await hub.start()
        try:
            feed = Feed(1, hub, Replica(hub.store, 1))
            hub.feeds[1] = feed
            client = connection(Socket())
            feed.connections.add(client)
            sweeps = hub.sweeps
            while hub.sweeps < sweeps + 2:
                await asyncio.sleep(0.001)
            await asyncio.sleep(0.05)  # every heartbeat slice looked at it too
            feed.connections.discard(client)  # it left
            left = weakref.ref(client)
            del client
            await asyncio.sleep(0.05)  # the rounds go on, with no client to look at
            gc.collect()
            held = left()
            return [] if held is None else [repr(r)[:80] for r in gc.get_referrers(held)]
        finally:
            await hub.stop()

    assert asyncio.run(scenario()) == []


# -- a channel outlives its last client for a while (issue 16) --------------------------------


@pytest.mark.parametrize(
    ("linger", "after", "kept"),
    [
        (60.0, 0.0, True),  # the hall's phones are coming back: flushed, history kept
        (60.0, 59.0, True),
        (60.0, 60.0, False),  # nobody came back: forgotten, so it cannot go stale
        (0.0, 0.0, False),  # SCOREBOARD_WS_RESUME_SECONDS=0: forgotten as the client leaves
    ],
)
def test_a_channel_is_kept_for_the_linger_after_its_last_client_then_forgotten(
    linger: float, after: float, kept: bool
) -> None:
    async def scenario() -> None:
        hub = Hub(QuietStore(), send_timeout=10.0, close_grace=5.0, linger=linger)  # type: ignore[arg-type]
        feed = Feed(1, hub, Replica(hub.store, 1))
        phone = connection(Socket())
        feed._join(phone, "standings", 7)
        feed.states["standings"] = (7, None)  # type: ignore[assignment]
        feed.history["standings"] = deque([(6, 7, b"{}")])
        feed.unsubscribe(phone)
        left = feed.left.get("standings", 0.0)
        feed.expire(left + after)
        assert ("standings" in feed.channels()) is kept
        assert ("standings" in feed.history) is kept
        if kept:  # a client back in time takes it up again, and it is no longer leaving
            feed._join(connection(Socket()), "standings", 7)
            feed.expire(left + linger + 1)
            assert "standings" in feed.channels() and "standings" not in feed.left

    asyncio.run(scenario())


# -- a snapshot queued for a client is never sent after a fresher one -------------------------


def test_a_snapshot_queued_by_a_subscribe_is_not_sent_after_the_fresh_one_of_a_resync() -> None:
    """A display behind the feed follows a channel again (a snapshot of it waits in its
    queue), a hand changes it, then the display is resynchronized (it asked, or its queue
    overflowed). The fresh snapshot goes first; the one queued before it must not follow it,
    or the display goes back a version (seen in a loaded run of
    tests/integration/test_live_feed.py: 'clocks: snapshot of version 63 after 65')."""
    lines = CLUB_LOG.read_text(encoding="utf-8").splitlines()
    first_hand = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "hand")

    async def scenario() -> list[tuple[str, int]]:
        store = LogStore(lines[:first_hand], 7)
        hub = Hub(store, send_timeout=10.0, close_grace=5.0)  # type: ignore[arg-type]
        feed = Feed(1, hub, Replica(store, 1))  # type: ignore[arg-type]
        socket = Socket()
        display = connection(socket)
        await feed.subscribe(display, {"standings": None})
        socket.open = False  # behind: what comes next waits in its queue
        await feed.subscribe(display, {"standings": None})  # a snapshot of version 7
        await feed.subscribe(display, {"standings": 6})  # what it missed since 6, from history
        store.append(lines[first_hand], 8)
        await feed._flush(8)  # the change from 7 to 8
        sent = await feed.snapshots_for(display, {"standings"})  # what its writer sends first
        sent += queued(display)  # then what is left in its queue
        read = [json.loads(frame) for frame in sent]
        return [(message["type"], message["version"]) for message in read]

    assert asyncio.run(scenario()) == [("snapshot", 8)]
