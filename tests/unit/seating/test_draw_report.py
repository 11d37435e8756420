"""rule SE-1 in replay's JSON: the recorded draw of each round, and the seatings that differ
from it, listed for the organizer to check (CONTRACT §1 accepts them)."""

from __future__ import annotations

import json

from app.domain.replay import replay_lines, report
from bench.generate import Options, generate

LINES = generate(
    Options(
        players=32,
        seed=4,
        format={"preset": "wsom2008", "advance": [8, 4]},
        until_round=1,
        leave_open=True,
    )
)
SEATINGS = [i for i, line in enumerate(LINES) if json.loads(line)["type"] == "seating"]


def first_round(lines: list[str]) -> dict[str, object]:
    rounds = report(replay_lines(lines))["rounds"]
    assert isinstance(rounds, list)
    first: dict[str, object] = rounds[0]
    return first


def test_a_round_played_as_drawn_shows_its_seed_and_no_deviation() -> None:
    drawn = first_round(LINES)["draw"]
    assert drawn == {"seed": "draw-1-4", "repeats": 0, "deviations": []}


def test_a_swapped_seat_is_accepted_and_listed() -> None:
    # Swap one player of table 1 with one of table 2 in segment 1 (a substitute came in).
    lines = list(LINES)
    first, second = (json.loads(lines[i]) for i in SEATINGS[:2])
    assert first["segment"] == second["segment"] == 1
    moved_out, moved_in = first["seats"][0], second["seats"][0]
    first["seats"][0], second["seats"][0] = moved_in, moved_out
    lines[SEATINGS[0]], lines[SEATINGS[1]] = json.dumps(first), json.dumps(second)
    # the hands of those two tables now name players who moved: keep only lines before play
    before_play = [
        line for line in lines if json.loads(line)["type"] not in ("hand", "void", "penalty")
    ]

    deviations = first_round(before_play)["draw"]["deviations"]  # type: ignore[index]

    assert deviations == [
        {"segment": 1, "player": p, "drawn_table": drawn, "seated_table": seated}
        for p, drawn, seated in sorted(
            [
                (moved_out, first["table"], second["table"]),
                (moved_in, second["table"], first["table"]),
            ]
        )
    ]
