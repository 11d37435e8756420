"""The live feed beyond one process: the Redis backplane (issue 5).

With SCOREBOARD_REDIS_URL set, every committed change is announced on Redis pub/sub, so
several `scoreboard serve` processes on one database serve the same feed: a hand posted to
one reaches the clients of the others. Redis pub/sub loses what is published while a
subscriber is away; a process that missed announcements notices from the version it reads
back from the database and resynchronizes from there.

These tests need a Redis: SCOREBOARD_TEST_REDIS_URL (database 5 of it is used). Without it
they skip, saying why; `.ci/run` sets SCOREBOARD_REQUIRE_REDIS=1, which makes that a failure.
The Redis restart and the 10-second outage run on a redis-server of their own, never the
machine's. A single process without Redis is what tests/integration/test_live_feed.py runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from in_process import IN_PROCESS_TIMEOUTS

from app.db.engine import make_engine, migrate
from app.realtime.backplane import RECONNECT_MAX, RedisBackplane
from app.realtime.hub import VERSION_POLL_INTERVAL
from app.realtime.source import Commit
from app.services.store import Appended, TournamentStore
from bench.load import RoundOne, free_port, hand_headers, hands_url, in_own_schema
from tests.integration.conftest import postgres_url
from tests.integration.judging_setup import club_opening, discard, hand, self_draw
from tests.integration.live_setup import (
    REDIS_ENV,
    Api,
    Client,
    LiveServer,
    RedisServer,
    Tournament,
    backplane_channel,
    http_client,
    open_tournament,
    redis_url,
    run,
    with_database_number,
)

CHANNELS = "standings,clocks,table:1"
PROMPT = 1.0  # seconds a change may take to reach another process's clients through Redis


def test_the_redis_tests_skip_without_a_url_and_fail_when_it_is_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(REDIS_ENV, raising=False)
    monkeypatch.delenv("SCOREBOARD_REQUIRE_REDIS", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"{REDIS_ENV} is not set"):
        redis_url()
    monkeypatch.setenv("SCOREBOARD_REQUIRE_REDIS", "1")
    with pytest.raises(pytest.fail.Exception, match="SCOREBOARD_REQUIRE_REDIS demands"):
        redis_url()
    monkeypatch.setenv(REDIS_ENV, "redis://127.0.0.1:6379/0")
    assert with_database_number(redis_url(), 5) == "redis://127.0.0.1:6379/5"


@pytest.fixture
def backplane_redis() -> str:
    return with_database_number(redis_url(), 5)


class Heard:
    """What a process's hub is told by its backplane (the Redis is real; no feed is open).
    It stands in for the hub's store too: a backplane subscribes to its commits on start,
    and this test publishes by hand instead."""

    def __init__(self) -> None:
        self.feeds: dict[int, object] = {}
        self.notified: list[tuple[int, int]] = []
        self.store = self

    def subscribe(self, listener: Callable[[Commit], None]) -> None:
        pass

    def notify(self, tournament_id: int, version: int) -> None:
        self.notified.append((tournament_id, version))


def test_backplanes_on_other_channels_hear_nothing_of_each_other(backplane_redis: str) -> None:
    """Redis pub/sub knows no database numbers: servers that share a Redis but not a
    database (another event, a test run beside this one) are kept apart by their channel
    (SCOREBOARD_REDIS_CHANNEL). Before it, every test run on the machine's Redis heard the
    announcements of every other."""
    channel = f"{backplane_channel()}:{uuid.uuid4().hex}"

    async def scenario() -> None:
        sender, beside, elsewhere = Heard(), Heard(), Heard()
        planes = [
            RedisBackplane(backplane_redis, sender, channel=f"{channel}:a"),  # type: ignore[arg-type]
            RedisBackplane(backplane_redis, beside, channel=f"{channel}:a"),  # type: ignore[arg-type]
            RedisBackplane(backplane_redis, elsewhere, channel=f"{channel}:b"),  # type: ignore[arg-type]
        ]
        for plane in planes:
            await plane.start()
        try:
            await until_subscribed(backplane_redis, {f"{channel}:a": 2, f"{channel}:b": 1})
            planes[0].publish(Appended(tournament_id=1, version=7, first_seq=1, lines=()))
            await until_heard(beside, (1, 7))
            # Redis delivers in order: had `elsewhere` heard channel a, (1, 7) would come first.
            planes[2].publish(Appended(tournament_id=1, version=8, first_seq=2, lines=()))
            await until_heard(elsewhere, (1, 8))
            assert elsewhere.notified == [(1, 8)]
            assert (1, 8) not in beside.notified and (1, 8) not in sender.notified
        finally:
            for plane in planes:
                await plane.stop()

    run(scenario())


async def until_subscribed(url: str, listeners: dict[str, int]) -> None:
    client = aioredis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + 10
        while dict(await client.pubsub_numsub(*listeners)) != {
            name.encode(): count for name, count in listeners.items()
        }:
            assert time.monotonic() < deadline, await client.pubsub_numsub(*listeners)
            await asyncio.sleep(0.02)
    finally:
        await client.aclose()


async def until_heard(hub: Heard, announcement: tuple[int, int]) -> None:
    deadline = time.monotonic() + 10
    while announcement not in hub.notified:
        assert time.monotonic() < deadline, hub.notified
        await asyncio.sleep(0.01)


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One database for two server processes. PostgreSQL runs in a schema of its own: the
    rest of the suite resets `public` of the same database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'live.db'}"
    return in_own_schema(postgres_url(), "live_backplane")


def organizer_store(database_url: str) -> Iterator[TournamentStore]:
    migrate(database_url)
    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    try:
        yield TournamentStore(engine)
    finally:
        engine.dispose()


@pytest.fixture
def store(shared_database: str) -> Iterator[TournamentStore]:
    yield from organizer_store(shared_database)


class Pair:
    """Two server processes on one database and one Redis."""

    def __init__(self, database_url: str, redis: str, folder: Path) -> None:
        self.a = LiveServer(database_url, free_port(), folder / "a.log", redis_url=redis)
        self.b = LiveServer(database_url, free_port(), folder / "b.log", redis_url=redis)

    def __enter__(self) -> Pair:
        self.a.start()  # one at a time: each migrates the schema before it serves
        try:
            self.b.start()
        except BaseException:
            self.a.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.b.stop()
        self.a.stop()


async def reaches(client: Client, version: int, posted_at: float, within: float) -> float:
    """Wait until a client's clocks (every hand completes one) are at `version`; seconds
    from the moment the hand was answered."""
    await client.until_version("clocks", version, timeout=within + 5)
    (seen,) = [m for m in client.of("clocks") if m.version == version]
    return seen.at - posted_at


@pytest.mark.slow
def test_a_hand_posted_to_one_process_reaches_the_clients_of_the_other(
    backplane_redis: str, shared_database: str, store: TournamentStore, tmp_path: Path
) -> None:
    generated = RoundOne.generate(players=64, seed=64)
    tournament = open_tournament(store, generated.setup_lines, generated.tables)

    async def scenario(pair: Pair) -> None:
        async with (
            http_client() as http,
            Client.open(pair.a.ws_url(tournament.tid, CHANNELS), name="on A") as on_a,
            Client.open(pair.b.ws_url(tournament.tid, CHANNELS), name="on B") as on_b,
        ):
            to_a = Api(http, pair.a.base_url, tournament)
            to_b = Api(http, pair.b.base_url, tournament)
            for client in (on_a, on_b):
                assert (await client.recv()).type == "hello"
                await client.until(lambda m: m.channel == "table:1")

            # One at a time, each way: a change reaches the other process's clients at once
            # (its version poll alone would take up to VERSION_POLL_INTERVAL).
            delays = []
            for number, (api, far) in enumerate([(to_a, on_b), (to_b, on_a)] * 3):
                answer = await api.hand(generated.hands[1 + number][0])
                posted_at = time.monotonic()
                delays.append(await reaches(far, answer["version"], posted_at, PROMPT))
            assert max(delays) < PROMPT < VERSION_POLL_INTERVAL, delays

            # A burst, half to each process: both feeds end on the same state, that of the
            # database, every change on top of the version held (or the client would fail).
            bodies = [generated.hands[table][1 if table <= 6 else 0] for table in generated.tables]
            answers = await asyncio.gather(
                *((to_a if i % 2 else to_b).hand(body) for i, body in enumerate(bodies))
            )
            last = max(a["version"] for a in answers)
            assert sorted(a["version"] for a in answers) == list(
                range(last - len(bodies) + 1, last + 1)
            )
            for client in (on_a, on_b):
                await client.until_version("clocks", last, timeout=VERSION_POLL_INTERVAL + 5)
                await client.quiet(0.3)
            for api in (to_a, to_b):
                standings = await api.standings()
                for client in (on_a, on_b):
                    assert client.held["standings"].state == {
                        k: v for k, v in standings.items() if k != "version"
                    }, client.name
            # The same states; each process coalesces the burst in its own flushes, so the
            # version a state is labelled with may differ between them (never beyond `last`).
            for channel in ("clocks", "table:1"):
                assert on_a.held[channel].state == on_b.held[channel].state, channel
                assert on_b.held[channel].version <= last >= on_a.held[channel].version
            assert on_a.held["clocks"].version == on_b.held["clocks"].version == last

    with Pair(shared_database, backplane_redis, tmp_path) as pair:
        run(scenario(pair))


@pytest.mark.slow
def test_a_redis_restart_in_the_middle_loses_nothing(tmp_path: Path) -> None:
    """Redis dies (SIGKILL) and comes back on the same port. Meanwhile a hand posted to A is
    still taken at once and reaches A's clients at once; B, which missed the announcement,
    catches up from the database; once Redis is back, changes flow through it again."""
    redis_url()  # the machine's Redis is not used, but these tests run only where it is
    database_url = f"sqlite:///{tmp_path / 'live.db'}"
    redis = RedisServer(tmp_path / "redis.log")
    redis.start()
    try:
        store_context = organizer_store(database_url)
        store = next(store_context)
        tournament = open_tournament(store, club_opening(), (1, 2))
        with Pair(database_url, redis.url, tmp_path) as pair:
            wait_for_subscribers(redis, 2)
            run(restart_scenario(pair, redis, tournament))
        store_context.close()
    finally:
        redis.stop()


async def restart_scenario(pair: Pair, redis: RedisServer, tournament: Tournament) -> None:
    async with (
        http_client() as http,
        Client.open(pair.a.ws_url(tournament.tid, CHANNELS), name="on A") as on_a,
        Client.open(pair.b.ws_url(tournament.tid, CHANNELS), name="on B") as on_b,
    ):
        api = Api(http, pair.a.base_url, tournament)
        for client in (on_a, on_b):
            assert (await client.recv()).type == "hello"
            await client.until(lambda m: m.channel == "table:1")

        answer = await api.hand(hand(1, 1, discard("ami", "bo", 30)))
        assert await reaches(on_b, answer["version"], time.monotonic(), PROMPT) < PROMPT

        redis.stop()
        started = time.monotonic()
        answer = await api.hand(hand(2, 1, self_draw("eun", 10)))
        took = time.monotonic() - started
        assert took < 1.0, f"a judge waited {took:.1f} s for a hand while Redis was down"
        assert await reaches(on_a, answer["version"], time.monotonic(), PROMPT) < PROMPT
        # B heard nothing; it notices the version in the database and catches up.
        caught_up = await reaches(on_b, answer["version"], time.monotonic(), VERSION_POLL_INTERVAL)
        assert caught_up < VERSION_POLL_INTERVAL + 1.0

        redis.start()
        await asyncio.to_thread(wait_for_subscribers, redis, 2)  # both listeners are back
        delays = []
        for body in (hand(1, 2, self_draw("cleo", 8)), hand(2, 2, self_draw("finn", 8))):
            answer = await api.hand(body)
            delays.append(await reaches(on_b, answer["version"], time.monotonic(), PROMPT))
        assert max(delays) < PROMPT, delays
        await on_a.until_version("clocks", answer["version"])
        for client in (on_a, on_b):
            await client.quiet(0.3)

        standings = await api.standings()
        for client in (on_a, on_b):
            assert client.held["standings"].state == {
                k: v for k, v in standings.items() if k != "version"
            }, client.name
        assert on_a.held["table:1"].state == on_b.held["table:1"].state


def wait_for_subscribers(redis: RedisServer, count: int, within: float = 15.0) -> None:
    """Until `count` processes listen on the backplane's channel (they reconnect with a
    backoff of at most 5 s)."""
    deadline = time.monotonic() + within
    while (listening := redis.subscribers(backplane_channel())) < count:
        assert time.monotonic() < deadline, f"{listening} of {count} listening"
        time.sleep(0.1)


# Issue 16: Redis away for 10 seconds, then back on the same port.
OUTAGE = 10.0
HANDS_BEFORE = 1.0  # seconds of hands while every process listens, before Redis goes
HANDS_AFTER = 1.0  # and again once every process listens again
PACE = 1.0  # seconds between a tablet's hands (a real table: about a minute)
RETRY = 0.2  # seconds before a tablet sends an unsettled hand again (outbox.js: 5 s)
# A hand entered while Redis is away reaches the other processes' clients through their
# version poll: at most its interval, a flush, and the time to read the state.
CATCH_UP = VERSION_POLL_INTERVAL + 1.0
JUDGE_WAIT = 1.0  # seconds a judge may wait for an answer, Redis there or not (issue 14)
PROCESSES = "AB"  # the names of Pair's processes, in the order the tablets' tries take


@dataclass(frozen=True)
class Entered:
    """A hand a judge's tablet saw acknowledged (2xx)."""

    table: int
    body: dict[str, Any]
    version: int
    at: float  # time.monotonic() when the answer came
    process: str  # the one that answered it (PROCESSES)


