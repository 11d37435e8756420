"""The judges first (issue 32; app/realtime/turns.py), on SQLite and PostgreSQL: in one
process serving both lanes, public work that has to be made (a page, an update of the live
feed) waits while a request of the judges' lane is in flight, and what is already made is
served meanwhile. bench/hostile.py measures what it is for: a judge's hand beside every
attack at once (a hand's p99 4.8 times quiet without it, 7.3 times before)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import httpx
import pytest
from fastapi.testclient import TestClient

from app.realtime.turns import JudgesFirst
from app.services.store import TournamentStore
from tests.integration.judging_setup import Setup, club_opening, open_tournament


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    return open_tournament(store, club_opening())


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _judges(client: TestClient) -> JudgesFirst:
    judges: JudgesFirst = client.app.judges  # type: ignore[attr-defined]
    judges.patience = 60.0  # long enough that only the judge's answer lets it go
    return judges


def test_a_public_answer_is_made_after_the_judges_request_in_flight(
    client: TestClient, club: Setup
) -> None:
    judges = _judges(client)
    kept = client.get(f"/hall/{club.tid}")  # made before: kept, and served at once
    client.portal.call(judges.begin)  # type: ignore[union-attr]
    try:
        assert client.get(f"/hall/{club.tid}").content == kept.content
        with ThreadPoolExecutor(1) as pool:
            made: Future[httpx.Response] = pool.submit(client.get, club.url("standings"))
            _until(lambda: judges.waiting == 1, "the answer to be made never waited")
            assert not made.done()
            client.portal.call(judges.end)  # type: ignore[union-attr]
            assert made.result(timeout=30).status_code == 200
    finally:
        while judges.in_flight:
            client.portal.call(judges.end)  # type: ignore[union-attr]
    assert judges.waiting == 0 and judges.waited > 0


def test_the_live_feeds_work_waits_for_the_judges_request_in_flight(
    client: TestClient, club: Setup
) -> None:
    judges = _judges(client)
    client.app_state["hub"].answer_wait = 60.0  # the feed's patience
    client.portal.call(judges.begin)  # type: ignore[union-attr]
    url = f"/ws/tournaments/{club.tid}?channels=standings,table:1&format=text"
    frames: list[str] = []
    try:
        with client.websocket_connect(url) as feed:

            def read() -> None:
                frames.extend(feed.receive_text() for _ in range(3))

            reading = threading.Thread(target=read)
            reading.start()
            _until(lambda: judges.waiting == 1, "the feed's work never waited")
            assert frames == []  # not even its hello: it follows the channels' states
            client.portal.call(judges.end)  # type: ignore[union-attr]
            reading.join(30)
    finally:
        while judges.in_flight:
            client.portal.call(judges.end)  # type: ignore[union-attr]
    assert [json.loads(frame)["type"] for frame in frames] == ["hello", "snapshot", "snapshot"]


def test_only_the_judges_lane_is_waited_for_and_never_past_its_patience(
    client: TestClient, club: Setup, admin_headers: dict[str, str]
) -> None:
    judges = client.app.judges  # type: ignore[attr-defined]
    assert isinstance(judges, JudgesFirst)
    seen: list[int] = []
    real_begin = judges.begin

    def begin() -> None:
        real_begin()
        seen.append(judges.in_flight)

    judges.begin = begin  # type: ignore[method-assign]
    client.get(club.url("standings"))
    client.get(f"/hall/{club.tid}")
    assert seen == []  # public reads hold no one up
    client.get(club.url("tokens"), headers=admin_headers)
    client.post(club.url("hands"), json={}, headers=club.headers(1, "k-1"))
    assert seen == [1, 1] and judges.in_flight == 0  # counted, and counted out
    judges.patience = 0.2
    client.portal.call(real_begin)  # type: ignore[union-attr]
    try:
        started = time.monotonic()
        assert client.get(club.url("standings") + "?round=1").status_code == 200
        assert time.monotonic() - started >= 0.2  # it waited its patience, then went on
    finally:
        client.portal.call(judges.end)  # type: ignore[union-attr]
