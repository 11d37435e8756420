"""A stuck part never stalls the judges (issue 14, part 3).

Each part gets stuck for real, beside a real `scoreboard serve` process:

- a process frozen (SIGSTOP) inside a write transaction, holding the tournament's lock: on
  PostgreSQL the server ends its session and rolls it back, and the judge's hand goes in; on
  SQLite, which cannot end another process's transaction, the judge gets 503 with Retry-After
  (the tablet sends it again), never a 500;
- a holder of the lock that is alive and does not let go: 503 with Retry-After, then the hand
  goes in once the lock is free;
- a Redis that accepts connections and never answers (a stand-in of the test's own; the
  machine's Redis is never stopped): hands, /api/health and the live feed do not wait on it;
- a process killed (SIGKILL) in the middle of a hand, leaving its claim on the hand's
  Idempotency-Key: the retry to another process is accepted at once, and the hand is in
  the log once.

No assertion here is about time: a stuck part makes a request hang, which the generous
timeouts of the test's HTTP client turn into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlmodel import Session

from app.db import queries
from app.db.engine import make_engine, migrate
from app.services.store import TournamentStore
from bench.load import ROOT, free_port, in_own_schema
from tests.integration.conftest import postgres_url
from tests.integration.judging_setup import Setup, club_opening, hand, open_tournament, self_draw
from tests.integration.live_setup import TIMEOUT, Client, LiveServer, SilentRedis, run

pytestmark = pytest.mark.slow

HAND_1 = hand(1, 1, self_draw("ami", 10))
# Far longer than any of the server's own waits: a request stuck behind a stuck part fails
# the test by this timeout instead of hanging it.
REQUEST = httpx.Timeout(30.0, connect=5.0)


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One database for the server and the test's other processes; PostgreSQL in a schema
    of its own (the rest of the suite resets `public` of the same database)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'stuck.db'}"
    return in_own_schema(postgres_url(), "stuck_parts")


@pytest.fixture
def postgres_database() -> str:
    return in_own_schema(postgres_url(), "stuck_parts")


def organizer_store(database_url: str) -> Iterator[TournamentStore]:
    migrate(database_url)
    engine = make_engine(database_url)
    try:
        yield TournamentStore(engine)
    finally:
        engine.dispose()


def club(database_url: str) -> tuple[Setup, list[str]]:
    """The club tournament, and its log as the organizer imported it."""
    for store in organizer_store(database_url):
        setup = open_tournament(store, club_opening())
        return setup, store.export(setup.tid)
    raise AssertionError("unreachable")


def exported(database_url: str, tid: int) -> list[dict[str, Any]]:
    for store in organizer_store(database_url):
        return [json.loads(line) for line in store.export(tid)]
    raise AssertionError("unreachable")


def post_hand(
    server: LiveServer, setup: Setup, body: dict[str, Any], key: str, table: int = 1
) -> httpx.Response:
    return httpx.post(
        f"{server.base_url}/api/tournaments/{setup.tid}/hands",
        json=body,
        headers=setup.headers(table, key),
        timeout=REQUEST,
    )


def python(script: str, *args: str) -> subprocess.Popen[str]:
    """A process of the test's own that runs the store's code on the shared database."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for_line(process: subprocess.Popen[str], wanted: str) -> None:
    assert process.stdout is not None
    deadline = time.monotonic() + TIMEOUT * 3
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.1)
        if ready:
            text = process.stdout.readline()
            if not text:
                break
            seen.append(text)
            if text.strip() == wanted:
                return
    raise AssertionError(f"the process never said {wanted!r}: {''.join(seen)}")


def wait_until_stopped(pid: int) -> None:
    """A process that stopped itself with SIGSTOP shows as state T."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            if stat.read().rpartition(")")[2].split()[0] == "T":
                return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not stop")


def ended(process: subprocess.Popen[str]) -> tuple[int, str]:
    out, _ = process.communicate(timeout=TIMEOUT * 3)
    return process.returncode, out


# -- 1. a writer frozen inside its transaction ---------------------------------------------

# Process A: a store that enters a hand at table 2 and freezes (SIGSTOP) inside the write
# transaction, after the rules, holding the tournament's lock; when it is thawed, it says
# whether its hand was committed or rolled back.
FROZEN_WRITER = r"""
import json, os, signal, sys
from app.db.engine import make_engine
from app.domain.log import parse_event
from app.services.store import Author, TournamentStore

url, tid, line = sys.argv[1], int(sys.argv[2]), sys.argv[3]
store = TournamentStore(make_engine(url))

def decide(tournament):
    print("holding", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)
    return [parse_event(json.loads(line))]

try:
    store.append(tid, decide, Author("admin"))
except Exception as error:
    print("rolled back", type(error).__name__, flush=True)
    sys.exit(3)