@dataclass
class Tablet:
    """A table's tablet as its outbox sends (app/static/judge/outbox.js): its hands in order,
    each under a key made once, sent again with that key until the server settles it; each
    try goes to the next process, as a proxy may send a retry anywhere."""

    table: int
    hands: list[dict[str, Any]]
    apis: list[Api]
    entered: list[Entered]
    slowest: float = 0.0  # seconds, the longest a try took to be answered

    async def play(self, first_after: float, playing: asyncio.Event, over: asyncio.Event) -> None:
        """A hand every PACE while `playing`, until `over`."""
        pause = first_after
        for turn, body in enumerate(self.hands):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(over.wait(), pause)
            await playing.wait()
            if over.is_set():
                return
            await self.settle(body, key=f"outage-{self.table}-{uuid.uuid4()}", turn=turn)
            pause = PACE
        raise AssertionError(f"table {self.table} ran out of hands: generate more players")

    async def settle(self, body: dict[str, Any], *, key: str, turn: int) -> None:
        for tries in itertools.count():
            process = (self.table + turn + tries) % len(self.apis)
            name = PROCESSES[process]
            sent = time.monotonic()
            try:
                answer = await self.apis[process].send("hands", body, table=self.table, key=key)
            except httpx.TransportError:
                answer = None  # "the server does not answer": sent again later
            self.slowest = max(self.slowest, time.monotonic() - sent)
            if answer is not None and answer.is_success:
                version = answer.json()["version"]
                self.entered.append(Entered(self.table, body, version, time.monotonic(), name))
                return
            # 409 "still entering it", 429, 503 and 5xx are tried again, as the tablet does;
            # any other refusal of a valid hand is a failure of the test
            if answer is not None and answer.status_code not in (409, 429, 500, 502, 503, 504):
                raise AssertionError(
                    f"table {self.table}, process {name}: {answer.status_code} {answer.text}"
                )
            await asyncio.sleep(RETRY)


