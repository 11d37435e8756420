"""Final ranking and prize money (rules PR-1 to PR-3, ST-6, FM-9).

`final_ranking` is fed standings built by `rank_round`; the substitute case goes through a
replayed log. Ranks and prize splits are worked out by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest

from app.domain.prizes import FinalPlace, final_ranking
from app.domain.standings import RoundScores, rank_round
from app.domain.tournament import Tournament

ScoresBuilder = Callable[..., RoundScores]  # the `round_scores` fixture of conftest.py
Replay = Callable[[Sequence[dict[str, Any]]], Tournament]  # the `replay` fixture


@dataclass(frozen=True)
class EndedRound:
    number: int
    advance: int | None
    play: Mapping[str, int]
    carry_in: Mapping[str, Fraction] = field(default_factory=dict)
    hands: Mapping[str, Sequence[int]] = field(default_factory=dict)


def amounts(*values: int) -> list[Fraction]:
    return [Fraction(v) for v in values]


# expected rows: (player, rank, prize, round of elimination or the final, total in that round)
CASES = [
    pytest.param(
        [
            EndedRound(
                1, 4, {"F1": 40, "F2": 30, "F3": 20, "F4": 10, "E1": 5, "E2": 3, "E3": 3, "E4": -11}
            ),
            # final totals: F1 10 - 20 = -10, F2 15/2 + 10 = 35/2, F3 5 + 10 = 15, F4 5/2 + 0
            EndedRound(
                2,
                None,
                {"F1": -20, "F2": 10, "F3": 10, "F4": 0},
                carry_in={
                    "F1": Fraction(10),
                    "F2": Fraction(15, 2),
                    "F3": Fraction(5),
                    "F4": Fraction(5, 2),
                },
            ),
        ],
        amounts(100, 60, 30, 11, 8, 6, 4, 2),
        [
            ("F2", 1, Fraction(100), 2, Fraction(35, 2)),
            ("F3", 2, Fraction(60), 2, Fraction(15)),
            ("F4", 3, Fraction(30), 2, Fraction(5, 2)),
            ("F1", 4, Fraction(11), 2, Fraction(-10)),
            ("E1", 5, Fraction(8), 1, Fraction(5)),
            ("E2", 6, Fraction(5), 1, Fraction(3)),  # rule PR-3: (6 + 4) / 2
            ("E3", 6, Fraction(5), 1, Fraction(3)),
            ("E4", 8, Fraction(2), 1, Fraction(-11)),
        ],
        id="PR-1 finalists by final total (carry-in included), then round-1 eliminated",
    ),
    pytest.param(
        [
            EndedRound(1, 4, {"P": 40, "Q": 30, "R": 20, "S": 10, "X": 0, "Y": -100}),
            EndedRound(2, None, {"P": 40, "Q": 10, "R": 10, "S": 10}),
        ],
        amounts(100, 60, 30, 11),
        [
            ("P", 1, Fraction(100), 2, Fraction(40)),
            ("Q", 2, Fraction(101, 3), 2, Fraction(10)),  # rule PR-3: (60 + 30 + 11) / 3
            ("R", 2, Fraction(101, 3), 2, Fraction(10)),
            ("S", 2, Fraction(101, 3), 2, Fraction(10)),
            ("X", 5, Fraction(0), 1, Fraction(0)),  # rule PR-2: beyond the prize table
            ("Y", 6, Fraction(0), 1, Fraction(-100)),
        ],
        id="PR-3 three share rank 2 and split places 2-4 exactly",
    ),
    pytest.param(
        [
            EndedRound(
                1,
                4,
                {"F1": 200, "F2": 190, "F3": 180, "F4": 170, "E1": 160, "E2": 150, "E3": 140},
            ),
            EndedRound(2, None, {"F1": -50, "F2": -10, "F3": 20, "F4": 40}),
        ],
        amounts(400, 300, 200, 100, 50),
        [
            ("F4", 1, Fraction(400), 2, Fraction(40)),
            ("F3", 2, Fraction(300), 2, Fraction(20)),
            ("F2", 3, Fraction(200), 2, Fraction(-10)),
            ("F1", 4, Fraction(100), 2, Fraction(-50)),
            ("E1", 5, Fraction(50), 1, Fraction(160)),  # rule PR-1: below every finalist
            ("E2", 6, Fraction(0), 1, Fraction(150)),
            ("E3", 7, Fraction(0), 1, Fraction(140)),
        ],
        id="PR-1 a big round-1 total still ranks below a negative final total",
    ),
    pytest.param(
        [
            EndedRound(
                1,
                8,
                {
                    "a1": 80,
                    "a2": 70,
                    "a3": 60,
                    "a4": 50,
                    "a5": 40,
                    "a6": 30,
                    "a7": 20,
                    "a8": 10,
                    "e1": 0,
                    "e2": -5,
                    "e3": -5,
                    "e4": -5,
                },
            ),
            EndedRound(
                2, 4, {"a1": 9, "a2": 8, "a3": 7, "a4": 6, "a5": 5, "a6": 5, "a7": 1, "a8": -3}
            ),
            EndedRound(3, None, {"a1": 0, "a2": 12, "a3": 3, "a4": 3}),
        ],
        amounts(1000, 500, 250, 125, 64, 32, 16, 8, 4, 2),
        [
            ("a2", 1, Fraction(1000), 3, Fraction(12)),
            ("a3", 2, Fraction(375), 3, Fraction(3)),  # rule PR-3: (500 + 250) / 2
            ("a4", 2, Fraction(375), 3, Fraction(3)),
            ("a1", 4, Fraction(125), 3, Fraction(0)),
            ("a5", 5, Fraction(48), 2, Fraction(5)),  # rule PR-3: (64 + 32) / 2
            ("a6", 5, Fraction(48), 2, Fraction(5)),
            ("a7", 7, Fraction(16), 2, Fraction(1)),
            ("a8", 8, Fraction(8), 2, Fraction(-3)),
            ("e1", 9, Fraction(4), 1, Fraction(0)),
            # rule PR-3: places 10, 11, 12; only place 10 has money: (2 + 0 + 0) / 3
            ("e2", 10, Fraction(2, 3), 1, Fraction(-5)),
            ("e3", 10, Fraction(2, 3), 1, Fraction(-5)),
            ("e4", 10, Fraction(2, 3), 1, Fraction(-5)),
        ],
        id="PR-1 PR-3 three rounds: each round's eliminated below the next round's field",
    ),
    pytest.param(
        [
            EndedRound(
                1,
                4,
                {"a": 40, "b": 30, "c": 20, "d": 10, "e": 10, "f": 0, "g": -5, "h": -5},
                hands={"d": [20], "e": [10]},
            ),
        ],
        amounts(100, 60, 30, 11, 8, 6, 4, 2),
        [
            # d and e share rank 4 in the standings (rule ST-6) but d advanced on hands
            # (rule ST-4): e ranks below everybody who plays the final (rule PR-1)
            ("e", 5, Fraction(8), 1, Fraction(10)),
            ("f", 6, Fraction(6), 1, Fraction(0)),
            ("g", 7, Fraction(3), 1, Fraction(-5)),  # rule PR-3: (4 + 2) / 2
            ("h", 7, Fraction(3), 1, Fraction(-5)),
        ],
        id="PR-1 ST-6 only round 1 ended: its eliminated are ranked, finalists not yet",
    ),
]


def ranking_of(
    rounds: list[EndedRound], prizes: list[Fraction], round_scores: ScoresBuilder
) -> list[FinalPlace]:
    ended = [
        rank_round(
            round_scores(
                r.play,
                r.advance,
                carry_in=r.carry_in,
                hands=r.hands,
                ended=True,
                round_number=r.number,
            )
        )
        for r in rounds
    ]
    return final_ranking(ended, {r.number: r.advance for r in rounds}, prizes)


@pytest.mark.parametrize(("rounds", "prizes", "expected"), CASES)
def test_final_ranking(
    rounds: list[EndedRound],
    prizes: list[Fraction],
    expected: list[tuple[str, int, Fraction, int, Fraction]],
    round_scores: ScoresBuilder,
) -> None:
    places = ranking_of(rounds, prizes, round_scores)

    assert [(p.player, p.rank, p.prize, p.round, p.total) for p in places] == expected


@pytest.mark.parametrize(("rounds", "prizes", "expected"), CASES)
def test_prize_money_paid_is_exactly_the_money_of_the_places_taken(
    rounds: list[EndedRound],
    prizes: list[Fraction],
    expected: list[tuple[str, int, Fraction, int, Fraction]],
    round_scores: ScoresBuilder,
) -> None:
    # rule PR-3: splitting a shared rank neither creates nor loses money; the places taken
    # are 1..n for the n players ranked so far, counted below the rounds still to play
    places = ranking_of(rounds, prizes, round_scores)

    first_place = min(rank for _, rank, _, _, _ in expected)
    taken = range(first_place, first_place + len(expected))
    money_of_places = sum((prizes[p - 1] for p in taken if p <= len(prizes)), Fraction(0))
    assert sum((p.prize for p in places), Fraction(0)) == money_of_places


def substitute_log(*, play_final: bool) -> list[dict[str, Any]]:
    """8 registered in round 1: A1-A3 and substitute S1 in group A, B1-B4 in group B."""

    def player(pid: str, group: str, **extra: Any) -> dict[str, Any]:
        return {"type": "player", "id": pid, "name": f"Player {pid}", "group": group, **extra}

    def self_draw(round_: int, table: int, winner: str, value: int) -> dict[str, Any]:
        result = {"kind": "self_draw", "winner": winner, "value": value}
        where = {"round": round_, "segment": 1, "table": table, "hand": 1}
        return {"type": "hand", **where, "result": result}

    def seating(round_: int, table: int, seats: list[str]) -> dict[str, Any]:
        return {"type": "seating", "round": round_, "segment": 1, "table": table, "seats": seats}

    lines = [
        {"type": "tournament", "name": "FM-9", "format": {"preset": "wsom2008", "advance": [4]}},
        {"type": "prizes", "amounts": [100, 60, 30, 11, 9, 6, 3, 1]},
        player("A1", "A"),
        player("A2", "A"),
        player("A3", "A"),
        player("S1", "A", substitute=True),
        *(player(f"B{n}", "B") for n in range(1, 5)),
        seating(1, 1, ["A1", "A2", "A3", "S1"]),
        seating(1, 2, ["B1", "B2", "B3", "B4"]),
        self_draw(1, 1, "S1", 20),  # S1 +60, A1-A3 -20 each (rule HS-2)
        self_draw(1, 2, "B1", 5),  # B1 +15, B2-B4 -5 each
        {"type": "round_end", "round": 1},
    ]
    if play_final:
        lines += [
            seating(2, 1, ["B1", "B2", "B3", "B4"]),
            self_draw(2, 1, "B2", 10),  # B2 +30, B1, B3, B4 -10 each
            {"type": "round_end", "round": 2},
        ]
    return lines


@pytest.mark.parametrize(
    ("play_final", "expected"),
    [
        pytest.param(
            False,
            [
                # rule PR-3: A1-A3 share rank 5: (9 + 6 + 3) / 3 = 6
                ("A1", 5, Fraction(6)),
                ("A2", 5, Fraction(6)),
                ("A3", 5, Fraction(6)),
            ],
            id="FM-9 PR-1 after round 1: the substitute's 60 points rank nobody",
        ),
        pytest.param(
            True,
            [
                # final totals: B2 -5/4 + 30 = 115/4, B1 15/4 - 10 = -25/4, B3 B4 -5/4 - 10
                ("B2", 1, Fraction(100)),
                ("B1", 2, Fraction(60)),
                ("B3", 3, Fraction(41, 2)),  # rule PR-3: (30 + 11) / 2
                ("B4", 3, Fraction(41, 2)),
                ("A1", 5, Fraction(6)),
                ("A2", 5, Fraction(6)),
                ("A3", 5, Fraction(6)),
            ],
            id="FM-9 PR-1 after the final: the substitute takes no place and no prize",
        ),
    ],
)
def test_substitutes_are_never_ranked(
    play_final: bool, expected: list[tuple[str, int, Fraction]], replay: Replay
) -> None:
    tournament = replay(substitute_log(play_final=play_final))

    ranking = [(p.player, p.rank, p.prize) for p in tournament.final_ranking()]
    assert ranking == expected
    # rule FM-9: the substitute played (its hand moved points) but is in no standings
    round_one = tournament.standings(1)
    assert [row.player for row in round_one.rows] == ["B1", "B2", "B3", "B4", "A1", "A2", "A3"]
    assert [row.rank for row in round_one.rows] == [1, 2, 2, 2, 5, 5, 5]
    assert [row.status for row in round_one.rows] == ["advanced"] * 4 + ["eliminated"] * 3
    assert tournament.rounds[1].play["S1"] == 60
