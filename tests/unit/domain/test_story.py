"""The story of the session (issue 18, part 2): the biggest hands, the movers of the segment,
who crossed the cut line with the last hand, each table's leader and how the hands ended,
all derived from the round as the log leaves it (app/domain/story.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from app.domain.story import BigHand, Counts, Crossing, Mover, TableLeader, story
from app.domain.tournament import Tournament

Replay = Callable[[Sequence[dict[str, Any]]], Tournament]
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

# 8 players in one group, 4 advance (rule FM-6), two halves of 8 hands
OPENING: list[dict[str, Any]] = [
    {
        "type": "tournament",
        "name": "Story Cup",
        "format": {"name": "story", "rounds": [{"advance": 4, "segments": 2}, {}]},
    },
    *({"type": "player", "id": p, "name": p.upper(), "group": "A"} for p in "abcdefgh"),
    {"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": list("abcd")},
    {"type": "seating", "round": 1, "segment": 1, "table": 2, "seats": list("efgh")},
]


def hand(segment: int, table: int, number: int, result: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "hand",
        "round": 1,
        "segment": segment,
        "table": table,
        "hand": number,
        "result": result,
    }


def self_draw(winner: str, value: int) -> dict[str, Any]:
    return {"kind": "self_draw", "winner": winner, "value": value}


def discard(winner: str, discarder: str, value: int) -> dict[str, Any]:
    return {"kind": "discard", "winner": winner, "discarder": discarder, "value": value}


DRAW = {"kind": "draw"}

# rule HS-2: a discard over 25 costs the discarder 3v - 50, the two others 25 each
FIRST_HALF = [
    hand(1, 1, 1, discard("a", "b", 30)),  # a +90, b -40, c -25, d -25
    hand(1, 2, 1, self_draw("e", 10)),  # e +30, f g h -10
    hand(1, 1, 2, DRAW),
    # rule HS-7: a ruling of points, no winner: neither a win nor a draw
    hand(1, 2, 2, {"kind": "points", "deltas": {"e": -5, "f": 5, "g": 0, "h": 0}}),
    hand(1, 1, 3, self_draw("c", 20)),  # c +60, a b d -20
]
# a 70, c 35, e 25, f -5 | g -10, h -10, d -45, b -60
SECOND_HALF = [
    {"type": "seating", "round": 1, "segment": 2, "table": 1, "seats": list("aceg")},
    {"type": "seating", "round": 1, "segment": 2, "table": 2, "seats": list("bdfh")},
    hand(2, 2, 1, discard("b", "h", 40)),  # b +120, h -70, d -25, f -25
]
# a 70, b 60, c 35, e 25 | g -10, f -30, d -70, h -80


@pytest.fixture
def two_halves(replay: Replay) -> Tournament:
    return replay([*OPENING, *FIRST_HALF, *SECOND_HALF])


def test_the_biggest_hands_of_the_round_and_of_the_segment(two_halves: Tournament) -> None:
    told = story(two_halves)
    # rule HS-4: the value as scored; a ruling without a winner has none (HS-7)
    assert told.round_hands == (
        BigHand("b", 40, "discard", "h", 2, 2, 1),
        BigHand("a", 30, "discard", "b", 1, 1, 1),
        BigHand("c", 20, "self_draw", None, 1, 1, 3),
        BigHand("e", 10, "self_draw", None, 1, 2, 1),
    )
    assert told.segment_hands == (BigHand("b", 40, "discard", "h", 2, 2, 1),)
    assert (told.round, told.segment, told.group, told.last_hand) == (1, 2, None, (2, 2, 1))


@pytest.mark.parametrize(
    ("case", "lines", "round_counts", "segment_counts"),
    [
        ("no hand yet", [], Counts(), Counts()),
        # rule HS-1: a self-draw, a discard win or a draw; HS-7 rulings are the others
        ("the first half", FIRST_HALF, Counts(5, 2, 1, 1, 1), Counts(5, 2, 1, 1, 1)),
        ("into the second", FIRST_HALF + SECOND_HALF, Counts(6, 2, 2, 1, 1), Counts(1, 0, 1, 0, 0)),
        # a correction replaces the hand (CONTRACT §1): counted once, as corrected
        (
            "a corrected hand",
            [*FIRST_HALF, hand(1, 1, 2, self_draw("d", 8))],
            Counts(5, 3, 1, 0, 1),
            Counts(5, 3, 1, 0, 1),
        ),
        # a void withdraws it: the segment is the last hand's that still counts (1)
        (
            "a voided hand",
            [
                *FIRST_HALF,
                *SECOND_HALF,
                {"type": "void", "round": 1, "segment": 2, "table": 2, "hand": 1},
            ],
            Counts(5, 2, 1, 1, 1),
            Counts(5, 2, 1, 1, 1),
        ),
    ],
)
def test_how_the_hands_ended(
    replay: Replay,
    case: str,
    lines: list[dict[str, Any]],
    round_counts: Counts,
    segment_counts: Counts,
) -> None:
    told = story(replay([*OPENING, *lines]))
    assert told.round_counts == round_counts, case
    assert told.segment_counts == segment_counts, case


def test_the_movers_since_the_segment_began(two_halves: Tournament) -> None:
    told = story(two_halves)
    # rule ST-2 ranks before the second half: a 1, c 2, e 3, f 4, g 5, h 5, d 7, b 8
    assert told.climbers == (Mover("b", 2, 8, 2, 120, Fraction(60)),)
    # the biggest drop first; c and e fall a place without playing a point (b passed them)
    assert [(m.player, m.rank_before, m.rank, m.change) for m in told.fallers] == [
        ("h", 5, 8, -70),
        ("f", 4, 6, -25),
        ("c", 2, 3, 0),
        ("e", 3, 4, 0),
    ]


def test_who_crossed_the_cut_line_in_the_last_hand(two_halves: Tournament) -> None:
    # rule ST-3: 4 advance; before b's 40 the line was a, c, e, f; now a, b, c, e
    assert story(two_halves).crossed == (
        Crossing("b", True, 8, 2, Fraction(60)),
        Crossing("f", False, 4, 6, Fraction(-30)),
    )


def test_a_tie_at_the_line_is_placed_as_the_tie_break_places_it(replay: Replay) -> None:
    # Before c's self-draw, g and h straddle the line on -10 with no winning hand between
    # them (rules ST-4, ST-5: the draw to come; g is placed first). c's 20 lifts c from 6th
    # to 2nd: g goes under the line, h stays under it.
    told = story(replay([*OPENING, *FIRST_HALF]))
    assert told.crossed == (
        Crossing("c", True, 6, 2, Fraction(35)),
        Crossing("g", False, 4, 5, Fraction(-10)),
    )


def test_each_tables_leader_in_the_segment(replay: Replay, two_halves: Tournament) -> None:
    # table 1 has no hand in the second half yet: no leader
    assert story(two_halves).leaders == (TableLeader(2, 2, "b", 120, 1, False),)
    # first half: table 1, a on +70 (+90 - 20) ahead of c on +35; table 2, e on +25 (+30 - 5)
    first = story(replay([*OPENING, *FIRST_HALF]))
    assert first.leaders == (
        TableLeader(1, 1, "a", 70, 3, False),
        TableLeader(2, 1, "e", 25, 2, False),
    )


def test_a_shared_lead_names_the_first_in_seat_order(replay: Replay) -> None:
    told = story(replay([*OPENING, hand(1, 2, 1, DRAW)]))
    assert told.leaders == (TableLeader(2, 1, "e", 0, 1, True),)


def test_round_one_groups_keep_their_own_segments(replay: Replay) -> None:
    # rule FM-2: examples/club.jsonl seats group A at table 1 and group B at table 2, both
    # in their segment 1; the last hand is group B's, so the segment is group B's alone
    lines = [json.loads(text) for text in (EXAMPLES / "club.jsonl").read_text().splitlines()]
    until_round_end = lines[
        : next(i for i, line in enumerate(lines) if line["type"] == "round_end")
    ]
    told = story(replay(until_round_end))
    assert (told.segment, told.group, told.last_hand) == (1, "B", (1, 2, 2))
    assert told.round_counts == Counts(5, 2, 2, 1, 0)
    # the corrected hand 2 at table 2: finn's 12 on gwen's discard, not hugo's (CONTRACT §1)
    assert told.segment_hands == (
        BigHand("finn", 12, "discard", "gwen", 1, 2, 2),
        BigHand("eun", 10, "self_draw", None, 1, 2, 1),
    )
    assert {leader.table for leader in told.leaders} == {2}


def test_an_ari_ari_round(replay: Replay) -> None:
    """Ari Ari (AA rules): a tsumo is a self-draw, a ron a discard win (a double ron is one
    hand, and each winner's hand among the biggest, AA-4), an exhaustive draw a draw, a
    chombo one of the others (AA-10); the value is the win's payment (AA-22)."""
    lines = [json.loads(text) for text in (EXAMPLES / "ariari.jsonl").read_text().splitlines()]
    until_round_end = lines[
        : next(i for i, line in enumerate(lines) if line["type"] == "round_end")
    ]
    told = story(replay(until_round_end))
    assert (told.segment, told.last_hand) == (2, (2, 2, 5))
    # game 1: table 1 one ron; table 2 four draws, two tsumo, one ron (corrected); game 2:
    # table 1 a chombo, a ron, a tsumo; table 2 a double ron, a ron, three draws
    assert told.round_counts == Counts(16, 3, 5, 7, 1)
    assert told.segment_counts == Counts(8, 1, 3, 3, 1)
    # rule AA-22: a yakuman on a non-dealer's ron is 32,000 (4 x 8,000, AA-3)
    assert told.round_hands[0] == BigHand("p2", 32000, "discard", "p1", 1, 1, 1)
    double_ron = [big for big in told.segment_hands if (big.table, big.hand) == (2, 1)]
    assert {(big.player, big.discarder) for big in double_ron} == {("p3", "p8"), ("p7", "p8")}


def test_the_final_has_no_cut_line_to_cross(replay: Replay) -> None:
    lines = [json.loads(text) for text in (EXAMPLES / "club.jsonl").read_text().splitlines()]
    told = story(replay(lines))  # the final has ended (rule FM-5: no advance)
    assert told.round == 2 and told.crossed == ()
    assert told.round_counts == Counts(2, 1, 1, 0, 0)


def test_each_list_keeps_the_top_entries(two_halves: Tournament) -> None:
    everything = story(two_halves, top=None)
    first_two = story(two_halves, top=2)
    assert first_two.round_hands == everything.round_hands[:2]
    assert first_two.fallers == everything.fallers[:2]
    assert len(everything.fallers) == 4


def test_a_round_just_begun_has_no_story_of_the_round_before(replay: Replay) -> None:
    # rule FM-1: once round 1 has ended, the story is round 2's, which has no hand yet
    lines = [json.loads(text) for text in (EXAMPLES / "club.jsonl").read_text().splitlines()]
    seated = next(i for i, line in enumerate(lines) if line["type"] == "round_end") + 2
    told = story(replay(lines[:seated]))
    assert (told.round, told.segment, told.last_hand) == (2, None, None)
    assert told.round_hands == () and told.round_counts == Counts()
    assert told.climbers == told.fallers == told.crossed == told.leaders == ()
