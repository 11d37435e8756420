"""Fan-out of the live feed (issue 5): from a judge's POST of a hand to the moment the last of
N websocket clients holds the new version, against the `websockets` library's own broadcast.

    python -m bench.fanout                      # the issue's run, about 10 minutes
    python -m bench.fanout --clients 200 --hands 20 --no-slow   # a quick look

Round 1 of a generated 1,024-player WSOM 2008 log, with the first PLAYED_BEFORE hands of
every table, is imported into a temporary SQLite file, with one token per table
(bench/load.py). For each run, `scoreboard serve` starts as a real process; the clients run
in a separate process (bench/fanout_clients.py, uvloop, websockets' sans-I/O protocol), each
subscribed to `standings` only. One client connects first and two hands warm the server up;
the server's RSS is read (/proc/PID/status), the other N - 1 clients connect, and it is read
again. Then the timed hands are posted one at a time, each at the next table in turn: a hand
is posted once the one before it has reached every client and at least INTERVAL after it,
so that each is its own update. A hand that does not move the standings (a draw, a result
of zero points) is posted, untimed, right after a delivery and FILLER_GAP before the next
timed hand. For each timed hand, latency = the moment the last client held its version (or
a later one) minus the moment its POST started; all processes stamp CLOCK_MONOTONIC. Server
CPU time (/proc/PID/stat utime + stime) over the hands is divided by the changes delivered
(active clients x timed hands). Every client checks that each change's `since` is the
version it held and its `version` greater; at the end each must hold the server's version
(GET /api/tournaments/{id}).

The comparison is a bare server made only of `websockets.asyncio.server.serve` and
`broadcast()`, on uvloop like uvicorn: a control websocket tells it to broadcast version k,
padded to the size our server's change for the k-th timed hand had; its latency runs from
the parent's send on the control socket to the last client's receipt, so it has no HTTP, no
database, no diff and no batching: it is the floor for this machine, these clients, these
message sizes.

The slow-consumer runs freeze 1% of the clients (they stop reading; their kernel receive
buffer is set small so that the server sees it within a few frames) and time the others.

The open-file limit is raised in this process before anything starts (children inherit it).
Every run, wait and loop is bounded; the network is 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import ssl
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any

import httpx

from bench.fanout_clients import CHANNEL, clock, raise_open_files, serve_clients
from bench.load import (
    HOST,
    Hand,
    RoundOne,
    Server,
    free_port,
    hand_headers,
    hands_url,
    import_log,
    issue_tokens,
)
from bench.proxy import proxy_in_front_of
from bench.submit import machine

PLAYERS = 1024  # 256 tables
SEED = 2008
CLIENTS = (1000, 5000)
HANDS = 100  # timed hands per run of up to 1,000 clients
HANDS_MANY = 60  # per run of more (each takes seconds at 5,000 clients)
INTERVAL = 0.3  # seconds between timed hands: each is its own update (FLUSH_INTERVAL 0.1 s)
WARM_UP_HANDS = 2
# Hands already played at every table when the runs begin: a round an hour in, when the
# standings have spread out. At the very start of a round nearly every player is tied at zero
# and each change carries every row and the whole tie report (about 210 KB for 1,024 players).
PLAYED_BEFORE = 4
FREEZE_EVERY = 100  # 1% of the clients in the slow-consumer runs
TARGET_P99_MS = {1000: 100.0, 5000: 500.0}
TARGET_RATIO = 2.0
TARGET_STORM = 2.0  # the reconnect storm against the bare server's (issue 16)
TARGET_MEMORY = 1.5  # memory per connection against the bare server's
BUDGET_SECONDS = 660.0  # the 5,000-client slow-consumer run is skipped if it would pass this
OPEN_FILES = 65536
CONNECT_CONCURRENCY = 64  # handshakes in flight at once
CONNECT_TIMEOUT = 120.0  # per client: its snapshot must come within this
DELIVERY_TIMEOUT = 30.0  # for every active client to hold a hand's version
PHASE_LIMIT = 180.0  # seconds of posting per run, whatever happens
FILLER_GAP = 0.15  # seconds from a hand that moves nothing to the next timed one (> FLUSH_INTERVAL)
SETTLE = 1.0  # seconds after connecting before RSS is read
THAW_SECONDS = 3.0
# The judges' load in the scale runs: 10 hands a second (a real event's peak is about 2), for
# 10 seconds, while every client follows each update
JUDGES_RATE = 10.0
JUDGES_SECONDS = 10.0
SCALE_CLIENTS = 1000
REDIS = "redis://127.0.0.1:6379/0"  # the backplane of the scale runs, on a channel of its own
STORM_AWAY = 1.0  # seconds with every client away, before and after the hand entered meanwhile
ASK_TIMEOUT = 600.0  # the most a command to the client process may take


# --- the processes ---------------------------------------------------------------------------


class ClientProcess:
    """The clients' process and the pipe that drives it."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.process = context.Process(target=serve_clients, args=(child, OPEN_FILES))
        self.process.start()
        child.close()

    def ask(self, command: str, argument: Any = None, timeout: float = ASK_TIMEOUT) -> Any:
        self.pipe.send((command, argument))
        if not self.pipe.poll(timeout):
            raise RuntimeError(f"the client process did not answer {command!r} in {timeout} s")
        return self.pipe.recv()

    def stop(self) -> None:
        try:
            if self.process.is_alive():
                self.ask("exit", timeout=30)
        except (RuntimeError, OSError, EOFError):
            pass
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=10)


