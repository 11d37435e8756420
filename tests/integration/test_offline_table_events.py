"""Deals, early starts and seats from a tablet's outbox (issue 13, section 2): each carries
the tablet's time of the event and reaches the server whenever the network allows; each is
recorded exactly once (the same deal twice is one deal); a tablet whose clock is off by more
than 30 seconds is refused, and the head judge records the event by hand, with a reason.

The server's clock is a SteppingClock, so "the network came back after the deadline" is a
line of the test, not a wait.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.domain.log import format_time
from app.read.views import States
from app.services.judging import TABLET_CLOCK_BOUND
from app.services.store import TournamentStore
from tests.integration.judging_setup import (
    DRAW,
    START,
    Setup,
    SteppingClock,
    cached_report,
    club_opening,
    exported_report,
    hand,
    line,
    open_tournament,
    post,
    rebuilt_report,
    self_draw,
    snapshot,
)

WHERE = {"round": 1, "segment": 1, "table": 1}
DEADLINE = START + timedelta(minutes=70)  # rule CL-1: a WSOM 2008 half of round 1


@pytest.fixture
def app_store(client: TestClient) -> TournamentStore:
    served: TournamentStore = client.app_state["store"]
    return served


@pytest.fixture
def timed(store: TournamentStore) -> Setup:
    """The club night with group A's first half scheduled at START (so a 70-minute limit)."""
    start = format_time(START)
    schedule = {"type": "schedule", "round": 1, "segment": 1, "group": "A", "start": start}
    return open_tournament(store, [*club_opening(), line(schedule)])


@pytest.fixture
def clock(app_store: TournamentStore) -> SteppingClock:
    stepping = SteppingClock(START)
    app_store.clock = stepping
    return stepping


def tablet_deal(hand_number: int, at: datetime, sent: datetime) -> dict[str, Any]:
    """A deal as the tablet's outbox sends it: its time of the deal and of the sending."""
    return {**WHERE, "hand": hand_number, "time": format_time(at), "sent": format_time(sent)}


def deal_lines(store: TournamentStore, tid: int) -> list[dict[str, Any]]:
    lines = [json.loads(text) for text in store.export(tid)]
    return [line for line in lines if line["type"] == "deal"]


def test_a_whole_half_dealt_offline_lands_after_the_deadline_with_the_tablets_times(
    client: TestClient, timed: Setup, store: TournamentStore, clock: SteppingClock
) -> None:
    """The tablet played all 8 hands offline, each dealt before the deadline; the network
    came back 20 minutes after it. Every deal and hand is accepted, in order (rule CL-3:
    the deal's time is when the tiles were dealt, not when the server heard of it)."""
    clock.now = DEADLINE + timedelta(minutes=20)
    answers = []
    for number in range(1, 9):
        dealt = START + timedelta(minutes=8 * number - 7)
        answers.append(post(client, timed, "deals", tablet_deal(number, dealt, clock.now)))
        answers.append(post(client, timed, "hands", hand(1, number, DRAW), key=f"t1-h{number}"))
        clock.advance(seconds=1)

    assert [answer.status_code for answer in answers] == [201] * 16, [a.text for a in answers]
    deals = deal_lines(store, timed.tid)
    assert [deal["hand"] for deal in deals] == list(range(1, 9))
    first = deals[0]
    # Both moments are kept, and the audit list shows them: when it was dealt on the tablet
    # (`time`), the tablet's clock when it sent it (`sent`) and when it arrived (`at`).
    assert first["time"] == "2026-07-04T09:01:00Z"
    assert first["sent"] == first["at"] == "2026-07-04T10:30:00Z"
    audit = client.get(timed.url("tables/1/audit")).json()["lines"]
    audited = next(entry for entry in audit if entry["line"]["type"] == "deal")
    assert audited["line"]["time"] == "2026-07-04T09:01:00Z"
    assert audited["entered_at"] == "2026-07-04T10:30:00Z"
    # Replaying the log gives what the live server has: the deal's time is the tablet's.
    report = cached_report(store, timed.tid)
    assert report == rebuilt_report(store, timed.tid) == exported_report(store, timed.tid)


