"""A hand is entered exactly once whatever happens to the server mid-load (CONTRACT §3).

The server runs as a real process. Judges' tablets (threads, each owning some tables)
submit their tables' hands in order; every failure that may hide a committed hand (a
timeout, a dropped connection, a 5xx, a 409 "still in progress") is retried with the same
Idempotency-Key and body. After some hands are accepted the server meets a fault:

- it is killed (SIGKILL) and started again on the same database and port;
- it freezes (SIGSTOP) for longer than a claim is held for a request in progress
  (SCOREBOARD_CLAIM_WINDOW), then carries on (SIGCONT), as after a VM pause or a swap storm:
  the requests it was running are still alive, and their tablets have retried.

The tablets carry on until every hand is acknowledged. The database must then hold each
hand once, in order, with the standings a plain replay of the hands gives, and every answer
must name the line that holds its hand.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from in_process import IN_PROCESS_TIMEOUTS

from app.db.engine import make_engine
from app.domain.replay import replay_lines, report
from app.services.store import TournamentStore
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

pytestmark = pytest.mark.slow

# As many requests in flight when the fault comes as with twice the tables (one client a
# table, not one for two), for half the hands: the suite's time goes to the fault, not to
# the hands before and after it (issue 15).
PLAYERS = 128  # 32 tables
HALVES = 1  # the hands of half 1: 8 a table, 256 in all
CLIENTS = 32  # each holds the tablet of 1 table
FAULT_AFTER = 75  # accepted hands before the fault (3 in 10, as before)
DOWN_FOR = 0.5  # seconds the tablets find nobody listening after a kill
# The server's claim window (SCOREBOARD_CLAIM_WINDOW, 10 s by default): shorter, so that the
# freeze outlasting it takes the suite less time (issue 15); what is tested is the same.
CLAIM_WINDOW = 4.0
FREEZE_FOR = CLAIM_WINDOW + 2
# Long enough for the killed requests' claims to be taken over (CLAIM_WINDOW) or for the
# freeze, and every other hand to go through.
LOAD_DEADLINE = 50.0
REQUEST_TIMEOUT = httpx.Timeout(3.0, connect=1.0)


@dataclass
class Submission:
    """One hand as a tablet sends it: one key, one body, however many attempts."""

    body: Hand
    key: str
    attempts: list[str] = field(default_factory=list)  # status codes or transport errors
    status: int | None = None  # the final answer's status
    answer: dict[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class Tablets:
    """The shared state of the clients: what they sent and how many hands were accepted."""

    def __init__(self, base_url: str, tournament_id: int, tokens: dict[int, str]) -> None:
        self.url = hands_url(base_url, tournament_id)
        self.tokens = tokens
        self.deadline = time.monotonic() + LOAD_DEADLINE
        self.submissions: list[Submission] = []
        self.refused: list[Submission] = []
        self._lock = threading.Lock()
        self._accepted = 0
        self.fault_now = threading.Event()

    def run(self, hands: dict[int, list[Hand]]) -> None:
        """One tablet-holder: the tables' hands in order, hand 1 of every table first."""
        queues = list(hands.values())
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            for index in range(max(len(queue) for queue in queues)):
                for queue in queues:
                    if index < len(queue) and not self._submit(http, queue[index]):
                        return  # a later hand of this table would be out of order

    def _submit(self, http: httpx.Client, body: Hand) -> bool:
        submission = Submission(body, f"tablet-{uuid.uuid4()}")
        with self._lock:
            self.submissions.append(submission)
        headers = hand_headers(self.tokens[body["table"]], submission.key)
        pause = 0.02
        while time.monotonic() < self.deadline:
            try:
                response = http.post(self.url, json=body, headers=headers)
            except httpx.TransportError as error:  # timeouts and dropped connections
                submission.attempts.append(type(error).__name__)
            else:
                submission.attempts.append(str(response.status_code))
                if response.is_success:
                    submission.status, submission.answer = response.status_code, response.json()
                    self._count_accepted()
                    return True
                if not _worth_retrying(response):
                    submission.status, submission.answer = response.status_code, response.json()
                    with self._lock:
                        self.refused.append(submission)
                    return False
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
        return False

    def _count_accepted(self) -> None:
        with self._lock:
            self._accepted += 1
            if self._accepted >= FAULT_AFTER:
                self.fault_now.set()

    @property
    def accepted(self) -> int:
        with self._lock:
            return self._accepted


def _worth_retrying(response: httpx.Response) -> bool:
    """A 5xx, or the 409 of a key whose first request is still running (or died)."""
    if response.status_code >= 500:
        return True
    if response.status_code != 409:
        return False
    try:
        problem = response.json()
    except json.JSONDecodeError:
        return False
    return isinstance(problem, dict) and problem.get("field") == "Idempotency-Key"


def _kill_and_restart(server: Server) -> None:
    server.kill()
    time.sleep(DOWN_FOR)
    server.start()


