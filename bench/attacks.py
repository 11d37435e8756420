"""What a hostile client on the hall's Wi-Fi does to the scoreboard (issues 14 and 32), one
kind of attack at a time or all at once: each kind runs in a process of its own (`Attacker`),
at idle priority on the clients' cores, and reports what it sent and what it got.

The kinds, by name:
- search: the spectators' player search, a few requests a second, with queries that cost
  (typos, names in Chinese characters, 100 characters of noise);
- players upload: 16 MiB JSON bodies to /api/tournaments/{tid}/players with no token, ten
  at once, again and again;
- moments: the standings at a random moment of the day (`?at=`), four at a time;
- GET flood: public pages, the API and the feeds, as fast as eight connections take them;
- bad tokens: 10,000 made-up table tokens a minute on the judges' hand route;
- slow loris: 3,000 connections that send half a request and then nothing;
- log downloads: the whole log, two at a time;
- chunked uploads: 16 MiB imports sent in chunks with no token;
- real channels: connections following every player's channel and every table's, reading
  what the feed sends (the feed's real work: each is recomputed on every update);
- alias channels: the same tables spelt `table:01`, `table:001` ... (one channel each, were
  they taken);
- subscribe flood, connections held, 100 MB bodies: issue 14's (made-up channels, followers
  that never read, a body far over the limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import select
import socket
import ssl
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


@dataclass(frozen=True)
class Target:
    """Where the attacks go: the server's (or the proxy's) address, and what it holds."""

    base_url: str  # http://host:port, or https://host:port behind the proxy
    tid: int
    players: tuple[str, ...]
    tables: tuple[int, ...]
    ca_file: str | None = None  # the proxy's root certificate

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        return urlsplit(self.base_url).port or 80

    @property
    def tls(self) -> bool:
        return self.base_url.startswith("https")

    @property
    def ws_base(self) -> str:
        return ("wss" if self.tls else "ws") + self.base_url.removeprefix("https").removeprefix(
            "http"
        )

    def ssl_context(self) -> ssl.SSLContext | None:
        if not self.tls:
            return None
        return ssl.create_default_context(cafile=self.ca_file)

    def client(self, connections: int, timeout: float = 30.0) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            verify=self.ssl_context() or True,
            limits=httpx.Limits(max_connections=connections),
        )


@dataclass
class Report:
    """What one attack sent and got: requests, answers by status, and notes."""

    kind: str
    sent: int = 0
    statuses: Counter[int] = field(default_factory=Counter)  # 0: no answer (a transport error)
    notes: Counter[str] = field(default_factory=Counter)

    def answered(self, status: int) -> None:
        self.statuses[status] += 1

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.statuses.items() if status >= 500)

    def summary(self) -> str:
        statuses = ", ".join(f"{s or 'none'}: {n:,}" for s, n in sorted(self.statuses.items()))
        notes = ", ".join(f"{k}: {n:,}" for k, n in sorted(self.notes.items()))
        return f"{self.sent:,} sent; answers {statuses or '-'}" + (f"; {notes}" if notes else "")


# -- the kinds -------------------------------------------------------------------------------

QUERIES = (
    "hayshi",
    "emile dubios",
    "nakamura sora",
    "chen jia wei",
    "山田 剛",
    "陳家偉",
    "やまだ",
    "müller okafr",
    "x" * 99,  # the most a query may hold with the letter added below
    "a b c d e f g h i j k l",
)
SEARCHES_PER_SECOND = 4.0


async def search(target: Target, end: float, report: Report) -> None:
    async with target.client(8) as client:

        async def one() -> None:
            query = random.choice(QUERIES) + random.choice(("", " ", "e", "a"))
            try:
                answer = await client.get("/search", params={"q": query, "t": target.tid})
                report.answered(answer.status_code)
            except httpx.HTTPError:
                report.answered(0)

        await _paced(one, SEARCHES_PER_SECOND, end, report)


async def _paced(one: Any, per_second: float, end: float, report: Report) -> None:
    """`one()` at a steady rate until `end`, each in a task of its own (open loop)."""
    tasks = []
    start = time.monotonic()
    n = 0
    while time.monotonic() < end:
        await asyncio.sleep(max(0.0, start + n / per_second - time.monotonic()))
        report.sent += 1
        tasks.append(asyncio.create_task(one()))
        n += 1
    if tasks:
        await asyncio.wait(tasks, timeout=30)


async def _closed(one: Any, workers: int, end: float, report: Report) -> None:
    """`workers` loops each doing `one()` again as soon as it is answered, until `end`."""

    async def loop() -> None:
        while time.monotonic() < end:
            report.sent += 1
            await one()

    await asyncio.gather(*(loop() for _ in range(workers)))


BIG_JSON = 16 * 1024 * 1024


async def players_upload(target: Target, end: float, report: Report) -> None:
    """16 MiB JSON bodies with no token, ten at a time: a body the server should refuse
    before it reads a byte of it (issue 32, item 3)."""
    one_player = b'{"id":"Z000000","name":"' + b"z" * 200 + b'","group":"A"},'
    body = b"[" + one_player * (BIG_JSON // len(one_player) - 1) + one_player[:-1] + b"]"
    path = f"/api/tournaments/{target.tid}/players"
    async with target.client(10, timeout=60) as client:

        async def one() -> None:
            try:
                answer = await client.post(
                    path, content=body, headers={"Content-Type": "application/json"}
                )
                report.answered(answer.status_code)
            except httpx.HTTPError:
                report.answered(0)
            await asyncio.sleep(0.1)

        await _closed(one, 10, end, report)


async def moments(target: Target, end: float, report: Report) -> None:
    """The standings at random moments of the day so far, four at a time."""
    async with target.client(4) as client:
        first = time.time() - 3600.0
        try:
            answer = await client.get(
                f"/api/tournaments/{target.tid}/standings", params={"at": _iso(time.time())}
            )
            first_time = answer.json().get("first_time")
            if first_time:
                first = _epoch(first_time)
        except (httpx.HTTPError, ValueError):
            pass

        async def one() -> None:
            moment = random.uniform(first, time.time())
            try:
                answer = await client.get(
                    f"/api/tournaments/{target.tid}/standings",
                    params={"at": _iso(moment), "top": "20"},
                )
                report.answered(answer.status_code)
            except httpx.HTTPError:
                report.answered(0)

        await _closed(one, 4, end, report)


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + f".{int(epoch % 1 * 1000):03d}Z"


def _epoch(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def public_pages(target: Target) -> list[str]:
    tid = target.tid
    some = random.sample(target.players, min(8, len(target.players)))
    tables = random.sample(target.tables, min(4, len(target.tables)))
    return [
        "/",
        f"/hall/{tid}",
        f"/hall/{tid}/players.json",
        f"/api/tournaments/{tid}",
        f"/api/tournaments/{tid}/standings",
        f"/api/tournaments/{tid}/tables",
        f"/api/tournaments/{tid}/clocks",
        f"/feeds/{tid}/standings.json",
        f"/feeds/{tid}/tables.csv",
        f"/feeds/{tid}/cut.xml",
        f"/overlay/{tid}/top",
        f"/overlay/{tid}/cut",
        *(f"/p/{quote(p)}?t={tid}" for p in some),
        *(f"/api/tournaments/{tid}/players/{quote(p)}" for p in some),
        *(f"/overlay/{tid}/table/{t}" for t in tables),
    ]


async def get_flood(target: Target, end: float, report: Report) -> None:
    pages = public_pages(target)
    async with target.client(8) as client:

        async def one() -> None:
            try:
                answer = await client.get(random.choice(pages))
                report.answered(answer.status_code)
            except httpx.HTTPError:
                report.answered(0)

        await _closed(one, 8, end, report)


BAD_TOKENS_PER_MINUTE = 10_000


async def bad_tokens(target: Target, end: float, report: Report) -> None:
    body = {"round": 1, "segment": 1, "table": 1, "hand": 1, "result": {"kind": "draw"}}
    path = f"/api/tournaments/{target.tid}/hands"
    async with target.client(32, timeout=10) as client:

        async def one() -> None:
            token = f"bad-{uuid.uuid4().hex}"
            headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "k"}
            try:
                answer = await client.post(path, json=body, headers=headers)
                report.answered(answer.status_code)
            except httpx.HTTPError:
                report.answered(0)

        await _paced(one, BAD_TOKENS_PER_MINUTE / 60, end, report)


SLOW_LORIS = 3000


async def slow_loris(target: Target, end: float, report: Report) -> None:
    """Connections that send the start of a request and then nothing: each holds a socket
    (and, behind the proxy, a TLS session) until the server gives up on it."""
    head = (
        f"GET /api/tournaments/{target.tid}/standings HTTP/1.1\r\nHost: {target.host}\r\nX-Slow: "
    )
    held: list[asyncio.StreamWriter] = []

    async def open_one() -> None:
        report.sent += 1
        try:
            _, writer = await asyncio.wait_for(
                asyncio.open_connection(target.host, target.port, ssl=target.ssl_context()), 10
            )
            writer.write(head.encode())
            await writer.drain()
            held.append(writer)
        except (OSError, TimeoutError, ssl.SSLError):
            report.answered(0)

    try:
        for start in range(0, SLOW_LORIS, 100):
            if time.monotonic() >= end:
                break
            await asyncio.gather(*(open_one() for _ in range(min(100, SLOW_LORIS - start))))
        report.notes["held open"] = len(held)
        while time.monotonic() < end:
            # a byte now and then, as a slow-loris client does to look alive
            for writer in list(held):
                if writer.is_closing():
                    held.remove(writer)
                    report.notes["closed by the server"] += 1
                    continue
                with contextlib.suppress(OSError):
                    writer.write(b"x")
            await asyncio.sleep(1.0)
    finally:
        for writer in held:
            writer.transport.abort()


async def log_downloads(target: Target, end: float, report: Report) -> None:
    async with target.client(2, timeout=60) as client:

        async def one() -> None:
            try:
                answer = await client.get(f"/api/tournaments/{target.tid}/log")
                report.answered(answer.status_code)
            except httpx.HTTPError:
                report.answered(0)

        await _closed(one, 2, end, report)


async def chunked_uploads(target: Target, end: float, report: Report) -> None:
    """Imports sent in chunks (no Content-Length) with no token, four at a time."""
    chunk = b" " * (256 * 1024)

    async def chunks() -> Any:
        for _ in range(BIG_JSON // len(chunk)):
            yield chunk

    async with target.client(4, timeout=60) as client:

        async def one() -> None:
            try:
                answer = await client.post(
                    "/api/tournaments/import",
                    content=chunks(),
                    headers={"Content-Type": "application/x-ndjson"},
                )
                report.answered(answer.status_code)
            except httpx.HTTPError:
                report.answered(0)
            await asyncio.sleep(0.1)

        await _closed(one, 4, end, report)


REAL_CONNECTIONS = 64  # each following 64 channels: every player's and every table's


def real_channel_sets(target: Target, per_connection: int = 64) -> list[list[str]]:
    names = [f"player:{p}" for p in target.players] + [f"table:{t}" for t in target.tables]
    names += ["standings", "clocks", "needs", "stats"]
    sets = [names[i : i + per_connection] for i in range(0, len(names), per_connection)]
    return [sets[i % len(sets)] for i in range(REAL_CONNECTIONS)]


async def real_channels(target: Target, end: float, report: Report) -> None:
    await _followers(target, end, report, real_channel_sets(target))


def alias_channel_sets(target: Target, connections: int = 200) -> list[list[str]]:
    """issue 32: 200 connections of 64 spellings of real tables each (`table:01`...)."""
    sets = []
    for n in range(connections):
        table = target.tables[n % len(target.tables)]
        sets.append([f"table:{'0' * zeros}{table}" for zeros in range(1, 65)])
    return sets


async def alias_channels(target: Target, end: float, report: Report) -> None:
    await _followers(target, end, report, alias_channel_sets(target))


async def _followers(
    target: Target, end: float, report: Report, channel_sets: list[list[str]]
) -> None:
    """A connection per set of channels, subscribed by message (the query would be long),
    reading everything the feed sends until `end`."""
    url = f"{target.ws_base}/ws/tournaments/{target.tid}?channels="

    async def follow(channels: list[str]) -> None:
        report.sent += 1
        try:
            async with connect(
                url, ssl=target.ssl_context(), ping_interval=None, open_timeout=20, max_queue=None
            ) as ws:
                await ws.send(
                    json.dumps({"type": "subscribe", "channels": dict.fromkeys(channels)})
                )
                while time.monotonic() < end:
                    try:
                        raw = await asyncio.wait_for(ws.recv(), max(0.1, end - time.monotonic()))
                    except TimeoutError:
                        break
                    report.notes[json.loads(raw).get("type", "?")] += 1
                report.answered(101)
        except ConnectionClosed as closed:
            report.answered(101)
            code = closed.rcvd.code if closed.rcvd is not None else 0
            report.notes[f"closed {code}"] += 1
        except Exception as error:  # refused at the handshake, a reset
            report.answered(0)
            report.notes[type(error).__name__] += 1

    await asyncio.gather(*(follow(channels) for channels in channel_sets))


SUBSCRIPTIONS = 50_000
SUBSCRIBE_BATCH = 64


async def subscribe_flood(target: Target, end: float, report: Report) -> None:
    """issue 14: one client subscribing 64 made-up channels a message, as fast as it can."""
    names = (f"player:X{uuid.uuid4().hex[:12]}" for _ in iter(int, 1))
    url = f"{target.ws_base}/ws/tournaments/{target.tid}?channels="
    attempted = 0
    while attempted < SUBSCRIPTIONS and time.monotonic() < end:
        report.sent += 1
        try:
            async with connect(
                url, ssl=target.ssl_context(), max_queue=None, ping_interval=None, open_timeout=10
            ) as ws:
                with contextlib.suppress(Exception):
                    while attempted < SUBSCRIPTIONS and time.monotonic() < end:
                        batch = {next(names): None for _ in range(SUBSCRIBE_BATCH)}
                        await ws.send(json.dumps({"type": "subscribe", "channels": batch}))
                        attempted += len(batch)
                report.answered(101)
                report.notes[f"closed {ws.close_code}"] += 1
        except Exception:
            report.answered(0)
            await asyncio.sleep(0.1)
    report.notes["subscriptions attempted"] = attempted


HOARD = 250


async def connections_held(target: Target, end: float, report: Report) -> None:
    """issue 14: connections following the standings and never reading, until refused."""
    held = []
    url = f"{target.ws_base}/ws/tournaments/{target.tid}?channels=standings"
    try:
        for _ in range(HOARD):
            if time.monotonic() >= end:
                break
            report.sent += 1
            try:
                ws = await connect(
                    url, ssl=target.ssl_context(), max_queue=1, ping_interval=None, open_timeout=10
                )
                await asyncio.wait_for(ws.recv(), 10)
                held.append(ws)
                report.answered(101)
            except ConnectionClosed as closed:
                report.answered(101)
                report.notes[f"closed {closed.rcvd.code if closed.rcvd else 0}"] += 1
            except Exception:
                report.answered(0)
        report.notes["held"] = len(held)
        while time.monotonic() < end:
            await asyncio.sleep(0.5)
    finally:
        for ws in held:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1.0)


BIG_BODY = 100_000_000


async def big_bodies(target: Target, end: float, report: Report) -> None:
    """issue 14: a 100 MB POST with no token, streamed until the server stops taking it."""
    chunk = b" " * (1024 * 1024)
    head = (
        f"POST /api/tournaments/{target.tid}/hands HTTP/1.1\r\nHost: {target.host}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {BIG_BODY}\r\n\r\n"
    ).encode()
    context = target.ssl_context()

    def once() -> None:
        with socket.create_connection((target.host, target.port), timeout=10) as raw:
            sock = context.wrap_socket(raw, server_hostname=target.host) if context else raw
            sock.sendall(head)
            sent = 0
            answer = b""
            try:
                while sent < BIG_BODY:
                    if select.select([sock], [], [], 0)[0]:
                        break  # the server answered already: stop sending
                    sock.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                pass
            with contextlib.suppress(OSError):
                answer = sock.recv(4096)
            report.answered(int(answer.split()[1]) if answer.startswith(b"HTTP/") else 0)
            report.notes["MiB written"] += sent // len(chunk)

    while time.monotonic() < end:
        report.sent += 1
        try:
            await asyncio.to_thread(once)
        except OSError:
            report.answered(0)
        await asyncio.sleep(0.5)


KINDS = {
    "search": search,
    "players upload": players_upload,
    "moments": moments,
    "GET flood": get_flood,
    "bad tokens": bad_tokens,
    "slow loris": slow_loris,
    "log downloads": log_downloads,
    "chunked uploads": chunked_uploads,
    "real channels": real_channels,
    "alias channels": alias_channels,
    "subscribe flood": subscribe_flood,
    "connections held": connections_held,
    "100 MB bodies": big_bodies,
}


# -- each kind in a process of its own -------------------------------------------------------


def _attack_main(
    kind: str, target: Target, seconds: float, cpus: set[int] | None, out: Any
) -> None:
    if cpus is not None:
        os.sched_setaffinity(0, cpus)  # another device on the hall's network
        # beside the judges' client: it must not take their CPU (on the day, another device)
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(10)
    report = Report(kind)
    end = time.monotonic() + seconds

    async def run() -> None:
        task = asyncio.create_task(KINDS[kind](target, end, report))
        await asyncio.wait({task}, timeout=seconds + 30)
        task.cancel()

    with contextlib.suppress(Exception):
        asyncio.run(run())
    out.put((report.kind, report.sent, dict(report.statuses), dict(report.notes)))


@dataclass
class Attacker:
    """The kinds asked for, each in a process of its own, for `seconds`."""

    processes: list[Any]
    out: Any

    @staticmethod
    def start(
        target: Target, kinds: tuple[str, ...], seconds: float, cpus: set[int] | None
    ) -> Attacker:
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        processes = [
            context.Process(target=_attack_main, args=(kind, target, seconds, cpus, out))
            for kind in kinds
        ]
        for process in processes:
            process.start()
        return Attacker(processes, out)

    def reports(self) -> list[Report]:
        got = []
        for _ in self.processes:
            try:
                kind, sent, statuses, notes = self.out.get(timeout=120)
            except Exception:
                continue
            got.append(Report(kind, sent, Counter(statuses), Counter(notes)))
        for process in self.processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
        return got