def test_the_same_deal_sent_again_is_the_deal_in_the_log_never_refused_nor_doubled(
    client: TestClient, timed: Setup, store: TournamentStore, clock: SteppingClock
) -> None:
    dealt = START + timedelta(minutes=1)
    clock.now = START + timedelta(minutes=2)
    first = post(client, timed, "deals", tablet_deal(1, dealt, clock.now))
    after_first = snapshot(store, timed.tid)

    # The answer was lost: the outbox sends it again, later, with a new `sent`.
    clock.advance(minutes=3)
    retry = post(client, timed, "deals", tablet_deal(1, dealt, clock.now))
    # A second tablet at the table recorded the same deal a few seconds later.
    other = post(client, timed, "deals", tablet_deal(1, dealt + timedelta(seconds=4), clock.now))
    # The server's clock, with no time of the tablet's (curl, an older tablet).
    plain = post(client, timed, "deals", {**WHERE, "hand": 1})

    assert first.status_code == 201, first.text
    assert snapshot(store, timed.tid) == after_first
    for again in (retry, other, plain):
        assert again.status_code == 200, again.text
        assert again.json()["already"] == "recorded"
        assert again.json()["seq"] == first.json()["seq"]
        assert again.json()["lines"] == first.json()["lines"]
    assert first.json()["already"] is None
    # Still so after the hand is entered; and the deal of a hand entered without one (no
    # deal needed: here, before the deadline) is answered as entered, not refused.
    assert post(client, timed, "hands", hand(1, 1, DRAW), key="t1-h1").status_code == 201
    late_retry = post(client, timed, "deals", tablet_deal(1, dealt, clock.now))
    assert (late_retry.status_code, late_retry.json()["already"]) == (200, "recorded")
    assert len(deal_lines(store, timed.tid)) == 1


def test_the_deal_of_a_hand_entered_without_one_is_answered_as_entered(
    client: TestClient, store: TournamentStore
) -> None:
    untimed = open_tournament(store, club_opening())  # no schedule: no deal is needed (CL-3a)
    assert post(client, untimed, "hands", hand(1, 1, DRAW), key="t1-h1").status_code == 201
    before = snapshot(store, untimed.tid)

    moot = post(client, untimed, "deals", {**WHERE, "hand": 1})

    assert moot.status_code == 200, moot.text
    assert (moot.json()["already"], moot.json()["lines"]) == ("entered", [])
    assert snapshot(store, untimed.tid) == before


def test_an_early_start_sent_again_is_the_one_in_the_log(
    client: TestClient, timed: Setup, store: TournamentStore, clock: SteppingClock
) -> None:
    clock.now = START - timedelta(minutes=2)
    agreed = START - timedelta(minutes=4)  # rule CL-2: at most 5 minutes early
    body = {**WHERE, "time": format_time(agreed), "sent": format_time(clock.now)}

    first = post(client, timed, "early-starts", body)
    retry = post(client, timed, "early-starts", {**body, "sent": format_time(clock.now)})
    plain = post(client, timed, "early-starts", WHERE)

    assert first.status_code == 201, first.text
    assert first.json()["lines"][0]["time"] == "2026-07-04T08:56:00Z"
    for again in (retry, plain):
        assert (again.status_code, again.json()["already"]) == (200, "recorded"), again.text
        assert again.json()["lines"] == first.json()["lines"]
    # The deal of hand 1 at 08:57 is in time: the table started at 08:56 (rule CL-2).
    dealt = post(client, timed, "deals", tablet_deal(1, agreed + timedelta(minutes=1), clock.now))
    assert dealt.status_code == 201, dealt.text


