"""The judges' API over HTTP on both databases (CONTRACT §3, issue 4): hands exactly once
under an Idempotency-Key, tokens scoped to one table, rule checks that name the field and
the rule, corrections and voids with reasons, commit before answer and publish, and no
refused request ever changing what was stored.

Tournaments are imported through the store; the app's own store catches up from the log.
"""

from __future__ import annotations

import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.db import queries
from app.services.processes import HEARTBEAT_STALE, Heartbeat, this_host
from app.services.store import Appended, TournamentStore, request_hash, token_hash
from tests.integration.judging_setup import (
    DRAW,
    START,
    TABLE_1,
    Setup,
    SteppingClock,
    cached_report,
    club_opening,
    discard,
    exported_report,
    hand,
    line,
    open_tournament,
    points,
    post,
    rebuilt_report,
    second_store,
    self_draw,
    snapshot,
)

HAND_1 = hand(1, 1, self_draw("ami", 10))
VOID_1 = {"round": 1, "segment": 1, "table": 1, "hand": 1, "reason": "entered twice"}


@pytest.fixture
def club(store: TournamentStore) -> Setup:
    """examples/club.jsonl before its first hand: tables 1 and 2 seated, round 1 open."""
    return open_tournament(store, club_opening())


@pytest.fixture
def app_store(client: TestClient) -> TournamentStore:
    """The store the app serves requests from (another engine on the same database)."""
    served: TournamentStore = client.app_state["store"]
    return served


def assert_problem(response: Any, status: int, field: str | None, rule: str | None) -> None:
    """The Problem shape: a sentence a judge can act on, naming the field and the rule."""
    assert response.status_code == status, response.text
    problem = response.json()
    assert set(problem) == {"detail", "field", "rule", "line"}
    assert problem["field"] == field
    assert problem["rule"] == rule
    assert isinstance(problem["detail"], str) and problem["detail"]
    if field is not None:
        assert field in problem["detail"]


def assert_unchanged(store: TournamentStore, setup: Setup, before: Any) -> None:
    assert snapshot(store, setup.tid) == before


# -- a hand, exactly once -----------------------------------------------------------------


