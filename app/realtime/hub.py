"""The live feed's hub: one feed per tournament, batched changes, snapshots with versions.

Every committed change bumps the tournament's version (the store does it in the same
transaction). The hub hears of it (from this process's store, or from another process
through the backplane), waits at most FLUSH_INTERVAL so that a burst of hands becomes one
update, reads the new state from the store, and sends each subscribed channel the change
from the state its clients hold. A message is encoded once, whatever the number of clients
(STYLE.md, convention 11). A client that missed versions resumes from its history, or gets
a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from websockets.frames import Frame, Opcode

from app import metrics
from app.domain.log import format_time
from app.read.views import LiveStandings, LiveState, States, in_tournament
from app.realtime.channels import TIMED, as_json, change, channel_kind
from app.realtime.queues import SmallQueue
from app.realtime.replica import Committed, Replica
from app.realtime.source import Commit, TournamentSource
from app.realtime.turns import JudgesFirst

log = logging.getLogger(__name__)
_slices = itertools.count()  # hands out the clients' heartbeat slices in turn

FLUSH_INTERVAL = 0.1  # at most 10 updates a second per tournament
FLUSH_PACE = 3.0  # after an update that took T, the next waits 3T at least: a quarter at most
HEARTBEAT_INTERVAL = 5.0  # clients show a stale badge when these stop
# A hall's thousands of heartbeats go out in slices across the interval, each client in its
# own slice: one burst to every client at once would delay a hand that arrives with it.
HEARTBEAT_SLICES = 10
VERSION_POLL_INTERVAL = 2.0  # catches a change whose notification was lost (Redis: at most once)
HISTORY = 64  # changes kept per channel for clients that resume
QUEUE_LIMIT = 256  # frames a slow client may have waiting before it is resynchronized
SNAPSHOT_FRESH = 0.5  # seconds a cached snapshot frame (and its server_time) is reused
SWEEP_INTERVAL = 1.0  # seconds between two looks at the sends in progress
SEND_SLICE = 500  # clients a flush writes to before it lets the event loop do anything else
# The longest a flush waits for the answers of the writes that caused it (Feed.run): a client
# slow to take its answer must not hold the hall's screens back for long.
ANSWER_WAIT = 0.05
TOO_SLOW = 4008  # close code: the client could not keep up
GONE = 4404  # close code: the tournament does not exist

# The answer the request being served still owes its client: the web layer sets it around
# every write (app/web/__init__.py, answers_first) and resolves it once the answer is sent. A
# commit made while serving it reaches the live feed with it, and the feed's update waits for
# that answer: the judge who entered a hand gets the answer first, and no longer waits for the
# hall's update of the standings and its sends to every follower (issue 14: a hall full of
# followers, or a hostile client holding 200 of them, put 3 to 4 ms on every judge's answer).
OWED_ANSWER: ContextVar[asyncio.Future[None] | None] = ContextVar("owed_answer", default=None)

WAKE = b""  # an empty frame is never sent: it wakes a writer that has snapshots to send
Send = Callable[[bytes], Awaitable[None]]
Close = Callable[[int, str], Awaitable[None]]
# Puts a serialized websocket frame on the socket at once, or says False (app/web/live_protocol)
WriteNow = Callable[[bytes], bool]
# A message's frames as they go on the wire, by opcode (text or not): serialized once
Wires = dict[bool, bytes]


def encode(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


def wire(frame: bytes, *, text: bool) -> bytes:
    """The whole websocket frame holding `frame`: frames from a server are not masked, so
    these bytes are the same on every client's socket."""
    return Frame(Opcode.TEXT if text else Opcode.BINARY, frame).serialize(mask=False)


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(eq=False)
class Connection:
    """One client: its channels (with the version of what it holds) and its bounded queue."""

    send: Send
    close: Close
    # The server's way to write a frame at once, when it has one; `text`: text frames
    write_now: WriteNow | None = None
    text: bool = False
    abort: Callable[[], None] | None = None  # and to cut the connection without a goodbye
    peer: str = ""  # host:port of the socket, for the log line when it is dropped
    channels: dict[str, int | None] = field(default_factory=dict)
    # (channel or None, frame): the channel lets a resync drop its stale changes. Empty
    # nearly all the time (frames go straight to the socket), so it keeps nothing then.
    queue: SmallQueue[tuple[str | None, bytes]] = field(
        default_factory=lambda: SmallQueue(QUEUE_LIMIT)
    )
    resync: set[str] = field(default_factory=set)
    writer: asyncio.Task[None] | None = None
    busy: bool = False  # the writer holds frames taken from the queue and not yet sent
    # The hub's sweep count when the send in progress began (None: not sending). A timer per
    # frame cost more than the send itself; the hub's sweep finds the stuck ones instead.
    sending_since: int | None = None
    # which of the HEARTBEAT_SLICES turns carries this client's heartbeat
    heartbeat_slice: int = field(default_factory=lambda: next(_slices) % HEARTBEAT_SLICES)

    def offer(self, channel: str | None, frame: bytes, wires: Wires | None = None) -> None:
        """Send or queue a frame without ever waiting: a slow client must not delay the
        others. `wires` keeps the frame serialized for the next client that gets it."""
        if channel is not None and channel in self.resync:
            return  # a fresh snapshot is coming for it anyway
        if self.write_now is not None and not self.busy and self.queue.empty() and frame:
            # Nothing is waiting to go before it: straight onto the socket, without waking
            # the writer (most of the cost of a delivery when thousands of clients follow).
            serialized = None if wires is None else wires.get(self.text)
            if serialized is None:
                serialized = wire(frame, text=self.text)
                if wires is not None:
                    wires[self.text] = serialized
            if self.write_now(serialized):
                return
        try:
            self.queue.put_nowait((channel, frame))
        except asyncio.QueueFull:
            metrics.OVERFLOWS.inc()
            # Drop what is queued and send fresh snapshots once the client drains: memory
            # stays flat whatever the client does.
            while not self.queue.empty():
                self.queue.get_nowait()
            self.resync.update(self.channels)
            self.queue.put_nowait((None, WAKE))  # the writer sends the snapshots even if idle


