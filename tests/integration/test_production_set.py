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
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from app.services.store import TournamentStore
from bench.load import RoundOne, free_port, hand_headers, hands_url, in_own_schema
from bench.proxy import Proxy, caddy, proxy_in_front_of, ready_through
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

CHANNELS = "standings,clocks,table:1"
PROCESSES = 3


def require_caddy() -> None:
    if caddy() is None:
        message = "no caddy (Debian's package `caddy`): the production set's test is skipped"
        if os.environ.get("SCOREBOARD_REQUIRE_PROXY"):
            pytest.fail(message + " but SCOREBOARD_REQUIRE_PROXY demands it")
        pytest.skip(message)


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
    require_caddy()
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
        with proxy_in_front_of([server.port for server in servers], tmp_path) as proxy:
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