def bare_frame(version: int, size: int) -> bytes:
    """A change like ours, with its first fields in the same order, padded to `size` bytes."""
    head = (
        f'{{"type":"change","channel":"{CHANNEL}","since":{version - 1},"version":{version},'
        f'"server_time":"{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}","data":"'
    )
    return (head + "x" * max(0, size - len(head) - 2) + '"}').encode()


async def _bare_server(pipe: Pipe) -> None:
    import asyncio

    from websockets.asyncio.server import ServerConnection, broadcast, serve

    feed: set[ServerConnection] = set()
    current = 0
    size = 0

    async def handler(connection: ServerConnection) -> None:
        nonlocal current, size
        if connection.request is not None and connection.request.path == "/control":
            async for message in connection:
                current, size = (int(part) for part in str(message).split())
                broadcast(feed, bare_frame(current, size))  # encoded once, like ours
            return
        # What a client that comes back after the last update needs: that update's bytes
        # (before any, a few bytes; ours sends the whole standings to a new client)
        snapshot = {"type": "snapshot", "channel": CHANNEL, "version": current, "data": ""}
        head = json.dumps(snapshot).encode()
        await connection.send(head[:-2] + b"x" * max(0, size - len(head)) + head[-2:])
        feed.add(connection)
        try:
            await connection.wait_closed()
        finally:
            feed.discard(connection)

    # The same settings as the app's: no per-message compression, pings every 20 s.
    async with serve(handler, HOST, 0, compression=None, max_size=None, backlog=2048) as server:
        pipe.send(server.sockets[0].getsockname()[1])
        await asyncio.get_running_loop().run_in_executor(None, pipe.recv)


def bare_server(pipe: Pipe, open_files: int) -> None:
    """The comparison server's process: serves until the parent sends anything."""
    raise_open_files(open_files)
    import asyncio

    try:
        import uvloop

        uvloop.run(_bare_server(pipe))
    except ImportError:  # pragma: no cover - uvicorn[standard] brings uvloop
        asyncio.run(_bare_server(pipe))


class BareServer:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.process = context.Process(target=bare_server, args=(child, OPEN_FILES))
        self.process.start()
        child.close()
        if not self.pipe.poll(30):
            raise RuntimeError("the bare websockets server did not start in 30 s")
        self.port: int = self.pipe.recv()

    @property
    def pid(self) -> int:
        assert self.process.pid is not None
        return self.process.pid

    def stop(self) -> None:
        if self.process.is_alive():
            self.pipe.send("stop")
            self.process.join(timeout=30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=10)


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def rss_kib(*pids: int) -> int:
    """The resident memory of the processes, added up."""
    return sum(_rss_kib(pid) for pid in pids)


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(*pids: int) -> float:
    """utime + stime of the processes (all their threads), added up."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


# --- what is posted ---------------------------------------------------------------------------


def moves_standings(hand: Hand) -> bool:
    result = hand["result"]
    if result["kind"] == "draw":
        return False
    if result["kind"] == "points":
        return any(result["deltas"].values())
    return bool(result.get("value"))


def played_lines(round_one: RoundOne) -> list[str]:
    """The log lines of the first PLAYED_BEFORE hands at every table."""
    return [
        json.dumps({"type": "hand", **hand, "id": f"played-t{table}-n{number}"})
        for table, hands in round_one.hands.items()
        for number, hand in enumerate(hands[:PLAYED_BEFORE])
    ]


def entered(response: httpx.Response) -> int:
    """The version a hand's answer names; a refusal stops the benchmark, saying why."""
    if response.status_code != 201:
        raise RuntimeError(f"hand refused: {response.status_code} {response.text[:300]}")
    return int(response.json()["version"])


