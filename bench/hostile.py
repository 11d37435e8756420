"""The judges' hands quiet, then beside each hostile client and beside all of them at once,
on one process and on the lanes behind the proxy (issues 14 and 32).

    python -m bench.hostile                          # both set-ups, every kind, then all
    python -m bench.hostile --setups single --kinds "search,GET flood" --seconds 10
    python -m bench.hostile --no-alone               # only all the kinds at once
    python -m bench.hostile --setups lanes --judges-entry own  # the staff's own entry

The set-ups, each with round 1 of a generated PLAYERS-player WSOM 2008 log and a token per
table, on SQLite (a temporary file):
- single: one `scoreboard serve`, no proxy: the embedded default;
- lanes: Caddy with deploy/Caddyfile (HTTPS) in front of one `scoreboard serve --role judges`
  and one `--role public` (nice 10), Redis between them: the production set on one machine.
  With `--judges-entry own`, the staff's entry of their own (compose.yaml with
  SCOREBOARD_STAFF_URL): the judges' hands go through a second Caddy at the judges' priority,
  the attacks to the public's, at nice 10, which passes on none of the judges' lane but a
  player's check-in.

On a machine with two CPUs or more, every process of the set-up (the scoreboard's, Caddy)
is pinned to the first half of them, and the clients to the other half (sched_setaffinity):
what is measured is the server's work, not the clients'. The judges are asyncio tasks in
this process, sending RATE hands a second round the tables (open loop: a slow answer cannot
hide the queue behind it), each timed from the request to its 201. Each hostile kind is a
process of its own at SCHED_IDLE beside them (bench/attacks.py): it takes only the CPU the
judges' client leaves, as another device on the hall's network would.

For each kind (and then all of them together), a quiet run of SECONDS, then the same length
beside the attack (which starts HEAD_START seconds before the judges). Printed for each: the
judges' p50 and p99 quiet and attacked and their ratio, the set-up's peak memory (every
process's resident memory, summed) quiet and attacked, and the answers with a status of 500
or more, the judges' and the attackers'.

Targets (issue 32): behind the proxy with the lanes, the judges' p99 beside all the kinds at
once within 1.5x of quiet, and beside each alone within 1.2x; one process with no proxy,
all at once under 3x; peak memory attacked within 1.5x of quiet; no 5xx.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import astuple, dataclass, field
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from app.settings import Settings
from bench.attacks import KINDS, Attacker, Report, Target
from bench.load import RoundOne, Server, free_port, hands_url, import_log, issue_tokens
from bench.proxy import caddy, proxy_in_front_of
from bench.submit import Run, Tablets, machine

PLAYERS = 1024  # 256 tables
SEED = 32
RATE = 5.0  # hands a second over all tables (2.5 times a real event's peak, bench/submit.py)
SECONDS = 30.0  # each run: 150 hands at RATE
WARM_UP_HANDS = 16
HEAD_START = 5.0  # seconds the attack runs before the judges' run starts
SETTLE = 3.0  # seconds after an attack before the next quiet run: its connections go
# ... and after an attack that followed channels, until they are forgotten: a channel
# outlives its last client by SCOREBOARD_WS_RESUME_SECONDS (60), recomputed all along
SETTLE_CHANNELS = 65.0
FOLLOWING = {"real channels", "alias channels", "subscribe flood", "connections held"}
ALL = "all at once"
PUBLIC_NICE: int = Settings.model_fields["public_nice"].default  # a public process's
REDIS_URL = os.environ.get("SCOREBOARD_BENCH_REDIS_URL", "redis://127.0.0.1:6379/11")
LANE_TARGET = 1.5  # all at once, behind the proxy with the lanes
ALONE_TARGET = 1.2  # each kind alone, behind the proxy with the lanes
SINGLE_TARGET = 3.0  # all at once, one process
MEMORY_TARGET = 1.5
# Idle connections dropped well before the server's keep-alive timeout (5 s), so a hand
# never goes out on a connection the server is closing (tests/integration/live_setup.py)
JUDGES_LIMITS = httpx.Limits(max_connections=64, keepalive_expiry=1.0)


class PeakMemory:
    """The set-up's resident memory (its processes' summed), sampled every 0.2 s."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self.stop.wait(0.2):
            self.peak = max(self.peak, sum(resident(pid) for pid in self.pids))

    def __enter__(self) -> PeakMemory:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()


