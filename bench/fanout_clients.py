"""The websocket clients of the fan-out benchmark (bench/fanout.py), in a process of their own.

The parent starts `serve_clients` with multiprocessing and drives it through a pipe: connect
N clients, freeze some, wait for a version, report, close. Each client is an asyncio
protocol around websockets' own sans-I/O `ClientProtocol` (the library does the handshake,
the frame parsing, the answers to pings and the closing handshake; its asyncio client is the
same core with a task and futures per message on top, which would make 5,000 clients cost
this process more than they cost the server under test).

A client keeps, for its one channel (`standings`), the version it holds: a snapshot sets it;
a change must say `since` that version and carry a greater one, or it is counted as a gap or
as out of order. The arrival of every change is stamped with CLOCK_MONOTONIC, which is the
same clock in every process of the machine, so the parent's stamp of a POST and a client's
stamp of the change it caused can be subtracted.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import re
import resource
import socket
import ssl
import time
from multiprocessing.connection import Connection as Pipe
from typing import Any

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

CHANNEL = "standings"  # the one channel each client follows, unless the parent names another
# Changes are encoded with their keys in this order (app/realtime/hub.py), so the fields a
# client checks are read from the start of the frame; every 250th client also decodes the
# whole frame as JSON and checks that both readings agree.
CHANGE = re.compile(rb'\{"type":"change","channel":"([^"]*)","since":(-?\d+|null),"version":(\d+)')
FULL_CHECK_EVERY = 250
FROZEN_RECEIVE_BUFFER = 4096  # bytes: a frozen client's kernel buffer fills after a few frames
THAWED_RECEIVE_BUFFER = 4 << 20  # so that a thawed client catches up at loopback speed
POLL = 0.01  # seconds between checks while waiting for the clients to hold a version


def clock() -> float:
    """CLOCK_MONOTONIC: one clock for every process on the machine (Linux)."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def raise_open_files(wanted: int) -> tuple[int, int]:
    """Raise this process's soft limit of open files towards `wanted` (at most the hard
    limit); children started afterwards inherit it. Returns (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < ceiling:
        resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


class Client(asyncio.Protocol):
    def __init__(
        self,
        index: int,
        uri: str,
        frozen: bool,
        channel: str = CHANNEL,
        *,
        resume: tuple[int | None, int] | None = None,
    ) -> None:
        """`resume`: (the version held, the version to reach) for a client that reconnects
        as live.js does: it names its channel and that version in a `subscribe` once the
        handshake is done, and is ready once it holds the version to reach."""
        self.index = index
        self.channel = channel
        self.protocol = ClientProtocol(parse_uri(uri), max_size=None)
        self.frozen = frozen
        self.full_check = index % FULL_CHECK_EVERY == 0
        self.transport: Any = None
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.held: int | None = None if resume is None else resume[0]
        self.reach: int | None = None if resume is None else resume[1]
        self.reached: float | None = None  # when it first held `reach`
        self.versions: list[int] = []  # of every change received, in order of arrival
        self.times: list[float] = []
        self.sizes: list[int] = []
        self.gaps = 0
        self.disorder = 0
        self.problems: list[str] = []
        self.snapshots = 0
        self.heartbeats = 0
        self.close_code: int | None = None
        self.lost = False
        self.fragments: list[bytes] = []

    # -- asyncio ------------------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:  # uvloop's is no asyncio.Transport
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self.flush()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self.frame(event)
            elif isinstance(event, Response) and self.protocol.handshake_exc is not None:
                self.fail(f"handshake refused: {self.protocol.handshake_exc}")
            elif isinstance(event, Response) and self.reach is not None:
                subscribe = {"type": "subscribe", "channels": {self.channel: self.held}}
                self.protocol.send_text(json.dumps(subscribe).encode())
        self.flush()

    def eof_received(self) -> bool | None:
        self.protocol.receive_eof()
        self.flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.close_code is None and self.protocol.close_rcvd is not None:
            self.close_code = self.protocol.close_rcvd.code
        self.fail(f"connection lost ({exc or 'closed'})")

    def flush(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        for chunk in self.protocol.data_to_send():
            if chunk:
                self.transport.write(chunk)
            elif self.transport.can_write_eof():
                self.transport.write_eof()

    def fail(self, why: str) -> None:
        if not self.ready.done():
            self.problems.append(why)
            self.ready.set_exception(ConnectionError(why))

    # -- messages -----------------------------------------------------------------------

    def frame(self, frame: Frame) -> None:
        if frame.opcode is Opcode.CLOSE:
            received = self.protocol.close_rcvd
            self.close_code = received.code if received is not None else 1005
            return
        if frame.opcode not in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            return  # pings are answered by the protocol
        if not frame.fin:
            self.fragments.append(bytes(frame.data))
            return
        data = bytes(frame.data)
        if self.fragments:
            data, self.fragments = b"".join([*self.fragments, data]), []
        self.message(data, clock())

    def message(self, data: bytes, now: float) -> None:
        match = CHANGE.match(data)
        if match is None:
            self.other(data)
            return
        channel, since_text, version_text = match.groups()
        since = None if since_text == b"null" else int(since_text)
        version = int(version_text)
        if self.full_check:
            decoded = json.loads(data)
            if (decoded["channel"], decoded["since"], decoded["version"]) != (
                channel.decode(),
                since,
                version,
            ):
                self.problems.append(f"frame read two ways differs: {data[:120]!r}")
        if channel != self.channel.encode():
            self.problems.append(f"change of channel {channel!r}, not subscribed")
            return
        if self.held is not None and version <= self.held:
            self.disorder += 1
        elif since != self.held:
            self.gaps += 1
        self.held = version if self.held is None else max(self.held, version)
        self.versions.append(version)
        self.times.append(now)
        self.sizes.append(len(data))
        self.reaching(now)

    def reaching(self, now: float) -> None:
        if self.reach is not None and self.held is not None and self.held >= self.reach:
            self.reach = None
            self.reached = now
            if not self.ready.done():
                self.ready.set_result(None)

    def other(self, data: bytes) -> None:
        try:
            message = json.loads(data)
        except ValueError:
            self.problems.append(f"not JSON: {data[:80]!r}")
            return
        kind = message.get("type")
        if kind == "snapshot" and message.get("channel") == self.channel:
            version = int(message["version"])
            if self.held is not None and version < self.held:
                self.disorder += 1
            self.held = version if self.held is None else max(self.held, version)
            self.snapshots += 1
            if self.reach is not None:
                self.reaching(clock())
            elif not self.ready.done():
                self.ready.set_result(None)
        elif kind == "heartbeat":
            self.heartbeats += 1
        elif kind == "change":
            self.problems.append(f"change in another key order: {data[:120]!r}")
        elif kind != "hello":
            self.problems.append(f"unexpected message {kind!r}")

    def first_holding(self, version: int) -> float | None:
        """When this client first held `version` or a later one (the versions it received
        increase, or it counted them as out of order)."""
        at = bisect.bisect_left(self.versions, version)
        return self.times[at] if at < len(self.times) else None

    @property
    def usable(self) -> bool:
        return self.ready.done() and self.ready.exception() is None


def address(spec: dict[str, Any]) -> str:
    scheme = "wss" if spec.get("tls_root") else "ws"
    return f"{scheme}://{spec['host']}:{spec['port']}{spec['path']}"


def tls_context(spec: dict[str, Any]) -> ssl.SSLContext | None:
    """Through the proxy (bench/proxy.py): HTTPS, trusting its own root, as a tablet does."""
    root = spec.get("tls_root")
    return None if root is None else ssl.create_default_context(cafile=root)


class Clients:
    def __init__(self) -> None:
        self.clients: list[Client] = []

    async def connect(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Open `count` more clients (at most `concurrency` handshakes at once) and wait for
        each one's snapshot; every `freeze_every`-th (offset by half) is to be frozen."""
        uri = address(spec)
        freeze_every = spec.get("freeze_every") or 0
        first = len(self.clients)
        made = [
            Client(
                index,
                uri,
                freeze_every > 0 and index % freeze_every == freeze_every // 2,
                spec.get("channel", CHANNEL),
            )
            for index in range(first, first + spec["count"])
        ]
        answer = await self._open(made, spec)
        self.clients.extend(made)
        return answer

    def drop(self) -> dict[str, Any]:
        """The hall's Wi-Fi goes: every connection is cut at once (a reset, no closing
        handshake), and each client keeps the version it held."""
        dropped = 0
        for client in self.clients:
            if client.transport is not None and not client.lost:
                client.transport.abort()
                dropped += 1
        return {"dropped": dropped, "at": clock()}

    async def resume(self, spec: dict[str, Any]) -> dict[str, Any]:
        """The Wi-Fi is back: every client that held a version reconnects, as live.js does
        (the channels in a `subscribe` with the version held, `path` naming none), at most
        `concurrency` handshakes at once, and is ready once it holds `version`. The new
        clients take the old ones' places."""
        uri = address(spec)
        reach = spec["version"]
        kept = [c for c in self.clients if c.usable and c.held is not None]
        started = clock()
        made = [Client(c.index, uri, False, c.channel, resume=(c.held, reach)) for c in kept]
        answer = await self._open(made, spec)
        self.clients = made
        reached = [c.reached for c in made if c.reached is not None]
        answer["last_held"] = max(reached, default=started) - started
        answer["missing"] = len(made) - len(reached)
        return answer

    async def _open(self, made: list[Client], spec: dict[str, Any]) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        host, port = spec["host"], spec["port"]
        gate = asyncio.Semaphore(spec["concurrency"])
        timeout = spec["timeout"]
        tls = tls_context(spec)
        started = clock()

        async def one(client: Client) -> None:
            async with gate:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                if client.frozen:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, FROZEN_RECEIVE_BUFFER)
                sock.setblocking(False)
                try:
                    await asyncio.wait_for(loop.sock_connect(sock, (host, port)), timeout)
                    await loop.create_connection(
                        lambda: client,
                        sock=sock,
                        ssl=tls,
                        server_hostname=host if tls is not None else None,
                    )
                    await asyncio.wait_for(asyncio.shield(client.ready), timeout)
                except (OSError, TimeoutError, ConnectionError) as error:
                    if not client.ready.done():
                        client.ready.set_exception(ConnectionError(repr(error)))
                    client.problems.append(f"connect: {error!r}")
                    if client.transport is not None:
                        client.transport.abort()
                    else:
                        sock.close()

        await asyncio.gather(*(one(client) for client in made))
        failed = [c for c in made if not c.usable]
        return {
            "connected": len(made) - len(failed),
            "failed": len(failed),
            "why": sorted({c.problems[0] for c in failed if c.problems})[:3],
            "seconds": clock() - started,
        }

    def active(self) -> list[Client]:
        return [c for c in self.clients if c.usable and not c.frozen]

    def freeze(self) -> int:
        frozen = [c for c in self.clients if c.frozen and c.usable and c.transport is not None]
        for client in frozen:
            client.transport.pause_reading()
        return len(frozen)

    async def wait(self, version: int, timeout: float) -> dict[str, Any]:
        """Until every active client holds `version` (or a later one), at most `timeout`."""
        deadline = clock() + timeout
        behind = [c for c in self.active() if not c.lost]  # a lost one is reported as such
        while clock() < deadline:
            behind = [c for c in behind if c.held is None or c.held < version]
            if not behind:
                break
            await asyncio.sleep(POLL)
        return {"behind": len(behind), "at": clock()}

    async def thaw(self, settle: float, final: int) -> dict[str, Any]:
        """Read again on the frozen clients, give them `settle` seconds, say what they got."""
        frozen = [c for c in self.clients if c.frozen and c.usable]
        for client in frozen:
            if client.transport is not None and not client.transport.is_closing():
                sock = client.transport.get_extra_info("socket")
                with contextlib.suppress(OSError, AttributeError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, THAWED_RECEIVE_BUFFER)
                client.transport.resume_reading()
        await asyncio.sleep(settle)
        codes: dict[str, int] = {}
        for client in frozen:
            key = str(client.close_code) if client.close_code is not None else "open"
            codes[key] = codes.get(key, 0) + 1
        return {
            "frozen": len(frozen),
            "close_codes": codes,
            "caught_up": sum(1 for c in frozen if c.held == final),
            "resynced": sum(1 for c in frozen if c.snapshots > 1),
            "gaps": sum(c.gaps for c in frozen),
            "disorder": sum(c.disorder for c in frozen),
        }

    def report(self, versions: list[int], final: int) -> dict[str, Any]:
        """For each version: when the first and the last active client held it."""
        active = self.active()
        per_version = []
        for version in versions:
            first: float | None = None
            last: float | None = None
            missing = 0
            exact = 0
            for client in active:
                at = client.first_holding(version)
                if at is None:
                    missing += 1
                    continue
                first = at if first is None else min(first, at)
                last = at if last is None else max(last, at)
            size = None
            for client in active[:1]:
                if version in client.versions:
                    exact = 1
                    size = client.sizes[client.versions.index(version)]
            per_version.append(
                {"version": version, "first": first, "last": last, "missing": missing,
                 "exact": exact, "size": size}
            )  # fmt: skip
        problems = [p for c in self.clients for p in c.problems if not p.startswith("connection")]
        return {
            "active": len(active),
            "per_version": per_version,
            "gaps": sum(c.gaps for c in active),
            "disorder": sum(c.disorder for c in active),
            "not_final": sum(1 for c in active if c.held != final),
            "lost_connections": sum(1 for c in active if c.lost),
            "resynced": sum(1 for c in active if c.snapshots > 1),
            "snapshots": sum(c.snapshots for c in active),
            "changes": sum(len(c.versions) for c in active),
            "heartbeats": sum(c.heartbeats for c in active),
            "problems": problems[:5],
            "problem_count": len(problems),
        }

    async def close(self, timeout: float) -> int:
        """The closing handshake for every client still open; abort what remains after
        `timeout`. Returns how many had to be aborted."""
        for client in self.clients:
            if client.transport is not None and not client.transport.is_closing():
                if client.frozen:
                    client.transport.resume_reading()
                if client.protocol.state is State.OPEN:
                    client.protocol.send_close(1000)
                    client.flush()
        deadline = clock() + timeout
        while clock() < deadline and not all(c.lost for c in self.clients if c.transport):
            await asyncio.sleep(0.05)
        aborted = 0
        for client in self.clients:
            if client.transport is not None and not client.lost:
                client.transport.abort()
                aborted += 1
        await asyncio.sleep(0.1)
        return aborted


