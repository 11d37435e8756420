"""The production set of compose.yaml, started by the test itself (issue 16): no Docker engine
runs on this machine (`docker` is only the client), so the same parts run as processes here:
three `scoreboard serve` processes on one PostgreSQL and one Redis, behind Caddy with
deploy/Caddyfile as compose.yaml gives it (HTTPS with a certificate it makes itself, checked
against its own root, as a tablet that trusts it would).

Through the proxy's one address: every process answers; a hand entered reaches phones on
every process; a process that is not ready gets no traffic; and one killed with SIGKILL loses
no hand, its clients reconnecting to the others and resuming from their version."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from app.services.store import TournamentStore
from bench.load import (
    HOST,
    ROOT,
    RoundOne,
    free_port,
    hand_headers,
    hands_url,
    in_own_schema,
    stop_process,
)
from tests.integration.conftest import postgres_url
from tests.integration.live_setup import (
    Client,
    LiveServer,
    Tournament,
    open_tournament,
    redis_url,
    run,
    with_database_number,
)
from tests.integration.test_live_backplane import organizer_store

CADDYFILE = ROOT / "deploy" / "Caddyfile"
CHANNELS = "standings,clocks,table:1"
PROCESSES = 3
READY_WITHIN = 30.0  # seconds for the proxy's first health checks and certificate


def caddy() -> str:
    found = shutil.which("caddy")
    if found is None:
        message = "no caddy (Debian's package `caddy`): the production set's test is skipped"
        if os.environ.get("SCOREBOARD_REQUIRE_PROXY"):
            pytest.fail(message + " but SCOREBOARD_REQUIRE_PROXY demands it")
        pytest.skip(message)
    return found


@dataclass
class Proxy:
    """Caddy in front of the processes, on free ports, its data in the test's folder."""

    process: subprocess.Popen[bytes]
    port: int
    root: Path  # its certificate authority's root, which the clients trust

    @property
    def base_url(self) -> str:
        return f"https://{HOST}:{self.port}"

    def ws_url(self, tid: int, channels: str) -> str:
        return f"wss://{HOST}:{self.port}/ws/tournaments/{tid}?channels={channels}"

    def tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.root))