class Poster:
    """The judges' tablets: each table's hands in order, one table after another."""

    def __init__(self, round_one: RoundOne, tokens: dict[int, str], played: int) -> None:
        self.waiting = {table: list(hands[played:]) for table, hands in round_one.hands.items()}
        self.tables = round_one.tables
        self.tokens = tokens
        self.turn = 0
        self.client: httpx.Client | None = None
        self.url = ""
        self.tournament_url = ""
        self.verify: ssl.SSLContext | bool = True

    def open(self, base_url: str, tournament_id: int, verify: ssl.SSLContext | bool = True) -> None:
        self.verify = verify
        self.client = httpx.Client(timeout=30.0, verify=verify)
        self.url = hands_url(base_url, tournament_id)
        self.tournament_url = f"{base_url}/api/tournaments/{tournament_id}"

    def version(self) -> int:
        """The server's version of the tournament, asked where the hands go."""
        assert self.client is not None
        return int(self.client.get(self.tournament_url).raise_for_status().json()["version"])

    def headers(self, hand: Hand) -> dict[str, str]:
        """Its table's token, and a key of its own: each hand is entered once."""
        return hand_headers(self.tokens[hand["table"]], f"fanout-{uuid.uuid4()}")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def post(self, hand: Hand) -> tuple[int, float, float]:
        """POST one hand: its version, when the POST started and how long it took."""
        assert self.client is not None
        started = clock()
        response = self.client.post(self.url, json=hand, headers=self.headers(hand))
        took = clock() - started
        return entered(response), started, took

    def fillers(self) -> list[Hand]:
        """Hands at the head of their table that would not move the standings."""
        return [
            hands[0] for hands in self.waiting.values() if hands and not moves_standings(hands[0])
        ]

    def post_fillers(self) -> int:
        posted = 0
        for hand in self.fillers():
            self.waiting[hand["table"]].pop(0)
            self.post(hand)
            posted += 1
        return posted

    def next_timed(self) -> Hand:
        for _ in range(len(self.tables)):
            table = self.tables[self.turn % len(self.tables)]
            self.turn += 1
            hands = self.waiting[table]
            if hands and moves_standings(hands[0]):
                return hands.pop(0)
        self.post_fillers()
        return self.next_timed()


# --- a run ----------------------------------------------------------------------------------


@dataclass
class Run:
    server: str  # "ours" or "bare"
    clients: int
    slow: bool = False  # 1% of the clients frozen
    frozen: int = 0
    hands: int = 0
    latencies_ms: list[float] = field(default_factory=list)  # last client, per hand
    first_ms: list[float] = field(default_factory=list)  # first client, per hand
    post_ms: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    missing: int = 0  # hand x client pairs never held
    batched: int = 0  # timed hands whose exact version was never sent (joined the next)
    gaps: int = 0
    disorder: int = 0
    not_final: int = 0
    lost_connections: int = 0
    resynced: int = 0
    problems: list[str] = field(default_factory=list)  # the first few
    problem_count: int = 0
    connect_seconds: float = 0.0
    connect_failed: int = 0
    memory_kib_per_connection: float = float("nan")
    cpu_us_per_message: float = float("nan")
    cpu_share: float = float("nan")  # server CPU seconds per second of the delivery phase
    client_cpu_share: float = float("nan")  # the same for the clients' process
    late: int = 0  # hands not at every client within DELIVERY_TIMEOUT
    frozen_outcome: dict[str, Any] = field(default_factory=dict)
    skipped: str = ""
    storm: dict[str, Any] = field(default_factory=dict)  # the reconnect storm, if run
    judges_ms: list[float] = field(default_factory=list)  # POSTs with the feed under load

    @property
    def name(self) -> str:
        slow = f", {self.frozen} frozen" if self.frozen else ""
        return f"{self.server} N={self.clients:,}{slow}"

    def percentile(self, share: float, values: list[float] | None = None) -> float:
        """Nearest rank: the smallest value that at least `share` of the values do not exceed."""
        ordered = sorted(self.latencies_ms if values is None else values)
        if not ordered:
            return float("nan")
        return ordered[max(0, math.ceil(share * len(ordered)) - 1)]

    @property
    def integrity_errors(self) -> int:
        return (
            self.missing
            + self.gaps
            + self.disorder
            + self.not_final
            + self.lost_connections
            + self.connect_failed
            + self.problem_count
            + self.late
        )


@dataclass
class Target:
    """What a run measures: a server process, where its feed is, and how to update it."""

    pids: list[int]  # the server's processes: their memory and CPU are added up
    port: int
    path: str
    # trigger(k) sends the k-th update (k < 0: a warm-up) -> (version, start, request seconds)
    trigger: Callable[[int], tuple[int, float, float]]
    final: Callable[[], int]  # the server's version, asked at the end
    between: Callable[[], int] = lambda: 0  # after an update: updates that move nothing
    resume_path: str = ""  # where a client reconnects in the storm ("": no storm)
    tls_root: str | None = None  # through the proxy: HTTPS, trusting its root
    # after the timed hands, judges entering hands while every client follows: each POST's ms
    judges: Callable[[], list[float]] | None = None


