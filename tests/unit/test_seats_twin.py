"""Where the players sit in a cycle (rules SE-6 to SE-10, issue 33) is worked out twice: by the
read model (app/read/views.py, `seats_now`) for every screen, and by the judge's tablet
(app/static/judge/state.js, `cycleSeats`), which must work offline. Both are asked the same
question on generated days, WSOM 2008 (SE-6, SE-7, and SE-8's final) and WSOM 2007 (SE-9's
final, its starting Easts by dice and cycle 7 drawn anew): after every line of the log, where
the four of the table it names sit for its next hand. They must give the same seats."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.domain import seating
from app.domain.replay import apply_line, replay_lines
from app.read.views import seats_now
from bench.generate import Options, generate
from tests.node_scripts import run_module

PRESETS = ("wsom2008", "wsom2007")


def cases(preset: str) -> list[dict[str, Any]]:
    """(the segment as the tablet's sign-in gives it, its next hand, the read model's seats)
    after each seating or hand line of a generated day's log, each asked once."""
    lines = generate(Options(players=64, seed=7, format={"preset": preset, "advance": [16, 8, 4]}))
    tournament = replay_lines(lines[:1])
    found: dict[str, dict[str, Any]] = {}
    for text in lines[1:]:
        apply_line(tournament, text)
        line = json.loads(text)
        if line["type"] not in ("seating", "hand"):
            continue
        state = tournament.rounds[line["round"]]
        segment, table = line["segment"], line["table"]
        seated = state.tables[(segment, table)]
        if seated.game is not None:
            continue  # an Ari Ari game keeps its seats: no cycle to work out
        planned = state.format.hands_per_segment
        case = {
            "segment": {  # as app/web/judge_pages.py gives it to the tablet
                "segment": segment,
                "seats": list(seated.seats),
                "cycles": [
                    None if c is None else list(c) for c in seating.cycles(state, segment, table)
                ],
            },
            "hand": seated.next_hand(planned) or max(seated.last_hand, 1),
            "seats": list(seats_now(state, segment, table)),
        }
        found[json.dumps(case, sort_keys=True)] = case
    return list(found.values())


def tablet_answers(asked: list[dict[str, Any]]) -> list[list[str]]:
    script = (
        'import { readFileSync } from "node:fs";\n'
        'import { TabletState } from "./app/static/judge/state.js";\n'
        'const cases = JSON.parse(readFileSync(0, "utf8"));\n'
        "const out = cases.map((c) => {\n"
        "  const state = new TabletState();\n"
        "  state.storage = null;\n"
        '  state.who = { round: 1, ruleset: "wsom", segments: [c.segment] };\n'
        "  state.entries = [];\n"
        "  return state.cycleSeats(c.segment.segment, c.hand).map(String);\n"
        "});\n"
        "console.log(JSON.stringify(out));\n"
    )
    # on stdin: thousands of cases are too long for an argument
    answers: list[list[str]] = run_module(script, stdin=json.dumps(asked))
    return answers


@pytest.mark.parametrize("preset", PRESETS)
def test_the_tablet_seats_the_players_where_every_screen_does(preset: str) -> None:
    asked = cases(preset)
    moved = [c for c in asked if c["seats"] != c["segment"]["seats"]]
    assert moved, "no cycle after the first: the day tests nothing"
    if preset == "wsom2007":  # rule SE-9: a cycle drawn anew, asked before its draw is entered
        assert any(None in c["segment"]["cycles"] for c in asked)
    expected = [[str(p) for p in c["seats"]] for c in asked]
    answers = tablet_answers(asked)
    wrong = [(c, a) for c, a, e in zip(asked, answers, expected, strict=True) if a != e]
    assert wrong == [], f"{len(wrong)} of {len(asked)} differ, first: {wrong[:1]}"
