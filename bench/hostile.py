"""The judges' load alone, then the same load beside a hostile client (issue 14).

    python -m bench.hostile

Starts `scoreboard serve` as a real process on SQLite (a temporary file) with round 1 of a
generated PLAYERS-player WSOM 2008 log and one token per table. The judges are asyncio tasks
in this process, as in bench/submit.py: hands sent at a fixed RATE a second round the
tables (open loop: a slow answer cannot hide the queue behind it) for RUN_SECONDS, each
timed from the request to its 201.

Run 1 is that load alone. Run 2 is the same load while a hostile client, a process of its
own, does at once what issue 14 saw:
- 50,000 websocket subscriptions attempted: connection after connection, each subscribing
  SUBSCRIBE_BATCH new channels a message until its messages are spent, and never reading;
- a 100 MB POST with no token, sent again and again, the body streamed as fast as the
  server takes it;
- 10,000 bad tokens a minute on the judges' hand route.
The hostile process runs at a lower CPU priority (nice 10): on the day it is another
machine, and on this one it must not take the server's CPU for itself, which would measure
the machine rather than the server.

It prints the judges' p50 and p99 of both runs side by side, their ratio, the server's peak
memory, and what the hostile client got (connections, subscriptions, 413s, 401s and 429s).
Target: the hostile run's p99 within 1.2 times the quiet run's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import select
import socket
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bench.load import HOST, RoundOne, Server, free_port, hands_url, import_log, issue_tokens
from bench.submit import Run, Tablets, machine

PLAYERS = 512  # 128 tables
SEED = 14
RATE = 5.0  # hands a second over all tables (2.5 times a real event's peak, bench/submit.py)
RUN_SECONDS = 25.0
WARM_UP_HANDS = 16
TARGET_RATIO = 1.2
SUBSCRIPTIONS = 50_000
SUBSCRIBE_BATCH = 64  # new channels per subscribe message, as seen
HOARD = 250  # connections tried, held open (the server takes 200 from one address)
BIG_BODY = 100_000_000
BAD_TOKENS_PER_MINUTE = 10_000
# Idle connections dropped well before uvicorn's keep-alive timeout (5 s), so a hand never
# goes out on a connection the server is closing (tests/integration/live_setup.py)
JUDGES_LIMITS = httpx.Limits(max_connections=64, keepalive_expiry=1.0)
HEAD_START = 5.0  # seconds the hostile client runs before the judges' load starts
ROUNDS = 2  # quiet, hostile, quiet, hostile: the machine's own ups and downs hit both alike


@dataclass
class Hostile:
    """What the hostile client did and what it got."""

    connections: int = 0  # accepted: the hello came
    connections_refused: int = 0  # closed with 4429 (too many from this address)
    subscriptions_attempted: int = 0
    subscriptions_followed: int = 0  # snapshots the server sent
    channel_errors: int = 0
    closes: dict[str, int] = field(default_factory=dict)
    big_bodies: int = 0
    big_answers: dict[int, int] = field(default_factory=dict)
    big_bytes_sent: int = 0
    bad_tokens: int = 0
    bad_answers: dict[int, int] = field(default_factory=dict)

    def plus(self, other: Hostile) -> Hostile:
        """Both runs' counts together."""
        summed: dict[str, Any] = {}
        for name, mine in self.__dict__.items():
            theirs = other.__dict__[name]
            if isinstance(mine, dict):
                summed[name] = {k: mine.get(k, 0) + theirs.get(k, 0) for k in {*mine, *theirs}}
            else:
                summed[name] = mine + theirs
        return Hostile(**summed)


# -- the hostile client (a process of its own) -------------------------------------------------


def hostile_main(base_url: str, port: int, tid: int, seconds: float, out: Any) -> None:
    os.nice(10)
    report = Hostile()
    with contextlib.suppress(Exception):
        asyncio.run(_hostile(base_url, port, tid, seconds, report))
    out.put(report.__dict__)


async def _hostile(base_url: str, port: int, tid: int, seconds: float, report: Hostile) -> None:
    end = time.monotonic() + seconds
    tasks = [
        asyncio.create_task(_subscribe_flood(port, tid, end, report)),
        asyncio.create_task(_hoard(port, tid, end, report)),
        asyncio.create_task(_big_bodies(port, tid, end, report)),
        asyncio.create_task(_bad_tokens(base_url, tid, end, report)),
    ]
    await asyncio.wait(tasks, timeout=seconds + 30)
    for task in tasks:
        task.cancel()