@dataclass(eq=False)
class Feed:
    tournament_id: int
    hub: Hub
    replica: Replica  # the feed's own copy of the tournament (app/realtime/replica.py)
    connections: set[Connection] = field(default_factory=set)
    # channel -> its clients: a flush visits only them, and never rebuilds the channel list.
    # A channel whose last client left stays, with no clients, for the hub's `linger`.
    subscribers: dict[str, set[Connection]] = field(default_factory=dict)
    left: dict[str, float] = field(default_factory=dict)  # channel -> when its last client left
    # channel -> (version, state) of what its clients hold
    states: dict[str, tuple[int, LiveState]] = field(default_factory=dict)
    history: dict[str, deque[tuple[int, int, bytes]]] = field(default_factory=dict)
    snapshots: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    snapshot_times: dict[str, float] = field(default_factory=dict)
    timed: dict[str, int] = field(default_factory=dict)  # channel -> version of a time-only change
    version: int = -1
    notified: int = -1  # the newest version a commit was announced with
    # The version before the flush that is offering its changes, slice by slice: what a
    # heartbeat says meanwhile, so that none names a version before its change has gone out
    flushing_from: int | None = None
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    # The answers owed by the requests whose commits the next update brings (OWED_ANSWER)
    answers: set[asyncio.Future[None]] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task[None] | None = None
    boundary: asyncio.TimerHandle | None = None
    valid_until: datetime | None = None  # the next moment a clock changes phase by time
    clocks_followed: bool = False  # the last flush computed the clocks (and their boundary)

    def channels(self) -> set[str]:
        return set(self.subscribers)

    def heartbeat_version(self) -> int:
        return self.version if self.flushing_from is None else self.flushing_from

    def _join(self, connection: Connection, channel: str, version: int) -> None:
        connection.channels[channel] = version
        self.subscribers.setdefault(channel, set()).add(connection)
        self.left.pop(channel, None)

    def _leave(self, connection: Connection, channel: str) -> None:
        connection.channels.pop(channel, None)
        clients = self.subscribers.get(channel)
        if clients is not None:
            clients.discard(connection)
            if not clients and self.hub.linger > 0:
                # Still flushed, so that its state and history stay current for the clients
                # coming back (Hub.linger); forgotten by `expire` after that.
                self.left[channel] = time.monotonic()
            elif not clients:
                del self.subscribers[channel]
                self._forget(channel)

    def expire(self, now: float) -> None:
        """Forget the channels nobody has followed for the hub's `linger`. A flush brings
        only the channels in `subscribers` up to date: once out, a state kept would go
        stale, and the next to follow the channel would get it."""
        for channel, at in list(self.left.items()):
            if now - at >= self.hub.linger:
                del self.left[channel]
                if not self.subscribers.get(channel):
                    self.subscribers.pop(channel, None)
                    self._forget(channel)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        last = 0.0
        took = 0.0  # the last update's time, from its start to its last send
        while True:
            await self.dirty.wait()
            # At most FLUSH_INTERVAL apart, and an update that took long waits FLUSH_PACE
            # times as long before the next: a hall following every player took 100 ms an
            # update, five hands a second made it half the server's time, and the judges'
            # hands shared what was left (issue 32). More hands then join one update.
            wait = last + max(FLUSH_INTERVAL, FLUSH_PACE * took) - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)  # the rest of the burst joins this update
            await self._answers_first(loop.time() + self.hub.answer_wait)
            self.dirty.clear()
            last = loop.time()
            try:
                async with self.lock:
                    await self._flush(self.notified)
            except Exception:
                log.exception("live feed of tournament %s failed to update", self.tournament_id)
            took = loop.time() - last

    async def _answers_first(self, deadline: float) -> None:
        """Wait, until `deadline` at the latest, for the answers owed by the writes whose
        commits this update brings (OWED_ANSWER), those that came meanwhile included."""
        loop = asyncio.get_running_loop()
        while self.answers and (left := deadline - loop.time()) > 0:
            owed, self.answers = self.answers, set()
            await asyncio.wait(owed, timeout=left)
        self.answers.clear()

    async def _compute(
        self,
        channels: Iterable[str],
        at_least: int | None = None,
        *,
        existing: bool = False,
        boundary: bool = False,
    ) -> tuple[int, dict[str, LiveState], datetime | None]:
        """The channels' states, and with `boundary` the next moment after now when a clock
        changes phase by time alone (else None), from the feed's own copy of the tournament
        (app/realtime/replica.py) brought up to the version `at_least` at least (a commit of
        this process: no query), or to the database's. Worked out in a thread, without the
        store's lock: a hall following every player took 100 ms an update, which no judge's
        hand waits for now (issue 32). With `existing`, only of the channels the tournament
        has (views.in_tournament). Called under the feed's lock: nothing changes the copy
        meanwhile."""
        wanted = sorted(channels)
        now = self.hub.clock()
        held = self.states.get("standings")
        # The standings rows made for the state before: most are the same after a hand
        earlier = held[1].made if held is not None and isinstance(held[1], LiveStandings) else None
        replica = self.replica
        await replica.catch_up(at_least)
        tournament, version = replica.tournament, replica.version
        assert tournament is not None  # catch_up raised TournamentGone otherwise

        patience = self.hub.judges.patient(self.hub.answer_wait)

        def view() -> tuple[int, dict[str, LiveState], datetime | None]:
            states = States(tournament, now, earlier)
            fresh: dict[str, LiveState] = {}
            for channel in wanted:
                if not existing or in_tournament(tournament, channel):
                    # A judge's hand first: one channel of a hall's thousand is under way
                    # beside it at most (app/realtime/turns.py)
                    patience.wait()
                    fresh[channel] = states.live(channel)
            return version, fresh, states.next_boundary(after=True) if boundary else None

        return await asyncio.to_thread(view)

    async def _flush(self, at_least: int | None = None) -> None:
        """Send every subscribed channel what changed since the state its clients hold
        (computed from a state of version `at_least` or later, if given: _compute)."""
        started = time.perf_counter()
        channels = self.channels()
        if not channels:
            self.states.clear()
            self.history.clear()
            self.snapshots.clear()
            self.clocks_followed = False
            return
        # The clocks tell when a phase next changes by time alone: they are computed whenever
        # a followed channel shows a clock (about 12 ms a flush for 256 tables), and only then.
        timed = any(channel_kind(channel) in TIMED for channel in channels)
        self.clocks_followed = timed
        version, fresh, moment = await self._compute(channels, at_least, boundary=timed)
        if not timed:
            # Nobody follows them: dropped, they cannot go stale by time unnoticed.
            for channel in [c for c in self.states if channel_kind(c) in TIMED]:
                self._forget(channel)
        self.flushing_from = self.version
        self.version = max(self.version, version)
        try:
            sent = await self._send_changes(version, fresh)
        finally:
            self.flushing_from = None
        self._schedule_boundary(moment)
        metrics.FLUSH_SECONDS.observe(time.perf_counter() - started)
        metrics.FLUSH_BYTES.observe(sent)

    async def _send_changes(self, version: int, fresh: dict[str, LiveState]) -> int:
        """Offer each channel's change from the state its clients hold to `fresh`; the bytes
        of the changes encoded."""
        server_time = format_time(self.hub.clock())
        encoded = 0
        patience = self.hub.judges.patient(self.hub.answer_wait)
        for channel, new in fresh.items():
            await patience.turn()  # a judge's hand first (app/realtime/turns.py)
            held = self.states.get(channel)
            if held is None:
                self.states[channel] = (version, new)
                continue
            since, old = held
            difference = change(channel, old, new)
            if difference is None:
                continue
            frame = encode(
                {
                    "type": "change",
                    "channel": channel,
                    "since": since,
                    "version": version,
                    "server_time": server_time,
                    **difference,
                }
            )
            encoded += len(frame)
            self.states[channel] = (version, new)
            self.history.setdefault(channel, deque(maxlen=HISTORY)).append((since, version, frame))
            if since == version:
                self.timed[channel] = version  # changed by time alone, not by a commit
            wires: Wires = {}
            clients = list(self.subscribers.get(channel, ()))
            for start in range(0, len(clients), SEND_SLICE):
                # A judge's answer, a heartbeat or a new client waits behind one slice of
                # writes at most, not behind the whole hall.
                await asyncio.sleep(0)
                for connection in clients[start : start + SEND_SLICE]:
                    if channel in connection.channels:  # it may have left meanwhile
                        connection.offer(channel, frame, wires)
                        connection.channels[channel] = version
        return encoded

    def _forget(self, channel: str) -> None:
        self.states.pop(channel, None)
        self.history.pop(channel, None)
        self.snapshots.pop(channel, None)

    async def _flush_if_stale(self) -> None:
        """The states are current before anyone new joins them: no change is pending, and no
        clock has changed phase by time since they were computed."""
        passed = self.valid_until is not None and self.hub.clock() >= self.valid_until
        if self.dirty.is_set() or passed or not self.states:
            await self._flush()

    def _schedule_boundary(self, moment: datetime | None) -> None:
        """rule CL-6: a phase that changes by time alone (a deadline passes) is pushed then."""
        if self.boundary is not None:
            self.boundary.cancel()
            self.boundary = None
        self.valid_until = moment
        if moment is not None:
            delay = (moment - self.hub.clock()).total_seconds() + 0.05
            self.boundary = asyncio.get_running_loop().call_later(delay, self.dirty.set)

    async def subscribe(
        self, connection: Connection, wanted: Mapping[str, int | None]
    ) -> list[str]:
        """Add channels to a connection: what it missed since the versions it names, or a
        snapshot of each, and from then on every change. The channels the tournament does
        not have (an unregistered player, a table beyond its tables) are not followed: they
        are returned, for the client to hear of (issue 14)."""
        async with self.lock:
            await self._flush_if_stale()
            # A state held for a channel nobody follows has had no flush since (one that was
            # under way when its last client left may have stored it again): compute it anew.
            missing = [c for c in wanted if c not in self.states or c not in self.subscribers]
            absent = []
            if missing:
                # From the state the feed is at when this process has it: no thread, no
                # query, and never the tournament's lock that the judges' writes take.
                at_least = self.version if self.version >= 0 else None
                version, fresh, _ = await self._compute(missing, at_least, existing=True)
                self.version = max(self.version, version)
                for channel, new in fresh.items():
                    self.states[channel] = (version, new)
                absent = [channel for channel in missing if channel not in fresh]
                wanted = {c: since for c, since in wanted.items() if c not in absent}
            for channel, since in wanted.items():
                held_version, held = self.states[channel]
                self._join(connection, channel, held_version)
                connection.resync.discard(channel)
                if (
                    since is not None
                    and held_version <= since <= self.version
                    and self.timed.get(channel, -1) < since
                ):
                    continue  # it has seen every change up to `since`: it holds this state
                # Each frame under its channel: should the client be resynchronized before
                # it is sent, the fresh snapshot replaces it (snapshots_for), rather than go
                # out before it and take the client back a version.
                if since is not None and self.timed.get(channel, -1) >= since:
                    # A phase changed by time after `since` without a new version: only a
                    # snapshot says for sure what the client should show now (rule CL-6).
                    connection.offer(channel, self._snapshot(channel, held_version, held))
                    continue
                frames = self._missed(channel, since, held_version)
                if frames is None:
                    connection.offer(channel, self._snapshot(channel, held_version, held))
                else:
                    for frame in frames:
                        connection.offer(channel, frame)
            self.connections.add(connection)
            if not self.clocks_followed and any(channel_kind(c) in TIMED for c in wanted):
                self.dirty.set()  # the next flush computes the clocks and their next boundary
        return absent

    def _missed(self, channel: str, since: int | None, version: int) -> list[bytes] | None:
        """The changes from `since` to `version`, if history still holds all of them."""
        if since is None:
            return None
        chain = [entry for entry in self.history.get(channel, ()) if entry[0] >= since]
        if not chain or chain[0][0] != since or chain[-1][1] != version:
            return None
        for (_, before, _), (after, _, _) in zip(chain, chain[1:], strict=False):
            if before != after:
                return None
        return [frame for _, _, frame in chain]

    def _snapshot(self, channel: str, version: int, state: LiveState) -> bytes:
        # Encoded once for everyone who joins within SNAPSHOT_FRESH: its server_time must stay
        # within a second of the truth for a late joiner's countdown (rule CL-6).
        cached = self.snapshots.get(channel)
        now = asyncio.get_running_loop().time()
        if (
            cached is None
            or cached[0] != version
            or now - self.snapshot_times[channel] > SNAPSHOT_FRESH
        ):
            self.snapshot_times[channel] = now
            message = {
                "type": "snapshot",
                "channel": channel,
                "version": version,
                "server_time": format_time(self.hub.clock()),
                "data": as_json(state),
            }
            cached = (version, encode(message))
            self.snapshots[channel] = cached
        return cached[1]

    async def snapshots_for(self, connection: Connection, channels: set[str]) -> list[bytes]:
        """Fresh snapshots for a client that asked for them or could not keep up (sent by
        its own writer, outside the lock, so a slow client holds up nobody)."""
        frames = []
        async with self.lock:
            # A change queued for these channels is older than the snapshot, which holds it.
            kept = []
            while not connection.queue.empty():
                queued_channel, queued = connection.queue.get_nowait()
                if queued_channel not in channels:
                    kept.append((queued_channel, queued))
            for item in kept:
                connection.queue.put_nowait(item)
            for channel in channels:
                held = self.states.get(channel)
                if held is not None and channel in connection.channels:
                    connection.channels[channel] = held[0]
                    frames.append(self._snapshot(channel, *held))
        return frames

    async def write(self, connection: Connection) -> None:
        """The connection's writer: frames in order, snapshots after an overflow. A send
        that takes longer than the hub's `send_timeout` is its sweep's to end (Hub._sweep)."""
        hub = self.hub
        while True:
            channel, frame = await connection.queue.get()
            connection.busy = True  # until these are sent, later frames queue behind them
            if connection.resync:
                resynced, connection.resync = connection.resync, set()
                frames = [] if channel in resynced or not frame else [frame]
                frames += await self.snapshots_for(connection, resynced)
            elif frame:
                frames = [frame]
            else:
                frames = []
            for item in frames:
                connection.sending_since = hub.sweeps
                await connection.send(item)
                connection.sending_since = None
            connection.busy = False

    def unsubscribe(self, connection: Connection, channels: Iterable[str] | None = None) -> None:
        for channel in list(connection.channels if channels is None else channels):
            self._leave(connection, channel)
        if channels is None or not connection.channels:
            self.connections.discard(connection)