def resident(pid: int) -> int:
    with contextlib.suppress(OSError, StopIteration):
        status = Path(f"/proc/{pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024
    return 0


METRICS_TOKEN = uuid.uuid4().hex  # the judges' process's /metrics, read straight, no proxy


@dataclass(frozen=True)
class Inside:
    """What the judges' process itself saw of the hands (its /metrics, app/metrics.py): each
    accepted hand from its first byte in to its last out, and the database's and Redis's
    share. Beside the judges' own timings, it says whether a slow hand waited inside the
    process or outside it (the proxy, the network, the core)."""

    hands: float = 0.0
    hand_seconds: float = 0.0
    statements: float = 0.0
    statement_seconds: float = 0.0
    publishes: float = 0.0
    publish_seconds: float = 0.0

    @staticmethod
    def read(base_url: str) -> Inside:
        answer = httpx.get(
            f"{base_url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10
        )
        if answer.status_code != 200:  # a figure to explain the others, not worth a run
            print(f"      the judges' process's /metrics answered {answer.status_code}")
            return Inside()
        figures: dict[str, float] = {}
        for family in text_string_to_metric_families(answer.text):
            for sample in family.samples:
                key = sample.name
                if not _a_hand_or_its_share(key, sample.labels):
                    continue
                figures[key] = figures.get(key, 0.0) + sample.value
        return Inside(
            figures.get("scoreboard_request_seconds_count", 0.0),
            figures.get("scoreboard_request_seconds_sum", 0.0),
            figures.get("scoreboard_database_seconds_count", 0.0),
            figures.get("scoreboard_database_seconds_sum", 0.0),
            figures.get("scoreboard_redis_seconds_count", 0.0),
            figures.get("scoreboard_redis_seconds_sum", 0.0),
        )

    def since(self, earlier: Inside) -> Inside:
        return Inside(*(a - b for a, b in zip(astuple(self), astuple(earlier), strict=True)))

    def describe(self) -> str:
        if not self.hands:
            return "no hand"
        return (
            f"{1000 * self.hand_seconds / self.hands:.1f} ms a hand from its first byte in to "
            f"its last out; for each, the database {1000 * self.statement_seconds / self.hands:.1f}"
            f" ms ({self.statements / self.hands:.0f} statements) and Redis's publish "
            f"{1000 * self.publish_seconds / self.hands:.1f} ms"
        )


def _a_hand_or_its_share(name: str, labels: dict[str, str]) -> bool:
    """An accepted hand's request, a database statement, or a publish to Redis."""
    if name.startswith("scoreboard_request_seconds_"):
        hand = labels.get("route", "").endswith("/hands")
        return hand and labels.get("method") == "POST" and labels.get("status") == "201"
    if name.startswith("scoreboard_redis_seconds_"):
        return labels.get("command") == "publish"
    return name.startswith("scoreboard_database_seconds_")


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far, user and system, every thread's (proc(5): the 14th and
    15th fields of /proc/PID/stat, in clock ticks)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


@dataclass(frozen=True)
class Cores:
    server: set[int]
    clients: set[int] | None  # None: one CPU, everything shares it

    @staticmethod
    def choose() -> Cores:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            return Cores(set(cpus), None)
        half = len(cpus) // 2
        return Cores(set(cpus[:half]), set(cpus[half:]))

    def describe(self) -> str:
        if self.clients is None:
            return (
                f"one CPU: the set-up, the judges and the attacks share CPU {sorted(self.server)}"
            )
        return (
            f"the set-up pinned to CPUs {sorted(self.server)}; the judges and the attacks "
            f"(SCHED_IDLE) to CPUs {sorted(self.clients)}"
        )


@dataclass
class Pair:
    """One kind's quiet run and attacked run."""

    kind: str
    quiet: Run
    attacked: Run
    quiet_peak: int = 0
    attacked_peak: int = 0
    reports: list[Report] = field(default_factory=list)
    # each process's CPU seconds over the judges' run, quiet and attacked (SetUp.names)
    quiet_cpu: list[float] = field(default_factory=list)
    attacked_cpu: list[float] = field(default_factory=list)
    quiet_inside: Inside = field(default_factory=Inside)
    attacked_inside: Inside = field(default_factory=Inside)
    attacked_at: float | None = None  # time.monotonic() when the attack began
    began: float = 0.0  # time.time() then, to line the figures up with a server's own traces

    @property
    def ratio(self) -> float:
        return self.attacked.percentile(0.99) / self.quiet.percentile(0.99)

    @property
    def memory_ratio(self) -> float:
        return self.attacked_peak / self.quiet_peak if self.quiet_peak else math.nan

    @property
    def server_errors(self) -> int:
        return sum(r.server_errors for r in self.reports)