def _freeze(server: Server) -> None:
    server.freeze()
    try:
        time.sleep(FREEZE_FOR)
    finally:
        server.thaw()


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(_kill_and_restart, id="killed"),
        pytest.param(_freeze, id="frozen"),
    ],
)
def test_every_acknowledged_hand_is_entered_once(
    database_url: str,
    tmp_path: Path,
    fault: Callable[[Server], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SCOREBOARD_CLAIM_WINDOW", str(CLAIM_WINDOW))
    if database_url.startswith("postgresql"):
        # The suite resets `public` of the same database for every test, others' included.
        database_url = in_own_schema(database_url, "crash_test")
    round_one = RoundOne.generate(players=PLAYERS, seed=2026)
    hands = {
        table: [hand for hand in table_hands if hand["segment"] <= HALVES]
        for table, table_hands in round_one.hands.items()
    }
    tournament_id = import_log(database_url, round_one.setup_lines, tmp_path)
    tokens = issue_tokens(database_url, tournament_id, round_one.tables)
    tablets = _submit_through(
        fault,
        Server(database_url, free_port(), tmp_path / "server.log"),
        tournament_id,
        tokens,
        hands,
    )

    submissions = tablets.submissions
    total = sum(len(table_hands) for table_hands in hands.values())
    assert not tablets.refused, [(s.body, s.attempts, s.answer) for s in tablets.refused]
    unanswered = [(s.body, s.attempts) for s in submissions if not s.accepted]
    assert not unanswered, f"not acknowledged by the deadline: {unanswered[:5]}"
    assert len(submissions) == total
    assert any(len(s.attempts) > 1 for s in submissions), "no request failed: nothing was tested"

    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    try:
        exported = TournamentStore(engine).export(tournament_id)
    finally:
        engine.dispose()
    _check_log(round_one, exported, submissions)


def _submit_through(
    fault: Callable[[Server], None],
    server: Server,
    tournament_id: int,
    tokens: dict[int, str],
    hands: dict[int, list[Hand]],
) -> Tablets:
    """Every hand, sent by the tablets while the server meets the fault mid-load."""
    server.start()
    try:
        tablets = Tablets(server.base_url, tournament_id, tokens)
        tables = sorted(hands)
        threads = [
            threading.Thread(
                target=tablets.run,
                args=({table: hands[table] for table in tables[start::CLIENTS]},),
                name=f"tablets-{start}",
                daemon=True,
            )
            for start in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        assert tablets.fault_now.wait(timeout=LOAD_DEADLINE), (
            f"only {tablets.accepted} hands accepted before the fault; server log:\n{server.log}"
        )
        assert tablets.accepted < sum(map(len, hands.values())), "the fault came after the load"
        fault(server)
        for thread in threads:
            thread.join(timeout=max(0.0, tablets.deadline - time.monotonic()) + 10)
        assert not any(thread.is_alive() for thread in threads), "a tablet is still sending"
    finally:
        server.stop()
    return tablets


def _check_log(round_one: RoundOne, exported: list[str], submissions: list[Submission]) -> None:
    setup_count = len(round_one.setup_lines)
    assert exported[:setup_count] == round_one.setup_lines
    entered = [json.loads(text) for text in exported[setup_count:]]
    assert {line["type"] for line in entered} <= {"hand"}

    per_place = Counter((h["round"], h["segment"], h["table"], h["hand"]) for h in entered)
    per_id = Counter(h["id"] for h in entered)
    doubled = {key: n for key, n in per_id.items() if n > 1}
    assert doubled == {}, (
        f"{len(doubled)} hands entered twice under one Idempotency-Key, e.g. "
        + "; ".join(
            f"{s.body} after attempts {s.attempts}" for s in submissions if s.key in doubled
        )[:2000]
    )
    assert {place: n for place, n in per_place.items() if n > 1} == {}, "a hand entered twice"
    assert set(per_id) == {s.key for s in submissions}, "the log and the answers disagree"
    stored = {h["id"]: h for h in entered}
    for submission in submissions:
        line = stored[submission.key]
        assert {k: line[k] for k in submission.body} == submission.body, submission.attempts

    numbers: dict[tuple[int, int], list[int]] = {}
    for hand in entered:
        numbers.setdefault((hand["segment"], hand["table"]), []).append(hand["hand"])
    for place, entered_numbers in numbers.items():
        assert entered_numbers == list(range(1, len(entered_numbers) + 1)), place

    # The standings the log gives equal those of the hands replayed in their tables' order.
    in_order = [
        json.dumps({"type": "hand", **s.body, "id": s.key})
        for s in sorted(
            submissions, key=lambda s: (s.body["table"], s.body["segment"], s.body["hand"])
        )
    ]
    expected = replay_lines([*round_one.setup_lines, *in_order])
    assert report(replay_lines(exported))["rounds"] == report(expected)["rounds"]

    # Every answer, first or replayed after the fault, names the line of its hand and its
    # settlement.
    round_state = expected.rounds[1]
    for submission in submissions:
        answer, body = submission.answer, submission.body
        assert answer is not None
        assert json.loads(exported[answer["seq"] - 1]).get("id") == submission.key, answer
        settlement = round_state.tables[(body["segment"], body["table"])].settlements[body["hand"]]
        assert answer["deltas"] == {str(p): d for p, d in settlement.deltas}, submission.attempts