def test_the_tablets_time_counts_for_every_rule_of_the_deal(
    client: TestClient, timed: Setup, store: TournamentStore, clock: SteppingClock
) -> None:
    """A tablet's time after the deadline is late however it travels (rule CL-3)."""
    clock.now = DEADLINE + timedelta(minutes=5)
    before = snapshot(store, timed.tid)

    late = post(client, timed, "deals", tablet_deal(1, DEADLINE + timedelta(seconds=1), clock.now))
    on_time = post(client, timed, "deals", tablet_deal(1, DEADLINE, clock.now))

    assert late.status_code == 409, late.text
    assert (late.json()["rule"], late.json()["field"]) == ("CL-3", "time")
    assert on_time.status_code == 201, on_time.text  # exactly at the deadline is in time
    assert len(store.export(timed.tid)) == len(before[1]) + 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"time": "2026-07-04T09:01:00Z"}, "sent", id="time-without-sent"),
        pytest.param({"sent": "2026-07-04T09:01:00Z"}, "time", id="sent-without-time"),
        pytest.param(
            {"time": "2026-07-04T09:02:00Z", "sent": "2026-07-04T09:01:00Z"},
            "time",
            id="dealt-after-sent",
        ),
        pytest.param({"time": "09:01", "sent": "2026-07-04T09:01:00Z"}, "time", id="not-a-time"),
        pytest.param(
            {"time": "2026-07-04T09:01:00", "sent": "2026-07-04T09:01:00Z"},
            "time",
            id="no-offset",
        ),
    ],
)
def test_a_tablets_time_that_cannot_be_read_is_refused_naming_the_field(
    client: TestClient,
    timed: Setup,
    store: TournamentStore,
    clock: SteppingClock,
    body: dict[str, Any],
    field: str,
) -> None:
    clock.now = START + timedelta(minutes=2)
    before = snapshot(store, timed.tid)

    response = post(client, timed, "deals", {**WHERE, "hand": 1, **body})

    assert response.status_code == 422, response.text
    assert response.json()["field"] == field
    assert field in response.json()["detail"]
    assert snapshot(store, timed.tid) == before