def errors_of(pair: Pair) -> int:
    """The answers of 500 or more (and the hands never answered), judges' and attackers'."""
    return pair.server_errors + pair.attacked.errors + pair.quiet.errors


def keep_logs(folder: Path, setup: str) -> None:
    """The set-up's logs (each process's and the proxy's), kept where the run's folder is
    removed: a 5xx seen once in several runs is explained by its logs or not at all."""
    kept = Path(tempfile.gettempdir()) / f"bench-hostile-{setup}-logs-{int(time.time())}"
    kept.mkdir(parents=True, exist_ok=True)
    for log in [*folder.glob("*.log"), *folder.glob("caddy/*.log")]:
        shutil.copy(log, kept / log.name)
    print(f"  answers of 500 or more: the set-up's logs are kept in {kept}", flush=True)


@dataclass
class SetUp:
    name: str
    base_url: str  # where the attacks go
    pids: list[int]
    ca_file: str | None
    target_all: float
    target_alone: float | None
    judges_url: str = ""  # where the judges' hands go: base_url unless set
    judges_ca_file: str | None = None
    names: tuple[str, ...] = ()  # of `pids`, in their order: where the CPU went
    judges_process: str = ""  # the judges' process's own address, for its /metrics

    def __post_init__(self) -> None:
        if not self.judges_url:
            self.judges_url, self.judges_ca_file = self.base_url, self.ca_file


@contextlib.contextmanager
def single(folder: Path, url: str, cores: Cores) -> Iterator[SetUp]:
    metrics = {"SCOREBOARD_METRICS_TOKEN": METRICS_TOKEN}
    server = Server(url, free_port(), folder / "single.log", environment=metrics)
    os.sched_setaffinity(0, cores.server)  # what this process starts inherits it
    try:
        server.start(ready_within=120.0)
    finally:
        os.sched_setaffinity(0, cores.clients or cores.server)
    try:
        assert server.process is not None
        yield SetUp(
            "single process",
            server.base_url,
            [server.process.pid],
            None,
            SINGLE_TARGET,
            None,
            names=("scoreboard",),
            judges_process=server.base_url,
        )
    finally:
        server.stop()


@contextlib.contextmanager
def lanes(folder: Path, url: str, cores: Cores, judges_entry: str = "proxy") -> Iterator[SetUp]:
    """The lanes behind the proxy. With `judges_entry` "own", the staff have an entry of
    their own, as compose.yaml runs it with SCOREBOARD_STAFF_URL (docs/security.md): the
    judges' hands go through a second proxy at the judges' priority, and the attacks to the
    public's, at the public's nice value, which passes on none of the judges' lane but a
    check-in."""
    own = judges_entry == "own"
    shared = {
        "SCOREBOARD_REDIS_URL": REDIS_URL,
        "SCOREBOARD_REDIS_CHANNEL": f"bench-hostile-{os.getpid()}",
    }
    judges = Server(
        url,
        free_port(),
        folder / "judges.log",
        ["--role", "judges"],
        {**shared, "SCOREBOARD_METRICS_TOKEN": METRICS_TOKEN},
    )
    public = Server(url, free_port(), folder / "public.log", ["--role", "public"], shared)
    os.sched_setaffinity(0, cores.server)
    try:
        judges.start(ready_within=120.0)
        public.start(ready_within=120.0)
        with contextlib.ExitStack() as proxies:
            proxy = proxies.enter_context(
                proxy_in_front_of([judges.port], folder / "caddy", [public.port])
            )
            staff = proxy
            if own:
                proxy = proxies.enter_context(
                    proxy_in_front_of(
                        [judges.port],
                        folder / "caddy-public",
                        [public.port],
                        nice=PUBLIC_NICE,
                        entry="public",
                        beside=staff,
                    )
                )
            os.sched_setaffinity(0, cores.clients or cores.server)
            assert judges.process is not None and public.process is not None
            # each process of the set-up with its name, for where the CPU went
            processes = {
                "judges": judges.process.pid,
                "public": public.process.pid,
                "staff's proxy" if own else "proxy": staff.process.pid,
            }
            if own:
                processes["public's proxy"] = proxy.process.pid
            yield SetUp(
                "lanes, the staff on an entry of their own" if own else "lanes behind the proxy",
                proxy.base_url,
                list(processes.values()),
                str(proxy.root),
                LANE_TARGET,
                ALONE_TARGET,
                judges_url=staff.base_url,
                judges_ca_file=str(staff.root),
                names=tuple(processes),
                judges_process=judges.base_url,
            )
    finally:
        os.sched_setaffinity(0, cores.clients or cores.server)
        public.stop()
        judges.stop()


