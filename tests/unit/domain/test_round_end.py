"""What a round end asks the organizer to confirm: the tables that have not played their
segment out (fewer hands than the segment's count in WSOM, a game not ended in Ari Ari,
rule AA-12), and the `reason` the `round_end` line keeps. A round not played in groups
keys its tables by no group, so its schedule and closed segments reach them (rule FM-2)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.domain.errors import LogError
from app.domain.replay import replay_lines, report
from app.domain.tournament import RoundUnfinished, Tournament, UnfinishedTable

ARIARI_LOG = Path(__file__).resolve().parents[3] / "examples" / "ariari.jsonl"
# 8 players, one half of 4 hands, 4 advance; round 1 has no groups
FORMAT = {
    "name": "one-half",
    "rounds": [{"segments": 1, "hands": 4, "advance": 4}, {"segments": 1, "hands": 4}],
}
Line = dict[str, Any]


def replay(lines: list[Line]) -> Tournament:
    return replay_lines(json.dumps(line) for line in lines)


def one_half(hands_at: dict[int, int]) -> list[Line]:
    """Tables 1 and 2 seated, each with its number of drawn hands."""
    lines: list[Line] = [{"type": "tournament", "name": "Short", "format": FORMAT}]
    lines += [{"type": "player", "id": n, "name": f"P{n}", "group": "A"} for n in range(1, 9)]
    for table in (1, 2):
        seats = list(range(4 * table - 3, 4 * table + 1))
        where = {"round": 1, "segment": 1, "table": table}
        lines.append({"type": "seating", **where, "seats": seats})
        lines += [
            {"type": "hand", **where, "hand": n, "result": {"kind": "draw"}}
            for n in range(1, hands_at[table] + 1)
        ]
    return lines


def test_a_table_short_of_its_hands_is_listed_and_a_full_one_is_not() -> None:
    tournament = replay(one_half({1: 4, 2: 2}))
    assert tournament.unfinished_tables(1) == [UnfinishedTable("", 1, 2, 2, 4)]
    assert replay(one_half({1: 4, 2: 4})).unfinished_tables(1) == []


def test_a_voided_hand_leaves_its_table_short() -> None:
    lines = one_half({1: 4, 2: 4})
    lines.append({"type": "void", "round": 1, "segment": 1, "table": 1, "hand": 4})
    assert replay(lines).unfinished_tables(1) == [UnfinishedTable("", 1, 1, 3, 4)]


def test_an_ari_ari_game_that_has_not_ended_is_listed() -> None:
    lines = ARIARI_LOG.read_text().splitlines()
    # line 12: table 1's game ends at its first hand (rule AA-14); table 2 plays on
    during = replay_lines(lines[:16])
    assert during.unfinished_tables(1) == [UnfinishedTable("", 1, 2, 4, None)]
    before_the_end = replay_lines(lines[:30])
    assert json.loads(lines[30])["type"] == "round_end"
    assert before_the_end.unfinished_tables(1) == []


def test_the_message_lists_the_tables_and_asks_for_a_reason() -> None:
    tables = [UnfinishedTable("A", 1, n, 0, 8) for n in range(1, 11)]
    refused = RoundUnfinished(1, "FM-2", tables)
    assert (refused.rule, refused.field) == ("FM-2", "confirm_unfinished")
    assert "10 unplayed or unfinished table(s)" in refused.message
    assert "table 1, segment 1 of group A: 0 of 8 hands" in refused.message
    assert "and 2 more" in refused.message and "Confirm with a reason" in refused.message
    assert "game has not ended (3 hands)" in UnfinishedTable("", 2, 1, 3, None).describe()


def test_a_round_end_keeps_its_reason_through_replay_and_an_old_one_needs_none() -> None:
    lines = one_half({1: 4, 2: 1})
    # everyone is level on 0 (drawn hands only): a seed decides the cut (rule ST-5)
    end: Line = {"type": "round_end", "round": 1, "draw_seed": "s"}
    ended = replay([*lines, {**end, "reason": "the hall closes"}])
    assert ended.rounds[1].ended is not None
    assert ended.rounds[1].ended.reason == "the hall closes"
    assert report(ended)["rounds"][0]["end_reason"] == "the hall closes"
    # the round's draw can no longer change, and the console is told why
    refusal = ended.draw_refusal(1)
    assert refusal is not None and (refusal.rule, refusal.message) == ("SE-1", "round 1 has ended")
    # an old log ended such a round without a word: it replays as it did
    old = replay([*lines, end])
    assert "end_reason" not in report(old)["rounds"][0]
    with pytest.raises(LogError) as refused:
        replay([*lines, {**end, "reason": " "}])
    assert refused.value.violation.field == "reason"


def test_a_round_without_groups_takes_its_schedule_and_closed_segment() -> None:
    start = "2026-11-29T09:00:00Z"
    lines = one_half({1: 0, 2: 0})
    lines.append({"type": "schedule", "round": 1, "segment": 1, "start": start})
    tournament = replay(lines)
    facts = tournament.clock_facts(1, 1, 1)
    assert facts.scheduled_start == datetime(2026, 11, 29, 9, tzinfo=UTC)
    closed = [*lines, {"type": "segment_end", "round": 1, "segment": 1}]
    hand = {"type": "hand", "round": 1, "segment": 1, "table": 1, "hand": 1}
    deal = {"type": "deal", "round": 1, "segment": 1, "table": 1, "hand": 1}
    with pytest.raises(LogError) as refused:
        replay(
            [
                *closed,
                {**deal, "time": "2026-11-29T09:01:00Z"},
                {**hand, "result": {"kind": "draw"}},
            ]
        )
    assert (refused.value.violation.rule, refused.value.violation.field) == ("CL-3", "segment")
