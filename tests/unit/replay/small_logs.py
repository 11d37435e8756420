"""Small hand-written tournament logs (CONTRACT.md §1) shared by the replay tests.

The format is a short custom one: round 1 in 2 groups of 8 (4 halves of 8 hands), 8
advance to round 2 (4 quarters of 4 hands at 2 tables), 4 advance to the final. Every
score below is worked out by hand, so the tests can name exact values.
"""

from __future__ import annotations

import json
from typing import Any

Line = dict[str, Any] | str  # a str goes into the log as it is (for text that is not JSON)

FORMAT = {"preset": "wsom2008", "advance": [8, 4]}
GROUP_A = [f"P{n:02d}" for n in range(1, 9)]
GROUP_B = [f"P{n:02d}" for n in range(9, 17)]
ROUND_ONE_TABLES = {1: GROUP_A[:4], 2: GROUP_A[4:], 3: GROUP_B[:4], 4: GROUP_B[4:]}


def seating(round_: int, segment: int, table: int, seats: list[str]) -> dict[str, Any]:
    return {"type": "seating", "round": round_, "segment": segment, "table": table, "seats": seats}


def hand(
    round_: int, segment: int, table: int, number: int, result: dict[str, Any]
) -> dict[str, Any]:
    where = {"round": round_, "segment": segment, "table": table, "hand": number}
    return {"type": "hand", **where, "result": result}


def self_draw(winner: str, value: int) -> dict[str, Any]:
    return {"kind": "self_draw", "winner": winner, "value": value}


def discard(winner: str, discarder: str, value: int) -> dict[str, Any]:
    return {"kind": "discard", "winner": winner, "discarder": discarder, "value": value}


def points(deltas: dict[str, int]) -> dict[str, Any]:
    return {"kind": "points", "deltas": deltas}


DRAW = {"kind": "draw"}


def penalty(round_: int, player_id: str, amount: int = -10) -> dict[str, Any]:
    return {
        "type": "penalty",
        "round": round_,
        "player": player_id,
        "points": amount,
        "reason": "late",
    }


def void(round_: int, segment: int, table: int, number: int) -> dict[str, Any]:
    return {"type": "void", "round": round_, "segment": segment, "table": table, "hand": number}


def round_end(round_: int, draw_seed: str | None = None) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "round_end", "round": round_}
    if draw_seed is not None:
        line["draw_seed"] = draw_seed
    return line


def rate(text: str, round_: int = 1) -> dict[str, Any]:
    return {"type": "carry_over_rate", "round": round_, "rate": text}


def player(player_id: str, group: str) -> dict[str, Any]:
    return {"type": "player", "id": player_id, "name": f"Player {player_id}", "group": group}


def text(line: Line) -> str:
    return line if isinstance(line, str) else json.dumps(line)


def texts(lines: list[Line]) -> list[str]:
    return [text(line) for line in lines]


TOURNAMENT: list[Line] = [{"type": "tournament", "name": "Test Open", "format": FORMAT}]
REGISTERED: list[Line] = [
    *TOURNAMENT,
    *(player(p, "A") for p in GROUP_A),
    *(player(p, "B") for p in GROUP_B),
    rate("1/4"),  # the organizer's rate, set before round 1 begins (rule SC-3)
]
SEATED: list[Line] = [
    *REGISTERED,
    *(seating(1, 1, table, seats) for table, seats in ROUND_ONE_TABLES.items()),
]
# At every table seat 1 wins 10 by self-draw, then seat 2 wins 5 by self-draw: seat 1
# ends on 25, seat 2 on 5, seats 3 and 4 on -15; P03 also loses 1 point to a penalty.
# The cut after 8 players is clear.
PLAYED: list[Line] = [
    *SEATED,
    *(
        line
        for table, seats in ROUND_ONE_TABLES.items()
        for line in (
            hand(1, 1, table, 1, self_draw(seats[0], 10)),
            hand(1, 1, table, 2, self_draw(seats[1], 5)),
        )
    ),
    penalty(1, "P03", -1),
]
ROUND_ONE_ENDED: list[Line] = [*PLAYED, round_end(1)]
ADVANCED = ["P01", "P02", "P05", "P06", "P09", "P10", "P13", "P14"]
ELIMINATED = sorted(set(GROUP_A + GROUP_B) - set(ADVANCED))
# Round 2 carries in 25/4 (P01, P05, P09, P13) and 5/4 (P02, P06, P10, P14).
# Table 1: P02 wins 30 on P01's discard (P02 +90, P01 -40, P05 -25, P06 -25).
# Table 2: P10 wins 5 by self-draw (P10 +15, the others -5).
ROUND_TWO: list[Line] = [
    *ROUND_ONE_ENDED,
    seating(2, 1, 1, ["P01", "P02", "P05", "P06"]),
    seating(2, 1, 2, ["P09", "P10", "P13", "P14"]),
    hand(2, 1, 1, 1, discard("P02", "P01", 30)),
    hand(2, 1, 2, 1, self_draw("P10", 5)),
]
FINALISTS = ["P02", "P10", "P09", "P13"]
# The final carries in 365/16 (P02), 65/16 (P10), 5/16 (P09, P13); P13 wins 5 by self-draw.
PRIZES = [1000, 500, 300, 200, 100, 100, 50, 50, 10, 10, 10]
FINISHED: list[Line] = [
    *ROUND_TWO,
    round_end(2),
    seating(3, 1, 1, FINALISTS),
    hand(3, 1, 1, 1, self_draw("P13", 5)),
    round_end(3),
    {"type": "prizes", "amounts": PRIZES},
]