def measure(run: Run, target: Target, hands: int, interval: float, freeze_every: int) -> None:
    """Connect, warm up, read memory, send `hands` updates one at a time, check and time
    their delivery."""
    pids = target.pids
    clients = ClientProcess()
    try:
        spec = {
            "host": HOST,
            "port": target.port,
            "path": target.path,
            "concurrency": CONNECT_CONCURRENCY,
            "timeout": CONNECT_TIMEOUT,
            "tls_root": target.tls_root,
        }
        warm = clients.ask("connect", {**spec, "count": 1})
        if warm["connected"] != 1:
            raise RuntimeError(f"the first client could not connect: {warm}")
        version = 0
        for k in range(WARM_UP_HANDS):
            version = target.trigger(-1 - k)[0]
        clients.ask("wait", (version, DELIVERY_TIMEOUT))
        time.sleep(SETTLE)
        before = rss_kib(*pids)
        connected = clients.ask(
            "connect", {**spec, "count": run.clients - 1, "freeze_every": freeze_every}
        )
        run.connect_seconds = connected["seconds"]
        run.connect_failed = connected["failed"]
        print(
            f"  {run.clients - 1 - connected['failed']:,} more clients connected in "
            f"{connected['seconds']:.1f} s"
            + (
                f"; {connected['failed']} failed: {connected['why']}" if connected["failed"] else ""
            ),
            flush=True,
        )
        time.sleep(SETTLE)
        after = rss_kib(*pids)
        run.memory_kib_per_connection = (after - before) / max(1, connected["connected"])
        if freeze_every:
            run.frozen = clients.ask("freeze")

        versions: list[int] = []
        starts: list[float] = []
        client_pid = clients.process.pid
        assert client_pid is not None
        cpu_before, client_before = cpu_seconds(*pids), cpu_seconds(client_pid)
        phase_start = next_start = clock()
        for k in range(hands):
            if clock() - phase_start > PHASE_LIMIT:
                print(f"  stopped after {k} hands: the run passed {PHASE_LIMIT:g} s", flush=True)
                break
            time.sleep(max(0.0, next_start - clock()))
            version, started, took = target.trigger(k)
            versions.append(version)
            starts.append(started)
            run.post_ms.append(took * 1000)
            # One update at a time: the next waits for this one to reach every active client.
            waited = clients.ask("wait", (version, DELIVERY_TIMEOUT))
            run.late += waited["behind"] > 0
            next_start = started + interval
            # Hands that move nothing go in now, well before the next timed one, so that
            # they do not join its batch (FLUSH_INTERVAL).
            if k < hands - 1 and target.between():
                next_start = max(next_start, clock() + FILLER_GAP)
        cpu_after, client_after = cpu_seconds(*pids), cpu_seconds(client_pid)
        phase_end = clock()
        run.hands = len(versions)
        if target.judges is not None:
            run.judges_ms = target.judges()
        final = target.final()
        clients.ask("wait", (final, DELIVERY_TIMEOUT))
        report = clients.ask("report", (versions, final))
        run.client_cpu_share = (client_after - client_before) / max(1e-9, phase_end - phase_start)
        if freeze_every:
            run.frozen_outcome = clients.ask("thaw", (THAW_SECONDS, final))
        elif target.resume_path:
            run.storm = storm(clients, target, spec, hands)
        clients.ask("close", 5.0)
    finally:
        clients.stop()

    for started, row in zip(starts, report["per_version"], strict=True):
        run.missing += row["missing"]
        if row["last"] is not None:
            run.latencies_ms.append((row["last"] - started) * 1000)
            run.first_ms.append((row["first"] - started) * 1000)
        if not row["exact"]:
            run.batched += 1
        if row["size"] is not None:
            run.sizes.append(row["size"])
    for name in ("gaps", "disorder", "not_final", "lost_connections", "resynced"):
        setattr(run, name, report[name])
    run.problems = report["problems"]
    run.problem_count = report["problem_count"]
    delivered = report["active"] * run.hands
    run.cpu_us_per_message = (cpu_after - cpu_before) / max(1, delivered) * 1e6
    run.cpu_share = (cpu_after - cpu_before) / max(1e-9, phase_end - phase_start)