async def _subscribe_flood(port: int, tid: int, end: float, report: Hostile) -> None:
    """As seen: one client subscribing 64 new channels a message, as fast as it can, and
    connecting again whenever it is closed, until 50,000 subscriptions were attempted."""
    names = (f"player:X{uuid.uuid4().hex[:12]}" for _ in iter(int, 1))
    url = f"ws://{HOST}:{port}/ws/tournaments/{tid}?channels="
    while report.subscriptions_attempted < SUBSCRIPTIONS and time.monotonic() < end:
        try:
            async with connect(url, max_queue=None, ping_interval=None, open_timeout=10) as ws:
                reader = asyncio.create_task(_count_answers(ws, report))
                try:
                    while report.subscriptions_attempted < SUBSCRIPTIONS:
                        batch = {next(names): None for _ in range(SUBSCRIBE_BATCH)}
                        await ws.send(json.dumps({"type": "subscribe", "channels": batch}))
                        report.subscriptions_attempted += len(batch)
                except Exception:
                    pass
                await asyncio.wait({reader}, timeout=1.0)
                reader.cancel()
                key = f"{ws.close_code} {ws.close_reason}"[:40]
                report.closes[key] = report.closes.get(key, 0) + 1
        except Exception:
            report.closes["connect failed"] = report.closes.get("connect failed", 0) + 1
            await asyncio.sleep(0.1)


async def _count_answers(ws: Any, report: Hostile) -> None:
    with contextlib.suppress(Exception):
        async for raw in ws:
            kind = json.loads(raw)["type"]
            if kind == "snapshot":
                report.subscriptions_followed += 1
            elif kind == "error":
                report.channel_errors += 1


async def _hoard(port: int, tid: int, end: float, report: Hostile) -> None:
    """Connections opened until the server refuses them, each following the standings and
    never reading: a hall's worth of phones that are not phones."""
    held = []
    url = f"ws://{HOST}:{port}/ws/tournaments/{tid}?channels=standings"
    try:
        for _ in range(HOARD):
            if time.monotonic() >= end:
                break
            try:
                ws = await connect(url, max_queue=1, ping_interval=None, open_timeout=10)
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            except ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code == 4429:
                    report.connections_refused += 1
                continue
            except Exception:
                continue
            if first["type"] == "hello":
                held.append(ws)
                report.connections += 1
        while time.monotonic() < end:
            await asyncio.sleep(0.5)
    finally:
        for ws in held:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1.0)


async def _big_bodies(port: int, tid: int, end: float, report: Hostile) -> None:
    """A 100 MB POST with no token, its body streamed until the server stops taking it."""
    chunk = b" " * (1024 * 1024)
    head = (
        f"POST /api/tournaments/{tid}/hands HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {BIG_BODY}\r\n\r\n"
    ).encode()

    def once() -> None:
        with socket.create_connection((HOST, port), timeout=10) as sock:
            sock.sendall(head)
            sent = 0
            answer = b""
            try:
                while sent < BIG_BODY:
                    # the server may have answered already: stop sending then
                    if select.select([sock], [], [], 0)[0]:
                        break
                    sock.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                pass
            report.big_bytes_sent += sent
            with contextlib.suppress(OSError):
                answer = sock.recv(4096)
            status = int(answer.split()[1]) if answer.startswith(b"HTTP/") else 0
            report.big_answers[status] = report.big_answers.get(status, 0) + 1

    while time.monotonic() < end:
        report.big_bodies += 1
        await asyncio.to_thread(once)
        await asyncio.sleep(0.5)


async def _bad_tokens(base_url: str, tid: int, end: float, report: Hostile) -> None:
    interval = 60.0 / BAD_TOKENS_PER_MINUTE
    body = {"round": 1, "segment": 1, "table": 1, "hand": 1, "result": {"kind": "draw"}}
    url = hands_url(base_url, tid)
    async with httpx.AsyncClient(timeout=10, limits=httpx.Limits(max_connections=32)) as client:

        async def one(n: int) -> None:
            token = f"bad-{n}-{uuid.uuid4().hex}"
            headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "k"}
            try:
                response = await client.post(url, json=body, headers=headers)
                status = response.status_code
            except httpx.HTTPError:
                status = 0
            report.bad_answers[status] = report.bad_answers.get(status, 0) + 1

        start = time.monotonic()
        tasks = []
        n = 0
        while time.monotonic() < end:
            await asyncio.sleep(max(0.0, start + n * interval - time.monotonic()))
            report.bad_tokens += 1
            tasks.append(asyncio.create_task(one(n)))
            n += 1
        await asyncio.wait(tasks, timeout=10)


# -- the judges ---------------------------------------------------------------------------------


async def judges(tablets: Tablets, run: Run, seconds: float) -> None:
    interval = 1.0 / RATE
    tasks: list[asyncio.Task[bool]] = []
    start = time.perf_counter()
    for index in range(int(RATE * seconds)):
        await asyncio.sleep(max(0.0, start + index * interval - time.perf_counter()))
        table = tablets.tables[index % len(tablets.tables)]
        tasks.append(asyncio.create_task(tablets.send_next(table, run)))
    await asyncio.wait(tasks, timeout=60)
    run.elapsed += time.perf_counter() - start
    for task in tasks:
        if not task.done():  # never answered: counted, not left to a closed loop
            task.cancel()
            run.errors += 1