def test_a_hand_is_entered_and_answered_with_its_points_and_the_next_dealer(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    response = post(client, club, "hands", HAND_1, key="t1-h1")

    assert response.status_code == 201, response.text
    answer = response.json()
    assert answer["tournament"] == club.tid
    assert answer["version"] == store.version(club.tid)
    assert (answer["round"], answer["segment"], answer["table"], answer["hand"]) == (1, 1, 1, 1)
    assert answer["voided"] is False
    assert answer["deltas"] == {"ami": 30, "bo": -10, "cleo": -10, "dirk": -10}  # rule HS-2
    assert answer["hands_entered"] == [1]
    assert answer["next_hand"] == 2
    assert answer["next_dealer"] == "bo"  # rule FM-7: the South seat deals hand 2
    stored = store.export(club.tid)
    assert len(stored) == len(club_opening()) + 1
    assert answer["seq"] == len(stored)
    assert '"id":"t1-h1"' in stored[-1]
    assert '"by":"judge table 1"' in stored[-1]


def test_a_retry_with_the_same_key_returns_the_first_answer_and_enters_nothing(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    first = post(client, club, "hands", HAND_1, key="t1-h1")
    assert first.status_code == 201
    after_first = snapshot(store, club.tid)

    retries = [post(client, club, "hands", HAND_1, key="t1-h1") for _ in range(3)]

    for retry in retries:
        assert retry.status_code == first.status_code
        assert retry.json() == first.json()
    assert_unchanged(store, club, after_first)


def test_a_retry_after_later_hands_still_returns_the_first_answer(
    client: TestClient, club: Setup
) -> None:
    first = post(client, club, "hands", HAND_1, key="t1-h1")
    assert post(client, club, "hands", hand(1, 2, DRAW), key="t1-h2").status_code == 201

    retry = post(client, club, "hands", HAND_1, key="t1-h1")

    assert retry.json() == first.json()
    assert retry.json()["hands_entered"] == [1]


@pytest.mark.parametrize(
    ("route", "other"),
    [
        pytest.param("hands", hand(1, 1, self_draw("ami", 11)), id="hands-other-value"),
        pytest.param("hands", hand(1, 2, self_draw("ami", 10)), id="hands-next-hand"),
        pytest.param(
            "corrections", {**hand(1, 1, self_draw("bo", 10)), "reason": "x"}, id="corrections"
        ),
        pytest.param(
            "voids", {"round": 1, "segment": 1, "table": 1, "hand": 1, "reason": "x"}, id="voids"
        ),
    ],
)
def test_the_same_key_with_another_body_is_refused_with_422(
    client: TestClient, club: Setup, store: TournamentStore, route: str, other: dict[str, Any]
) -> None:
    first = post(client, club, "hands", HAND_1, key="t1-h1")
    assert first.status_code == 201
    before = snapshot(store, club.tid)

    response = post(client, club, route, other, key="t1-h1")

    assert_problem(response, 422, "Idempotency-Key", "CONTRACT §3")
    assert "t1-h1" in response.json()["detail"]
    assert_unchanged(store, club, before)
    assert post(client, club, "hands", HAND_1, key="t1-h1").json() == first.json()


class GateClock:
    """A store clock (at `now`) that holds the first request once its Idempotency-Key claim
    is committed, the next time it asks for the time (when it writes): while held, that
    request is in progress."""

    def __init__(self, now: datetime, store: TournamentStore, tid: int, key: str) -> None:
        self.now = now
        self.held = threading.Event()
        self.release = threading.Event()
        self._claimed = (store, tid, key)
        self._first_thread: int | None = None
        self._lock = threading.Lock()

    def _claim_committed(self) -> bool:
        store, tid, key = self._claimed
        with Session(store.engine) as session:  # the test's own engine: committed rows only
            return queries.idempotency_record(session, tid, key) is not None

    def __call__(self) -> datetime:
        with self._lock:
            if self._first_thread is None:
                self._first_thread = threading.get_ident()
            mine = threading.get_ident() == self._first_thread
        if mine and not self.held.is_set() and self._claim_committed():
            self.held.set()
            assert self.release.wait(30), "the test never released the first request"
        return self.now


def test_a_request_while_the_first_with_its_key_is_in_progress_gets_409(
    client: TestClient, club: Setup, store: TournamentStore, app_store: TournamentStore
) -> None:
    gate = GateClock(START, store, club.tid, "t1-h1")
    app_store.clock = gate
    before = snapshot(store, club.tid)
    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(post, client, club, "hands", HAND_1, key="t1-h1")
        try:
            assert gate.held.wait(30), "the first request never reached its write"

            during = post(client, club, "hands", HAND_1, key="t1-h1")
            other_body = post(client, club, "hands", hand(1, 1, DRAW), key="t1-h1")
            unchanged_meanwhile = snapshot(store, club.tid)
        finally:
            gate.release.set()
        answered = first.result(timeout=30)

    assert_problem(during, 409, "Idempotency-Key", "CONTRACT §3")
    assert_problem(other_body, 422, "Idempotency-Key", "CONTRACT §3")
    assert unchanged_meanwhile == before
    assert answered.status_code == 201, answered.text
    assert post(client, club, "hands", HAND_1, key="t1-h1").json() == answered.json()
    assert len(store.export(club.tid)) == len(before[1]) + 1


def test_a_first_request_resuming_after_its_retry_took_over_does_not_enter_the_hand_twice(
    client: TestClient, club: Setup, store: TournamentStore, app_store: TournamentStore
) -> None:
    """The first request stalls (a frozen process, a long GC pause) past the abandoned-claim
    limit, so the tablet's retry takes the claim over and enters the hand. When the first
    request wakes up it must not append the hand a second time."""
    gate = GateClock(START, store, club.tid, "t1-h1")
    app_store.clock = gate
    before = snapshot(store, club.tid)
    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(post, client, club, "hands", HAND_1, key="t1-h1")
        try:
            assert gate.held.wait(30), "the first request never reached its write"
            gate.now = START + timedelta(minutes=1)  # the claim looks abandoned now
            retry = post(client, club, "hands", HAND_1, key="t1-h1")
        finally:
            gate.release.set()
        resumed = first.result(timeout=30)

    assert retry.status_code == 201, retry.text
    log = store.export(club.tid)
    assert [text for text in log if '"id":"t1-h1"' in text] == [log[len(before[1])]]
    assert store.version(club.tid) == before[0] + 1
    assert resumed.status_code in (201, 409), resumed.text
    if resumed.status_code == 201:
        assert resumed.json() == retry.json()


def test_concurrent_retries_enter_the_hand_exactly_once(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    before = snapshot(store, club.tid)

    with ThreadPoolExecutor(max_workers=6) as pool:
        responses = list(
            pool.map(lambda _: post(client, club, "hands", HAND_1, key="t1-h1"), range(6))
        )

    statuses = [response.status_code for response in responses]
    assert set(statuses) <= {201, 409}, [response.text for response in responses]
    accepted = [response.json() for response in responses if response.status_code == 201]
    assert accepted and all(answer == accepted[0] for answer in accepted)
    for response in responses:
        if response.status_code == 409:
            assert_problem(response, 409, "Idempotency-Key", "CONTRACT §3")
    log = store.export(club.tid)
    assert log[: len(before[1])] == before[1]
    assert len(log) == len(before[1]) + 1
    assert store.version(club.tid) == before[0] + 1


def test_a_refused_hand_releases_its_key_for_the_fixed_hand(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    wrong = post(client, club, "hands", hand(1, 1, self_draw("eun", 10)), key="t1-h1")
    assert_problem(wrong, 422, "result.winner", "HS-1")

    fixed = post(client, club, "hands", HAND_1, key="t1-h1")

    assert fixed.status_code == 201, fixed.text
    assert fixed.json()["deltas"]["ami"] == 30


def test_an_abandoned_claim_is_taken_over_by_a_retry(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    """A request that died with its process (a crash, a restart) leaves its key claimed;
    a retry within seconds is told to wait, a later retry takes the claim over."""
    with Session(store.engine) as session:
        fresh = datetime.now(UTC)
        assert (
            queries.claim_idempotency_key(session, club.tid, "fresh", request_hash(HAND_1), fresh)
            is None
        )
        stale = fresh - timedelta(minutes=5)
        assert (
            queries.claim_idempotency_key(session, club.tid, "stale", request_hash(HAND_1), stale)
            is None
        )

    waiting = post(client, club, "hands", HAND_1, key="fresh")
    taken_over = post(client, club, "hands", HAND_1, key="stale")

    assert_problem(waiting, 409, "Idempotency-Key", "CONTRACT §3")
    assert taken_over.status_code == 201, taken_over.text
    assert post(client, club, "hands", HAND_1, key="stale").json() == taken_over.json()


def test_a_claim_waits_only_while_its_process_is_alive(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    """Issue 14: a claim names its server process. A retry waits (409) while that process
    is alive, and takes the claim over at once when it is gone: no heartbeat row (it
    stopped), a stale heartbeat (its host is gone, or it is frozen), or a pid that is dead
    on this host (killed)."""
    now = datetime.now(UTC)
    alive = Heartbeat(store.engine, store.clock)  # another process, as far as claims go
    alive.start()
    bodies = {
        "alive": HAND_1,
        "killed": hand(1, 2, DRAW),
        "frozen": hand(1, 3, DRAW),
        "stopped": hand(1, 4, DRAW),
    }
    owners = {
        "alive": alive.identity.id,
        "killed": "killed",
        "frozen": "frozen",
        "stopped": "stopped-and-removed",
    }
    with Session(store.engine) as session:
        queries.insert_server_process(session, "killed", this_host(), _dead_pid(), now)
        long_ago = now - HEARTBEAT_STALE - timedelta(seconds=1)
        queries.insert_server_process(session, "frozen", "another-host", 1, long_ago)
        for key, body in bodies.items():
            claimed = queries.claim_idempotency_key(
                session, club.tid, key, request_hash(body), now, owners[key]
            )
            assert claimed is None

    try:
        waiting = post(client, club, "hands", HAND_1, key="alive")
    finally:
        alive.stop()
    answers = {key: post(client, club, "hands", body, key=key) for key, body in bodies.items()}

    assert_problem(waiting, 409, "Idempotency-Key", "CONTRACT §3")
    assert "still being processed" in waiting.json()["detail"]
    assert {key: answer.status_code for key, answer in answers.items()} == dict.fromkeys(
        bodies, 201
    ), {key: answer.text for key, answer in answers.items()}


def _dead_pid() -> int:
    """The pid of a process of this host that has exited and been reaped."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_keys_belong_to_their_tournament(client: TestClient, store: TournamentStore) -> None:
    first, second = open_tournament(store, club_opening()), open_tournament(store, club_opening())

    answers = [post(client, setup, "hands", HAND_1, key="t1-h1") for setup in (first, second)]

    assert [answer.status_code for answer in answers] == [201, 201]
    assert [answer.json()["tournament"] for answer in answers] == [first.tid, second.tid]


def test_the_body_id_must_match_the_idempotency_key(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    """The body is the hand fields of the log, `id` included; an `id` that is not the
    header's key is refused (judging.hand_event), not silently replaced by the key."""
    before = snapshot(store, club.tid)

    response = post(client, club, "hands", {**HAND_1, "id": "another-key"}, key="t1-h1")

    assert_problem(response, 422, "Idempotency-Key", "CONTRACT §3")
    assert_unchanged(store, club, before)


def test_a_body_id_equal_to_the_key_is_accepted(client: TestClient, club: Setup) -> None:
    response = post(client, club, "hands", {**HAND_1, "id": "t1-h1"}, key="t1-h1")

    assert response.status_code == 201, response.text


def test_a_missing_idempotency_key_is_refused_naming_the_header(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    before = snapshot(store, club.tid)

    response = client.post(club.url("hands"), json=HAND_1, headers=club.headers(1))

    assert response.status_code == 422
    assert response.json()["field"].endswith("Idempotency-Key")
    assert response.json()["rule"] == "CONTRACT §3"
    assert_unchanged(store, club, before)


# -- tokens: one table of one tournament ------------------------------------------------

EVERY_ROUTE = [
    pytest.param("hands", HAND_1, id="hands"),
    pytest.param("corrections", {**HAND_1, "reason": "wrong winner"}, id="corrections"),
    pytest.param("voids", VOID_1, id="voids"),
    pytest.param("deals", {"round": 1, "segment": 1, "table": 1, "hand": 1}, id="deals"),
    pytest.param("early-starts", {"round": 1, "segment": 1, "table": 1}, id="early-starts"),
    pytest.param(
        "seats",
        {"round": 1, "segment": 2, "table": 1, "seats": list(TABLE_1)},
        id="seats",
    ),
    pytest.param(
        "table-penalties",
        {"round": 1, "player": "ami", "points": -5, "reason": "late arrival"},
        id="table-penalties",
    ),
]


@pytest.mark.parametrize(("route", "body"), EVERY_ROUTE)
@pytest.mark.parametrize(
    "authorization",
    [
        pytest.param(None, id="no-token"),
        pytest.param("Bearer not-a-token-anybody-was-given", id="unknown-token"),
        pytest.param("Basic YW1pOmJv", id="not-a-bearer"),
        pytest.param("Bearer ", id="empty-bearer"),
    ],
)
def test_every_judge_route_needs_a_known_table_token(
    client: TestClient,
    club: Setup,
    store: TournamentStore,
    route: str,
    body: dict[str, Any],
    authorization: str | None,
) -> None:
    before = snapshot(store, club.tid)
    headers = {"Idempotency-Key": "k"}
    if authorization is not None:
        headers["Authorization"] = authorization

    response = client.post(club.url(route), json=body, headers=headers)

    assert_problem(response, 401, None, None)
    assert response.headers["www-authenticate"] == "Bearer"
    assert_unchanged(store, club, before)


@pytest.mark.parametrize(("route", "body"), EVERY_ROUTE)
def test_a_token_cannot_write_to_another_table(
    client: TestClient, club: Setup, store: TournamentStore, route: str, body: dict[str, Any]
) -> None:
    if route in ("corrections", "voids"):  # give the other table's judge something to fix
        assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201
    before = snapshot(store, club.tid)

    response = post(client, club, route, body, table=2, key="from-table-2")

    # rule PN-1: a penalty's refusal names the player, who is not at the judge's table
    expected = ("player", "PN-1") if route == "table-penalties" else (None, None)
    assert_problem(response, 403, *expected)
    assert_unchanged(store, club, before)


@pytest.mark.parametrize(("route", "body"), EVERY_ROUTE)
def test_a_token_cannot_write_to_another_tournament(
    client: TestClient, club: Setup, store: TournamentStore, route: str, body: dict[str, Any]
) -> None:
    other = open_tournament(store, club_opening())
    before = snapshot(store, other.tid)
    foreign = Setup(other.tid, club.tokens)  # table 1's token of the first tournament

    response = post(client, foreign, route, body, key="foreign")

    assert_problem(response, 403, None, None)
    assert snapshot(store, other.tid) == before


def test_a_token_works_for_its_own_table_and_no_other(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    mine = post(client, club, "hands", hand(2, 1, self_draw("eun", 8)), table=2, key="t2-h1")
    theirs = post(client, club, "hands", HAND_1, table=2, key="t2-for-t1")

    assert mine.status_code == 201, mine.text
    assert_problem(theirs, 403, None, None)
    assert "table 2" in theirs.json()["detail"]


# -- the rules, refused with the field and the rule --------------------------------------

REFUSED_HANDS = [
    pytest.param(hand(1, 2, DRAW), 409, "hand", "CONTRACT §1", id="hand-out-of-order"),
    pytest.param(hand(1, 9, DRAW), 409, "hand", "FM-2", id="hand-beyond-the-half"),
    pytest.param(hand(1, 1, DRAW, segment=5), 422, "segment", "FM-2", id="no-such-half"),
    pytest.param(hand(1, 1, DRAW, segment=2), 409, "table", "SE-1", id="half-not-seated"),
    pytest.param(hand(1, 1, DRAW, round=2), 409, "round", "FM-1", id="round-not-begun"),
    pytest.param(hand(1, 1, DRAW, round=3), 422, "round", "FM-1", id="round-not-in-format"),
    pytest.param(
        hand(1, 1, self_draw("eun", 10)), 422, "result.winner", "HS-1", id="winner-elsewhere"
    ),
    pytest.param(
        hand(1, 1, self_draw("zed", 10)), 422, "result.winner", "HS-1", id="winner-unknown"
    ),
    pytest.param(
        hand(1, 1, discard("ami", "hugo", 10)),
        422,
        "result.discarder",
        "HS-1",
        id="discarder-elsewhere",
    ),
    pytest.param(
        hand(1, 1, discard("ami", "ami", 10)),
        422,
        "result.discarder",
        "HS-1",
        id="discards-to-self",
    ),
    pytest.param(hand(1, 1, self_draw("ami", 4)), 422, "result.value", "HS-3", id="value-low"),
    pytest.param(hand(1, 1, self_draw("ami", 0)), 422, "result.value", "HS-3", id="value-0"),
    pytest.param(
        hand(1, 1, discard("ami", "bo", 321)), 422, "result.value", "HS-3", id="value-high"
    ),
    pytest.param(
        hand(1, 1, points(ami=30, bo=-10, cleo=-10, dirk=-9)),
        422,
        "result.deltas",
        "HS-7",
        id="points-not-zero-sum",
    ),
    pytest.param(
        hand(1, 1, points(ami=30, bo=-30, cleo=0)),
        422,
        "result.deltas.dirk",
        "HS-7",
        id="points-missing-a-player",
    ),
    pytest.param(
        hand(1, 1, points(ami=30, bo=-30, cleo=0, dirk=0, eun=0)),
        422,
        "result.deltas.eun",
        "HS-1",
        id="points-for-a-player-elsewhere",
    ),
    pytest.param(
        hand(1, 1, {**points(ami=30, bo=-30, cleo=0, dirk=0), "winner": "ami"}),
        422,
        "result.value",
        "HS-7",
        id="points-winner-without-value",
    ),
    pytest.param(
        hand(1, 1, {**points(ami=90, bo=-30, cleo=-30, dirk=-30), "winner": "ami", "value": 2}),
        422,
        "result.value",
        "HS-3",
        id="points-value-low",
    ),
    pytest.param(
        {key: value for key, value in HAND_1.items() if key != "result"},
        422,
        "result",
        "HS-1",
        id="no-result",
    ),
    pytest.param(
        hand(1, 1, {"kind": "kong", "winner": "ami", "value": 10}),
        422,
        "result.kind",
        "HS-1",
        id="unknown-kind",
    ),
    pytest.param(
        hand(1, 1, {"kind": "tsumo", "winner": "ami", "fan": 1, "fu": 30, "yaku": 1}),
        422,
        "result.kind",
        "HS-1",
        id="ariari-kind-at-a-wsom-table",
    ),
    pytest.param({**HAND_1, "round": 0}, 422, "round", "FM-1", id="round-0"),
    pytest.param({**HAND_1, "hand": "first"}, 422, "hand", "FM-7", id="hand-not-int"),
]


@pytest.mark.parametrize(("body", "status", "field", "rule"), REFUSED_HANDS)
def test_a_hand_that_breaks_a_rule_is_refused_naming_field_and_rule(
    client: TestClient,
    club: Setup,
    store: TournamentStore,
    body: dict[str, Any],
    status: int,
    field: str,
    rule: str,
) -> None:
    before = snapshot(store, club.tid)

    response = post(client, club, "hands", body, key="t1-h1")

    assert_problem(response, status, field, rule)
    assert_unchanged(store, club, before)
    # The refusal kept no claim on the key: the same key enters the hand once it is fixed.
    assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201


@pytest.mark.parametrize("value", [5, 320])
def test_the_bounds_of_a_winning_value_are_accepted(
    client: TestClient, club: Setup, value: int
) -> None:
    response = post(client, club, "hands", hand(1, 1, discard("ami", "bo", value)), key="h")

    assert response.status_code == 201, response.text
    assert response.json()["deltas"]["ami"] == 3 * value  # rule HS-2: the winner collects 3v


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b'{"round": 1, "segment":', id="cut-short"),
        pytest.param(b"\xff\xfe", id="not-text"),
        pytest.param(b'{"round": 1, "result": "\xe9"}', id="not-utf-8"),
    ],
)
def test_a_body_that_is_not_json_is_refused_naming_the_body(
    client: TestClient, club: Setup, store: TournamentStore, content: bytes
) -> None:
    before = snapshot(store, club.tid)

    response = client.post(
        club.url("hands"),
        content=content,
        headers={**club.headers(1, "t1-h1"), "Content-Type": "application/json"},
    )

    assert_problem(response, 422, "body", "CONTRACT §3")
    assert_unchanged(store, club, before)


def test_a_full_half_takes_no_ninth_hand(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    answers = [
        post(client, club, "hands", hand(1, number, DRAW), key=f"t1-h{number}")
        for number in range(1, 9)
    ]
    assert [answer.status_code for answer in answers] == [201] * 8
    last = answers[-1].json()
    assert last["hands_entered"] == list(range(1, 9))
    assert (last["next_hand"], last["next_dealer"]) == (None, None)  # the half is finished
    before = snapshot(store, club.tid)

    ninth = post(client, club, "hands", hand(1, 9, DRAW), key="t1-h9")

    assert_problem(ninth, 409, "hand", "FM-2")
    assert "finished" in ninth.json()["detail"]
    assert_unchanged(store, club, before)


def test_a_closed_segment_takes_no_new_hand_but_takes_corrections(
    client: TestClient, store: TournamentStore
) -> None:
    closed = open_tournament(
        store,
        [
            *club_opening(),
            line({**HAND_1, "type": "hand", "id": "t1-h1"}),
            line({"type": "segment_end", "round": 1, "segment": 1, "group": "A"}),
        ],
    )
    before = snapshot(store, closed.tid)

    new_hand = post(client, closed, "hands", hand(1, 2, DRAW), key="t1-h2")
    deal = post(client, closed, "deals", {"round": 1, "segment": 1, "table": 1, "hand": 2})

    assert_problem(new_hand, 409, "segment", "CL-3")
    assert_problem(deal, 409, "segment", "CL-3")
    assert_unchanged(store, closed, before)
    other_group = post(client, closed, "hands", hand(2, 1, DRAW), table=2, key="t2-h1")
    assert other_group.status_code == 201  # group B's half 1 is still being played
    correction = {**hand(1, 1, self_draw("bo", 10)), "reason": "bo won, not ami"}
    fixed = post(client, closed, "corrections", correction, key="t1-h1-fix")
    assert fixed.status_code == 201, fixed.text
    assert fixed.json()["deltas"]["bo"] == 30


def test_a_timed_half_takes_only_hands_dealt_before_its_deadline(
    client: TestClient, store: TournamentStore, app_store: TournamentStore
) -> None:
    """rules CL-2, CL-3: the server's clock stamps deals; no new hand after the deadline."""
    start = START.strftime("%Y-%m-%dT%H:%M:%SZ")
    timed = open_tournament(
        store,
        [
            *club_opening(),
            line({"type": "schedule", "round": 1, "segment": 1, "group": "A", "start": start}),
        ],
    )
    clock = SteppingClock(START - timedelta(minutes=3))
    app_store.clock = clock
    where = {"round": 1, "segment": 1, "table": 1}

    early = post(client, timed, "early-starts", where)
    undealt = post(client, timed, "hands", HAND_1, key="t1-h1")
    dealt = post(client, timed, "deals", {**where, "hand": 1})
    entered = post(client, timed, "hands", HAND_1, key="t1-h1")
    clock.advance(minutes=80)  # 70 minutes from the scheduled start have passed (rule CL-1)
    late_deal = post(client, timed, "deals", {**where, "hand": 2})

    assert early.status_code == 201, early.text
    assert early.json()["lines"][0]["time"] == "2026-07-04T08:57:00Z"
    assert_problem(undealt, 409, "hand", "CL-3")
    assert dealt.status_code == 201, dealt.text
    assert dealt.json()["lines"][0]["time"] == "2026-07-04T08:57:00Z"
    assert entered.status_code == 201, entered.text
    assert late_deal.status_code == 409
    assert late_deal.json()["rule"] == "CL-3"


def test_an_early_start_too_early_is_refused(
    client: TestClient, store: TournamentStore, app_store: TournamentStore
) -> None:
    start = START.strftime("%Y-%m-%dT%H:%M:%SZ")
    timed = open_tournament(
        store,
        [
            *club_opening(),
            line({"type": "schedule", "round": 1, "segment": 1, "group": "A", "start": start}),
        ],
    )
    app_store.clock = SteppingClock(START - timedelta(minutes=6))  # WSOM 2008: 5 at most
    before = snapshot(store, timed.tid)

    response = post(client, timed, "early-starts", {"round": 1, "segment": 1, "table": 1})

    assert response.status_code in (409, 422)
    assert response.json()["rule"] == "CL-2"
    assert_unchanged(store, timed, before)


# -- corrections and voids ----------------------------------------------------------------


def test_a_correction_replaces_the_hand_and_the_log_keeps_both_with_the_reason(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201
    correction = {**hand(1, 1, discard("bo", "ami", 30)), "reason": "bo won on ami's discard"}

    response = post(client, club, "corrections", correction, key="t1-h1-fix")

    assert response.status_code == 201, response.text
    assert response.json()["deltas"] == {"ami": -40, "bo": 90, "cleo": -25, "dirk": -25}
    assert response.json()["hands_entered"] == [1]
    with Session(store.engine) as session:
        audit = queries.table_lines(session, club.tid, 1)
    hands = [row for row in audit if row.type == "hand"]
    assert len(hands) == 2
    assert '"reason":"bo won on ami\'s discard"' in hands[1].body
    assert '"id":"t1-h1-fix"' in hands[1].body
    plays = {
        row["player"]: row["play"]
        for row in exported_report(store, club.tid)["rounds"][0]["standings"]
    }
    assert (plays["ami"], plays["bo"]) == ("-40", "90")


def test_a_correction_of_a_hand_never_entered_is_refused(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    before = snapshot(store, club.tid)
    correction = {**HAND_1, "reason": "wrong winner"}

    response = post(client, club, "corrections", correction, key="fix")

    assert_problem(response, 409, "hand", "CONTRACT §1")
    assert_unchanged(store, club, before)


@pytest.mark.parametrize("route", ["corrections", "voids"])
@pytest.mark.parametrize("reason", [None, ""])
def test_a_correction_or_a_void_needs_a_reason(
    client: TestClient, club: Setup, store: TournamentStore, route: str, reason: str | None
) -> None:
    assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201
    before = snapshot(store, club.tid)
    body: dict[str, Any] = {**(HAND_1 if route == "corrections" else VOID_1), "reason": reason}
    if reason is None:
        del body["reason"]

    response = post(client, club, route, body, key="fix")

    assert_problem(response, 422, "reason", "CONTRACT §3")
    assert_unchanged(store, club, before)


def test_hands_does_not_take_a_hand_already_entered(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    """A second entry of hand 1 under a new key is not a correction: corrections go through
    their own route, with a reason (issue 4). Otherwise a second tablet, or a tablet that
    lost its key, silently replaces a hand."""
    assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201
    before = snapshot(store, club.tid)

    again = post(client, club, "hands", hand(1, 1, self_draw("bo", 40)), key="t1-h1-again")

    assert again.status_code == 409, again.text
    assert again.json()["field"] == "hand"
    assert_unchanged(store, club, before)


def test_a_void_withdraws_the_hand_with_its_reason(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201
    assert (
        post(client, club, "hands", hand(1, 2, self_draw("bo", 8)), key="t1-h2").status_code == 201
    )
    void = {
        "round": 1,
        "segment": 1,
        "table": 1,
        "hand": 2,
        "reason": "entered on table 1 by mistake",
    }

    response = post(client, club, "voids", void, key="t1-h2-void")

    assert response.status_code == 201, response.text
    answer = response.json()
    assert answer["voided"] is True
    assert answer["deltas"] is None
    assert answer["hands_entered"] == [1]
    assert answer["next_hand"] == 2
    last = store.export(club.tid)[-1]
    assert '"type":"void"' in last and '"reason":"entered on table 1 by mistake"' in last
    plays = {
        row["player"]: row["play"]
        for row in exported_report(store, club.tid)["rounds"][0]["standings"]
    }
    assert (plays["ami"], plays["bo"]) == ("30", "-10")
    # The hand can be entered again, now right.
    again = post(client, club, "hands", hand(1, 2, DRAW), key="t1-h2-again")
    assert again.status_code == 201, again.text
    assert again.json()["hands_entered"] == [1, 2]


def test_a_hand_cannot_be_voided_twice_or_before_it_exists(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    void = {"round": 1, "segment": 1, "table": 1, "hand": 1, "reason": "mistake"}
    never = post(client, club, "voids", void, key="void-0")
    assert_problem(never, 409, "hand", "CONTRACT §1")
    assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201
    assert post(client, club, "voids", void, key="void-1").status_code == 201
    before = snapshot(store, club.tid)

    twice = post(client, club, "voids", void, key="void-2")

    assert_problem(twice, 409, "hand", "CONTRACT §1")
    assert_unchanged(store, club, before)


def test_the_audit_list_of_a_table_shows_every_change_with_its_author(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    assert post(client, club, "hands", HAND_1, key="t1-h1").status_code == 201
    assert post(client, club, "hands", hand(2, 1, DRAW), table=2, key="t2-h1").status_code == 201
    correction = {**hand(1, 1, self_draw("cleo", 10)), "reason": "cleo, not ami"}
    assert post(client, club, "corrections", correction, key="t1-h1-fix").status_code == 201
    void = {"round": 1, "segment": 1, "table": 1, "hand": 1, "reason": "table was not playing"}
    assert post(client, club, "voids", void, key="t1-h1-void").status_code == 201

    with Session(store.engine) as session:
        audit = list(queries.table_lines(session, club.tid, 1))
        token = queries.token_by_hash(session, token_hash(club.tokens[1]))

    assert [row.type for row in audit] == ["seating", "hand", "hand", "void"]
    assert [row.seq for row in audit] == sorted(row.seq for row in audit)
    judged = audit[1:]
    assert {row.entered_by for row in judged} == {"judge"}
    assert token is not None and {row.token_id for row in judged} == {token.id}
    assert all('"by":"judge table 1"' in row.body for row in judged)
    assert '"reason":"cleo, not ami"' in judged[1].body
    assert '"reason":"table was not playing"' in judged[2].body
    assert all(row.table_number == 1 for row in audit)  # table 2's hand is not listed


def by_player(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(changes, key=lambda change: change["player"])


def test_a_correction_that_moves_players_across_the_cut_reports_them(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    """rule ST-3: 4 of 8 advance. Direct points (rule HS-7) give distinct totals, so no
    tie is left at the line for the tie-break to decide."""
    table_1 = hand(1, 1, points(ami=40, bo=10, cleo=-20, dirk=-30))
    table_2 = hand(2, 1, points(eun=30, finn=20, gwen=-15, hugo=-35))
    assert post(client, club, "hands", table_1, key="t1-h1").status_code == 201
    assert post(client, club, "hands", table_2, table=2, key="t2-h1").status_code == 201
    # Above the line: ami 40, eun 30, finn 20, bo 10. Below: gwen -15, cleo -20, dirk, hugo.
    correction = {
        **hand(1, 1, points(ami=40, bo=-25, cleo=15, dirk=-30)),
        "reason": "bo and cleo swapped on the slip",
    }

    response = post(client, club, "corrections", correction, key="t1-h1-fix")

    assert response.status_code == 201, response.text
    changes = response.json()["cut_changes"]
    assert by_player(changes) == [
        {"player": "bo", "now": "below"},
        {"player": "cleo", "now": "above"},
    ]
    retry = post(client, club, "corrections", correction, key="t1-h1-fix")
    assert retry.json()["cut_changes"] == changes


def test_a_void_that_moves_players_across_the_cut_reports_them(
    client: TestClient, club: Setup
) -> None:
    opening = [
        (hand(1, 1, points(ami=40, bo=-25, cleo=15, dirk=-30)), 1),
        (hand(2, 1, points(eun=30, finn=20, gwen=-15, hugo=-35)), 2),
    ]
    for number, (body, table) in enumerate(opening):
        assert post(client, club, "hands", body, table=table, key=f"h{number}").status_code == 201
    # Above: ami 40, eun 30, finn 20, cleo 15. Then gwen takes 40 from finn.
    swing = post(
        client,
        club,
        "hands",
        hand(2, 2, points(eun=0, finn=-40, gwen=40, hugo=0)),
        table=2,
        key="s",
    )
    assert by_player(swing.json()["cut_changes"]) == [
        {"player": "finn", "now": "below"},
        {"player": "gwen", "now": "above"},
    ]
    void = {"round": 1, "segment": 1, "table": 2, "hand": 2, "reason": "entered on the wrong day"}

    voided = post(client, club, "voids", void, table=2, key="v")

    assert voided.status_code == 201, voided.text
    assert by_player(voided.json()["cut_changes"]) == [
        {"player": "finn", "now": "above"},
        {"player": "gwen", "now": "below"},
    ]


def test_a_correction_within_one_side_of_the_cut_reports_nobody(
    client: TestClient, club: Setup
) -> None:
    assert (
        post(
            client, club, "hands", hand(1, 1, points(ami=40, bo=10, cleo=-20, dirk=-30)), key="a"
        ).status_code
        == 201
    )
    assert (
        post(
            client,
            club,
            "hands",
            hand(2, 1, points(eun=30, finn=20, gwen=-15, hugo=-35)),
            table=2,
            key="b",
        ).status_code
        == 201
    )
    correction = {**hand(1, 1, points(ami=41, bo=9, cleo=-20, dirk=-30)), "reason": "a point"}

    response = post(client, club, "corrections", correction, key="c")

    assert response.json()["cut_changes"] == []


# -- the other table events ---------------------------------------------------------------


def test_seats_drawn_at_the_table_are_recorded_and_checked(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    seats = {"round": 1, "segment": 2, "table": 1, "seats": ["dirk", "ami", "bo", "cleo"]}

    recorded = post(client, club, "seats", seats)
    mixed = post(client, club, "seats", {**seats, "seats": ["dirk", "ami", "bo", "eun"]})
    twice = post(client, club, "seats", {**seats, "seats": ["dirk", "dirk", "bo", "cleo"]})

    assert recorded.status_code == 201, recorded.text
    assert recorded.json()["lines"][0]["seats"] == ["dirk", "ami", "bo", "cleo"]
    assert recorded.json()["lines"][0]["by"] == "judge table 1"
    assert_problem(mixed, 422, "seats", "FM-2")
    assert_problem(twice, 422, "seats", "FM-9")
    first_hand = post(client, club, "hands", hand(1, 1, DRAW, segment=2), key="s2-h1")
    assert first_hand.json()["next_dealer"] == "ami"  # rule FM-7: the new South deals hand 2
    again = post(client, club, "seats", seats)  # the same seats: the seating in the log
    assert again.status_code == 200, again.text
    assert again.json()["already"] == "recorded"
    assert again.json()["seq"] == recorded.json()["seq"]
    reseat = post(client, club, "seats", {**seats, "seats": ["ami", "dirk", "bo", "cleo"]})
    assert_problem(reseat, 409, "seats", "SE-5")


def test_a_judge_penalizes_only_players_at_their_table(
    client: TestClient, club: Setup, store: TournamentStore
) -> None:
    penalty = {"round": 1, "player": "dirk", "points": -5, "reason": "late arrival"}

    given = post(client, club, "table-penalties", penalty)
    before = snapshot(store, club.tid)
    elsewhere = post(client, club, "table-penalties", {**penalty, "player": "eun"})
    no_reason = post(client, club, "table-penalties", {**penalty, "reason": ""})

    assert given.status_code == 201, given.text
    assert given.json()["lines"][0]["reason"] == "late arrival"
    assert_problem(elsewhere, 403, "player", "PN-1")
    assert_problem(no_reason, 422, "reason", "CONTRACT §3")
    assert_unchanged(store, club, before)
    plays = {
        row["player"]: row["play"]
        for row in exported_report(store, club.tid)["rounds"][0]["standings"]
    }
    assert plays["dirk"] == "-5"  # rule PN-1: it counts in the play score


# -- commit, then answer and publish ------------------------------------------------------


def test_an_accepted_hand_is_committed_before_it_is_published_or_answered(
    client: TestClient,
    club: Setup,
    store: TournamentStore,
    app_store: TournamentStore,
    database_url: str,
) -> None:
    published: list[tuple[Appended, list[str], bool]] = []

    with second_store(database_url) as observer:

        def subscriber(appended: Appended) -> None:
            # Another engine, a new session: it sees only what was committed.
            with Session(observer.engine) as session:
                rows = queries.lines_after(session, appended.tournament_id, 0)
                record = queries.idempotency_record(session, appended.tournament_id, "t1-h1")
                published.append(
                    (appended, [row.body for row in rows], bool(record and record.done))
                )

        app_store.subscribers.append(subscriber)
        response = post(client, club, "hands", HAND_1, key="t1-h1")
        committed = store.export(club.tid)

        assert response.status_code == 201
        assert len(published) == 1
        appended, visible, answer_stored = published[0]
        assert appended.lines[0] in visible  # the row was visible when the display heard
        assert answer_stored  # and a retry would already get the stored answer
        assert committed[-1] == appended.lines[0]  # committed when the judge got the answer
        assert response.json()["seq"] == appended.first_seq

        post(client, club, "hands", HAND_1, key="t1-h1")  # a retry: nothing new to publish
        post(client, club, "hands", hand(1, 3, DRAW), key="t1-h3")  # refused: nothing either
        assert len(published) == 1


# -- nothing stored is lost to bad input ---------------------------------------------------

BAD_REQUESTS = [
    pytest.param("hands", hand(1, 3, DRAW), 1, "k-new", id="out-of-order"),
    pytest.param("hands", hand(1, 1, self_draw("ami", 400)), 1, "k-new", id="value-high"),
    pytest.param("hands", hand(1, 2, DRAW), 2, "k-new", id="other-table"),
    pytest.param("hands", hand(1, 2, DRAW), 1, "t1-h1", id="key-reused"),
    pytest.param("hands", {"round": 1}, 1, "k-new", id="fields-missing"),
    pytest.param("corrections", {**hand(1, 5, DRAW), "reason": "x"}, 1, "k-new", id="corr-absent"),
    pytest.param(
        "corrections",
        {**hand(1, 1, self_draw("gwen", 8)), "reason": "x"},
        1,
        "k-new",
        id="corr-player-elsewhere",
    ),
    pytest.param(
        "voids",
        {"round": 1, "segment": 1, "table": 1, "hand": 7, "reason": "x"},
        1,
        "k-new",
        id="void-absent",
    ),
    pytest.param(
        "deals", {"round": 1, "segment": 1, "table": 1, "hand": 5}, 1, None, id="deal-ahead"
    ),
    pytest.param(
        "seats",
        {"round": 1, "segment": 1, "table": 1, "seats": list(reversed(TABLE_1))},
        1,
        None,
        id="reseat-after-hands",
    ),
    pytest.param(
        "table-penalties",
        {"round": 1, "player": "hugo", "points": -5, "reason": "x"},
        1,
        None,
        id="penalty-elsewhere",
    ),
    pytest.param("early-starts", {"round": 1, "segment": 1, "table": 1}, 1, None, id="early"),
]


@pytest.mark.parametrize(("route", "body", "table", "key"), BAD_REQUESTS)
def test_a_refused_request_loses_nothing_stored_before_it(
    client: TestClient,
    club: Setup,
    store: TournamentStore,
    app_store: TournamentStore,
    route: str,
    body: dict[str, Any],
    table: int,
    key: str | None,
) -> None:
    first = post(client, club, "hands", HAND_1, key="t1-h1")
    assert first.status_code == 201
    before = snapshot(store, club.tid)
    report_before = cached_report(app_store, club.tid)

    response = post(client, club, route, body, table=table, key=key)

    assert 400 <= response.status_code < 500, response.text
    assert response.json()["detail"]
    assert_unchanged(store, club, before)
    assert cached_report(app_store, club.tid) == report_before == rebuilt_report(store, club.tid)
    assert post(client, club, "hands", HAND_1, key="t1-h1").json() == first.json()
    assert post(client, club, "hands", hand(1, 2, DRAW), key="t1-h2").status_code == 201


# -- the cache is what a rebuild from the log gives ---------------------------------------


def test_rebuild_gives_the_same_standings_after_a_series_of_judges_requests(
    client: TestClient,
    club: Setup,
    store: TournamentStore,
    app_store: TournamentStore,
    database_url: str,
) -> None:
    cached_report(store, club.tid)  # the test's store caches the tournament now
    series: list[tuple[str, dict[str, Any], int, str | None]] = [
        ("hands", hand(1, 1, discard("ami", "bo", 30)), 1, "t1-h1"),
        ("hands", hand(2, 1, self_draw("eun", 12)), 2, "t2-h1"),
        ("hands", hand(1, 2, self_draw("cleo", 8)), 1, "t1-h2"),
        ("hands", hand(1, 4, DRAW), 1, "refused-out-of-order"),
        ("hands", hand(2, 2, discard("finn", "hugo", 12)), 2, "t2-h2"),
        ("corrections", {**hand(2, 2, discard("finn", "gwen", 12)), "reason": "gwen"}, 2, "t2-fix"),
        ("hands", hand(1, 3, points(ami=-6, bo=6, cleo=0, dirk=0)), 1, "t1-h3"),
        ("voids", {"round": 1, "segment": 1, "table": 1, "hand": 3, "reason": "x"}, 1, "t1-v3"),
        ("hands", hand(1, 3, self_draw("dirk", 320)), 1, "t1-h3-again"),
        (
            "table-penalties",
            {"round": 1, "player": "dirk", "points": -5, "reason": "late"},
            1,
            None,
        ),
        ("hands", hand(2, 3, self_draw("eun", 4)), 2, "refused-value"),
        ("corrections", {**hand(1, 1, discard("bo", "ami", 26)), "reason": "bo"}, 1, "t1-fix"),
    ]
    statuses = [
        post(client, club, route, body, table=table, key=key).status_code
        for route, body, table, key in series
    ]
    assert statuses == [201, 201, 201, 409, 201, 201, 201, 201, 201, 201, 422, 201]

    served = cached_report(app_store, club.tid)
    assert served == rebuilt_report(app_store, club.tid)
    assert served == cached_report(store, club.tid)  # caught up from the log
    assert served == rebuilt_report(store, club.tid)
    assert served == exported_report(store, club.tid)
    with second_store(database_url) as fresh:
        assert cached_report(fresh, club.tid) == served
    plays = {row["player"]: row["play"] for row in served["rounds"][0]["standings"]}
    # bo: +78 (hand 1 as corrected), -8 (hand 2), -320 (hand 3 entered again);
    # dirk: -25, -8, +960, and the penalty of -5 (rule PN-1)
    assert plays["bo"] == str(78 - 8 - 320)
    assert plays["dirk"] == str(-25 - 8 + 960 - 5)