def storm(clients: ClientProcess, target: Target, spec: dict[str, Any], k: int) -> dict[str, Any]:
    """The hall's Wi-Fi drops and comes back: every client's connection is cut at once, a
    hand is entered meanwhile, and every client reconnects with the version it held, at
    most CONNECT_CONCURRENCY handshakes at once. Timed from the first reconnect to the
    moment the last client holds the hand's version."""
    before = rss_kib(*target.pids)
    dropped = clients.ask("drop")["dropped"]
    time.sleep(STORM_AWAY)
    version = target.trigger(k)[0]
    time.sleep(STORM_AWAY)
    away = rss_kib(*target.pids)
    resumed = clients.ask("resume", {**spec, "path": target.resume_path, "version": version})
    time.sleep(SETTLE)
    report = clients.ask("report", ([], version))
    outcome = {
        "dropped": dropped,
        "seconds": resumed["last_held"],
        "failed": resumed["failed"] + resumed["missing"],
        "why": resumed["why"],
        "snapshots": report["snapshots"],
        "gaps": report["gaps"] + report["disorder"] + report["not_final"],
        "rss_away_kib": away - before,
        "rss_back_kib": rss_kib(*target.pids) - before,
    }
    print(
        f"  storm: {dropped:,} dropped, back holding version {version} in "
        f"{outcome['seconds']:.2f} s; {outcome['snapshots']:,} snapshots sent, "
        f"{outcome['failed']} failed, {outcome['gaps']} gaps or behind; server memory "
        f"{outcome['rss_away_kib'] / 1024:+.1f} MiB while they were away, "
        f"{outcome['rss_back_kib'] / 1024:+.1f} MiB once back",
        flush=True,
    )
    return outcome


def feed_of(
    poster: Poster,
    tournament_id: int,
    pids: list[int],
    port: int,
    *,
    resume_path: str = "",
    tls_root: str | None = None,
    judges: Callable[[], list[float]] | None = None,
) -> Target:
    """Our live feed where `poster` enters the hands (opened on the same address): the
    standings followed, a timed hand per update, the hands that move nothing between."""
    return Target(
        pids,
        port,
        f"/ws/tournaments/{tournament_id}?channels={CHANNEL}",
        lambda _: poster.post(poster.next_timed()),
        poster.version,
        poster.post_fillers,
        resume_path=resume_path,
        tls_root=tls_root,
        judges=judges,
    )


def run_ours(
    url: str,
    folder: Path,
    tournament_id: int,
    poster: Poster,
    clients: int,
    hands: int,
    interval: float,
    freeze_every: int = 0,
) -> Run:
    run = Run("ours", clients, slow=freeze_every > 0)
    print(f"{run.name}{' (1% frozen)' if run.slow else ''}: scoreboard serve", flush=True)
    log = folder / f"server-{clients}-{freeze_every}.log"
    # Every client comes from 127.0.0.1 here; in the hall each phone has an address of its own.
    allowance = {"SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS": str(clients + 64)}
    with Server(url, free_port(), log, environment=allowance) as server:
        assert server.process is not None
        poster.open(server.base_url, tournament_id)
        try:
            target = feed_of(
                poster,
                tournament_id,
                [server.process.pid],
                server.port,
                # as live.js: no channel in the URL, each named with its version in a subscribe
                resume_path="" if freeze_every else f"/ws/tournaments/{tournament_id}?channels=",
            )
            measure(run, target, hands, interval, freeze_every)
        finally:
            poster.close()
    return run


def judges_under_load(poster: Poster, rate: float, seconds: float) -> list[float]:
    """The judges' tablets while every client follows: a hand every 1/rate s from the next
    table in turn, open loop (each sent on time whatever the answers before it), for
    `seconds`. Each POST's time, in ms."""

    async def enter(client: httpx.AsyncClient, hand: Hand) -> float:
        started = clock()
        entered(await client.post(poster.url, json=hand, headers=poster.headers(hand)))
        return (clock() - started) * 1000

    async def all_of_them() -> list[float]:
        async with httpx.AsyncClient(timeout=30.0, verify=poster.verify) as client:
            entered = []
            start = clock()
            for k in range(int(rate * seconds)):
                await asyncio.sleep(max(0.0, start + k / rate - clock()))
                entered.append(asyncio.create_task(enter(client, poster.next_timed())))
            return list(await asyncio.gather(*entered))

    return asyncio.run(all_of_them())


def run_behind_proxy(
    url: str,
    folder: Path,
    tournament_id: int,
    poster: Poster,
    clients: int,
    hands: int,
    interval: float,
    processes: int,
    redis_url: str,
) -> Run:
    """`processes` scoreboard processes sharing the feed through Redis, behind Caddy with
    deploy/Caddyfile (bench/proxy.py), the clients and the judges on its one HTTPS address."""
    run = Run(f"ours {processes}p+proxy", clients)
    print(f"{run.name}: {processes} x scoreboard serve behind caddy", flush=True)
    metrics_token = uuid.uuid4().hex
    settings = {
        "SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS": str(clients + 64),  # all from the proxy
        "SCOREBOARD_REDIS_URL": redis_url,
        "SCOREBOARD_REDIS_CHANNEL": f"bench-fanout-{uuid.uuid4()}",  # heard by no one else
        "SCOREBOARD_METRICS_TOKEN": metrics_token,
    }
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(
                Server(
                    url, free_port(), folder / f"process-{n}-{processes}.log", environment=settings
                )
            )
            for n in range(processes)  # one at a time: each migrates before it serves
        ]
        pids = [server.process.pid for server in servers if server.process is not None]
        proxy = stack.enter_context(
            proxy_in_front_of([server.port for server in servers], folder / f"proxy-{processes}")
        )
        poster.open(proxy.base_url, tournament_id, verify=proxy.tls())
        stack.callback(poster.close)
        target = feed_of(
            poster,
            tournament_id,
            pids,
            proxy.port,
            tls_root=str(proxy.root),
            judges=lambda: judged_and_scraped(poster, servers, metrics_token),
        )
        measure(run, target, hands, interval, 0)
    return run


