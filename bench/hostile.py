"""The judges' load alone, then the same load beside a hostile client (issue 14).

    python -m bench.hostile                  # the figures of the README
    python -m bench.hostile --share-cores    # the hostile client on the server's cores too
    python -m bench.hostile --judges-beside-server   # the judges on the server's cores
    python -m bench.hostile --costs-only     # only what each hostile request costs the server
    python -m bench.hostile --no-costs --kinds "bad tokens"   # the judges beside one kind

Starts `scoreboard serve` as a real process on SQLite (a temporary file) with round 1 of a
generated PLAYERS-player WSOM 2008 log and one token per table. The judges are asyncio tasks
in this process, as in bench/submit.py: hands sent at a fixed RATE a second round the
tables (open loop: a slow answer cannot hide the queue behind it) for RUN_SECONDS, each
timed from the request to its 201.

The hostile client is a process of its own, and does at once what issue 14 saw:
- 50,000 websocket subscriptions attempted: connection after connection, each subscribing
  SUBSCRIBE_BATCH new channels a message until its messages are spent, and never reading;
- HOARD connections opened and held, following the standings and never reading;
- a 100 MB POST with no token, sent again and again, the body streamed as fast as the
  server takes it;
- 10,000 bad tokens a minute on the judges' hand route.
On the day the server has its machine, and the tablets and the hostile client are other
devices on the hall's network. Here, on a machine with two CPUs or more, the server is pinned
to the first half of them and both clients to the other half (sched_setaffinity): what is
measured is the server's work on the attack, not the machine's. On the clients' half the
hostile client runs under SCHED_IDLE, so it takes only CPU the judges' client leaves (the
judges need little: RATE hands a second), and the judges' time is not the attacker's CPU.
With --judges-beside-server the judges run on the server's half instead (the placement of
the session before: the server's work after each answer then delays the judges' own read of
it). With --share-cores (or one CPU) all three share the CPUs, the hostile client at nice 10.
First, each kind of hostile request alone for COST_SECONDS, the server otherwise idle: the
server's CPU seconds (/proc/PID/stat, all its threads) less its idle CPU over the same time,
per request. Then, in turn, ROUNDS times: the judges' load alone (quiet), then beside the
whole hostile client. It prints the judges' p50 and p99 of both, their ratio against the
target, the server's peak memory and CPU seconds in each, what the hostile client got
(connections, subscriptions, 413s, 401s and 429s), and the cost of each kind of request.
Target: the hostile run's p99 within 1.2 times the quiet run's, no judge refused.
"""

from __future__ import annotations

import argparse
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
# quiet, hostile, quiet, hostile, ...: the machine's own ups and downs hit both alike. Four
# rounds give 500 hands a side, so the p99 is the fifth slowest: with two (250 hands, the third
# slowest) one stray hand moved the ratio by a tenth or more from run to run.
ROUNDS = 4
COST_SECONDS = 10.0  # each kind of hostile request alone, to measure what it costs the server


@dataclass
class Hostile:
    """What the hostile client did and what it got."""

    connections: int = 0  # accepted: the hello came
    connections_refused: int = 0  # closed with 4429 (too many from this address)
    flooding_connections: int = 0  # opened by the subscribe flood
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


@dataclass(frozen=True)
class Target:
    base_url: str
    port: int
    tid: int


def hostile_main(
    target: Target, seconds: float, out: Any, kinds: tuple[str, ...], cpus: set[int] | None
) -> None:
    if cpus is not None:
        os.sched_setaffinity(0, cpus)  # another machine on the hall's network
        # beside the judges' client: it must not take their CPU (on the day, another device)
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(10)  # on the server's own cores: it must not take their CPU first
    report = Hostile()
    with contextlib.suppress(Exception):
        asyncio.run(_hostile(target, seconds, report, kinds))
    out.put(report.__dict__)


async def _hostile(target: Target, seconds: float, report: Hostile, kinds: tuple[str, ...]) -> None:
    end = time.monotonic() + seconds
    tasks = [asyncio.create_task(ATTACKS[kind](target, end, report)) for kind in kinds]
    await asyncio.wait(tasks, timeout=seconds + 30)
    for task in tasks:
        task.cancel()


async def _subscribe_flood(target: Target, end: float, report: Hostile) -> None:
    """As seen: one client subscribing 64 new channels a message, as fast as it can, and
    connecting again whenever it is closed, until 50,000 subscriptions were attempted."""
    names = (f"player:X{uuid.uuid4().hex[:12]}" for _ in iter(int, 1))
    url = f"ws://{HOST}:{target.port}/ws/tournaments/{target.tid}?channels="
    flooded = report.subscriptions_attempted + SUBSCRIPTIONS
    while report.subscriptions_attempted < flooded and time.monotonic() < end:
        report.flooding_connections += 1
        try:
            async with connect(url, max_queue=None, ping_interval=None, open_timeout=10) as ws:
                reader = asyncio.create_task(_count_answers(ws, report))
                try:
                    while report.subscriptions_attempted < flooded:
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


