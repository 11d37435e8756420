"""Hand submission under load: the judges' API of a 1,024-player round (256 tables).

    python -m bench.submit

Starts `scoreboard serve` as a real process, first on SQLite (a temporary file), then on
PostgreSQL (SCOREBOARD_BENCH_POSTGRES_URL, default postgresql://root@127.0.0.1:5432/test) in
a schema of its own, `bench_submit`, dropped and made again: the integration suite resets
`public` of the same database, and would pull the tables from under a run that used it.
Each gets round 1 of a generated 1,024-player WSOM 2008 log (registrations, draw, seatings)
and one token per table; the clients are asyncio tasks in this process, one per table, and
each request is timed with time.perf_counter:

- open loop: hands sent at a fixed 20 per second overall, round the 256 tables, for 30 s,
  whatever the answers do (the issue's target: p99 under 50 ms at 20 hands/s, ten times a
  real event's peak);
- closed loop: 256 tablets, each sending its next hand as soon as the last one is answered,
  for 15 s: the most the server takes.

Every table sends its own hands in order, each once, with a new Idempotency-Key. A few hands
are sent first to warm up (the first request replays the log into the server's cache); they
are not counted.
"""

from __future__ import annotations

import asyncio
import math
import os
import platform
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import sqlalchemy
import sqlalchemy.exc

from bench.load import (
    Hand,
    RoundOne,
    Server,
    free_port,
    hand_headers,
    hands_url,
    import_log,
    in_own_schema,
    issue_tokens,
)

PLAYERS = 1024  # 256 tables
SEED = 2008
TARGET_RATE = 20.0  # hands per second, over all tables
TARGET_P99_MS = 50.0
OPEN_SECONDS = 30.0
CLOSED_SECONDS = 15.0
SUBMITTERS = 256
WARM_UP_HANDS = 16
REQUEST_TIMEOUT = 30.0
DRAIN_SECONDS = 60.0  # the most a run waits for its last answers
POSTGRES_URL = os.environ.get(
    "SCOREBOARD_BENCH_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test"
)
POSTGRES_SCHEMA = "bench_submit"
ERRORS_SHOWN = 5  # per run: the first refusals say why; the rest are only counted


@dataclass
class Run:
    database: str
    mode: str
    latencies_ms: list[float] = field(default_factory=list)  # answered 201
    answered_at: list[float] = field(default_factory=list)  # time.monotonic() of each answer
    errors: int = 0
    elapsed: float = 0.0
    open_loop: bool = False

    @property
    def hands(self) -> int:
        return len(self.latencies_ms)

    @property
    def throughput(self) -> float:
        return self.hands / self.elapsed if self.elapsed > 0 else 0.0

    def percentile(self, share: float) -> float:
        """Nearest rank: the smallest latency at least `share` of the hands did not exceed."""
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return float("nan")
        return ordered[max(0, math.ceil(share * len(ordered)) - 1)]

    @property
    def verdict(self) -> str:
        if not self.open_loop:
            return "-"
        meets = (
            self.errors == 0
            and self.throughput >= 0.95 * TARGET_RATE
            and self.percentile(0.99) < TARGET_P99_MS
        )
        return "meets" if meets else "MISSES"


class Tablets:
    """The 256 tables' tablets: each sends its table's hands in order, one at a time."""

    def __init__(
        self, client: httpx.AsyncClient, url: str, tokens: dict[int, str], round_one: RoundOne
    ) -> None:
        self.client = client
        self.url = url
        self.tokens = tokens
        self.waiting = {table: list(hands) for table, hands in round_one.hands.items()}
        self.locks = {table: asyncio.Lock() for table in round_one.hands}
        self.tables = round_one.tables
        self.failed: set[int] = set()  # a refused hand: the table's later hands are out of order

    async def send_next(self, table: int, run: Run | None) -> bool:
        """The table's next hand; False when it has none left or a hand was refused."""
        async with self.locks[table]:
            if table in self.failed or not self.waiting[table]:
                return False
            body = self.waiting[table].pop(0)
            ok, elapsed_ms, why = await self._post(table, body)
            if not ok:
                self.failed.add(table)
                if run is None or run.errors < ERRORS_SHOWN:
                    print(f"  table {table} hand {body['hand']}: {why}", file=sys.stderr)
            if run is not None:
                if ok:
                    run.latencies_ms.append(elapsed_ms)
                    run.answered_at.append(time.monotonic())
                else:
                    run.errors += 1
            return ok

    async def _post(self, table: int, body: Hand) -> tuple[bool, float, str]:
        headers = hand_headers(self.tokens[table], f"bench-{uuid.uuid4()}")
        start = time.perf_counter()
        try:
            response = await self.client.post(self.url, json=body, headers=headers)
        except httpx.HTTPError as error:
            return False, (time.perf_counter() - start) * 1000, type(error).__name__
        elapsed_ms = (time.perf_counter() - start) * 1000
        if response.status_code != 201:
            return False, elapsed_ms, f"{response.status_code} {response.text[:200]}"
        return True, elapsed_ms, ""