@pytest.mark.slow
def test_redis_away_for_ten_seconds_loses_no_hand_and_every_screen_is_right_again(
    tmp_path: Path,
) -> None:
    """Issue 16: two processes on PostgreSQL (as the production set runs) share a
    redis-server of the test's own, killed while the judges of six tables keep entering
    hands, spread over the processes, and started again on the same port 10 s later.

    Every acknowledged hand is in the log exactly once. Every client on every process takes
    each change on top of the version it holds (Client.hold) and reaches each hand's version
    within PROMPT while Redis carries the announcements, and within CATCH_UP (the hub's
    version poll) while it does not. The judges pause for the second half of the outage,
    as a hall does between hands: the poll alone must bring every screen to the database's
    version before Redis is back (while hands keep coming, each process's own commits read
    the others' too, and hide a poll that does nothing). Every process listens again within
    RECONNECT_MAX of Redis's return, and every client ends on the database's last state.

    One database: the outage is Redis's; the restart test above runs on SQLite."""
    redis_url()  # the machine's Redis is not used, but these tests run only where it is
    database_url = in_own_schema(postgres_url(), "live_outage")
    stores = organizer_store(database_url)
    store = next(stores)
    generated = RoundOne.generate(players=64, seed=69)
    tournament = open_tournament(store, generated.setup_lines, generated.tables)
    redis = RedisServer(tmp_path / "redis.log")
    redis.start()
    try:
        with Pair(database_url, redis.url, tmp_path) as pair:
            wait_for_subscribers(redis, 2)
            outage = run(outage_scenario([pair.a, pair.b], redis, tournament, generated))
    finally:
        redis.stop()

    entered = outage.entered
    in_log = [json.loads(line) for line in store.export(tournament.tid)]
    stores.close()
    hands = [line for line in in_log if line["type"] == "hand"]
    assert len(hands) == len(entered), f"{len(entered)} hands acknowledged, {len(hands)} in the log"
    assert sorted(map(seat, hands)) == sorted(seat(e.body) for e in entered)
    assert len({e.version for e in entered}) == len(entered), "two hands answered one version"
    assert outage.final == max(e.version for e in entered)
    assert outage.slowest < JUDGE_WAIT, f"a judge waited {outage.slowest:.2f} s for an answer"
    assert outage.listening - outage.back <= RECONNECT_MAX + 1.0, (
        f"the processes listened again {outage.listening - outage.back:.1f} s after Redis was back"
    )
    late = [
        f"{name}: version {e.version} (table {e.table}, answered by process {e.process} "
        f"{e.at - outage.stopped:+.2f} s from the outage) after {lag:.2f} s, more than {bound} s"
        for name, lags in outage.lags.items()
        for e, lag in lags
        if lag > (bound := outage.bound(e))
    ]
    assert not late, "\n".join(late)