def judged_and_scraped(poster: Poster, servers: list[Server], token: str) -> list[float]:
    """The judges' load, then what Prometheus would scrape from each process while every
    client still follows (README, "Figures to watch")."""
    judged = judges_under_load(poster, JUDGES_RATE, JUDGES_SECONDS)
    for n, server in enumerate(servers):
        answer = httpx.get(
            f"{server.base_url}/metrics", headers={"Authorization": f"Bearer {token}"}
        )
        print(f"  process {n} /metrics: {scraped(answer.raise_for_status().text)}", flush=True)
    return judged


def scraped(text: str) -> str:
    """A few of a scrape's figures, summed over their labels."""
    sums: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, _, value = line.rpartition(" ")
        series = name.split("{", 1)[0]
        if 'outcome="accepted"' in name:
            series += " accepted"
        if 'command="publish"' in name:
            series += " publish"
        sums[series] = sums.get(series, 0.0) + float(value)
    wanted = {
        "hands accepted": "scoreboard_hands_total accepted",
        "commits": "scoreboard_commits_total",
        "feed connections": "scoreboard_feed_connections",
        "updates": "scoreboard_feed_flush_seconds_count",
        "update s": "scoreboard_feed_flush_seconds_sum",
        "version lag": "scoreboard_feed_version_lag",
        "overflows": "scoreboard_feed_overflows_total",
        "Redis publishes": "scoreboard_redis_seconds_count publish",
    }
    return ", ".join(f"{label} {sums.get(series, 0):g}" for label, series in wanted.items())


def run_bare(clients: int, sizes: list[int], hands: int, interval: float) -> Run:
    from websockets.sync.client import connect

    run = Run("bare", clients)
    print(f"{run.name}: websockets serve + broadcast()", flush=True)
    size_of = sizes or [1000]
    server = BareServer()
    try:
        with connect(f"ws://{HOST}:{server.port}/control", compression=None) as control:
            sent = 0

            def trigger(k: int) -> tuple[int, float, float]:
                nonlocal sent
                sent += 1
                size = size_of[k % len(size_of)] if k >= 0 else statistics.median(size_of)
                started = clock()
                control.send(f"{sent} {int(size)}")
                return sent, started, clock() - started

            target = Target(
                [server.pid], server.port, "/feed", trigger, lambda: sent, resume_path="/feed"
            )
            measure(run, target, hands, interval, 0)
    finally:
        server.stop()
    return run


# --- the report ----------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def show(run: Run) -> None:
    if run.skipped:
        print(f"  skipped: {run.skipped}", flush=True)
        return
    print(
        f"  p50 {run.percentile(0.5):.1f} ms, p99 {run.percentile(0.99):.1f} ms, "
        f"max {max(run.latencies_ms, default=float('nan')):.1f} ms (last client); "
        f"first client p50 {run.percentile(0.5, run.first_ms):.1f} ms; "
        f"POST/trigger p50 {run.percentile(0.5, run.post_ms):.1f} ms; "
        f"{run.integrity_errors} integrity errors",
        flush=True,
    )
    sizes = sorted(run.sizes) or [0]
    print(
        f"  connect {run.connect_seconds:.1f} s; change sizes {sizes[0]:,}-{sizes[-1]:,} B "
        f"(median {statistics.median(sizes):,.0f}); gaps {run.gaps}, out of order "
        f"{run.disorder}, never held {run.missing}, not at the final version {run.not_final}, "
        f"connections lost {run.lost_connections}, late {run.late}, resynced {run.resynced}, "
        f"hands joined to the next update {run.batched}",
        flush=True,
    )
    if run.judges_ms:
        print(
            f"  judges with the feed under load: {len(run.judges_ms)} hands at "
            f"{JUDGES_RATE:g}/s, POST p50 {run.percentile(0.5, run.judges_ms):.1f} ms, "
            f"p99 {run.percentile(0.99, run.judges_ms):.1f} ms",
            flush=True,
        )
    for problem in run.problems[:3]:
        print(f"  problem: {problem}", flush=True)
    if run.frozen_outcome:
        print(f"  frozen clients after thawing: {run.frozen_outcome}", flush=True)