class PeakMemory:
    """The server's resident memory, sampled every 0.2 s in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        status = Path(f"/proc/{self.pid}/status")
        while not self.stop.wait(0.2):
            with contextlib.suppress(OSError, StopIteration):
                line = next(x for x in status.read_text().splitlines() if x.startswith("VmRSS:"))
                self.peak = max(self.peak, int(line.split()[1]) * 1024)

    def __enter__(self) -> PeakMemory:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()


def main() -> None:
    print(f"machine: {machine()}")
    print(
        f"{PLAYERS} players, {PLAYERS // 4} tables; judges {RATE:g} hands/s, {ROUNDS} rounds of "
        f"{RUN_SECONDS:g} s quiet and {RUN_SECONDS:g} s beside the hostile client, in turn; "
        f"hostile: {SUBSCRIPTIONS:,} subscriptions attempted, {BIG_BODY // 10**6} MB bodies, "
        f"{BAD_TOKENS_PER_MINUTE:,} bad tokens a minute",
        flush=True,
    )
    quiet, hostile = Run("sqlite", "quiet", open_loop=True), Run("sqlite", "hostile")
    peaks = {"quiet": 0, "hostile": 0}
    got = Hostile()
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as temp:
        folder = Path(temp)
        url = f"sqlite:///{folder / 'scoreboard.db'}"
        round_one = RoundOne.generate(players=PLAYERS, seed=SEED)
        tid = import_log(url, round_one.setup_lines, folder)
        tokens = issue_tokens(url, tid, round_one.tables)
        server = Server(url, free_port(), folder / "server.log")
        server.start(ready_within=120.0)  # a machine busy with other work starts slowly
        try:
            assert server.process is not None
            context = multiprocessing.get_context("spawn")
            tablets: Tablets | None = None

            async def judged(run: Run, warm_up: bool) -> int:
                nonlocal tablets
                async with httpx.AsyncClient(timeout=30, limits=JUDGES_LIMITS) as client:
                    url = hands_url(server.base_url, tid)
                    if tablets is None:
                        tablets = Tablets(client, url, tokens, round_one)
                    tablets.client = client
                    # asyncio's locks belong to the loop they were made in: one per run
                    tablets.locks = {table: asyncio.Lock() for table in tablets.tables}
                    if warm_up:
                        for table in tablets.tables[:WARM_UP_HANDS]:
                            await tablets.send_next(table, None)
                    assert server.process is not None
                    with PeakMemory(server.process.pid) as memory:
                        await judges(tablets, run, RUN_SECONDS)
                    return memory.peak

            for turn in range(ROUNDS):
                peaks["quiet"] = max(peaks["quiet"], asyncio.run(judged(quiet, turn == 0)))
                results: Any = context.Queue()
                attacker = context.Process(
                    target=hostile_main,
                    args=(server.base_url, server.port, tid, RUN_SECONDS + HEAD_START, results),
                )
                attacker.start()
                time.sleep(HEAD_START)
                peaks["hostile"] = max(peaks["hostile"], asyncio.run(judged(hostile, False)))
                got = got.plus(Hostile(**results.get(timeout=120)))
                attacker.join(timeout=30)
                time.sleep(2.0)  # the hostile connections go before the next quiet round
            alive = server.process.poll() is None
        finally:
            server.stop()
    print_report(quiet, peaks["quiet"], hostile, peaks["hostile"], got, alive)


def print_report(
    quiet: Run, quiet_peak: int, hostile: Run, hostile_peak: int, got: Hostile, alive: bool
) -> None:
    mib = 1024 * 1024
    ratio50 = hostile.percentile(0.5) / quiet.percentile(0.5)
    ratio99 = hostile.percentile(0.99) / quiet.percentile(0.99)
    print()
    header = (
        f"{'run':<10}{'hands':>7}{'errors':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'peak MiB':>10}"
    )
    print(header)
    print("-" * len(header))
    for run, peak in ((quiet, quiet_peak), (hostile, hostile_peak)):
        print(
            f"{run.mode:<10}{run.hands:>7}{run.errors:>8}{run.percentile(0.5):>9.1f}"
            f"{run.percentile(0.99):>9.1f}{max(run.latencies_ms, default=math.nan):>9.1f}"
            f"{peak / mib:>10.0f}"
        )
    print(f"{'ratio':<10}{'':>7}{'':>8}{ratio50:>8.2f}x{ratio99:>8.2f}x")
    met = ratio99 <= TARGET_RATIO and hostile.errors == 0 and alive
    print(
        f"target: hostile p99 within {TARGET_RATIO:g}x of the quiet p99, no judge refused: "
        f"{'met' if met else 'MISSED'}"
    )
    print()
    print("the hostile client got:")
    print(
        f"  websockets: {got.connections} connections kept, {got.connections_refused} refused "
        f"(4429); {got.subscriptions_attempted:,} subscriptions attempted, "
        f"{got.subscriptions_followed:,} followed, {got.channel_errors:,} error frames"
    )
    print(f"  closes: {got.closes}")
    print(
        f"  100 MB bodies: {got.big_bodies} sent, answers {got.big_answers}, "
        f"{got.big_bytes_sent / mib:,.0f} MiB written before the server closed"
    )
    print(f"  bad tokens: {got.bad_tokens:,} sent, answers {got.bad_answers}")
    print(f"  server still up: {alive}")


if __name__ == "__main__":
    sys.exit(main())