def seat(line: dict[str, Any]) -> tuple[int, int, int]:
    return (line["table"], line["segment"], line["hand"])


@dataclass
class Outage:
    """What an outage scenario saw, in time.monotonic() seconds."""

    stopped: float  # Redis killed
    back: float  # Redis answering again
    listening: float  # every process subscribed again
    entered: list[Entered]
    lags: dict[str, list[tuple[Entered, float]]]  # client -> seconds from each answer to it
    final: int  # the database's version once the judges stopped
    slowest: float  # seconds, the longest answer a judge waited for

    def bound(self, hand: Entered) -> float:
        """Through Redis when every process listened before and after the hand's
        announcement (its publishing thread may send it a moment after the answer); else
        through the version poll."""
        if hand.at < self.stopped - 0.2 or hand.at > self.listening + 0.2:
            return PROMPT
        return CATCH_UP


async def outage_scenario(
    servers: list[LiveServer], redis: RedisServer, tournament: Tournament, generated: RoundOne
) -> Outage:
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                Client.open(
                    server.ws_url(tournament.tid, CHANNELS),
                    name=f"the client on process {PROCESSES[n]} (port {server.port})",
                )
            )
            for n, server in enumerate(servers)
        ]
        for client in clients:
            await client.until(lambda m: m.channel == "table:1")
            await stack.enter_async_context(client.reading())
        http = await stack.enter_async_context(http_client())
        apis = [Api(http, server.base_url, tournament) for server in servers]
        entered: list[Entered] = []
        tablets = [Tablet(table, generated.hands[table], apis, entered) for table in range(1, 7)]
        playing, over = asyncio.Event(), asyncio.Event()
        playing.set()
        judges = [
            asyncio.create_task(tablet.play(n * PACE / len(tablets), playing, over))
            for n, tablet in enumerate(tablets)
        ]

        async def every_client_holds_the_database_version(when: str) -> int:
            version = await apis[0].version()
            for client in clients:
                held = client.held["clocks"].version
                assert held == version, f"{when}: {client.name} at {held}, database at {version}"
            return version

        await asyncio.sleep(HANDS_BEFORE)
        await asyncio.to_thread(redis.stop)
        stopped = time.monotonic()
        await asyncio.sleep(OUTAGE / 2)
        playing.clear()  # the hands begun are answered; the next wait
        await asyncio.sleep(OUTAGE / 2)
        during = await every_client_holds_the_database_version(f"{OUTAGE} s into the outage")
        await asyncio.to_thread(redis.start)
        back = time.monotonic()
        playing.set()
        await asyncio.to_thread(wait_for_subscribers, redis, len(servers))
        listening = time.monotonic()
        await asyncio.sleep(HANDS_AFTER)
        over.set()
        await asyncio.gather(*judges)
        before = max(e.version for e in entered if e.at < back)
        assert before == during, f"answered up to version {before}, the database at {during}"

        final = await apis[0].version()
        for client in clients:
            await client.holds("clocks", final, timeout=PROMPT)
        await asyncio.sleep(0.3)  # anything more would be a duplicate (Client.hold)
        await every_client_holds_the_database_version("at the end")
        standings = await apis[0].standings()
        for client in clients:
            assert client.held["standings"].state == {
                k: v for k, v in standings.items() if k != "version"
            }, client.name
        for channel in CHANNELS.split(","):
            states = [client.held[channel].state for client in clients]
            assert all(state == states[0] for state in states), channel

        lags: dict[str, list[tuple[Entered, float]]] = {}
        for client in clients:
            lags[client.name] = []
            for hand in entered:
                seen = client.reached("clocks", hand.version)
                assert seen is not None, f"{client.name} never reached {hand.version}"
                lags[client.name].append((hand, seen.at - hand.at))
    return Outage(stopped, back, listening, entered, lags, final, max(t.slowest for t in tablets))


