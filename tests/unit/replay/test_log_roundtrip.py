"""Every line type written back by `event_to_log` reads as the same event (CONTRACT §1):
what the server exports, replay and other programs read the same way."""

from __future__ import annotations

import json

from app.domain.log import event_to_log, parse_event, parse_line
from bench.generate import Options, generate

TIMED = generate(
    Options(
        players=40,
        seed=11,
        format={"preset": "wsom2008", "advance": [16, 8, 4]},
        schedule_start="2026-11-29T09:00:00Z",
        corrections=0.05,
        voids=0.05,
        penalties=0.05,
    )
)
EXTRA = [
    # a player's name in their own script beside the Latin one (issue 17)
    {"type": "player", "id": "P9", "name": "Takeshi Yamada", "group": "A", "local_name": "山田 剛"},
    {"type": "prizes", "amounts": [1000, "1500.5", 2.25, "1000/3"]},  # rule PR-3 splits
    {"type": "extension", "round": 1, "segment": 1, "table": 1, "minutes": 5},
    {"type": "play_all", "round": 1, "segment": 1, "table": 1, "reason": "stalling"},
    {"type": "seating", "round": 8, "segment": 1, "table": 1, "seats": [1, 2, 3, 4], "cycle": 7},
    {
        "type": "hand",
        "round": 1,
        "segment": 1,
        "table": 1,
        "hand": 2,
        "result": {
            "kind": "points",
            "deltas": {"1": 9, "2": -9, "3": 0, "4": 0},
            "winner": 1,
            "value": 3,
        },
    },
    {"type": "round_end", "round": 1},
    {"type": "round_end", "round": 1, "draw_seed": "s", "reason": "the hall closes at six"},
]


def test_the_generated_log_uses_every_core_line_type() -> None:
    kinds = {json.loads(line)["type"] for line in TIMED}
    assert {
        "tournament",
        "player",
        "prizes",
        "carry_over_rate",
        "draw",
        "schedule",
        "seating",
        "early_start",
        "deal",
        "hand",
        "void",
        "penalty",
        "round_end",
    } <= kinds


def test_a_line_written_back_reads_as_the_same_event() -> None:
    for number, text in enumerate(TIMED + [json.dumps(line) for line in EXTRA], start=1):
        event = parse_line(text)
        assert parse_event(event_to_log(event)) == event, f"line {number}: {text}"
