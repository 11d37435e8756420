"""Score sheets (issue 18, part 5): each table's segment with its seats and each planned
hand's dealer as the rules give them (FM-7 with SE-6, SE-8, SE-9), Ari Ari's first dealer
only (AA-8), and the refusals of a segment the round lacks or has not seated (FM-1, SE-1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from app.domain.errors import RuleViolation
from app.domain.sheets import ARIARI_ROWS, score_sheet, score_sheets
from app.domain.tournament import Tournament

Replay = Callable[[Sequence[dict[str, Any]]], Tournament]
EIGHT = ["a", "b", "c", "d", "e", "f", "g", "h"]


def log(format_: Any, segments: int = 1) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [{"type": "tournament", "name": "T", "format": format_}]
    lines += [{"type": "player", "id": p, "name": p.upper(), "group": "A"} for p in EIGHT]
    for segment in range(1, segments + 1):
        lines += [
            {"type": "seating", "round": 1, "segment": segment, "table": 1, "seats": EIGHT[:4]},
            {"type": "seating", "round": 1, "segment": segment, "table": 2, "seats": EIGHT[4:]},
        ]
    return lines


def one_round(pattern: str, hands: int, segments: int = 1) -> dict[str, Any]:
    first = {"advance": 4, "segments": segments, "hands": hands, "seat_pattern": pattern}
    return {"name": "sheets", "rounds": [first, {}]}


@pytest.mark.parametrize(
    ("format_", "segments", "segment", "dealers"),
    [
        # rule FM-7, SE-6: a half's second cycle starts with the starting North, East and
        # North having exchanged seats, and South and West
        ({"preset": "wsom2008", "advance": [4]}, 1, 1, "abcd" + "dcba"),
        # rule SE-8: East and West move one seat right, South and North one left, so the
        # original East, South, West and North start cycles 1 to 4
        (one_round("rotate", 16), 1, 1, "abcd" + "badc" + "cdab" + "dcba"),
        # rule SE-9: session 2 holds cycles 5 to 8, its first as seated; cycle 6 is the
        # sixth order; cycle 7's seats are drawn anew, so no dealer is printed for it, nor
        # for cycle 8, which swaps cycle 7's seats
        (one_round("all_orders", 16, segments=2), 2, 2, "abcd" + "acbd" + "...." + "...."),
    ],
)
def test_each_hand_has_the_dealer_the_rules_give(
    replay: Replay, format_: Any, segments: int, segment: int, dealers: str
) -> None:
    tournament = replay(log(format_, segments))
    state = tournament.rounds[1]

    sheet = score_sheet(tournament.format, state, tournament.players, segment, 1)

    shown = "".join("." if hand.dealer is None else str(hand.dealer) for hand in sheet.hands)
    assert shown == dealers
    assert [hand.hand for hand in sheet.hands] == list(range(1, len(dealers) + 1))
    assert [p.player for p in sheet.players] == ["a", "b", "c", "d"]
    assert [p.seat for p in sheet.players] == ["east", "south", "west", "north"]
    assert sheet.code == f"1-{segment}-1"


def test_an_ariari_sheet_prints_the_first_dealer_only(replay: Replay) -> None:
    ariari = {"name": "aa", "ruleset": "ariari", "rounds": [{"advance": 4}, {}]}
    tournament = replay(log(ariari))

    sheet = score_sheet(tournament.format, tournament.rounds[1], tournament.players, 1, 2)

    assert sheet.ariari
    assert len(sheet.hands) == ARIARI_ROWS
    # rule AA-8: the deal stays with a dealer who wins or is tenpai
    assert [hand.dealer for hand in sheet.hands] == ["e"] + [None] * (ARIARI_ROWS - 1)


def test_a_round_gives_every_tables_sheet_by_segment_then_table(replay: Replay) -> None:
    tournament = replay(log({"preset": "wsom2008", "advance": [4]}))
    state = tournament.rounds[1]

    sheets = score_sheets(tournament.format, state, tournament.players)

    assert [(s.segment, s.table) for s in sheets] == [(1, 1), (1, 2)]
    assert [s.group for s in sheets] == ["A", "A"]
    assert (sheets[0].min_value, sheets[0].max_value) == (5, 320)  # rule HS-3


@pytest.mark.parametrize(
    ("segment", "table", "field", "rule"),
    [
        (2, None, "segment", "SE-1"),  # the half exists, not seated yet
        (5, None, "segment", "FM-1"),  # round 1 has 4 halves (rule FM-2)
        (1, 3, "table", "SE-1"),  # no table 3
    ],
)
def test_a_segment_or_table_the_round_lacks_is_refused_naming_the_rule(
    replay: Replay, segment: int, table: int | None, field: str, rule: str
) -> None:
    tournament = replay(log({"preset": "wsom2008", "advance": [4]}))
    state = tournament.rounds[1]

    with pytest.raises(RuleViolation) as refused:
        if table is None:
            score_sheets(tournament.format, state, tournament.players, segment)
        else:
            score_sheet(tournament.format, state, tournament.players, segment, table)

    assert (refused.value.field, refused.value.rule) == (field, rule)