async def _serve(pipe: Pipe) -> None:
    loop = asyncio.get_running_loop()
    clients = Clients()
    while True:
        command, argument = await loop.run_in_executor(None, pipe.recv)
        if command == "connect":
            answer: Any = await clients.connect(argument)
        elif command == "drop":
            answer = clients.drop()
        elif command == "resume":
            answer = await clients.resume(argument)
        elif command == "freeze":
            answer = clients.freeze()
        elif command == "wait":
            answer = await clients.wait(*argument)
        elif command == "thaw":
            answer = await clients.thaw(*argument)
        elif command == "report":
            answer = clients.report(*argument)
        elif command == "close":
            answer = await clients.close(argument)
        elif command == "exit":
            pipe.send(None)
            return
        else:
            answer = f"unknown command {command!r}"
        pipe.send(answer)


def serve_clients(pipe: Pipe, open_files: int) -> None:
    """The client process: answer the parent's commands until it says exit."""
    raise_open_files(open_files)
    try:
        import uvloop  # the server under test runs on uvloop too (uvicorn picks it)

        runner: Any = uvloop.run
    except ImportError:  # pragma: no cover - uvicorn[standard] brings it
        runner = asyncio.run
    with contextlib.suppress(KeyboardInterrupt, EOFError):
        runner(_serve(pipe))