def print_table(runs: list[Run]) -> None:
    header = (
        f"{'run':<26}{'hands':>6}{'conn s':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'1st p50':>9}{'msg B':>8}{'MB/hand':>8}{'lost/ooo':>9}{'KiB/conn':>9}"
        f"{'CPU us/msg':>11}{'CPU%':>6}{'cli%':>6}"
    )
    print(header)
    print("-" * len(header))
    for run in runs:
        if run.skipped:
            print(f"{run.name:<26}  skipped: {run.skipped}")
            continue
        size = statistics.median(run.sizes) if run.sizes else float("nan")
        print(
            f"{run.name:<26}{run.hands:>6}{run.connect_seconds:>7.1f}{run.percentile(0.5):>9.1f}"
            f"{run.percentile(0.99):>9.1f}{max(run.latencies_ms, default=float('nan')):>9.1f}"
            f"{run.percentile(0.5, run.first_ms):>9.1f}{size:>8.0f}"
            f"{size * (run.clients - run.frozen) / 1e6:>8.1f}"
            f"{run.missing + run.gaps + run.not_final:>4}/{run.disorder:<4}"
            f"{run.memory_kib_per_connection:>9.1f}{run.cpu_us_per_message:>11.1f}"
            f"{run.cpu_share * 100:>6.0f}{run.client_cpu_share * 100:>6.0f}"
        )


def print_targets(runs: list[Run]) -> None:
    def find(server: str, clients: int, slow: bool) -> Run | None:
        for run in runs:
            if (run.server, run.clients, run.slow) == (server, clients, slow):
                return run
        return None

    print()
    print("targets (2-core machine):")
    for clients in sorted({run.clients for run in runs}):
        target = TARGET_P99_MS.get(clients)
        ours = find("ours", clients, False)
        bare = find("bare", clients, False)
        slow = find("ours", clients, True)
        if ours is not None and target is not None:
            p99 = ours.percentile(0.99)
            print(f"  N={clients:,}: p99 {p99:.1f} ms < {target:g} ms: {verdict(p99 < target)}")
        if ours is not None and bare is not None:
            ratio = ours.percentile(0.99) / bare.percentile(0.99)
            print(
                f"  N={clients:,}: p99 ours / bare broadcast = {ours.percentile(0.99):.1f} / "
                f"{bare.percentile(0.99):.1f} = {ratio:.2f}x <= {TARGET_RATIO:g}x: "
                f"{verdict(ratio <= TARGET_RATIO)}"
            )
        if slow is not None and target is not None:
            if slow.skipped:
                print(f"  N={clients:,}, 1% frozen: skipped ({slow.skipped})")
            else:
                p99 = slow.percentile(0.99)
                print(
                    f"  N={clients:,}, {slow.frozen} frozen: others' p99 {p99:.1f} ms < "
                    f"{target:g} ms: {verdict(p99 < target)}"
                )
        if ours is not None and bare is not None and ours.storm and bare.storm:
            took, floor = ours.storm["seconds"], bare.storm["seconds"]
            print(
                f"  N={clients:,} reconnect storm: ours / bare = {took:.2f} / {floor:.2f} s = "
                f"{took / floor:.2f}x <= {TARGET_STORM:g}x: {verdict(took <= TARGET_STORM * floor)}"
                f" ({ours.storm['snapshots']:,} snapshots sent to resuming clients, "
                f"{ours.storm['failed'] + ours.storm['gaps']} failed or behind)"
            )
            memory = ours.memory_kib_per_connection / bare.memory_kib_per_connection
            print(
                f"  N={clients:,} memory per connection: ours / bare = "
                f"{ours.memory_kib_per_connection:.1f} / {bare.memory_kib_per_connection:.1f} "
                f"KiB = {memory:.2f}x <= {TARGET_MEMORY:g}x: {verdict(memory <= TARGET_MEMORY)}"
            )
    scaled = {run.server: run for run in runs if run.server.endswith("p+proxy")}
    single = scaled.get("ours 1p+proxy")
    for run in sorted(scaled.values(), key=lambda each: each.server):
        against = (
            ""
            if single is None
            else f", {run.percentile(0.99) / single.percentile(0.99):.2f}x the single process"
        )
        print(
            f"  {run.name}: p99 POST to last client {run.percentile(0.99):.1f} ms{against}; "
            "judges' POST p99 with the feed under load "
            f"{run.percentile(0.99, run.judges_ms):.1f} ms"
        )
    ours_runs = [run for run in runs if run.server.startswith("ours") and not run.skipped]
    errors = sum(run.integrity_errors for run in ours_runs)
    print(
        f"  zero lost or out-of-order versions over {len(ours_runs)} runs of ours "
        f"({errors} errors): {verdict(errors == 0)}"
    )


def hands_for(clients: int, override: int | None) -> int:
    if override is not None:
        return override
    return HANDS if clients <= 1000 else HANDS_MANY