print("committed", flush=True)
"""
HELD_HAND = {
    "type": "hand",
    **hand(2, 1, self_draw("eun", 10)),
    "id": "entered-by-the-frozen-process",
}


def test_a_process_frozen_inside_a_write_does_not_stall_the_judges(
    shared_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup, _ = club(shared_database)
    monkeypatch.setenv("SCOREBOARD_SQLITE_BUSY_TIMEOUT", "0.5")  # SQLite: 503 soon
    sqlite = shared_database.startswith("sqlite")
    with LiveServer(shared_database, free_port(), tmp_path / "b.log") as server:
        frozen = python(FROZEN_WRITER, shared_database, str(setup.tid), json.dumps(HELD_HAND))
        try:
            wait_for_line(frozen, "holding")
            wait_until_stopped(frozen.pid)

            first = post_hand(server, setup, HAND_1, key="t1-h1")

            if sqlite:
                # No server to end A's transaction: the judge is told to send it again.
                assert first.status_code == 503, first.text
                assert first.headers["Retry-After"].isdigit()
                assert first.json()["detail"]
            else:
                assert first.status_code == 201, first.text
        finally:
            os.kill(frozen.pid, signal.SIGCONT)
        code, out = ended(frozen)
        if sqlite:
            assert code == 0 and "committed" in out, out  # A went on once thawed
            retried = post_hand(server, setup, HAND_1, key="t1-h1")
            assert retried.status_code == 201, retried.text
        else:
            # The server ended A's session while it was frozen: its transaction rolled back.
            assert code == 3 and "rolled back" in out, out

    ids = [line.get("id") for line in exported(shared_database, setup.tid)]
    assert ids.count("t1-h1") == 1
    assert ids.count(HELD_HAND["id"]) == (1 if sqlite else 0)


def test_a_writer_that_cannot_get_the_lock_gets_503_and_its_retry_goes_in(
    postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A holder that is alive and does not let go (no timeouts of ours on its connection):
    the server gives up after its bounded waits with 503, never 500, and never hangs."""
    setup, _ = club(postgres_database)
    monkeypatch.setenv("SCOREBOARD_DB_LOCK_TIMEOUT", "0.3")
    with LiveServer(postgres_database, free_port(), tmp_path / "b.log") as server:
        with psycopg.connect(_libpq(postgres_database)) as holder:
            holder.execute("UPDATE tournaments SET version = version WHERE id = %s", (setup.tid,))
            refused = post_hand(server, setup, HAND_1, key="t1-h1")
            assert refused.status_code == 503, refused.text
            assert refused.headers["Retry-After"].isdigit()
            assert "send it again" in refused.json()["detail"]
            holder.rollback()
        retried = post_hand(server, setup, HAND_1, key="t1-h1")
        assert retried.status_code == 201, retried.text
        assert "Traceback" not in server.log
    ids = [line.get("id") for line in exported(postgres_database, setup.tid)]
    assert ids.count("t1-h1") == 1


def _libpq(url: str) -> str:
    """The test's URL as psycopg takes it (the schema's search_path in `options`)."""
    return url.replace("postgresql+psycopg://", "postgresql://")


# -- 2. a Redis that never answers -----------------------------------------------------------