class Hub:
    """All live feeds of this process. `notify` is how it hears of a committed change."""

    def __init__(
        self,
        store: TournamentSource,
        *,
        clock: Callable[[], datetime] = utc_now,
        send_timeout: float,
        close_grace: float,
        linger: float = 0.0,
        judges: JudgesFirst | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        # In one process serving both lanes, a judge's request in flight: the feed's work of
        # an update waits for its answer between two channels, for answer_wait at most, as
        # it waits for the answers its own writes owe (app/realtime/turns.py)
        self.judges = judges or JudgesFirst()
        # Seconds a client may take to accept one frame before it is closed as too slow, then
        # to read up to that close before it is cut off (SCOREBOARD_WS_SEND_TIMEOUT and
        # SCOREBOARD_WS_CLOSE_GRACE, whose defaults are the server's)
        self.send_timeout = send_timeout
        self.close_grace = close_grace
        # Seconds a channel's state and history outlive its last client
        # (SCOREBOARD_WS_RESUME_SECONDS). When the hall's Wi-Fi drops, every phone's
        # connection may end at once; coming back seconds later, each resumes from the
        # history with the changes it missed (about 1 KB a hand), not with a snapshot of the
        # whole standings (about 200 KB for 1,024 players) that a forgotten channel needs.
        self.linger = linger
        self.answer_wait = ANSWER_WAIT  # longest an update waits for the answers owed
        self.feeds: dict[int, Feed] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.sweeps = 0  # how many times _sweep has looked: the clock of sending_since
        self.closing: set[asyncio.Task[None]] = set()  # closes of clients too slow to keep up
        # Live feed connections open per client address (app/web/live.py: at most
        # SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS each)
        self.addresses: dict[str, int] = {}
        # Told of every version the hub hears of, followed or not: this process's public
        # answers are made again when another process commits (app/web/public_answers.py)
        self.heard: list[Callable[[int, int], None]] = []

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.store.subscribe(self.committed)
        self.tasks = [
            asyncio.create_task(self._heartbeats()),
            asyncio.create_task(self._poll_versions()),
            asyncio.create_task(self._sweep()),
        ]

    async def stop(self) -> None:
        for task in [*self.tasks, *self.closing, *(f.task for f in self.feeds.values() if f.task)]:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        connections = [c for f in self.feeds.values() for c in f.connections]
        for connection in connections:
            if connection.writer is not None:
                connection.writer.cancel()
        # Say goodbye to everyone at once, and never wait long for a client that is gone.
        await asyncio.gather(
            *(
                asyncio.wait_for(connection.close(1001, "server shutting down"), 1.0)
                for connection in connections
            ),
            return_exceptions=True,
        )

    def feed(self, tournament_id: int) -> Feed:
        feed = self.feeds.get(tournament_id)
        if feed is None:
            feed = Feed(tournament_id, self, Replica(self.store, tournament_id))
            feed.task = asyncio.create_task(feed.run())
            self.feeds[tournament_id] = feed
        return feed

    def notify(
        self, tournament_id: int, version: int, answer: asyncio.Future[None] | None = None
    ) -> None:
        """A change committed (in this process or another): update that feed soon, once
        `answer`, owed by the request that committed it, is sent (OWED_ANSWER)."""
        for listener in self.heard:
            listener(tournament_id, version)
        feed = self.feeds.get(tournament_id)
        if feed is not None and version > feed.version:
            feed.notified = max(feed.notified, version)
            if answer is not None and not answer.done():
                feed.answers.add(answer)
            feed.dirty.set()

    def committed(self, commit: Commit) -> None:
        """The store's subscriber: called in the writing thread, after the commit."""
        if self.loop is not None:
            answer = OWED_ANSWER.get()
            if answer is not None and answer.get_loop() is not self.loop:
                answer = None  # a request of another app's loop (tests): it cannot be awaited
            lines = Committed(commit.first_seq, commit.version, tuple(commit.lines))
            self.loop.call_soon_threadsafe(
                self._committed_here, commit.tournament_id, lines, answer
            )

    def _committed_here(
        self, tournament_id: int, lines: Committed, answer: asyncio.Future[None] | None
    ) -> None:
        """On the event loop: the feed's copy takes the lines without a query."""
        feed = self.feeds.get(tournament_id)
        if feed is not None:
            feed.replica.committed(lines)
        self.notify(tournament_id, lines.version, answer)

    async def _heartbeats(self) -> None:
        """Every client hears a heartbeat every HEARTBEAT_INTERVAL, a tenth of them at a time."""
        turn = 0
        while True:
            await asyncio.sleep(HEARTBEAT_INTERVAL / HEARTBEAT_SLICES)
            turn = (turn + 1) % HEARTBEAT_SLICES
            # In a function of its own: a loop's variables here would keep the last client it
            # looked at, and all it holds, across the sleep, long after that client had left.
            self._send_heartbeats(turn)

    def _send_heartbeats(self, turn: int) -> None:
        server_time = format_time(self.clock())
        for feed in list(self.feeds.values()):
            frame = b""
            wires: Wires = {}
            for connection in list(feed.connections):
                if connection.heartbeat_slice != turn:
                    continue
                frame = frame or encode(
                    {
                        "type": "heartbeat",
                        "version": feed.heartbeat_version(),
                        "server_time": server_time,
                    }
                )
                connection.offer(None, frame, wires)

    async def _sweep(self) -> None:
        """Close every client whose send has been stuck for `send_timeout`: it stopped reading.
        Its writer waits in that send (uvicorn writes none of a frame before the socket has
        drained), so cancelling it there loses nothing; the close frame goes out once the
        socket drains, or the connection is cut (_close_too_slow)."""
        stuck_for = math.ceil(self.send_timeout / SWEEP_INTERVAL) + 1
        while True:
            await asyncio.sleep(SWEEP_INTERVAL)
            self.sweeps += 1
            self._sweep_once(stuck_for)  # its loop's variables end with it (_heartbeats)

    def _sweep_once(self, stuck_for: int) -> None:
        now = time.monotonic()
        for feed in list(self.feeds.values()):
            feed.expire(now)
            for connection in list(feed.connections):
                since = connection.sending_since
                if since is not None and self.sweeps - since >= stuck_for:
                    self._drop_too_slow(feed, connection)

    def _drop_too_slow(self, feed: Feed, connection: Connection) -> None:
        # A warning: one screen in the hall that stops taking frames is worth a look (its
        # cable, its Wi-Fi), and a phone put away is one line.
        log.warning(
            "closing the live feed of tournament %s to %s (%s): it took no frame for %s s",
            feed.tournament_id,
            connection.peer or "a client",
            TOO_SLOW,
            self.send_timeout,
        )
        feed.unsubscribe(connection)
        connection.sending_since = None
        if connection.writer is not None:
            connection.writer.cancel()
        metrics.CLOSES.labels(code=str(TOO_SLOW)).inc()
        task = asyncio.create_task(self._close_too_slow(connection))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def _close_too_slow(self, connection: Connection) -> None:
        """The close frame goes out once the client reads what was written before it. One
        that never reads again (a phone put away with the page open) would keep its socket,
        and the buffers behind it, for as long as its TCP connection lives: after `close_grace`
        the connection is cut, where the server lets us (app/web/live_protocol.py)."""
        try:
            await asyncio.wait_for(
                connection.close(TOO_SLOW, "too slow to keep up with the feed"), self.close_grace
            )
        except TimeoutError:
            if connection.abort is not None:
                # the socket and its buffers are freed: a figure for the technician's graphs
                metrics.CUTS.inc()
                log.info(
                    "cut the connection of %s: its close (%s) was not read within %s s",
                    connection.peer or "a client",
                    TOO_SLOW,
                    self.close_grace,
                )
                connection.abort()
        except Exception:  # the client is gone already: nothing to close
            log.debug("closing a client too slow to keep up failed", exc_info=True)

    async def _poll_versions(self) -> None:
        """The safety net under the notifications: a feed behind the database catches up."""
        while True:
            await asyncio.sleep(VERSION_POLL_INTERVAL)
            for tournament_id, feed in list(self.feeds.items()):
                if not feed.subscribers:  # followed, or left for a moment (Hub.linger)
                    continue
                try:
                    version = await asyncio.to_thread(self.store.stored_version, tournament_id)
                except Exception:
                    log.exception("cannot read the version of tournament %s", tournament_id)
                    continue
                if version is not None:
                    self.notify(tournament_id, version)


class HubCollector(Collector):
    """What a scrape of /metrics reads off the live feed at that moment (app/metrics.py):
    its clients by channel kind, and how far each tournament's feed is behind the newest
    version it was told of. Read on the event loop, as the feed changes only there."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def collect(self) -> Iterator[Metric]:
        clients = GaugeMetricFamily(
            "scoreboard_feed_clients",
            "Live feed subscriptions by channel kind (a connection counts once per channel)",
            labels=["channel"],
        )
        by_kind: dict[str, int] = dict.fromkeys(("standings", "clocks", "table", "player"), 0)
        connections = 0
        lag = GaugeMetricFamily(
            "scoreboard_feed_version_lag",
            "Versions a tournament's feed has yet to send: the newest it was told of (a commit "
            "here, or through Redis) less the one its clients hold",
            labels=["tournament"],
        )
        for feed in list(self.hub.feeds.values()):
            connections += len(feed.connections)
            for channel, subscribers in list(feed.subscribers.items()):
                kind = channel_kind(channel)
                by_kind[kind] = by_kind.get(kind, 0) + len(subscribers)
            behind = max(0, feed.notified - feed.version) if feed.version >= 0 else 0
            lag.add_metric([str(feed.tournament_id)], behind)
        for kind, count in sorted(by_kind.items()):
            clients.add_metric([kind], count)
        yield clients
        yield GaugeMetricFamily(
            "scoreboard_feed_connections", "Live feed connections open", value=connections
        )
        yield lag