@pytest.mark.slow
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_serve_with_two_workers_answers_from_both_and_every_client_sees_every_hand(
    backplane_redis: str, tmp_path: Path, database: str
) -> None:
    """`scoreboard serve --workers 2` (issue 16): two processes on one port, joined by Redis.
    Started on a database never migrated, as a new hall's is: the two must not migrate it at
    once (on SQLite one failed, and uvicorn stopped both)."""
    if database == "sqlite":
        database_url = f"sqlite:///{tmp_path / 'workers.db'}"
    else:
        database_url = in_own_schema(postgres_url(), "live_workers")
    server = LiveServer(
        database_url,
        free_port(),
        tmp_path / "workers.log",
        redis_url=backplane_redis,
        options=("--workers", "2"),
    )
    server.start(ready_within=60.0)
    stores = organizer_store(database_url)
    store = next(stores)
    generated = RoundOne.generate(players=64, seed=65)
    tournament = open_tournament(store, generated.setup_lines, generated.tables)
    try:
        # Both processes answer on the one port: each new connection goes to either.
        processes: set[str] = set()
        deadline = time.monotonic() + 30
        while len(processes) < 2 and time.monotonic() < deadline:
            with httpx.Client(base_url=server.base_url) as fresh:
                answer = fresh.get("/api/ready")
            assert answer.status_code == 200, answer.text
            processes.add(answer.json()["process"])
        assert len(processes) == 2, processes

        async def scenario() -> None:
            async with contextlib.AsyncExitStack() as clients:
                watching = [
                    await clients.enter_async_context(
                        Client.open(server.ws_url(tournament.tid, CHANNELS), name=f"phone {n}")
                    )
                    for n in range(12)
                ]
                for client in watching:
                    await client.until(lambda m: m.channel == "table:1")
                last = 0
                for number in range(1, 5):
                    # a new connection for each hand: whichever process takes it
                    async with http_client() as http:
                        api = Api(http, server.base_url, tournament)
                        last = (await api.hand(generated.hands[number][0]))["version"]
                for client in watching:
                    await client.until_version("clocks", last, timeout=VERSION_POLL_INTERVAL + 5)

        run(scenario())
    finally:
        server.stop()
        stores.close()