async def open_loop(tablets: Tablets, run: Run) -> None:
    """Send at fixed times whatever the answers do, so a slow answer cannot hide the queue
    behind it (no coordinated omission)."""
    interval = 1.0 / TARGET_RATE
    sends = int(TARGET_RATE * OPEN_SECONDS)
    tasks: list[asyncio.Task[bool]] = []
    start = time.perf_counter()
    for index in range(sends):
        await asyncio.sleep(max(0.0, start + index * interval - time.perf_counter()))
        table = tablets.tables[index % len(tablets.tables)]
        tasks.append(asyncio.create_task(tablets.send_next(table, run)))
    await asyncio.wait(tasks, timeout=DRAIN_SECONDS)
    run.elapsed = time.perf_counter() - start
    _count_unfinished(tasks, run)


async def closed_loop(tablets: Tablets, run: Run) -> None:
    end = time.perf_counter() + CLOSED_SECONDS

    async def tablet(table: int) -> bool:
        while time.perf_counter() < end:
            if not await tablets.send_next(table, run):
                return False
        return True

    start = time.perf_counter()
    tasks = [asyncio.create_task(tablet(table)) for table in tablets.tables[:SUBMITTERS]]
    await asyncio.wait(tasks, timeout=CLOSED_SECONDS + DRAIN_SECONDS)
    run.elapsed = time.perf_counter() - start
    _count_unfinished(tasks, run)


def _count_unfinished(tasks: list[asyncio.Task[bool]], run: Run) -> None:
    for task in tasks:
        if not task.done():
            task.cancel()
            run.errors += 1


async def measure(
    database: str, base_url: str, tournament_id: int, tokens: dict[int, str], round_one: RoundOne
) -> list[Run]:
    limits = httpx.Limits(max_connections=SUBMITTERS + 16, max_keepalive_connections=SUBMITTERS)
    async with httpx.AsyncClient(limits=limits, timeout=REQUEST_TIMEOUT) as client:
        tablets = Tablets(client, hands_url(base_url, tournament_id), tokens, round_one)
        for table in tablets.tables[:WARM_UP_HANDS]:
            await tablets.send_next(table, None)
        opened = Run(database, f"open {TARGET_RATE:g}/s, {OPEN_SECONDS:g} s", open_loop=True)
        await open_loop(tablets, opened)
        closed = Run(database, f"closed {SUBMITTERS}, {CLOSED_SECONDS:g} s")
        await closed_loop(tablets, closed)
    return [opened, closed]


def bench_database(database: str, url: str, folder: Path) -> list[Run]:
    round_one = RoundOne.generate(players=PLAYERS, seed=SEED)
    started = time.perf_counter()
    tournament_id = import_log(url, round_one.setup_lines, folder)
    tokens = issue_tokens(url, tournament_id, round_one.tables)
    print(
        f"{database}: tournament {tournament_id}, {len(round_one.tables)} tables, "
        f"{sum(len(h) for h in round_one.hands.values())} hands ready "
        f"(set up in {time.perf_counter() - started:.1f} s)",
        flush=True,
    )
    with Server(url, free_port(), folder / f"server-{database}.log") as server:
        return asyncio.run(measure(database, server.base_url, tournament_id, tokens, round_one))


def postgres_in_own_schema() -> tuple[str | None, str]:
    """The benchmark's PostgreSQL URL, or None and why it is unreachable."""
    try:
        return in_own_schema(POSTGRES_URL, POSTGRES_SCHEMA), ""
    except sqlalchemy.exc.OperationalError as error:
        return None, str(error.orig).strip().splitlines()[0]


def machine() -> str:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"nproc {cpus}; {model or platform.processor()}; {platform.system()} "
        f"{platform.release()}; Python {platform.python_version()}"
    )


def print_table(runs: list[Run]) -> None:
    header = (
        f"{'database':<11}{'mode':<20}{'hands':>7}{'hands/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'max ms':>9}{'errors':>8}  target (p99 < {TARGET_P99_MS:g} ms at {TARGET_RATE:g}/s)"
    )
    print(header)
    print("-" * len(header))
    for run in runs:
        print(
            f"{run.database:<11}{run.mode:<20}{run.hands:>7}{run.throughput:>9.1f}"
            f"{run.percentile(0.5):>9.1f}{run.percentile(0.99):>9.1f}"
            f"{max(run.latencies_ms, default=float('nan')):>9.1f}{run.errors:>8}  {run.verdict}"
        )


def main() -> None:
    print(f"machine: {machine()}")
    print(
        f"{PLAYERS} players, {PLAYERS // 4} tables; open loop {TARGET_RATE:g} hands/s for "
        f"{OPEN_SECONDS:g} s, closed loop {SUBMITTERS} submitters for {CLOSED_SECONDS:g} s",
        flush=True,
    )
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="bench-submit-") as temp:
        folder = Path(temp)
        runs += bench_database("sqlite", f"sqlite:///{folder / 'scoreboard.db'}", folder)
        postgres_url, unreachable = postgres_in_own_schema()
        if postgres_url is not None:
            runs += bench_database("postgresql", postgres_url, folder)
        else:
            print(f"postgresql: skipped, {POSTGRES_URL} is unreachable: {unreachable}")
    print()
    print_table(runs)


if __name__ == "__main__":
    main()