async def judges_run(tablets: Tablets, run: Run, seconds: float) -> None:
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


def measure(
    setup: SetUp,
    round_one: RoundOne,
    tid: int,
    tokens: dict[int, str],
    kinds: list[str],
    cores: Cores,
    seconds: float,
    together: tuple[str, ...] = tuple(KINDS),
) -> list[Pair]:
    registered = [json.loads(line) for line in round_one.setup_lines]
    players = tuple(line["id"] for line in registered if line["type"] == "player")
    target = Target(setup.base_url, tid, players, tuple(round_one.tables), setup.ca_file)
    ca_file = setup.judges_ca_file
    verify = httpx.create_ssl_context(verify=ca_file) if ca_file else True
    tablets: Tablets | None = None

    async def judged(run: Run, warm_up: bool, cpu: list[float]) -> tuple[int, Inside]:
        nonlocal tablets
        async with httpx.AsyncClient(timeout=60, limits=JUDGES_LIMITS, verify=verify) as client:
            url = hands_url(setup.judges_url, tid)
            if tablets is None:
                tablets = Tablets(client, url, tokens, round_one)
            tablets.client = client
            tablets.locks = {table: asyncio.Lock() for table in tablets.tables}
            if warm_up:
                for table in tablets.tables[:WARM_UP_HANDS]:
                    await tablets.send_next(table, None)
            before = [cpu_seconds(pid) for pid in setup.pids]
            inside = Inside.read(setup.judges_process)
            with PeakMemory(setup.pids) as memory:
                await judges_run(tablets, run, seconds)
            after = [cpu_seconds(pid) for pid in setup.pids]
            cpu[:] = [b - a for a, b in zip(before, after, strict=True)]
            return memory.peak, Inside.read(setup.judges_process).since(inside)

    pairs = []
    for number, kind in enumerate(kinds):
        quiet, attacked = Run(setup.name, "quiet", open_loop=True), Run(setup.name, kind)
        pair = Pair(kind, quiet, attacked)
        pair.quiet_peak, pair.quiet_inside = asyncio.run(judged(quiet, number == 0, pair.quiet_cpu))
        chosen = together if kind == ALL else (kind,)
        pair.attacked_at, pair.began = time.monotonic(), time.time()
        attacker = Attacker.start(target, chosen, seconds + HEAD_START, cores.clients)
        time.sleep(HEAD_START)
        pair.attacked_peak, pair.attacked_inside = asyncio.run(
            judged(attacked, False, pair.attacked_cpu)
        )
        pair.reports = attacker.reports()
        pairs.append(pair)
        print_pair(pair, setup, flush=True)
        time.sleep(SETTLE_CHANNELS if kind in FOLLOWING else SETTLE)
    return pairs


def print_header(setup: SetUp) -> None:
    print()
    judges = "" if setup.judges_url == setup.base_url else f"; the judges: {setup.judges_url}"
    print(f"{setup.name} ({setup.base_url}{judges}):")
    header = (
        f"  {'attack':<18}{'quiet p50/p99 ms':>18}{'attacked p50/p99 ms':>21}{'p99 ratio':>11}"
        f"{'peak MiB quiet/attacked':>25}{'5xx':>5}  target"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))


def print_pair(pair: Pair, setup: SetUp, flush: bool = False) -> None:
    target = setup.target_all if pair.kind == ALL else setup.target_alone
    mib = 1024 * 1024
    errors = errors_of(pair)
    met = (
        (target is None or pair.ratio <= target)
        and pair.memory_ratio <= MEMORY_TARGET
        and errors == 0
    )
    verdict = f"{'met' if met else 'MISSED'} ({target:g}x)" if target is not None else "-"
    q, a = pair.quiet, pair.attacked
    print(
        f"  {pair.kind:<18}{q.percentile(0.5):>8.0f} / {q.percentile(0.99):>7.0f}"
        f"{a.percentile(0.5):>11.0f} / {a.percentile(0.99):>7.0f}{pair.ratio:>10.2f}x"
        f"{pair.quiet_peak / mib:>15.0f} / {pair.attacked_peak / mib:>7.0f}{errors:>5}  {verdict}",
        flush=flush,
    )
    if setup.names and pair.quiet_cpu and pair.attacked_cpu:
        spent = zip(setup.names, pair.quiet_cpu, pair.attacked_cpu, strict=True)
        shown = ", ".join(f"{name} {q:.1f} / {a:.1f}" for name, q, a in spent)
        print(f"      CPU s over the judges' run, quiet / attacked: {shown}", flush=flush)
    print(f"      the judges' process, quiet: {pair.quiet_inside.describe()}", flush=flush)
    print(f"      the judges' process, attacked: {pair.attacked_inside.describe()}", flush=flush)
    for report in pair.reports:
        print(f"      {report.kind}: {report.summary()}", flush=flush)
    if pair.attacked_at is not None:
        slowest = sorted(zip(a.latencies_ms, a.answered_at, strict=True), reverse=True)[:5]
        moments = [
            f"{ms:.0f} ms at {at - ms / 1000 - pair.attacked_at:.1f} s" for ms, at in slowest
        ]
        print(
            f"      slowest hands (s after the attack began at {pair.began:.3f}, epoch): "
            f"{', '.join(moments)}",
            flush=flush,
        )