async def _hoard(target: Target, end: float, report: Hostile) -> None:
    """Connections opened until the server refuses them, each following the standings and
    never reading: a hall's worth of phones that are not phones."""
    held = []
    url = f"ws://{HOST}:{target.port}/ws/tournaments/{target.tid}?channels=standings"
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


async def _big_bodies(target: Target, end: float, report: Hostile) -> None:
    """A 100 MB POST with no token, its body streamed until the server stops taking it."""
    chunk = b" " * (1024 * 1024)
    head = (
        f"POST /api/tournaments/{target.tid}/hands HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {BIG_BODY}\r\n\r\n"
    ).encode()

    def once() -> None:
        with socket.create_connection((HOST, target.port), timeout=10) as sock:
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


async def _bad_tokens(target: Target, end: float, report: Hostile) -> None:
    interval = 60.0 / BAD_TOKENS_PER_MINUTE
    body = {"round": 1, "segment": 1, "table": 1, "hand": 1, "result": {"kind": "draw"}}
    url = hands_url(target.base_url, target.tid)
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


SUBSCRIBE_FLOOD = "subscribe flood"
HOARD_KIND = "connections held"
BIG_BODIES = "100 MB bodies"
BAD_TOKENS = "bad tokens"
ATTACKS = {
    SUBSCRIBE_FLOOD: _subscribe_flood,
    HOARD_KIND: _hoard,
    BIG_BODIES: _big_bodies,
    BAD_TOKENS: _bad_tokens,
}


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


