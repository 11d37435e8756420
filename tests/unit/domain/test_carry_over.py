"""Scores and carry-over through replayed logs (rules SC-1 to SC-4, PN-1, ST-4).

The format is {"preset": "wsom2008", "advance": [8, 4]}: round 1 in 2 groups of 8 (8
advance), round 2 at 2 tables (4 advance), then the final. Every total below is worked out
by hand from the hands of the log (rule HS-2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import pytest

from app.domain.errors import IllegalMove, LogError
from app.domain.log import CarryOverRateSet
from app.domain.tournament import Tournament

Replay = Callable[[Sequence[dict[str, Any]]], Tournament]  # the `replay` fixture of conftest.py
Line = dict[str, Any]


def tournament_line(advance: list[int]) -> Line:
    return {
        "type": "tournament",
        "name": "carry-over",
        "format": {"preset": "wsom2008", "advance": advance},
    }


def player(pid: str) -> Line:
    return {"type": "player", "id": pid, "name": f"Player {pid}", "group": pid[0]}


def seating(round_: int, table: int, seats: list[str]) -> Line:
    return {"type": "seating", "round": round_, "segment": 1, "table": table, "seats": seats}


def hand(round_: int, table: int, number: int, result: dict[str, Any]) -> Line:
    where = {"round": round_, "segment": 1, "table": table, "hand": number}
    return {"type": "hand", **where, "result": result}


def self_draw(winner: str, value: int) -> dict[str, Any]:
    return {"kind": "self_draw", "winner": winner, "value": value}


def discard(winner: str, discarder: str, value: int) -> dict[str, Any]:
    return {"kind": "discard", "winner": winner, "discarder": discarder, "value": value}


def points(**deltas: int) -> dict[str, Any]:
    return {"kind": "points", "deltas": deltas}


def rate_line(rate: str, round_: int = 1) -> Line:
    return {"type": "carry_over_rate", "round": round_, "rate": rate}


def round_end(round_: int) -> Line:
    return {"type": "round_end", "round": round_}


GROUP_A = [f"A{n}" for n in range(1, 9)]
GROUP_B = [f"B{n}" for n in range(1, 9)]

HEADER = [tournament_line([8, 4]), *(player(p) for p in GROUP_A + GROUP_B)]  # lines 1-17
ROUND_ONE_SEATINGS = [  # lines 18-21
    seating(1, 1, GROUP_A[:4]),
    seating(1, 2, GROUP_A[4:]),
    seating(1, 3, GROUP_B[:4]),
    seating(1, 4, GROUP_B[4:]),
]
ROUND_ONE_HANDS = [
    # table 1: A1 +27, others -9; then A1 +14, A2 +22, A3 -10, A4 -26
    hand(1, 1, 1, self_draw("A1", 9)),
    hand(1, 1, 2, points(A1=14, A2=22, A3=-10, A4=-26)),
    # table 2: discard 30 > 25: A5 +90, discarder A8 -40, A6 and A7 -25; then a correction
    hand(1, 2, 1, discard("A5", "A8", 30)),
    hand(1, 2, 2, points(A5=-60, A6=35, A7=10, A8=15)),
    hand(1, 3, 1, points(B1=50, B2=6, B3=-21, B4=-35)),
    hand(1, 3, 2, {"kind": "draw"}),
    # table 4: B5 +60, others -20; then B5 -38, B6 +23, B7 +11, B8 +4
    hand(1, 4, 1, self_draw("B5", 20)),
    hand(1, 4, 2, points(B5=-38, B6=23, B7=11, B8=4)),
]
ROUND_ONE_PLAY = {
    "B1": 50, "A1": 41, "A5": 30, "B5": 22, "A2": 13, "A6": 10, "B2": 6, "B6": 3,  # advance
    "B7": -9, "A7": -15, "B8": -16, "A3": -19, "B3": -21, "A8": -25, "A4": -35, "B4": -35,
}  # fmt: skip
ROUND_TWO = [
    seating(2, 1, ["B1", "A1", "A5", "B5"]),
    seating(2, 2, ["A2", "A6", "B2", "B6"]),
    # table 1: A1 +15, others -5; then B1 -15, A1 -3, A5 +10, B5 +8
    hand(2, 1, 1, self_draw("A1", 5)),
    hand(2, 1, 2, points(B1=-15, A1=-3, A5=10, B5=8)),
    # table 2: A6 +15, others -5; then A2 +12, A6 -9, B2 -4, B6 +1
    hand(2, 2, 1, self_draw("A6", 5)),
    hand(2, 2, 2, points(A2=12, A6=-9, B2=-4, B6=1)),
]
ROUND_TWO_PLAY = {"B1": -20, "A1": 12, "A5": 5, "B5": 3, "A2": 7, "A6": 6, "B2": -9, "B6": -4}


def whole_log(rate: str | None = None) -> list[Line]:
    rate_lines = [] if rate is None else [rate_line(rate)]
    return [
        *HEADER,
        *rate_lines,
        *ROUND_ONE_SEATINGS,
        *ROUND_ONE_HANDS,
        round_end(1),
        *ROUND_TWO,
        round_end(2),
    ]


@pytest.mark.parametrize(
    ("round_number", "play"),
    [
        pytest.param(1, ROUND_ONE_PLAY, id="SC-1 round 1 play is the sum of its hands"),
        pytest.param(2, ROUND_TWO_PLAY, id="SC-1 round 2 play is the sum of its hands"),
    ],
)
def test_play_score_is_the_sum_of_the_hands(
    round_number: int, play: dict[str, int], replay: Replay
) -> None:
    tournament = replay(whole_log())

    rows = tournament.standings(round_number).rows
    assert {row.player: row.play for row in rows} == play
    assert sum(play.values()) == 0  # rule HS-2: every hand is zero-sum


# Per rate: round 2 carry-ins (rate x round-1 total), then the final's carry-ins
# (1/4 x round-2 total, whatever the round-1 rate; rule SC-3).
RATE_CASES = [
    pytest.param(
        None,
        {
            "B1": Fraction(25, 2),
            "A1": Fraction(41, 4),
            "A5": Fraction(15, 2),
            "B5": Fraction(11, 2),
            "A2": Fraction(13, 4),
            "A6": Fraction(5, 2),
            "B2": Fraction(3, 2),
            "B6": Fraction(3, 4),
        },
        # round-2 totals A1 89/4, A5 25/2, A2 41/4, A6 17/2 (B5 17/2 too: see the tie test)
        {
            "A1": Fraction(89, 16),
            "A5": Fraction(25, 8),
            "A2": Fraction(41, 16),
            "A6": Fraction(17, 8),
        },
        id="SC-3 default rate 1/4",
    ),
    pytest.param(
        "1/3",
        {
            "B1": Fraction(50, 3),
            "A1": Fraction(41, 3),
            "A5": Fraction(10),
            "B5": Fraction(22, 3),
            "A2": Fraction(13, 3),
            "A6": Fraction(10, 3),
            "B2": Fraction(2),
            "B6": Fraction(1),
        },
        # round-2 totals A1 77/3, A5 15, A2 34/3, B5 31/3 | A6 28/3
        {
            "A1": Fraction(77, 12),
            "A5": Fraction(15, 4),
            "A2": Fraction(17, 6),
            "B5": Fraction(31, 12),
        },
        id="SC-3 organizer's round-1 rate 1/3; the next rate stays 1/4",
    ),
    pytest.param(
        "0.5",
        {
            "B1": Fraction(25),
            "A1": Fraction(41, 2),
            "A5": Fraction(15),
            "B5": Fraction(11),
            "A2": Fraction(13, 2),
            "A6": Fraction(5),
            "B2": Fraction(3),
            "B6": Fraction(3, 2),
        },
        # round-2 totals A1 65/2, A5 20, B5 14, A2 27/2 | A6 11
        {"A1": Fraction(65, 8), "A5": Fraction(5), "B5": Fraction(7, 2), "A2": Fraction(27, 8)},
        id="SC-3 organizer's round-1 rate as the exact decimal 0.5",
    ),
]


@pytest.mark.parametrize(("rate", "round_two", "final"), RATE_CASES)
def test_carry_in_is_rate_times_total(
    rate: str | None,
    round_two: dict[str, Fraction],
    final: dict[str, Fraction],
    replay: Replay,
) -> None:
    tournament = replay(whole_log(rate))

    # rule SC-3: only the advanced carry into the next round; rule SC-4: exactly
    assert tournament.rounds[2].carry_in == round_two
    assert tournament.rounds[3].carry_in == final
    # rule SC-2: a total is carry-in plus play score
    for row in tournament.standings(2).rows:
        assert row.carry_in == round_two[row.player]
        assert row.total == round_two[row.player] + ROUND_TWO_PLAY[row.player]
    # rule SC-2: in round 1 the carry-in is 0 and the total is the play score
    for row in tournament.standings(1).rows:
        assert (row.carry_in, row.total) == (0, ROUND_ONE_PLAY[row.player])


@pytest.mark.parametrize(
    ("player", "s1", "s2", "carry_in"),
    [
        pytest.param("A1", 41, 12, Fraction(89, 16), id="SC-4 A1: 12/4 + 41/16 = 89/16"),
        pytest.param("A5", 30, 5, Fraction(25, 8), id="SC-4 A5: 5/4 + 30/16 = 25/8"),
        pytest.param("A2", 13, 7, Fraction(41, 16), id="SC-4 A2: 7/4 + 13/16 = 41/16"),
        pytest.param("A6", 10, 6, Fraction(17, 8), id="SC-4 A6: 6/4 + 10/16 = 17/8"),
    ],
)
def test_carry_in_after_two_rounds_is_s2_over_4_plus_s1_over_16(
    player: str, s1: int, s2: int, carry_in: Fraction, replay: Replay
) -> None:
    tournament = replay(whole_log())

    assert (ROUND_ONE_PLAY[player], ROUND_TWO_PLAY[player]) == (s1, s2)
    assert Fraction(s2, 4) + Fraction(s1, 16) == carry_in
    assert tournament.rounds[3].carry_in[player] == carry_in
    final_row = tournament.standings(3).row_of(player)
    assert final_row is not None
    assert (final_row.carry_in, final_row.total, final_row.status) == (
        carry_in,
        carry_in,
        "playing",
    )


@pytest.mark.parametrize(
    ("player", "rank", "status", "hands"),
    [
        pytest.param("A6", 4, "advanced", (5,), id="ST-4 A6 won a 5 in round 2"),
        # B5 won a 20 in round 1, which does not count in round 2's tie-break
        pytest.param("B5", 4, "eliminated", (), id="ST-4 B5's round-1 hand does not count"),
    ],
)
def test_tie_break_counts_this_rounds_hands_only(
    player: str, rank: int, status: str, hands: tuple[int, ...], replay: Replay
) -> None:
    tournament = replay(whole_log())

    standings = tournament.standings(2)
    assert standings.cut is not None and standings.cut.tie is not None
    assert standings.cut.tie.total == Fraction(17, 2)
    assert standings.cut.tie.hands[player] == hands
    row = standings.row_of(player)
    assert row is not None
    assert (row.rank, row.status, row.total) == (rank, status, Fraction(17, 2))


RATE_LINE_NUMBER = 23  # 1 tournament + 16 players + 4 seatings + 1 hand, then the rate


@pytest.mark.parametrize(
    ("lines", "line_number", "field"),
    [
        pytest.param(
            [*HEADER, *ROUND_ONE_SEATINGS, ROUND_ONE_HANDS[0], rate_line("1/3")],
            RATE_LINE_NUMBER,
            "rate",
            id="SC-3 rate after the first group-A hand is refused",
        ),
        pytest.param(
            [*HEADER, *ROUND_ONE_SEATINGS, ROUND_ONE_HANDS[4], rate_line("1/3")],
            RATE_LINE_NUMBER,
            "rate",
            id="SC-3 rate after the first group-B hand is refused",
        ),
        pytest.param(
            [*HEADER, *ROUND_ONE_SEATINGS, *ROUND_ONE_HANDS, round_end(1), rate_line("1/3")],
            31,  # 21 + 8 hands + round_end, then the rate
            "rate",
            id="SC-3 rate after round 1 ended is refused",
        ),
        pytest.param(
            [*HEADER, rate_line("1/3", round_=2)],
            18,
            "round",
            id="SC-3 only the round 1 to 2 rate can be changed",
        ),
    ],
)
def test_rate_change_refused(
    lines: list[Line], line_number: int, field: str, replay: Replay
) -> None:
    with pytest.raises(LogError) as caught:
        replay(lines)

    assert caught.value.line_number == line_number
    assert str(caught.value).startswith(f"line {line_number}: ")
    violation = caught.value.violation
    assert isinstance(violation, IllegalMove)
    assert (violation.rule, violation.field) == ("SC-3", field)


@pytest.mark.parametrize(
    ("prefix", "rate"),
    [
        pytest.param(
            [*HEADER, *ROUND_ONE_SEATINGS, ROUND_ONE_HANDS[0]],
            Fraction(1, 3),
            id="SC-3 a refused rate leaves the rate at 1/4",
        ),
    ],
)
def test_refused_rate_changes_nothing(prefix: list[Line], rate: Fraction, replay: Replay) -> None:
    tournament = replay(prefix)

    with pytest.raises(IllegalMove):
        tournament.apply(CarryOverRateSet(1, rate))
    assert tournament.format.round(1).carry_over_rate == Fraction(1, 4)


@pytest.mark.parametrize(
    ("lines", "rate"),
    [
        pytest.param([*HEADER, rate_line("1/3")], Fraction(1, 3), id="SC-3 rate before seating"),
        pytest.param(
            [*HEADER, *ROUND_ONE_SEATINGS, rate_line("1/3")],
            Fraction(1, 3),
            id="SC-3 rate after seating, before the first hand",
        ),
        pytest.param(
            [*HEADER, rate_line("1/3"), rate_line("1/2")],
            Fraction(1, 2),
            id="SC-3 a later rate line replaces an earlier one before play",
        ),
    ],
)
def test_rate_change_accepted_before_round_one_starts(
    lines: list[Line], rate: Fraction, replay: Replay
) -> None:
    tournament = replay(lines)

    assert tournament.format.round(1).carry_over_rate == rate
    assert tournament.format.round(2).carry_over_rate == Fraction(1, 4)


# -- PN-1: penalties -----------------------------------------------------------------------
# {"advance": [4]}: round 1 (8 players, 4 advance), then the final.
PENALTY_LOG = [
    tournament_line([4]),
    *(player(p) for p in ("A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4")),
    seating(1, 1, ["A1", "A2", "A3", "A4"]),
    seating(1, 2, ["B1", "B2", "B3", "B4"]),
    hand(1, 1, 1, points(A1=40, A2=-6, A3=-17, A4=-17)),
    hand(1, 1, 2, self_draw("A2", 10)),  # A2 +30, others -10
    hand(1, 2, 1, points(B1=40, B2=6, B3=20, B4=-66)),
    hand(1, 2, 2, self_draw("B2", 8)),  # B2 +24, others -8
    {"type": "penalty", "round": 1, "player": "A2", "points": -15, "reason": "late arrival"},
    {"type": "penalty", "round": 1, "player": "B2", "points": -21, "reason": "stalling"},
    round_end(1),
]


@pytest.mark.parametrize(
    ("player", "play", "rank", "status"),
    [
        pytest.param("B1", 32, 1, "advanced", id="SC-1 B1 40 - 8"),
        pytest.param("A1", 30, 2, "advanced", id="SC-1 A1 40 - 10"),
        pytest.param("B3", 12, 3, "advanced", id="SC-1 B3 20 - 8"),
        # A2 and B2 both total 9 at the cut; A2's 10 beats B2's 8. Were the penalties hands
        # (21 > 15), B2 would win: they count in the play score only
        pytest.param("A2", 9, 4, "advanced", id="PN-1 A2 -6 + 30 - 15 penalty; wins on hands"),
        pytest.param("B2", 9, 4, "eliminated", id="PN-1 B2 6 + 24 - 21 penalty; loses on hands"),
        pytest.param("A3", -27, 6, "eliminated", id="SC-1 A3 -17 - 10"),
        pytest.param("A4", -27, 6, "eliminated", id="SC-1 A4 -17 - 10"),
        pytest.param("B4", -74, 8, "eliminated", id="SC-1 B4 -66 - 8"),
    ],
)
def test_penalties_count_in_the_play_score(
    player: str, play: int, rank: int, status: str, replay: Replay
) -> None:
    row = replay(PENALTY_LOG).standings(1).row_of(player)

    assert row is not None
    assert (row.play, row.total, row.rank, row.status) == (play, play, rank, status)


@pytest.mark.parametrize(
    ("player", "hands"),
    [
        pytest.param("A2", (10,), id="PN-1 ST-4 A2's tie-break list is its hand only"),
        pytest.param("B2", (8,), id="PN-1 ST-4 B2's tie-break list is its hand only"),
    ],
)
def test_penalties_never_count_in_the_tie_break(
    player: str, hands: tuple[int, ...], replay: Replay
) -> None:
    standings = replay(PENALTY_LOG).standings(1)

    assert standings.cut is not None and standings.cut.tie is not None
    assert standings.cut.tie.players == ("A2", "B2")
    assert standings.cut.tie.by_hands == ("A2",)
    assert standings.cut.tie.hands[player] == hands