LEGEND = """\
latency: from the POST's start (ours) or the control message (bare) to the moment the last
  client held the version; 1st p50: the same for the first client. With hands at least
  INTERVAL apart the feed flushes at once (its last flush was over FLUSH_INTERVAL = 0.1 s
  before), so these figures hold no batching wait; a burst of hands within 0.1 s would add
  up to 100 ms. One hand is delivered before the next is posted.
msg B: median size of the standings change (bare: the same sizes, hand for hand); MB/hand:
  that times the clients that read.
conn s: seconds to connect the N - 1 clients after the first (each waits for its snapshot).
lost/ooo: hand x client pairs never held, gaps in `since`, clients not at the server's last
  version / changes out of order.
KiB/conn: server RSS growth while the clients connected, per client. CPU us/msg: server
  CPU (user + system) over the hands / (active clients x hands). CPU%, cli%: CPU of the
  server and of the clients' process over the hands, in share of one core."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default=",".join(str(c) for c in CLIENTS))
    parser.add_argument("--hands", type=int, default=None, help="timed hands in every run")
    parser.add_argument("--interval", type=float, default=INTERVAL)
    parser.add_argument("--budget", type=float, default=BUDGET_SECONDS)
    parser.add_argument("--no-slow", action="store_true", help="skip the slow-consumer runs")
    parser.add_argument(
        "--processes",
        default="",
        help="also run with these numbers of processes behind caddy, e.g. 1,2 (needs Redis)",
    )
    parser.add_argument("--scale-clients", type=int, default=SCALE_CLIENTS)
    parser.add_argument("--redis", default=os.environ.get("SCOREBOARD_TEST_REDIS_URL", REDIS))
    options = parser.parse_args(argv)
    sizes = [int(c) for c in options.clients.split(",") if c]
    processes = [int(p) for p in options.processes.split(",") if p]

    began = time.monotonic()
    soft, hard = raise_open_files(OPEN_FILES)
    print(f"machine: {machine()}; load average {load_average()}")
    print(f"open files: soft {soft}, hard {hard} (inherited by the server and client processes)")
    print(
        f"{PLAYERS} players, {PLAYED_BEFORE} hands played at every table; clients on "
        f"`{CHANNEL}`: "
        + ", ".join(f"{n:,} ({hands_for(n, options.hands)} hands)" for n in sizes)
        + f"; a hand every {options.interval * 1000:.0f} ms at most",
        flush=True,
    )
    most = max([*sizes, options.scale_clients if processes else 0])
    if soft < most + 256:
        print(f"warning: {soft} open files may not be enough for {most:,} clients")

    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="bench-fanout-") as temp:
        folder = Path(temp)
        url = f"sqlite:///{folder / 'scoreboard.db'}"
        round_one = RoundOne.generate(players=PLAYERS, seed=SEED)
        tournament_id = import_log(url, [*round_one.setup_lines, *played_lines(round_one)], folder)
        tokens = issue_tokens(url, tournament_id, round_one.tables)
        poster = Poster(round_one, tokens, PLAYED_BEFORE)
        durations: dict[int, float] = {}
        for clients in sizes:
            hands = hands_for(clients, options.hands)
            started = time.monotonic()
            ours = run_ours(url, folder, tournament_id, poster, clients, hands, options.interval)
            durations[clients] = time.monotonic() - started
            show(ours)
            bare = run_bare(clients, ours.sizes, hands, options.interval)
            show(bare)
            runs += [ours, bare]
        for clients in [] if options.no_slow else sizes:
            spent = time.monotonic() - began
            if clients != sizes[0] and spent + durations[clients] > options.budget:
                skipped = Run("ours", clients, slow=True, frozen=clients // FREEZE_EVERY)
                skipped.skipped = (
                    f"{spent:.0f} s spent and it takes about {durations[clients]:.0f} s: "
                    f"over the {options.budget:.0f} s budget"
                )
                print(f"{skipped.name}: skipped, {skipped.skipped}", flush=True)
                runs.append(skipped)
                continue
            hands = hands_for(clients, options.hands)
            slow = run_ours(
                url, folder, tournament_id, poster, clients, hands, options.interval, FREEZE_EVERY
            )
            show(slow)
            runs.append(slow)
        for count in processes:
            hands = hands_for(options.scale_clients, options.hands)
            scaled = run_behind_proxy(
                url, folder, tournament_id, poster, options.scale_clients, hands,
                options.interval, count, options.redis,
            )  # fmt: skip
            show(scaled)
            runs.append(scaled)

    print()
    print(f"machine: {machine()}; load average {load_average()} (other processes share it)")
    print(LEGEND)
    print()
    print_table(runs)
    print_targets(runs)
    print(f"\nwhole benchmark: {time.monotonic() - began:.0f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
