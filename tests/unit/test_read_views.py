"""The read model's one answer to "when does a clock next change by time alone" (rule CL-6):
a cached feed answer is stale from that moment on (at or after now), and the live feed,
which has just computed its clocks at now, wakes at the first moment after it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from app.domain.replay import replay_lines
from app.domain.tournament import Tournament
from app.read.views import SeatInSegment, States, current_seat

GROUP_A = [f"P{n:02d}" for n in range(1, 9)]


def at(clock: str) -> datetime:
    hour, minute = clock.split(":")
    return datetime(2026, 11, 29, int(hour), int(minute), tzinfo=UTC)


def scheduled() -> Tournament:
    """Group A's first half of round 1 scheduled at 09:00Z: its deadline is 10:10Z (rule CL-1:
    70 minutes in round 1 of WSOM 2008)."""
    lines = [
        {
            "type": "tournament",
            "name": "Clock Open",
            "format": {"preset": "wsom2008", "advance": [8, 4]},
        },
        *({"type": "player", "id": p, "name": f"Player {p}", "group": "A"} for p in GROUP_A),
        *({"type": "player", "id": f"Q{n}", "name": f"Q {n}", "group": "B"} for n in range(8)),
        {
            "type": "schedule",
            "round": 1,
            "segment": 1,
            "start": "2026-11-29T09:00:00Z",
            "group": "A",
        },
        {"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": GROUP_A[:4]},
        {"type": "seating", "round": 1, "segment": 1, "table": 2, "seats": GROUP_A[4:]},
    ]
    return replay_lines([json.dumps(line) for line in lines])


def test_before_the_start_the_next_boundary_is_the_scheduled_start() -> None:
    states = States(scheduled(), at("08:00"))
    assert states.next_boundary() == at("09:00")
    assert states.next_boundary(after=True) == at("09:00")


def test_at_a_boundary_a_cached_answer_is_stale_and_the_live_feed_waits_for_the_next() -> None:
    states = States(scheduled(), at("09:00"))
    assert states.next_boundary() == at("09:00")
    assert states.next_boundary(after=True) == at("10:10")  # the deadline (rule CL-2)


def test_past_the_deadline_of_the_last_scheduled_segment_no_clock_changes_by_time() -> None:
    assert States(scheduled(), at("10:10")).next_boundary() == at("10:10")
    assert States(scheduled(), at("10:10")).next_boundary(after=True) is None
    assert States(scheduled(), at("10:11")).next_boundary() is None


def test_a_player_sits_at_the_table_of_their_latest_segment_begun() -> None:
    """Where a player sits now (the overlay's card, the player feed, what they need): their
    half-2 table has begun while their half-1 table, finished, still shows half 1 on its
    clock; the half-2 seat wins. A half whose table has not begun it is not where they sit."""
    seats: list[SeatInSegment] = [
        {"segment": 1, "table": 1, "seat": "east", "seat_now": "east"},
        {"segment": 2, "table": 4, "seat": "north", "seat_now": "north"},
        {"segment": 3, "table": 6, "seat": "north", "seat_now": "north"},
    ]
    clocks = {
        "1": {"segment": 1},  # finished half 1, waits for half 2
        "4": {"segment": 2},  # playing half 2
        "6": {"segment": 1},  # still playing half 1 with other players
    }
    assert current_seat(seats, clocks) == seats[1]  # type: ignore[arg-type]
    clocks["4"] = {"segment": 1}  # table 4 has not begun half 2 yet
    assert current_seat(seats, clocks) == seats[0]  # type: ignore[arg-type]


def test_a_player_out_of_the_event_has_the_place_they_finished_in() -> None:
    """Issue 33: a followed player who was eliminated showed "–" on the phone. Once their
    round has ended, their `player:ID` state says where they finished (rule PR-1: below all
    who played on, by their total); a player who plays on has no place yet."""
    lines = (Path(__file__).resolve().parents[2] / "examples" / "club.jsonl").read_text()
    log = lines.splitlines()
    ended = next(i for i, text in enumerate(log) if json.loads(text)["type"] == "round_end")
    tournament = replay_lines(log[: ended + 1])
    states = States(tournament, at("10:00"))
    round_one = tournament.standings(1)
    assert {row.status for row in round_one.rows} == {"advanced", "eliminated"}
    for row in round_one.rows:
        player = states.player(str(row.player))
        assert player["registered"]
        if row.status == "eliminated":  # 4 advance: the others finish 5th to 8th
            assert player["place"] == {"rank": row.rank, "round": 1}, row.player
            assert row.rank > 4
        else:
            assert player["place"] is None, row.player
    # and once the final has ended, the finalists too
    finished = States(replay_lines(log), at("10:00"))
    assert {finished.player(str(p))["place"] is not None for p in tournament.players} == {True}
