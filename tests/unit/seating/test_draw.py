"""The seating draw of a round (rules SE-1 to SE-3, FM-2, FM-9) and the `draw` line of the
log (CONTRACT.md §1).

Which player sits where depends on SHA-256, so no table of a draw is written out by hand:
the tests check what the rules ask of every draw (reproducible from the seed, one seat per
player and segment, groups apart, no repeated meetings) by counting, and they pin the
published recipe of segment 1 so an audit can rerun it without the server.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

import pytest

from app.domain.draw import RoundDraw, draw_round
from app.domain.errors import IllegalMove, LogError, MalformedInput
from app.domain.formats import PRESETS, RoundFormat
from app.domain.log import SeatingRecorded, event_to_log
from app.domain.replay import replay_lines
from app.domain.replay import report as replay_report
from app.domain.tournament import Tournament
from bench.generate import Options, generate

WSOM2008 = PRESETS["wsom2008"]
ROUND_1 = WSOM2008.round(1)  # rule FM-2: 2 groups, 4 halves each
ROUND_2 = WSOM2008.round(2)  # rule FM-3: 2 halves
ROUND_7 = WSOM2008.round(7)  # rule FM-4: 4 quarters at 2 tables
FINAL = WSOM2008.round(8)
FORMAT = {"preset": "wsom2008", "advance": [16, 8, 4]}  # round 1, round 2, quarters, final

Line = dict[str, Any]


def ids(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n:03d}" for n in range(1, count + 1)]


def tables_by_segment(draw: RoundDraw) -> dict[int, list[SeatingRecorded]]:
    out: dict[int, list[SeatingRecorded]] = {}
    for seating in draw.seatings:
        out.setdefault(seating.segment, []).append(seating)
    return out


def meetings(seatings: Iterable[SeatingRecorded]) -> Counter[frozenset[str]]:
    """How many segments each pair of players shares a table in."""
    met: Counter[frozenset[str]] = Counter()
    for seating in seatings:
        met.update(frozenset(pair) for pair in combinations(seating.seats, 2))
    return met


# -- rule SE-1: a seeded draw -------------------------------------------------------------------

GROUPS = {"A": ids("A", 24), "B": ids("B", 16)}  # 6 tables in group A, 4 in group B


def test_the_same_seed_gives_the_same_draw() -> None:
    first = draw_round(ROUND_1, GROUPS, "seed-1")
    assert draw_round(ROUND_1, GROUPS, "seed-1") == first
    assert first.seed == "seed-1" and first.round == 1


def test_another_seed_gives_another_draw() -> None:
    first = draw_round(ROUND_1, GROUPS, "seed-1").seatings
    assert draw_round(ROUND_1, GROUPS, "seed-2").seatings != first
    # and not merely another seat order at the same tables
    tables = {(s.segment, frozenset(s.seats)) for s in first}
    assert {
        (s.segment, frozenset(s.seats)) for s in draw_round(ROUND_1, GROUPS, "seed-2").seatings
    } != tables


def test_the_draw_does_not_depend_on_the_order_players_are_given_in() -> None:
    expected = draw_round(ROUND_1, GROUPS, "seed-1")
    shuffled = {group: list(players) for group, players in reversed(GROUPS.items())}
    for players in shuffled.values():
        random.Random(7).shuffle(players)
    assert draw_round(ROUND_1, shuffled, "seed-1") == expected


def test_segment_1_follows_the_published_recipe() -> None:
    # rule SE-1: "anyone can rerun it": players in order of SHA-256("seed:round:player"), four
    # at a time to tables 1, 2, ...; group A first, group B's tables after
    seed = "audit"

    def key(player: str) -> str:
        return hashlib.sha256(f"{seed}:1:{player}".encode()).hexdigest()

    expected = []
    for group in ("A", "B"):
        order = sorted(GROUPS[group], key=key)
        expected += [frozenset(order[i : i + 4]) for i in range(0, len(order), 4)]
    drawn = tables_by_segment(draw_round(ROUND_1, GROUPS, seed))[1]
    assert [(s.table, frozenset(s.seats)) for s in drawn] == list(enumerate(expected, start=1))


# -- rules FM-2, FM-9: groups apart, every player once per segment --------------------------------


def test_round_1_draws_each_group_apart_with_table_numbers_unique_in_the_round() -> None:
    draw = draw_round(ROUND_1, GROUPS, "seed-1")
    by_segment = tables_by_segment(draw)
    assert sorted(by_segment) == [1, 2, 3, 4]
    for seatings in by_segment.values():
        assert sorted(s.table for s in seatings) == list(range(1, 11))
        for seating in seatings:
            group = {player[0] for player in seating.seats}
            assert len(group) == 1  # rule FM-2: a table seats one group
            # group A has tables 1-6, group B the next 4
            assert seating.table in (range(1, 7) if group == {"A"} else range(7, 11))


@pytest.mark.parametrize(
    ("round_format", "groups"),
    [
        pytest.param(ROUND_1, GROUPS, id="FM-2 round 1, groups of 24 and 16"),
        pytest.param(ROUND_2, {"": ids("P", 64)}, id="FM-3 round 2, 16 tables"),
        pytest.param(ROUND_7, {"": ids("P", 8)}, id="FM-4 round 7, 2 tables"),
        pytest.param(FINAL, {"": ids("P", 4)}, id="FM-5 the final"),
        pytest.param(PRESETS["wsom2007"].round(8), {"": ids("P", 4)}, id="FM-5 2007 final"),
    ],
)
def test_every_player_sits_exactly_once_in_every_segment(
    round_format: RoundFormat, groups: Mapping[str, Sequence[str]]
) -> None:
    draw = draw_round(round_format, groups, "seed-1")
    everyone = sorted(p for players in groups.values() for p in players)
    by_segment = tables_by_segment(draw)
    assert sorted(by_segment) == list(range(1, round_format.segments + 1))
    for seatings in by_segment.values():
        assert sorted(p for s in seatings for p in s.seats) == everyone  # rule FM-9
        assert all(s.round == round_format.number and s.cycle is None for s in seatings)
    assert len({(s.segment, s.table) for s in draw.seatings}) == len(draw.seatings)


# -- rules SE-2, SE-3: who meets whom ------------------------------------------------------------


def test_520_players_never_meet_in_two_halves_of_round_1() -> None:
    groups = {"A": ids("A", 260), "B": ids("B", 260)}
    draw = draw_round(ROUND_1, groups, "wsom-2008")
    met = meetings(draw.seatings)
    assert max(met.values()) == 1  # rule SE-2
    assert draw.repeats == 0
    # every player meets 3 new faces in each of the 4 halves
    faces = Counter(p for pair in met for p in pair)
    assert set(faces.values()) == {12}
    assert len(faces) == 520


def test_round_2_halves_never_repeat_a_meeting() -> None:
    draw = draw_round(ROUND_2, {"": ids("P", 256)}, "round-2")
    assert max(meetings(draw.seatings).values()) == 1  # rule SE-2
    assert draw.repeats == 0


def test_round_7_uses_the_quarter_routine() -> None:
    draw = draw_round(ROUND_7, {"": ids("P", 8)}, "round-7")
    met = meetings(draw.seatings)
    # rule SE-3: nobody meets another in all 4 quarters, and with 12 meetings per player
    # over 7 others the least possible is that no pair meets more than twice
    assert max(met.values()) == 2
    assert sum(met.values()) == 4 * 2 * 6  # 4 quarters, 2 tables, 6 pairs a table
    assert {s.table for s in draw.seatings} == {1, 2}


# -- rule FM-9: tables of exactly 4 ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("round_format", "groups", "needed", "where"),
    [
        pytest.param(
            ROUND_1, {"A": ids("A", 18), "B": ids("B", 16)}, 2, "group A", id="FM-9 A is 18"
        ),
        pytest.param(
            ROUND_1, {"A": ids("A", 16), "B": ids("B", 17)}, 3, "group B", id="FM-9 B is 17"
        ),
        pytest.param(ROUND_2, {"": ids("P", 15)}, 1, "round 2", id="FM-9 round 2 of 15"),
    ],
)
def test_a_group_that_does_not_fill_its_tables_is_refused(
    round_format: RoundFormat, groups: Mapping[str, Sequence[str]], needed: int, where: str
) -> None:
    with pytest.raises(MalformedInput) as refused:
        draw_round(round_format, groups, "seed")
    assert refused.value.rule == "FM-9"
    assert where in refused.value.message
    assert f"{needed} substitute" in refused.value.message


# -- the draw line of the log ---------------------------------------------------------------------


def registrations(
    group_a: list[str], group_b: list[str], substitutes: Sequence[str] = ()
) -> list[Line]:
    lines: list[Line] = [{"type": "tournament", "name": "Draw", "format": FORMAT}]
    for group, players in (("A", group_a), ("B", group_b)):
        lines += [{"type": "player", "id": p, "name": f"N {p}", "group": group} for p in players]
    lines += [
        {"type": "player", "id": s, "name": f"Sub {s}", "group": "A", "substitute": True}
        for s in substitutes
    ]
    return lines


def draw_line(round_: int, seed: str) -> Line:
    return {"type": "draw", "round": round_, "seed": seed}


def replay(lines: Sequence[Line]) -> Tournament:
    return replay_lines(json.dumps(line) for line in lines)


def seating_lines(draw: RoundDraw) -> list[Line]:
    return [event_to_log(seating) for seating in draw.seatings]


def test_a_generated_log_replays_its_draw_without_deviation() -> None:
    # 42 players: 21 a group, so 3 substitutes each (rule FM-9), drawn and seated
    lines = generate(Options(players=42, format=FORMAT, until_round=1, leave_open=True))
    tournament = replay_lines(lines)
    assert sum(json.loads(line)["type"] == "draw" for line in lines) == 1
    assert tournament.draw_deviations(1) == []
    state = tournament.rounds[1]
    assert state.draw is not None
    substitutes = {p for p, reg in tournament.players.items() if reg.substitute}
    assert len(substitutes) == 6
    seated = {p for (segment, p) in state.seat_of if segment == 1}
    assert substitutes <= seated  # rule FM-9: substitutes play
    assert seated == set(tournament.players)
    assert {p for s in state.draw.seatings for p in s.seats} == set(tournament.players)


def test_substitutes_are_drawn_with_their_group() -> None:
    lines = registrations(ids("A", 18), ids("B", 16), substitutes=["S1", "S2"])
    tournament = replay([*lines, draw_line(1, "subs")])
    draw = tournament.rounds[1].draw
    assert draw is not None
    for segment, seatings in tables_by_segment(draw).items():
        seated = [p for s in seatings for p in s.seats]
        assert sorted(seated) == sorted([*ids("A", 18), *ids("B", 16), "S1", "S2"]), segment
        # group A fills tables 1-5, substitutes included; group B tables 6-9
        for seating in seatings:
            in_a = seating.table <= 5
            assert all((p[0] in "AS") == in_a for p in seating.seats)


def test_a_draw_that_needs_substitutes_is_refused_on_its_line() -> None:
    lines = [*registrations(ids("A", 18), ids("B", 16)), draw_line(1, "short")]
    with pytest.raises(LogError) as refused:
        replay(lines)
    assert refused.value.line_number == len(lines)
    assert refused.value.violation.rule == "FM-9"
    assert "2 substitute" in refused.value.violation.message


def test_the_drawn_seatings_replay_without_deviation() -> None:
    lines = registrations(ids("A", 24), ids("B", 16))
    draw = draw_round(ROUND_1, {"A": ids("A", 24), "B": ids("B", 16)}, "log")
    tournament = replay([*lines, draw_line(1, "log"), *seating_lines(draw)])
    assert tournament.rounds[1].draw == draw  # rule SE-1: replay reruns the recorded seed
    assert tournament.draw_deviations(1) == []


def test_a_round_is_redrawn_before_its_first_deal_or_hand() -> None:
    # The organizer drew 24 + 16 players, registered 8 more in group B, and drew again:
    # the second draw replaces the first, whose lines stay in the log (rule SE-1).
    first = draw_round(ROUND_1, {"A": ids("A", 24), "B": ids("B", 16)}, "one")
    late = [{"type": "player", "id": p, "name": f"N {p}", "group": "B"} for p in ids("C", 8)]
    second = draw_round(ROUND_1, {"A": ids("A", 24), "B": [*ids("B", 16), *ids("C", 8)]}, "two")
    lines = [
        *registrations(ids("A", 24), ids("B", 16)),
        draw_line(1, "one"),
        *seating_lines(first),
        {"type": "extension", "round": 1, "segment": 1, "table": 1, "minutes": 10},
        *late,
        draw_line(1, "two"),
        *seating_lines(second),
    ]
    tournament = replay(lines)
    state = tournament.rounds[1]
    assert state.draw == second
    assert state.superseded_draws == [first]
    assert tournament.draw_deviations(1) == []  # the seats are the second draw's
    assert {key for key in state.tables} == {(s.segment, s.table) for s in second.seatings}
    # the TV table keeps the extension it was given before the redraw (rule CL-2)
    assert state.tables[(1, 1)].extension.total_seconds() == 600
    assert replay_report(tournament)["rounds"][0]["draw"]["superseded"] == ["one"]


@pytest.mark.parametrize(
    "play",
    [
        {"type": "hand", "hand": 1, "result": {"kind": "draw"}},
        {"type": "deal", "hand": 1, "time": "2026-11-29T09:01:00Z"},
    ],
)
def test_a_round_that_has_started_cannot_be_redrawn(play: Line) -> None:
    first = draw_round(ROUND_1, {"A": ids("A", 24), "B": ids("B", 16)}, "one")
    where = {"round": 1, "segment": 1, "table": 3}
    lines = [
        *registrations(ids("A", 24), ids("B", 16)),
        draw_line(1, "one"),
        *seating_lines(first),
        {"type": "schedule", "round": 1, "segment": 1, "group": "A", "start": "2026-11-29T09:00Z"},
        *(
            []
            if play["type"] == "deal"
            else [{"type": "deal", **where, "hand": 1, "time": "2026-11-29T09:01:00Z"}]
        ),
        {**play, **where},
        draw_line(1, "two"),
    ]
    with pytest.raises(LogError) as refused:
        replay(lines)
    assert refused.value.line_number == len(lines)
    violation = refused.value.violation
    assert isinstance(violation, IllegalMove)
    assert (violation.rule, violation.field) == ("SE-1", "round")
    assert "table 3, segment 1" in violation.message and "'one'" in violation.message


def test_an_old_log_with_a_draw_of_nobody_still_replays_and_can_be_redrawn() -> None:
    # What the server wrote before it refused such a draw: a draw with no player, then
    # the registrations. The log replays as it stands, and a redraw mends it.
    players = registrations(ids("A", 24), ids("B", 16))
    lines = [players[0], draw_line(1, "empty"), *players[1:]]
    tournament = replay(lines)
    assert tournament.rounds[1].draw is not None
    assert tournament.rounds[1].draw.seatings == ()
    assert tournament.draw_refusal(1) is None
    redrawn = replay([*lines, draw_line(1, "full")])
    assert redrawn.rounds[1].draw == draw_round(
        ROUND_1, {"A": ids("A", 24), "B": ids("B", 16)}, "full"
    )


@pytest.mark.parametrize(
    ("group_a", "group_b", "rule", "words"),
    [
        ([], [], "FM-9", "0 registered player(s); a draw needs at least one full table of 4"),
        (ids("A", 3), [], "FM-9", "3 registered player(s)"),
        # rule FM-6: a round 1 advancing 16 needs more than 16 players
        (ids("A", 8), ids("B", 8), "FM-6", "advances 16, so its field needs more than 16"),
        (ids("A", 18), ids("B", 16), "FM-9", "group A has 18 players; register 2 substitute(s)"),
    ],
)
def test_the_server_refuses_a_draw_that_cannot_seat_a_round(
    group_a: list[str], group_b: list[str], rule: str, words: str
) -> None:
    tournament = replay(registrations(group_a, group_b))
    refusal = tournament.draw_refusal(1)
    assert refusal is not None
    assert (refusal.rule, refusal.field) == (rule, "players")
    assert words in refusal.message


def test_a_seating_off_the_draw_is_accepted_and_listed() -> None:
    lines = registrations(ids("A", 24), ids("B", 16))
    draw = draw_round(ROUND_1, {"A": ids("A", 24), "B": ids("B", 16)}, "log")
    seatings = seating_lines(draw)
    first, second = seatings[0], seatings[1]  # segment 1, tables 1 and 2, both group A
    assert (first["segment"], first["table"], second["segment"], second["table"]) == (1, 1, 1, 2)
    moved, other = first["seats"][0], second["seats"][0]
    first["seats"][0], second["seats"][0] = other, moved  # the organizer swaps two players
    tournament = replay([*lines, draw_line(1, "log"), *seatings])  # CONTRACT §1: accepted
    assert tournament.draw_deviations(1) == sorted(
        [(1, moved, 1, 2), (1, other, 2, 1)], key=lambda d: d[1]
    )
    assert tournament.draw_deviations(2) == []  # round 2 has not begun


# The round-1 tables of a hand-made log: seat 1 self-draws 10, then seat 2 self-draws 5, so
# seats 1 and 2 (25 and 5 points) advance and seats 3 and 4 (-15) do not; 8 tables, 16
# advance (rule ST-1). Table 9 seats 4 substitutes, whose winner scores 25 too but never
# advances (rule FM-9).
def round_one_played() -> tuple[list[Line], set[str]]:
    group_a, group_b = ids("A", 16), ids("B", 16)
    substitutes = ids("S", 4)
    lines = registrations(group_a, group_b)
    lines += [
        {"type": "player", "id": s, "name": f"Sub {s}", "group": "B", "substitute": True}
        for s in substitutes
    ]
    players = group_a + group_b + substitutes
    advanced: set[str] = set()
    for index in range(9):
        seats = players[4 * index : 4 * index + 4]
        table = index + 1
        where = {"round": 1, "segment": 1, "table": table}
        lines.append({"type": "seating", **where, "seats": seats})
        for number, (winner, value) in enumerate(((seats[0], 10), (seats[1], 5)), start=1):
            result = {"kind": "self_draw", "winner": winner, "value": value}
            lines.append({"type": "hand", **where, "hand": number, "result": result})
        if table <= 8:
            advanced |= {seats[0], seats[1]}
    lines.append({"type": "round_end", "round": 1})
    return lines, advanced


def test_round_2_draws_exactly_the_players_who_advanced() -> None:
    lines, advanced = round_one_played()
    assert len(advanced) == 16
    tournament = replay([*lines, draw_line(2, "round-2")])
    draw = tournament.rounds[2].draw
    assert draw is not None
    for seatings in tables_by_segment(draw).values():
        assert sorted(p for s in seatings for p in s.seats) == sorted(advanced)
    # the same players, whichever order the tournament keeps them in
    assert draw == draw_round(tournament.format.round(2), {"": sorted(advanced)}, "round-2")


def test_round_2_cannot_be_drawn_before_round_1_ends() -> None:
    lines, _ = round_one_played()
    lines = [*lines[:-1], draw_line(2, "early")]
    with pytest.raises(LogError) as refused:
        replay(lines)
    assert refused.value.line_number == len(lines)
    assert isinstance(refused.value.violation, IllegalMove)
    assert refused.value.violation.rule == "FM-1"  # round 2 has not begun


def test_a_generated_round_2_draws_the_advanced_players() -> None:
    lines = generate(Options(players=42, format=FORMAT, until_round=2, leave_open=True))
    tournament = replay_lines(lines)
    advanced = {row.player for row in tournament.standings(1).rows if row.status == "advanced"}
    assert len(advanced) == 16
    draw = tournament.rounds[2].draw
    assert draw is not None
    assert {p for s in draw.seatings for p in s.seats} == advanced
    assert tournament.draw_deviations(2) == []
