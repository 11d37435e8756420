"""A hand is entered exactly once even when two entries race (issue 13, point 1).

Two tablets at one table (or a tablet that reloaded and made a new Idempotency-Key) send the
same next hand at the same moment, with different keys and different results. Two real
`scoreboard serve` processes share the database, as the README promises any number may: the
check that the hand is not entered yet and the append of its line are one unit of work in
the database, so exactly one entry is accepted and the other is refused with 409, naming the
hand and pointing the judge to corrections. The log holds each hand once, every time.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from in_process import IN_PROCESS_TIMEOUTS

from app.db.engine import make_engine
from app.services.store import TournamentStore
from bench.load import (
    RoundOne,
    Server,
    free_port,
    hand_headers,
    hands_url,
    import_log,
    in_own_schema,
    issue_tokens,
)

pytestmark = pytest.mark.slow

RACERS = 4  # entries of each hand sent at once, two to each server process
TABLE = 1
HANDS = 8  # every hand of half 1 at the table


def rival_results(round_one: RoundOne) -> list[list[dict[str, Any]]]:
    """For each hand of the table's first half, RACERS different valid results: the
    generated one, a draw, and self-draws by two other seats."""
    hands = [hand for hand in round_one.hands[TABLE] if hand["segment"] == 1][:HANDS]
    seating = next(
        line
        for line in map(json.loads, round_one.setup_lines)
        if line["type"] == "seating" and line["table"] == TABLE and line["segment"] == 1
    )
    east, south = seating["seats"][0], seating["seats"][1]
    rivals = []
    for hand in hands:
        results = [
            hand,
            {**hand, "result": {"kind": "draw"}},
            {**hand, "result": {"kind": "self_draw", "winner": east, "value": 8}},
            {**hand, "result": {"kind": "self_draw", "winner": south, "value": 16}},
        ]
        rivals.append(results[:RACERS])
    return rivals


def race(urls: list[str], token: str, bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    """Send every body at once, each under its own key, alternating between the servers."""
    start = threading.Barrier(len(bodies))
    answers: list[httpx.Response | None] = [None] * len(bodies)

    def send(index: int) -> None:
        with httpx.Client(timeout=30.0) as client:
            start.wait()
            answers[index] = client.post(
                urls[index % len(urls)],
                json=bodies[index],
                headers=hand_headers(token, f"race-{uuid.uuid4().hex}"),
            )

    threads = [threading.Thread(target=send, args=(index,)) for index in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(answer is not None for answer in answers), "a racing request never finished"
    return [answer for answer in answers if answer is not None]


def test_two_processes_racing_the_same_hand_enter_it_once(
    database_url: str, tmp_path: Path
) -> None:
    if database_url.startswith("postgresql"):
        database_url = in_own_schema(database_url, "hand_race")
    round_one = RoundOne.generate(players=16, seed=13)
    tournament_id = import_log(database_url, round_one.setup_lines, tmp_path)
    token = issue_tokens(database_url, tournament_id, [TABLE])[TABLE]
    servers = [
        Server(database_url, free_port(), tmp_path / "a.log"),
        Server(database_url, free_port(), tmp_path / "b.log"),
    ]
    for server in servers:
        server.start()
    try:
        urls = [hands_url(server.base_url, tournament_id) for server in servers]
        for number, bodies in enumerate(rival_results(round_one), start=1):
            answers = race(urls, token, bodies)
            codes = sorted(answer.status_code for answer in answers)
            assert codes == [201] + [409] * (RACERS - 1), (number, codes)
            for answer in answers:
                if answer.status_code == 409:
                    message = answer.text
                    assert f"hand {number} of round 1 segment 1 at table {TABLE}" in message
                    assert "already entered" in message and "correction" in message
    finally:
        for server in servers:
            server.stop()

    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    try:
        lines = [json.loads(line) for line in TournamentStore(engine).export(tournament_id)]
    finally:
        engine.dispose()
    entered = Counter(
        line["hand"]
        for line in lines
        if line["type"] == "hand" and line["table"] == TABLE and line["segment"] == 1
    )
    assert entered == dict.fromkeys(range(1, HANDS + 1), 1)
    # No entry slipped in as a correction without a reason.
    assert not any(line.get("reason") for line in lines if line["type"] == "hand")