@pytest.mark.slow
def test_retries_sent_to_other_processes_enter_each_hand_once_and_every_client_agrees(
    backplane_redis: str, tmp_path: Path
) -> None:
    """Issue 16, three processes on PostgreSQL and Redis, addressed one by one (as a proxy
    may send a tablet's retry anywhere): each hand goes to one process, then its retry, the
    same key and body, to each of the other two, and once more to all three at the same
    moment. Every answer for a key is the first one; the log holds each hand once; clients
    on the three processes see the same versions, in order, and end on the same states."""
    database_url = in_own_schema(postgres_url(), "live_three")
    stores = organizer_store(database_url)
    store = next(stores)
    generated = RoundOne.generate(players=64, seed=68)
    tournament = open_tournament(store, generated.setup_lines, generated.tables)
    servers = [
        LiveServer(database_url, free_port(), tmp_path / f"{n}.log", redis_url=backplane_redis)
        for n in range(3)
    ]
    bodies = [generated.hands[table][0] for table in generated.tables[:9]]

    async def scenario() -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    Client.open(server.ws_url(tournament.tid, CHANNELS), name=f"on {n}")
                )
                for n, server in enumerate(servers)
            ]
            for client in clients:
                await client.until(lambda m: m.channel == "table:1")
            http = await stack.enter_async_context(http_client())

            async def post(server: LiveServer, body: dict[str, object], key: str) -> httpx.Response:
                table = int(str(body["table"]))
                headers = hand_headers(tournament.tokens[table], key)
                return await http.post(
                    hands_url(server.base_url, tournament.tid), json=body, headers=headers
                )

            versions = []
            for number, body in enumerate(bodies):
                key = f"three-{number}"
                first = await post(servers[number % 3], body, key)
                assert first.status_code == 201, first.text
                again = [await post(servers[(number + k) % 3], body, key) for k in (1, 2)]
                at_once = await asyncio.gather(*(post(server, body, key) for server in servers))
                for answer in [*again, *at_once]:
                    assert (answer.status_code, answer.json()) == (201, first.json()), key
                versions.append(first.json()["version"])
            assert versions == sorted(versions) and len(set(versions)) == len(bodies)

            last = versions[-1]
            for client in clients:
                await client.until_version("clocks", last, timeout=VERSION_POLL_INTERVAL + 5)
                await client.quiet(0.3)
                seen = [m.version for m in client.of("clocks")]
                assert seen == sorted(seen), client.name  # in order, each applied on the last
            for channel in CHANNELS.split(","):
                states = [client.held[channel].state for client in clients]
                assert states[0] == states[1] == states[2], channel

    for server in servers:
        server.start()  # one at a time: each migrates before it serves
    try:
        run(scenario())
        entered = [json.loads(line) for line in store.export(tournament.tid)]
        assert len([line for line in entered if line["type"] == "hand"]) == len(bodies)
    finally:
        for server in servers:
            server.stop()
        stores.close()