@contextlib.contextmanager
def proxy_in_front_of(servers: list[LiveServer], folder: Path) -> Iterator[Proxy]:
    https_port, http_port = free_port(), free_port()
    env = {
        **os.environ,
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "SCOREBOARD_SITE": HOST,
        "SCOREBOARD_HTTPS_PORT": str(https_port),
        "SCOREBOARD_HTTP_PORT": str(http_port),
        "SCOREBOARD_UPSTREAMS": " ".join(f"{HOST}:{server.port}" for server in servers),
        # the health check every half second with 1 s to answer, not 2 s and 3 s: the same
        # check, a shorter wait
        "SCOREBOARD_HEALTH_INTERVAL": "500ms",
        "SCOREBOARD_HEALTH_TIMEOUT": "1s",
    }
    with (folder / "caddy.log").open("wb") as log:
        process = subprocess.Popen(
            [caddy(), "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    root = folder / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    proxy = Proxy(process, https_port, root)
    try:
        deadline = time.monotonic() + READY_WITHIN
        while True:
            assert process.poll() is None, (folder / "caddy.log").read_text()
            with contextlib.suppress(httpx.TransportError, OSError):
                if root.exists() and ready_through(proxy).status_code == 200:
                    break
            assert time.monotonic() < deadline, (folder / "caddy.log").read_text()
            time.sleep(0.2)
        yield proxy
    finally:
        stop_process(process)


def ready_through(proxy: Proxy, timeout: float = 10.0) -> httpx.Response:
    """/api/ready through the proxy on a connection of its own: any process may answer."""
    with httpx.Client(base_url=proxy.base_url, verify=proxy.tls(), timeout=timeout) as fresh:
        return fresh.get("/api/ready")


def answering(proxy: Proxy, tries: int = 60, timeout: float = 10.0) -> set[str]:
    """The processes that answer through the proxy, over `tries` new connections."""
    seen = set()
    for _ in range(tries):
        answer = ready_through(proxy, timeout)
        assert answer.status_code == 200, answer.text
        seen.add(answer.json()["process"])
    return seen


@dataclass
class ProductionSet:
    proxy: Proxy
    servers: list[LiveServer]
    tournament: Tournament
    generated: RoundOne


@pytest.fixture(scope="module")
def production_set(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProductionSet]:
    """One set for the file (it takes seconds to start): the tests below run in order, the
    one that kills a process last."""
    caddy()
    tmp_path = tmp_path_factory.mktemp("production-set")
    database_url = in_own_schema(postgres_url(), "production_set")
    stores = organizer_store(database_url)
    store: TournamentStore = next(stores)
    generated = RoundOne.generate(players=64, seed=66)
    tournament = open_tournament(store, generated.setup_lines, generated.tables)
    redis = with_database_number(redis_url(), 5)
    servers = [
        LiveServer(database_url, free_port(), tmp_path / f"process-{n}.log", redis_url=redis)
        for n in range(PROCESSES)
    ]
    try:
        for server in servers:  # one at a time: each migrates before it serves
            server.start()
        with proxy_in_front_of(servers, tmp_path) as proxy:
            yield ProductionSet(proxy, servers, tournament, generated)
    finally:
        for server in servers:
            server.stop()
        stores.close()


async def entered_as_a_tablet_would(
    http: httpx.AsyncClient, proxy: Proxy, tournament: Tournament, body: dict[str, Any]
) -> tuple[int, int]:
    """A hand sent as the tablet's outbox sends it: one Idempotency-Key, sent again after a
    502 or a lost answer until it is acknowledged. The version, and how many tries it took."""
    key = f"production-{body['table']}-{body['hand']}"
    headers = hand_headers(tournament.tokens[body["table"]], key)
    for attempt in range(1, 11):
        with contextlib.suppress(httpx.TransportError):
            url = hands_url(proxy.base_url, tournament.tid)
            answer = await http.post(url, json=body, headers=headers)
            if answer.status_code == 201:
                return int(answer.json()["version"]), attempt
            assert answer.status_code in (502, 503, 504), answer.text  # the proxy's, or ours
        await asyncio.sleep(0.2)
    raise AssertionError(f"hand {key} was never acknowledged")


def left_at(phone: Client) -> int:
    """The newest version a phone has seen: where it resumes from."""
    return max(m.version for m in phone.messages if m.version is not None)


@pytest.mark.slow
def test_a_process_not_ready_gets_no_traffic(production_set: ProductionSet) -> None:
    proxy, frozen = production_set.proxy, production_set.servers[1]
    assert len(answering(proxy)) == PROCESSES
    # Frozen (SIGSTOP): its /api/ready does not answer, so the proxy's health check takes it
    # out within an interval and a timeout (deploy/Caddyfile: here 0.5 s and 1 s); until then a
    # request sent its way waits, and after it none is sent its way.
    frozen_id = httpx.get(f"{frozen.base_url}/api/ready").json()["process"]
    frozen.freeze()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if frozen_id not in answering(proxy, tries=12, timeout=2.0):
                    break
            except httpx.TimeoutException:
                continue  # sent to the frozen one: not taken out yet
        still = answering(proxy, tries=30)  # every request answered, by the other two
        assert frozen_id not in still and len(still) == PROCESSES - 1, still
    finally:
        frozen.thaw()
    # Ready again: the health check brings it back (and the next test finds all three).
    deadline = time.monotonic() + 20
    while frozen_id not in answering(proxy, tries=12) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert frozen_id in answering(proxy)


@pytest.mark.slow
def test_every_phone_sees_every_hand_and_a_process_killed_loses_none(
    production_set: ProductionSet,
) -> None:
    proxy, tournament, generated = (
        production_set.proxy,
        production_set.tournament,
        production_set.generated,
    )
    killed = production_set.servers[2]
    tables = generated.tables[:12]
    assert len(answering(proxy)) == PROCESSES  # behind the one address, each of them answers

    async def scenario() -> tuple[list[int], int]:
        async with contextlib.AsyncExitStack() as stack:
            url = proxy.ws_url(tournament.tid, CHANNELS)
            phones = [
                await stack.enter_async_context(Client.open(url, ssl=proxy.tls())) for _ in range(9)
            ]
            for phone in phones:
                await phone.until(lambda m: m.channel == "table:1")
            versions = []
            async with httpx.AsyncClient(verify=proxy.tls(), timeout=30) as http:
                for number, table in enumerate(tables):
                    if number == 4:
                        killed.kill()  # SIGKILL: its phones' connections drop mid-stream
                    body = generated.hands[table][0]
                    version, _ = await entered_as_a_tablet_would(http, proxy, tournament, body)
                    versions.append(version)
            last = max(versions)
            resumed = 0
            for phone in phones:
                try:
                    await phone.until_version("clocks", last, timeout=10)
                except ConnectionClosed:
                    # Its process is gone: back through the proxy, from the version it saw,
                    # each change applied on top of what it held (or the client fails).
                    again = proxy.ws_url(tournament.tid, CHANNELS) + f"&since={left_at(phone)}"
                    async with Client.open(again, held=phone.held, ssl=proxy.tls()) as back:
                        await back.until_version("clocks", last, timeout=10)
                        for channel in CHANNELS.split(","):
                            assert back.held[channel].version <= last
                    resumed += 1
            return versions, resumed

    versions, resumed = run(scenario())
    assert sorted(versions) == list(range(min(versions), min(versions) + len(tables)))
    assert resumed >= 1  # least_conn put about a third of the phones on the killed process
    survivor = production_set.servers[0]
    log = httpx.get(f"{survivor.base_url}/api/tournaments/{tournament.tid}/log").text
    entered = [json.loads(line) for line in log.splitlines()]
    assert len([line for line in entered if line["type"] == "hand"]) == len(tables)