def options(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.hostile")
    parser.add_argument("--setups", default="single,lanes", help="single, lanes or both (default)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"of: {', '.join(KINDS)}")
    parser.add_argument("--no-alone", action="store_true", help="only all the kinds at once")
    parser.add_argument(
        "--together", default=",".join(KINDS), help="the kinds of the 'all at once' run (all)"
    )
    parser.add_argument("--seconds", type=float, default=SECONDS, help="each run's length")
    parser.add_argument("--folder", default=None, help="for the SQLite file (/dev/shm: no disk)")
    parser.add_argument(
        "--judges-entry",
        choices=("proxy", "own"),
        default="proxy",
        help="lanes: the judges through the one proxy of every audience (default), or through "
        "the staff's entry of their own, beside the public's at the public's nice value",
    )
    chosen = parser.parse_args(argv)
    chosen.kinds = [k.strip() for k in chosen.kinds.split(",") if k.strip()]
    chosen.together = tuple(k.strip() for k in chosen.together.split(",") if k.strip())
    unknown = [k for k in (*chosen.kinds, *chosen.together) if k not in KINDS]
    if unknown:
        parser.error(f"--kinds, --together: unknown {unknown}; choose from {', '.join(KINDS)}")
    chosen.setups = [s.strip() for s in chosen.setups.split(",") if s.strip()]
    if not set(chosen.setups) <= {"single", "lanes"}:
        parser.error("--setups: single, lanes or both")
    if not 5 <= chosen.seconds <= 600:
        parser.error("--seconds: from 5 to 600")
    return chosen


def main() -> None:
    chosen = options(sys.argv[1:])
    cores = Cores.choose()
    runs = ([] if chosen.no_alone else chosen.kinds) + [ALL]
    print(f"machine: {machine()}")
    print(f"cores: {cores.describe()}")
    print(
        f"{PLAYERS} players, {PLAYERS // 4} tables; judges {RATE:g} hands/s; each run "
        f"{chosen.seconds:g} s quiet, then {chosen.seconds:g} s beside the attack; attacks: "
        f"{', '.join(runs)}",
        flush=True,
    )
    if "lanes" in chosen.setups and caddy() is None:
        print("lanes: skipped, no caddy on this machine (Debian's package `caddy`)")
        chosen.setups.remove("lanes")
    os.sched_setaffinity(0, cores.clients or cores.server)
    results: list[tuple[SetUp, list[Pair]]] = []
    round_one = RoundOne.generate(players=PLAYERS, seed=SEED)
    for name in chosen.setups:
        with tempfile.TemporaryDirectory(
            prefix=f"bench-hostile-{name}-", dir=chosen.folder
        ) as temp:
            folder = Path(temp)
            url = f"sqlite:///{folder / 'scoreboard.db'}"
            tid = import_log(url, round_one.setup_lines, folder)
            tokens = issue_tokens(url, tid, round_one.tables)
            entry = chosen.judges_entry
            starting = single if name == "single" else functools.partial(lanes, judges_entry=entry)
            with starting(folder, url, cores) as setup:
                print_header(setup)
                pairs = measure(
                    setup, round_one, tid, tokens, runs, cores, chosen.seconds, chosen.together
                )
            if any(errors_of(pair) for pair in pairs):
                keep_logs(folder, name)
            results.append((setup, pairs))
    print()
    print("summary (p99 ratio attacked / quiet; peak memory ratio; 5xx):")
    for setup, pairs in results:
        print_header(setup)
        for pair in pairs:
            print_pair(pair, setup)


if __name__ == "__main__":
    main()
