"""Properties of the story of the session (issue 18, part 2) on generated rounds of two
halves: the counts add up to the hands played (rule HS-1); the segment's points are zero-sum
(HS-2) and each mover's rank before is the rank (ST-2) of their total less those points; as
many cross the cut line up as down with one hand (ST-3: the line holds A players); the
biggest hands are in order; and the order the tables' hands came in changes nothing."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.replay import replay_lines
from app.domain.story import Story, segment_changes, segment_tables, story
from app.domain.tournament import Tournament

PLAYERS = [f"p{i}" for i in range(12)]
ADVANCE = 4  # rule FM-6: of 12


def _result(drawn: tuple[int, int, int, int]) -> dict[str, Any]:
    kind, winner, other, value = drawn
    if kind == 0:
        return {"kind": "draw"}
    if kind == 1 or winner == other:
        return {"kind": "self_draw", "winner": winner, "value": value}
    return {"kind": "discard", "winner": winner, "discarder": other, "value": value}


results = st.tuples(
    st.integers(0, 2), st.integers(0, 3), st.integers(0, 3), st.integers(5, 320)
)  # rule HS-3: 5 to 320
# for each half, for each of the 3 tables, 0 to 8 hands (rule FM-3)
halves = st.lists(
    st.lists(st.lists(results, max_size=8), min_size=3, max_size=3), min_size=1, max_size=2
)


def seats(half: int, table: int) -> list[str]:
    # rule SE-2's spirit: the second half mixes the tables
    order = PLAYERS if half == 1 else PLAYERS[::3] + PLAYERS[1::3] + PLAYERS[2::3]
    return order[4 * (table - 1) : 4 * table]


def table_lines(played: list[list[list[tuple[int, int, int, int]]]]) -> list[list[list[str]]]:
    """Each half's tables' hand lines, in hand order."""
    out = []
    for half, tables in enumerate(played, start=1):
        half_lines = []
        for table, hands in enumerate(tables, start=1):
            seated = seats(half, table)
            lines = []
            for number, drawn in enumerate(hands, start=1):
                result = _result(drawn)
                for key in ("winner", "discarder"):
                    if key in result:
                        result[key] = seated[result[key]]
                line = {"type": "hand", "round": 1, "segment": half, "table": table}
                lines.append(json.dumps({**line, "hand": number, "result": result}))
            half_lines.append(lines)
        out.append(half_lines)
    return out


def opening(halves_played: int) -> list[str]:
    fmt = {"name": "story", "rounds": [{"advance": ADVANCE, "segments": 2}, {}]}
    lines: list[dict[str, Any]] = [{"type": "tournament", "name": "P", "format": fmt}]
    lines += [{"type": "player", "id": p, "name": p, "group": "A"} for p in PLAYERS]
    for half in range(1, halves_played + 1):
        lines += [
            {"type": "seating", "round": 1, "segment": half, "table": t, "seats": seats(half, t)}
            for t in (1, 2, 3)
        ]
    return [json.dumps(line) for line in lines]


def interleaved(tables: list[list[str]], rng: random.Random, last: str | None) -> list[str]:
    """The tables' lines merged in a random order, each table's in its own order; `last`
    (the last line of its table) kept last."""
    queues = [[line for line in lines if line != last] for lines in tables]
    merged = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        merged.append(queue.pop(0))
    return merged + ([last] if last is not None else [])


def play(lines: list[list[list[str]]], rng: random.Random, last: str | None = None) -> Tournament:
    body = []
    for half in lines:
        final = last if any(last in table for table in half) else None
        body += interleaved(half, rng, final)
    return replay_lines(opening(len(lines)) + body)


def same_story(first: Story, second: Story) -> bool:
    return first == second


@settings(max_examples=60, deadline=None)
@given(halves, st.randoms(use_true_random=False))
def test_the_counts_add_up_to_the_hands_played(
    played: list[list[list[tuple[int, int, int, int]]]], rng: random.Random
) -> None:
    lines = table_lines(played)
    told = story(play(lines, rng), top=None)
    counts = told.round_counts
    assert counts.hands == sum(len(t) for half in lines for t in half)
    # rule HS-1: every hand ends in exactly one way
    assert counts.hands == counts.self_draws + counts.discards + counts.draws + counts.others
    segment = told.segment_counts
    assert segment.hands <= counts.hands and segment.draws <= counts.draws
    # every win is among the biggest (top=None), the biggest first (rule HS-4)
    assert len(told.round_hands) == counts.self_draws + counts.discards
    values = [big.value for big in told.round_hands]
    assert values == sorted(values, reverse=True)


@settings(max_examples=60, deadline=None)
@given(halves, st.randoms(use_true_random=False))
def test_the_movers_changes_are_the_segments_points(
    played: list[list[list[tuple[int, int, int, int]]]], rng: random.Random
) -> None:
    tournament = play(table_lines(played), rng)
    told = story(tournament, top=None)
    if told.segment is None:
        return
    state = tournament.current_round
    changes = segment_changes(segment_tables(state, told.segment, told.group))
    assert sum(changes.values()) == 0  # rule HS-2: every hand is zero-sum
    standings = tournament.standings(1)
    before = {row.player: row.total - changes.get(row.player, 0) for row in standings.rows}
    for mover in told.climbers + told.fallers:
        assert mover.change == changes[mover.player]
        assert mover.total - mover.change == before[mover.player]
        # rule ST-2: one more than the players with a higher total
        higher = sum(1 for total in before.values() if total > before[mover.player])
        assert mover.rank_before == higher + 1
        assert (mover in told.climbers) == (mover.rank < mover.rank_before)
    # rule ST-3: the line holds ADVANCE players before the hand and after it
    up = [c for c in told.crossed if c.up]
    assert len(up) == len(told.crossed) - len(up)


@settings(max_examples=40, deadline=None)
@given(halves, st.randoms(use_true_random=False), st.randoms(use_true_random=False))
def test_the_order_the_tables_hands_came_in_changes_nothing(
    played: list[list[list[tuple[int, int, int, int]]]],
    first: random.Random,
    second: random.Random,
) -> None:
    lines = table_lines(played)
    # the same last hand both ways: a table's last in the last half that has hands
    tables = [table for half in lines for table in half if table]
    last = tables[-1][-1] if tables else None
    assert same_story(story(play(lines, first, last)), story(play(lines, second, last)))
    assert (
        story(play(lines, first, last), top=2).round_hands
        == (story(play(lines, second, last), top=None).round_hands[:2])
    )
