"""An Ari Ari game has no planned number of hands (rule AA-23, decision AA-31): the clock
overlay says how many games are over and the table overlay's header shows no count, where a
WSOM segment without a limit counts its hands ("2/16"); overlay.js does the same."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.web.overlay import clock_view, table_clock

ROUNDS = {"1": {"name": "Round 1", "segment": "Game"}}
NOW = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)


def clock(table: int, phase: str, hands: int, planned: int) -> dict[str, Any]:
    return {
        "round": 1,
        "segment": 1,
        "table": table,
        "group": None,
        "phase": phase,
        "starts_at": "2026-12-01T21:00:00Z",  # opened an hour ago, no deadline
        "deadline": None,
        "break_ends": None,
        "play_all": False,
        "hands_completed": hands,
        "planned_hands": planned,
    }


def test_the_clock_says_how_many_games_are_over() -> None:
    rows = [clock(1, "running", 2, 100), clock(2, "finished", 8, 8), clock(3, "running", 5, 100)]
    assert clock_view(rows, NOW, ROUNDS, points=True) == {
        "title": "Round 1 \u00b7 Game 1",
        "time": "No limit",
        "note": "1 of 3 games over",
    }
    assert clock_view(rows, NOW, ROUNDS)["time"] == "2/100"  # what it said before


def test_a_table_header_shows_no_count_of_hands() -> None:
    assert table_clock(clock(1, "running", 2, 100), NOW, ROUNDS, points=True) == ""
    assert table_clock(clock(1, "running", 2, 16), NOW, ROUNDS) == "2/16"  # WSOM, no limit