def test_a_redis_that_never_answers_holds_up_no_judge_and_no_display(
    shared_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's Redis timeouts are ten minutes: a hand whose answer waited for its
    announcement would fail on REQUEST, and an answer sent after a publish gave up would
    find that connection closed. The judges get their answers while every connection the
    server opened to Redis is still waiting for Redis."""
    setup, _ = club(shared_database)
    monkeypatch.setenv("SCOREBOARD_REDIS_SOCKET_TIMEOUT", "600")
    monkeypatch.setenv("SCOREBOARD_REDIS_CONNECT_TIMEOUT", "600")
    with (
        SilentRedis() as redis,
        LiveServer(shared_database, free_port(), tmp_path / "s.log", redis_url=redis.url) as server,
    ):
        redis.wait_for_clients(1)  # the backplane's listener, waiting for its answer

        async def scenario() -> None:
            async with Client.open(server.ws_url(setup.tid, "table:1")) as display:
                assert (await display.recv()).type == "hello"
                await display.until(lambda m: m.type == "snapshot")
                for number in (1, 2):
                    body = hand(1, number, self_draw("ami", 10))
                    answered = await _post_async(server, setup, body, f"t1-h{number}")
                    assert answered.status_code == 201, answered.text
                    # The display of this process hears of it without Redis.
                    await display.until_version("table:1", answered.json()["version"])

        run(scenario())
        health = httpx.get(f"{server.base_url}/api/health", timeout=REQUEST)
        assert health.status_code == 200, health.text
        # The publisher came, and is waiting for its answer too; so did the rate limits'
        # count of the first write (guards.RateLimits).
        redis.wait_for_clients(3)
        # The rate limits give up on Redis after a quarter of a second by design, once, and
        # then count in this process for a minute (guards.REDIS_RETRY_AFTER): on every write
        # before, this was 4 (two hands, each counted per token and per address).
        assert redis.given_up() == 1


async def _post_async(
    server: LiveServer, setup: Setup, body: dict[str, Any], key: str
) -> httpx.Response:
    async with httpx.AsyncClient(timeout=REQUEST) as http:
        return await http.post(
            f"{server.base_url}/api/tournaments/{setup.tid}/hands",
            json=body,
            headers=setup.headers(1, key),
        )


# -- 3. a process killed in the middle of a hand ---------------------------------------------

# A process that runs a judge's submission as the server does (its heartbeat, its claim on
# the key) and is killed (SIGKILL) after the claim, inside the hand's write transaction.
KILLED_MID_HAND = r"""
import json, os, signal, sys
from sqlmodel import Session
from app.db import queries
from app.db.engine import make_engine
from app.services.judging import TableScope, submit_once
from app.services.store import TournamentStore, token_hash

url, tid, token, key, body = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
store = TournamentStore(make_engine(url))
try:
    from app.services.processes import Heartbeat
except ImportError:  # before issue 14: claims carried no process
    pass
else:
    heartbeat = Heartbeat(store.engine, store.clock)
    heartbeat.start()
    store.process = heartbeat.identity
with Session(store.engine) as session:
    row = queries.token_by_hash(session, token_hash(token))
scope = TableScope(tid, row.table_number, row.id)

def build(tournament):
    print("claimed", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

submit_once(store, tid, scope, key, json.loads(body), build)
"""


def test_the_claim_of_a_process_killed_mid_hand_is_released_at_once(
    shared_database: str, tmp_path: Path
) -> None:
    setup, _ = club(shared_database)
    with LiveServer(shared_database, free_port(), tmp_path / "s.log") as server:
        killed = python(
            KILLED_MID_HAND,
            shared_database,
            str(setup.tid),
            setup.tokens[1],
            "t1-h1",
            json.dumps(HAND_1),
        )
        wait_for_line(killed, "claimed")
        code, out = ended(killed)
        assert code == -signal.SIGKILL, out
        _assert_claim_left(shared_database, setup.tid, "t1-h1")

        # The tablet's retry, to a live process: taken over at once, not 409 for 10 s.
        retried = post_hand(server, setup, HAND_1, key="t1-h1")
        assert retried.status_code == 201, retried.text
        again = post_hand(server, setup, HAND_1, key="t1-h1")
        assert (again.status_code, again.json()) == (201, retried.json())
    ids = [line.get("id") for line in exported(shared_database, setup.tid)]
    assert ids.count("t1-h1") == 1


def test_a_server_killed_mid_hand_leaves_no_claim_that_blocks_the_retry(
    postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`scoreboard serve` itself, killed while a hand waits for the tournament's lock (held
    by the test); the retry goes to a second server process and is accepted at once."""
    setup, _ = club(postgres_database)
    monkeypatch.setenv("SCOREBOARD_DB_LOCK_TIMEOUT", "60")  # the hand waits as long as held
    killed = LiveServer(postgres_database, free_port(), tmp_path / "a.log")
    with LiveServer(postgres_database, free_port(), tmp_path / "b.log") as other:
        killed.start()
        try:
            with psycopg.connect(_libpq(postgres_database)) as holder:
                holder.execute(
                    "UPDATE tournaments SET version = version WHERE id = %s", (setup.tid,)
                )
                in_flight = threading.Thread(
                    target=_post_quietly, args=(killed, setup, HAND_1, "t1-h1"), daemon=True
                )
                in_flight.start()
                _assert_claim_left(postgres_database, setup.tid, "t1-h1", wait=True)
                killed.kill()
                holder.rollback()
            in_flight.join(timeout=TIMEOUT)

            retried = post_hand(other, setup, HAND_1, key="t1-h1")
            assert retried.status_code == 201, retried.text
        finally:
            killed.stop()
    ids = [line.get("id") for line in exported(postgres_database, setup.tid)]
    assert ids.count("t1-h1") == 1


def _post_quietly(server: LiveServer, setup: Setup, body: dict[str, Any], key: str) -> None:
    with contextlib.suppress(httpx.TransportError):  # the server is killed under it
        post_hand(server, setup, body, key)


def _assert_claim_left(database_url: str, tid: int, key: str, *, wait: bool = False) -> None:
    """The key is claimed and not answered: what a request that died mid-hand leaves."""
    deadline = time.monotonic() + (TIMEOUT if wait else 0)
    for store in organizer_store(database_url):
        while True:
            with Session(store.engine) as session:
                record = queries.idempotency_record(session, tid, key)
            if record is not None or time.monotonic() >= deadline:
                break
            time.sleep(0.02)
        assert record is not None and not record.done