def server_cpu(pid: int) -> float:
    """CPU seconds the process has used so far, all its threads, user and system (proc(5):
    utime and stime, the 14th and 15th fields of /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Cost:
    """What one kind of hostile request cost the server, measured alone."""

    kind: str
    cpu: float  # seconds, above the idle server's own over the same time
    count: int
    unit: str

    @property
    def per_unit_ms(self) -> float:
        return 1000 * self.cpu / self.count if self.count else math.nan


def counted(kind: str, got: Hostile) -> tuple[int, str]:
    """How many requests of `kind` the hostile client made, and what one is."""
    if kind == SUBSCRIBE_FLOOD:
        return got.flooding_connections, "flooding connection"
    if kind == HOARD_KIND:
        return got.connections + got.connections_refused, "connection (kept or 4429)"
    if kind == BIG_BODIES:
        return got.big_bodies, "100 MB body (413)"
    refused = got.bad_answers.get(429, 0)
    return sum(got.bad_answers.values()), f"bad token ({refused:,} of them 429)"


@dataclass(frozen=True)
class Cores:
    """Where each side runs: the server on `server`, the judges' client on `judges`, the
    hostile client on `hostile` (None: on the server's cores too, at nice 10)."""

    server: set[int]
    judges: set[int]
    hostile: set[int] | None

    @staticmethod
    def choose(share: bool, judges_beside_server: bool) -> Cores:
        cpus = sorted(os.sched_getaffinity(0))
        if share or len(cpus) < 2:
            return Cores(set(cpus), set(cpus), None)
        half = len(cpus) // 2
        server, clients = set(cpus[:half]), set(cpus[half:])
        return Cores(server, server if judges_beside_server else clients, clients)

    def describe(self) -> str:
        if self.hostile is None:
            return (
                f"server, judges and hostile client share CPUs {sorted(self.server)} "
                "(the hostile client at nice 10)"
            )
        if self.judges == self.server:
            return (
                f"server and judges pinned to CPUs {sorted(self.server)}, hostile client to "
                f"CPUs {sorted(self.hostile)} (sched_setaffinity; on the day it is another "
                "machine)"
            )
        return (
            f"server pinned to CPUs {sorted(self.server)}, the judges and the hostile client "
            f"(SCHED_IDLE: it takes only CPU the judges leave) to CPUs {sorted(self.hostile)} "
            "(sched_setaffinity; on the day they are other devices)"
        )


@dataclass
class Attacker:
    """The hostile client, started: a process of its own that puts its report on `out`."""

    process: Any
    out: Any

    @staticmethod
    def start(target: Target, cores: Cores, seconds: float, kinds: tuple[str, ...]) -> Attacker:
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        args = (target, seconds, out, kinds, cores.hostile)
        attacker = Attacker(context.Process(target=hostile_main, args=args), out)
        attacker.process.start()
        return attacker

    def report(self) -> Hostile:
        got = Hostile(**self.out.get(timeout=120))
        self.process.join(timeout=30)
        return got


def costs(target: Target, pid: int, cores: Cores) -> list[Cost]:
    """Each kind of hostile request alone for COST_SECONDS, the server otherwise idle: the
    server's CPU seconds over the time, less what it spends idle (heartbeats), per request.
    Bad tokens run twice: the first minute's failures are checked by the app (401) before
    the address is over its limit; after that, each is a 429."""
    before = server_cpu(pid)
    time.sleep(COST_SECONDS)
    idle_per_second = (server_cpu(pid) - before) / COST_SECONDS
    measured = []
    for kind in (*ATTACKS, BAD_TOKENS):
        start, before = time.monotonic(), server_cpu(pid)
        got = Attacker.start(target, cores, COST_SECONDS, (kind,)).report()
        time.sleep(1.0)  # the connections it left are closed
        cpu = server_cpu(pid) - before - idle_per_second * (time.monotonic() - start)
        count, unit = counted(kind, got)
        measured.append(Cost(kind, max(0.0, cpu), count, unit))
    return measured


def options(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.hostile")
    parser.add_argument("--share-cores", action="store_true", help="the hostile client too")
    parser.add_argument(
        "--judges-beside-server",
        action="store_true",
        help="the judges' client on the server's cores (the hostile client keeps its own)",
    )
    parser.add_argument("--costs-only", action="store_true", help="only each request's cost")
    parser.add_argument("--no-costs", action="store_true", help="skip each request's cost")
    parser.add_argument(
        "--folder",
        default=None,
        help="where the server's SQLite file goes (default: the system's temporary folder); "
        "/dev/shm keeps the disk's stalls out of both runs",
    )
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"quiet and hostile runs each (default {ROUNDS})"
    )
    parser.add_argument(
        "--kinds",
        default=",".join(ATTACKS),
        help=f"the hostile requests beside the judges, comma-separated (of {', '.join(ATTACKS)})",
    )
    chosen = parser.parse_args(argv)
    kinds = tuple(kind.strip() for kind in chosen.kinds.split(",") if kind.strip())
    unknown = [kind for kind in kinds if kind not in ATTACKS]
    if unknown or not kinds:
        parser.error(f"--kinds: {unknown or 'none'}; choose from {', '.join(ATTACKS)}")
    chosen.kinds = kinds
    if not 1 <= chosen.rounds <= 20:
        parser.error("--rounds: from 1 to 20")
    return chosen


def main() -> None:
    chosen = options(sys.argv[1:])
    share, costs_only, kinds = chosen.share_cores, chosen.costs_only, chosen.kinds
    rounds = chosen.rounds
    cores = Cores.choose(share, chosen.judges_beside_server)
    print(f"machine: {machine()}")
    os.sched_setaffinity(0, cores.server)  # the server, started from here, inherits it
    print(f"cores: {cores.describe()}")
    print(
        f"{PLAYERS} players, {PLAYERS // 4} tables; judges {RATE:g} hands/s, {rounds} rounds of "
        f"{RUN_SECONDS:g} s quiet and {RUN_SECONDS:g} s beside the hostile client, in turn; "
        f"hostile: {SUBSCRIPTIONS:,} subscriptions attempted, {BIG_BODY // 10**6} MB bodies, "
        f"{BAD_TOKENS_PER_MINUTE:,} bad tokens a minute; beside the judges: {', '.join(kinds)}",
        flush=True,
    )
    quiet, hostile = Run("sqlite", "quiet", open_loop=True), Run("sqlite", "hostile")
    peaks = {"quiet": 0, "hostile": 0}
    cpu = {"quiet": 0.0, "hostile": 0.0}
    got = Hostile()
    attacked_at: list[float] = []  # time.monotonic() when each hostile client started
    with tempfile.TemporaryDirectory(prefix="bench-hostile-", dir=chosen.folder) as temp:
        folder = Path(temp)
        url = f"sqlite:///{folder / 'scoreboard.db'}"
        round_one = RoundOne.generate(players=PLAYERS, seed=SEED)
        tid = import_log(url, round_one.setup_lines, folder)
        tokens = issue_tokens(url, tid, round_one.tables)
        server = Server(url, free_port(), folder / "server.log")
        server.start(ready_within=120.0)  # a machine busy with other work starts slowly
        os.sched_setaffinity(0, cores.judges)  # the judges are asyncio tasks of this process
        try:
            assert server.process is not None
            pid = server.process.pid
            target = Target(server.base_url, server.port, tid)
            tablets: Tablets | None = None

            async def judged(run: Run, warm_up: bool) -> None:
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
                    before = server_cpu(pid)
                    with PeakMemory(pid) as memory:
                        await judges(tablets, run, RUN_SECONDS)
                    cpu[run.mode] += server_cpu(pid) - before
                    peaks[run.mode] = max(peaks[run.mode], memory.peak)

            measured = []
            if not chosen.no_costs:
                print("the cost of each kind of hostile request, alone...", flush=True)
                measured = costs(target, pid, cores)
            time.sleep(2.0)
            print("the judges, quiet and beside the hostile client...", flush=True)
            for turn in range(0 if costs_only else rounds):
                asyncio.run(judged(quiet, turn == 0))
                attacked_at.append(time.monotonic())
                attacker = Attacker.start(target, cores, RUN_SECONDS + HEAD_START, kinds)
                time.sleep(HEAD_START)
                asyncio.run(judged(hostile, False))
                got = got.plus(attacker.report())
                time.sleep(2.0)  # the hostile connections go before the next quiet round
            alive = server.process.poll() is None
        finally:
            server.stop()
    if not costs_only:
        print_report(quiet, hostile, peaks, cpu, got, alive, rounds)
        print_slowest(hostile, attacked_at)
    if measured:
        print_costs(measured)


def print_report(
    quiet: Run,
    hostile: Run,
    peaks: dict[str, int],
    cpu: dict[str, float],
    got: Hostile,
    alive: bool,
    rounds: int,
) -> None:
    mib = 1024 * 1024
    ratio50 = hostile.percentile(0.5) / quiet.percentile(0.5)
    ratio99 = hostile.percentile(0.99) / quiet.percentile(0.99)
    print()
    header = (
        f"{'run':<10}{'hands':>7}{'errors':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'peak MiB':>10}{'server CPU s':>14}"
    )
    print(header)
    print("-" * len(header))
    for run in (quiet, hostile):
        print(
            f"{run.mode:<10}{run.hands:>7}{run.errors:>8}{run.percentile(0.5):>9.1f}"
            f"{run.percentile(0.99):>9.1f}{max(run.latencies_ms, default=math.nan):>9.1f}"
            f"{peaks[run.mode] / mib:>10.0f}{cpu[run.mode]:>14.2f}"
        )
    print(f"{'ratio':<10}{'':>7}{'':>8}{ratio50:>8.2f}x{ratio99:>8.2f}x")
    met = ratio99 <= TARGET_RATIO and hostile.errors == 0 and alive
    print(
        f"target: hostile p99 within {TARGET_RATIO:g}x of the quiet p99, no judge refused: "
        f"{'met' if met else 'MISSED'} ({ratio99:.2f}x)"
    )
    print(
        f"the server spent {cpu['hostile'] - cpu['quiet']:.2f} CPU s more beside the hostile "
        f"client than quiet, over {rounds} x {RUN_SECONDS:g} s"
    )
    print()
    print("the hostile client got:")
    print(
        f"  websockets: {got.connections} connections kept, {got.connections_refused} refused "
        f"(4429); {got.subscriptions_attempted:,} subscriptions attempted over "
        f"{got.flooding_connections} connections, {got.subscriptions_followed:,} followed, "
        f"{got.channel_errors:,} error frames"
    )
    print(f"  closes: {got.closes}")
    print(
        f"  100 MB bodies: {got.big_bodies} sent, answers {got.big_answers}, "
        f"{got.big_bytes_sent / mib:,.0f} MiB written before the server closed"
    )
    print(f"  bad tokens: {got.bad_tokens:,} sent, answers {got.bad_answers}")
    print(f"  server still up: {alive}")


def print_slowest(hostile: Run, attacked_at: list[float], count: int = 5) -> None:
    """When the slowest hands beside the hostile client came, in seconds after it started:
    work the server does for all its connections at one moment (their keepalive pings, an
    interval after they opened; their drops) shows as slow hands at the same second."""
    slowest = sorted(zip(hostile.latencies_ms, hostile.answered_at, strict=True), reverse=True)
    moments = []
    for latency, answered in slowest[:count]:
        started = max((at for at in attacked_at if at <= answered), default=answered)
        moments.append(f"{latency:.1f} ms at {answered - started:.1f} s")
    print(f"  slowest hands beside it (s after the hostile client started): {', '.join(moments)}")


def print_costs(measured: list[Cost]) -> None:
    print()
    print(f"the server's CPU for each kind of hostile request, alone for {COST_SECONDS:g} s:")
    header = f"{'kind':<18}{'CPU s':>8}{'count':>8}{'ms each':>9}  each is a"
    print(header)
    print("-" * (len(header) + 30))
    for cost in measured:
        print(
            f"{cost.kind:<18}{cost.cpu:>8.2f}{cost.count:>8,}{cost.per_unit_ms:>9.3f}  {cost.unit}"
        )


if __name__ == "__main__":
    main()