def test_a_tablet_clock_off_by_more_than_30_seconds_is_refused_and_the_head_judge_records_it(
    client: TestClient,
    timed: Setup,
    store: TournamentStore,
    clock: SteppingClock,
    admin_headers: dict[str, str],
) -> None:
    assert timedelta(seconds=30) == TABLET_CLOCK_BOUND
    clock.now = START + timedelta(minutes=10)
    before = snapshot(store, timed.tid)
    # The tablet's clock runs 4 minutes slow: it says 09:06 when the server says 09:10.
    slow = clock.now - timedelta(minutes=4)
    refused = post(client, timed, "deals", tablet_deal(1, slow - timedelta(minutes=1), slow))
    # 31 s fast: refused too. 30 s either way: accepted (the bound is inclusive).
    fast = post(
        client,
        timed,
        "deals",
        tablet_deal(1, clock.now, clock.now + TABLET_CLOCK_BOUND + timedelta(seconds=1)),
    )

    assert refused.status_code == 409, refused.text
    assert (refused.json()["rule"], refused.json()["field"]) == ("CL-6", "sent")
    detail = refused.json()["detail"]
    assert "09:06:00" in detail and "09:10:00" in detail and "4 min behind" in detail
    assert "head judge" in detail
    assert (fast.status_code, fast.json()["rule"]) == (409, "CL-6")
    assert "31 s ahead" in fast.json()["detail"]
    assert snapshot(store, timed.tid) == before

    # The head judge (the admin token) records the deal, at the time they decide.
    override = {
        "type": "deal",
        **WHERE,
        "hand": 1,
        "time": "2026-07-04T09:09:00Z",
        "reason": "tablet clock 4 min slow; dealt at 09:09 by the table's account",
    }
    as_judge = client.post(timed.url("overrides"), json=override, headers=timed.headers(1))
    no_reason = client.post(
        timed.url("overrides"), json={**override, "reason": " "}, headers=admin_headers
    )
    no_hand = client.post(
        timed.url("overrides"), json={**override, "hand": None}, headers=admin_headers
    )
    recorded = client.post(timed.url("overrides"), json=override, headers=admin_headers)

    assert as_judge.status_code == 401
    assert (no_reason.status_code, no_reason.json()["field"]) == (422, "reason")
    assert (no_hand.status_code, no_hand.json()["field"]) == (422, "hand")
    assert recorded.status_code == 201, recorded.text
    deal = recorded.json()["lines"][0]
    assert deal["time"] == "2026-07-04T09:09:00Z"
    assert deal["override"] == override["reason"]
    assert deal["by"] == "admin"
    audit = client.get(timed.url("tables/1/audit")).json()["lines"]
    assert [
        entry["line"].get("override") for entry in audit if entry["line"]["type"] == "deal"
    ] == [override["reason"]]
    # The tablet's refused deal, sent again, is now the deal in the log: its outbox goes on.
    again = post(client, timed, "deals", tablet_deal(1, slow - timedelta(minutes=1), slow))
    assert (again.status_code, again.json()["already"]) == (200, "recorded")
    assert post(client, timed, "hands", hand(1, 1, DRAW), key="t1-h1").status_code == 201
    # An override still keeps the rules of the clock: no deal after the deadline (CL-3).
    clock.now = DEADLINE + timedelta(minutes=1)
    assert post(client, timed, "hands", hand(1, 2, DRAW), key="t1-h2").status_code == 409
    late = client.post(
        timed.url("overrides"),
        json={**override, "hand": 2, "time": format_time(DEADLINE + timedelta(seconds=5))},
        headers=admin_headers,
    )
    assert (late.status_code, late.json()["rule"]) == (409, "CL-3")
    assert exported_report(store, timed.tid) == rebuilt_report(store, timed.tid)


def test_the_head_judge_records_an_early_start_the_tablet_could_not(
    client: TestClient,
    timed: Setup,
    clock: SteppingClock,
    admin_headers: dict[str, str],
) -> None:
    clock.now = START - timedelta(minutes=1)
    agreed = format_time(START - timedelta(minutes=3))
    override = {"type": "early_start", **WHERE, "time": agreed, "reason": "tablet clock wrong"}

    with_hand = client.post(
        timed.url("overrides"), json={**override, "hand": 1}, headers=admin_headers
    )
    recorded = client.post(timed.url("overrides"), json=override, headers=admin_headers)

    assert (with_hand.status_code, with_hand.json()["field"]) == (422, "hand")
    assert recorded.status_code == 201, recorded.text
    assert recorded.json()["lines"][0]["override"] == "tablet clock wrong"
    assert (
        client.get(f"/api/tournaments/{timed.tid}/clocks").json()["tables"][0]["starts_at"]
        == agreed
    )


def test_the_table_channel_shows_every_deal_so_a_second_device_knows(
    client: TestClient, timed: Setup, store: TournamentStore, clock: SteppingClock
) -> None:
    clock.now = START + timedelta(minutes=3)
    assert post(client, timed, "deals", tablet_deal(1, START, clock.now)).status_code == 201
    assert post(client, timed, "hands", hand(1, 1, self_draw("ami", 10)), key="h1").status_code
    assert post(client, timed, "deals", tablet_deal(2, clock.now, clock.now)).status_code == 201

    table = store.read(timed.tid, lambda tournament, _: States(tournament, clock.now).of("table:1"))

    assert table["deals"] == [
        {"hand": 1, "time": "2026-07-04T09:00:00Z"},
        {"hand": 2, "time": "2026-07-04T09:03:00Z"},
    ]
    assert [row["hand"] for row in table["hands"]] == [1]
