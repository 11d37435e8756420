"""Properties of hands and of whole tournament logs, checked with Hypothesis.

Small tournaments come from `bench.generate` (which drives the real domain) in a short
custom format: round 1 in 2 groups, 8 advance to a round of quarters, 4 to the final.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.errors import LogError, MalformedInput, RuleViolation
from app.domain.hands import DirectPoints, Discard, Draw, HandResult, PlayerId, SelfDraw, settle
from app.domain.replay import apply_line, replay_lines, report
from app.domain.standings import Standings, hands_key, rank_round
from app.domain.tournament import SEAT_NAMES, Tournament
from app.read.views import LiveStandings
from bench.generate import Options, generate
from tests.live_standings import whole_state

SMALL_FORMAT = {"preset": "wsom2008", "advance": [8, 4]}
MAX_VALUE = 320  # rule HS-3

# Between 12 and 40 players: more than the 8 who advance from round 1 (rule FM-6), and
# as often as not a field that needs substitutes (rule FM-9).
player_counts = st.integers(12, 40)
seeds = st.integers(0, 2**32 - 1)


def small_log(players: int, seed: int) -> list[str]:
    """A whole small tournament with plenty of corrections, voids and penalties."""
    options = Options(
        players=players,
        seed=seed,
        format=SMALL_FORMAT,
        corrections=0.1,
        voids=0.05,
        penalties=0.1,
    )
    return generate(options)


def dumped(tournament: Tournament) -> str:
    return json.dumps(report(tournament), sort_keys=True)


# -- every hand is zero-sum (rule HS-2) ---------------------------------------------------

player_ids = st.one_of(st.integers(-999, 999), st.text(min_size=1, max_size=4))
tables = st.lists(player_ids, min_size=4, max_size=4, unique_by=str)


@st.composite
def hands_at_a_table(draw: st.DrawFn) -> tuple[HandResult, list[PlayerId], int]:
    """A valid WSOM hand result, the table it was played at and the format's minimum."""
    seats = draw(tables)
    min_value = draw(st.integers(0, 40))
    values = st.integers(min_value, MAX_VALUE)
    kind = draw(st.sampled_from(["self_draw", "discard", "draw", "points"]))
    result: HandResult
    if kind == "self_draw":
        result = SelfDraw(draw(st.sampled_from(seats)), draw(values))
    elif kind == "discard":
        winner, discarder = draw(st.permutations(seats))[:2]
        result = Discard(winner, discarder, draw(values))
    elif kind == "draw":
        result = Draw()
    else:
        # rule HS-7: each change within what one hand can move (3 x 320, HS-2), the fourth too
        moves = draw(st.lists(st.integers(-320, 320), min_size=3, max_size=3))
        deltas = tuple(zip(draw(st.permutations(seats)), [*moves, -sum(moves)], strict=True))
        if draw(st.booleans()):
            result = DirectPoints(deltas, draw(st.sampled_from(seats)), draw(values))
        else:
            result = DirectPoints(deltas)
    return result, seats, min_value


@settings(max_examples=300, deadline=None)
@given(hands_at_a_table())
def test_every_wsom_hand_is_zero_sum(hand: tuple[HandResult, list[PlayerId], int]) -> None:
    result, seats, min_value = hand

    settlement = settle(result, seats, min_value=min_value, max_value=MAX_VALUE)

    deltas = dict(settlement.deltas)
    assert [player for player, _ in settlement.deltas] == seats
    assert sum(deltas.values()) == 0
    if isinstance(result, SelfDraw | Discard):
        v = result.value
        assert deltas[result.winner] == 3 * v  # rule HS-2: the winner always collects 3v
        assert (settlement.winner, settlement.value) == (result.winner, v)  # rule HS-4
        payments = sorted(d for p, d in deltas.items() if p != result.winner)
        if isinstance(result, Discard) and v > 25:
            # rule HS-2: the discarder pays 3v - 50, the two others 25 each
            assert deltas[result.discarder] == -(3 * v - 50)
            assert payments == sorted([-(3 * v - 50), -25, -25])
        else:
            assert payments == [-v, -v, -v]
    if isinstance(result, Draw):
        assert set(deltas.values()) == {0}
        assert settlement.winner is None


@settings(max_examples=100, deadline=None)
@given(
    tables,
    st.integers(1, 40),
    st.one_of(st.integers(-1000, -1), st.integers(1, 2000)),
    st.booleans(),
)
def test_a_value_out_of_bounds_is_refused(
    seats: list[PlayerId], min_value: int, offset: int, by_discard: bool
) -> None:
    # rule HS-3: below the minimum or above 320
    value = min_value + offset if offset < 0 else MAX_VALUE + offset
    result: HandResult = (
        Discard(seats[0], seats[1], value) if by_discard else SelfDraw(seats[0], value)
    )

    with pytest.raises(MalformedInput) as caught:
        settle(result, seats, min_value=min_value, max_value=MAX_VALUE)

    assert (caught.value.rule, caught.value.field) == ("HS-3", "result.value")


# -- whole logs -------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(player_counts, seeds)
def test_a_rounds_play_is_zero_sum_apart_from_penalties(players: int, seed: int) -> None:
    tournament = replay_lines(small_log(players, seed))

    assert tournament.complete
    for number, state in tournament.rounds.items():
        # every seated player, substitutes included (rule FM-9: their hands move points)
        penalties = sum(p.points for p in state.penalties)
        assert sum(state.play.values()) - penalties == 0, number


@settings(max_examples=10, deadline=None)
@given(player_counts, seeds)
def test_replay_is_deterministic(players: int, seed: int) -> None:
    lines = small_log(players, seed)

    first, second = report(replay_lines(lines)), report(replay_lines(lines))

    assert first == second
    assert json.dumps(first) == json.dumps(second)


@settings(max_examples=10, deadline=None)
@given(player_counts, seeds)
def test_standings_asked_after_every_line_are_those_ranked_afresh(players: int, seed: int) -> None:
    """A tournament ranks a round once per state (Tournament.standings keeps them): after any
    line, refused ones included, they are what ranking the round's scores again gives."""
    lines = small_log(players, seed)
    tournament = replay_lines(lines[:1])
    for line in lines[1:]:
        apply_line(tournament, line)
        current = tournament.current_round
        if current.standings_at_end is None:
            assert tournament.standings(current.number) == rank_round(current.scores()), line
    refused = replay_lines(lines[:1])
    for line in lines[1:]:
        before = tournament_standings(refused)
        with contextlib.suppress(LogError, RuleViolation):  # a round that never began
            apply_line(refused, json.dumps({**json.loads(line), "round": 99}))
        assert tournament_standings(refused) == before, line
        apply_line(refused, line)


@settings(max_examples=10, deadline=None)
@given(player_counts, seeds)
def test_the_feeds_standings_made_from_the_rows_before_are_the_report_made_afresh(
    players: int, seed: int
) -> None:
    """The live feed makes each standings state from the rows made for the one before
    (LiveStandings.earlier): after any line of a whole event, what it sends in a snapshot is
    the report made afresh."""
    lines = small_log(players, seed)
    tournament = replay_lines(lines[:1])
    held: LiveStandings | None = None
    for line in lines[1:]:
        apply_line(tournament, line)
        current = tournament.current_round
        standings, advance = tournament_standings(tournament), current.format.advance
        live = LiveStandings.of(standings, advance, None if held is None else held.made)
        assert live.full() == whole_state(standings, advance), line
        held = live


@settings(max_examples=10, deadline=None)
@given(player_counts, seeds)
def test_where_a_player_sits_is_every_seat_the_seatings_gave_them(players: int, seed: int) -> None:
    """RoundState.seats_of looks each segment up (the live feed asks for every phone that
    follows a player); it finds what a scan of every seating of the round finds."""
    tournament = replay_lines(small_log(players, seed))
    for player in tournament.players:
        assert tournament.player_named(str(player)) == player
        for state in tournament.rounds.values():
            scanned = sorted(
                (segment, table, SEAT_NAMES[seated.seats.index(player)])
                for (segment, table), seated in state.tables.items()
                if player in seated.seats
            )
            assert state.seats_of(player) == scanned, (state.number, player)
    assert tournament.player_named("nobody") is None


def tournament_standings(tournament: Tournament) -> Standings:
    return tournament.standings(tournament.current_round.number)


def shuffle_independent_lines(lines: list[str], rng: random.Random) -> list[str]:
    """The same log with its independent lines in another order.

    Seatings of one segment are shuffled among themselves. Between them and the next
    seating or round end, hands (and voids) at different tables are interleaved at
    random, each table keeping its own order, and penalties go anywhere in that stretch.
    """
    out: list[str] = []
    seating_run: list[str] = []
    play_run: dict[Any, list[str]] = {}

    def flush() -> None:
        rng.shuffle(seating_run)
        out.extend(seating_run)
        seating_run.clear()
        queues = [queue for queue in play_run.values() if queue]
        while queues:
            queue = rng.choice(queues)
            out.append(queue.pop(0))
            queues = [q for q in queues if q]
        play_run.clear()

    for index, line in enumerate(lines):
        entry = json.loads(line)
        kind = entry["type"]
        if kind == "seating" and not play_run:
            seating_run.append(line)
        elif kind in ("hand", "void"):
            play_run.setdefault((entry["segment"], entry["table"]), []).append(line)
        elif kind == "penalty":
            play_run[("penalty", index)] = [line]
        else:
            flush()
            if kind == "seating":
                seating_run.append(line)
            else:
                out.append(line)
    flush()
    return out


@settings(max_examples=40, deadline=None)
@given(player_counts, seeds, st.randoms(use_true_random=False))
def test_the_order_of_independent_lines_does_not_change_the_standings(
    players: int, seed: int, rng: random.Random
) -> None:
    lines = small_log(players, seed)
    shuffled = shuffle_independent_lines(lines, rng)
    assert sorted(shuffled) == sorted(lines)

    assert dumped(replay_lines(shuffled)) == dumped(replay_lines(lines))


def results_at(seats: list[PlayerId]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid `result` objects of a hand line at a table (CONTRACT.md §1)."""
    values = st.integers(5, MAX_VALUE)
    seat = st.sampled_from(seats)
    pair = st.permutations(seats).map(lambda order: order[:2])
    moves = st.lists(st.integers(-300, 300), min_size=3, max_size=3)
    return st.one_of(
        st.just({"kind": "draw"}),
        st.builds(lambda w, v: {"kind": "self_draw", "winner": w, "value": v}, seat, values),
        st.builds(
            lambda wd, v: {"kind": "discard", "winner": wd[0], "discarder": wd[1], "value": v},
            pair,
            values,
        ),
        moves.map(
            lambda m: {"kind": "points", "deltas": dict(zip(seats, [*m, -sum(m)], strict=True))}
        ),
    )


def seats_for(entries: list[dict[str, Any]], index: int) -> list[PlayerId]:
    """The seats of the table where the hand line at `index` was played."""
    where = {k: entries[index][k] for k in ("round", "segment", "table")}
    for entry in reversed(entries[:index]):
        if entry["type"] == "seating" and all(entry[k] == v for k, v in where.items()):
            return list(entry["seats"])
    raise AssertionError(f"no seating before line {index + 1}")


def hand_line(entry: dict[str, Any], result: dict[str, Any]) -> str:
    where = {k: entry[k] for k in ("round", "segment", "table", "hand")}
    return json.dumps({"type": "hand", **where, "result": result})


def draw_a_hand_line(data: st.DataObject, lines: list[str]) -> tuple[int, list[dict[str, Any]]]:
    """The index of one hand line, and every line decoded."""
    entries = [json.loads(line) for line in lines]
    index = data.draw(st.sampled_from([i for i, e in enumerate(entries) if e["type"] == "hand"]))
    return index, entries


def inserted_after(lines: list[str], index: int, new: list[str]) -> list[str]:
    return [*lines[: index + 1], *new, *lines[index + 1 :]]


@settings(max_examples=40, deadline=None)
@given(player_counts, seeds, st.data())
def test_a_correction_and_its_undo_leave_the_standings_as_they_were(
    players: int, seed: int, data: st.DataObject
) -> None:
    lines = small_log(players, seed)
    index, entries = draw_a_hand_line(data, lines)
    entry = entries[index]
    original = entry["result"]
    other = data.draw(results_at(seats_for(entries, index)).filter(lambda r: r != original))

    # CONTRACT §1: a later hand with the same key is a correction that replaces the earlier
    undone = [hand_line(entry, other), hand_line(entry, original)]

    assert dumped(replay_lines(inserted_after(lines, index, undone))) == dumped(replay_lines(lines))


@settings(max_examples=40, deadline=None)
@given(player_counts, seeds, st.data())
def test_a_void_and_the_hand_entered_again_leave_the_standings_as_they_were(
    players: int, seed: int, data: st.DataObject
) -> None:
    lines = small_log(players, seed)
    index, entries = draw_a_hand_line(data, lines)
    entry = entries[index]
    where = {k: entry[k] for k in ("round", "segment", "table", "hand")}

    again = [json.dumps({"type": "void", **where}), hand_line(entry, entry["result"])]

    assert dumped(replay_lines(inserted_after(lines, index, again))) == dumped(replay_lines(lines))


# -- the cut lets exactly the advance count through (rules ST-3 to ST-5) ----------------

GROUP_A = [f"A{n}" for n in range(1, 9)]
GROUP_B = [f"B{n}" for n in range(1, 9)]
ROUND_ONE_TABLES = {1: GROUP_A[:4], 2: GROUP_A[4:], 3: GROUP_B[:4], 4: GROUP_B[4:]}
REGISTRATION = [
    {"type": "tournament", "name": "Ties Open", "format": SMALL_FORMAT},
    *({"type": "player", "id": p, "name": f"Player {p}", "group": p[0]} for p in GROUP_A + GROUP_B),
]
draw_seeds = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)


def tie_prone_results(seats: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Few distinct outcomes, so that equal totals (and equal hands) are common."""
    seat = st.sampled_from(seats)
    return st.one_of(
        st.just({"kind": "draw"}),
        st.builds(
            lambda w, v: {"kind": "self_draw", "winner": w, "value": v},
            seat,
            st.sampled_from([5, 10]),
        ),
        st.builds(
            lambda wd, v: {"kind": "discard", "winner": wd[0], "discarder": wd[1], "value": v},
            st.permutations(seats),
            st.sampled_from([5, 10, 30]),
        ),
    )


def hand_entry(number: int, table: int, hand: int, result: dict[str, Any]) -> dict[str, Any]:
    where = {"round": number, "segment": 1, "table": table, "hand": hand}
    return {"type": "hand", **where, "result": result}


def play_round(
    data: st.DataObject, number: int, tables_seats: dict[int, list[str]], hands: int
) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"type": "seating", "round": number, "segment": 1, "table": t, "seats": seats}
        for t, seats in tables_seats.items()
    ]
    for table, seats in tables_seats.items():
        results = data.draw(st.lists(tie_prone_results(seats), max_size=hands))
        lines += [hand_entry(number, table, k, r) for k, r in enumerate(results, start=1)]
    return lines


def end_round(
    data: st.DataObject, lines: list[dict[str, Any]], number: int
) -> tuple[Tournament, list[dict[str, Any]]]:
    """End the round, with or without a draw seed; without one, it may need a draw (ST-5).
    Returns the tournament and its log."""
    ending: dict[str, Any] = {"type": "round_end", "round": number}
    seed = data.draw(st.none() | draw_seeds)
    if seed is None:
        try:
            return replay_lines([json.dumps(e) for e in [*lines, ending]]), [*lines, ending]
        except LogError as error:
            assert (error.violation.rule, error.violation.field) == ("ST-5", "draw_seed")
        seed = data.draw(draw_seeds)
    log = [*lines, {**ending, "draw_seed": seed}]
    return replay_lines([json.dumps(e) for e in log]), log


def check_cut(tournament: Tournament, number: int, advance: int) -> list[str]:
    """Exactly `advance` go through, and no eliminated player beats an advanced one on
    total, or on hands among equal totals (rule ST-4); returns who advanced."""
    rows = tournament.standings(number).rows
    advanced = [r for r in rows if r.status == "advanced"]
    eliminated = [r for r in rows if r.status == "eliminated"]
    assert len(advanced) == advance
    assert len(eliminated) == len(rows) - advance
    assert min(r.total for r in advanced) >= max(r.total for r in eliminated)
    line = min(r.total for r in advanced)
    wins = tournament.rounds[number].winning_values
    at_line_in = [hands_key(wins.get(r.player, ())) for r in advanced if r.total == line]
    at_line_out = [hands_key(wins.get(r.player, ())) for r in eliminated if r.total == line]
    if at_line_out:
        assert min(at_line_in) >= max(at_line_out)
    assert sorted(tournament.rounds[number + 1].field) == sorted(r.player for r in advanced)
    return [str(r.player) for r in advanced]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_exactly_the_advance_count_goes_through_whatever_the_ties(data: st.DataObject) -> None:
    lines = [*REGISTRATION, *play_round(data, 1, ROUND_ONE_TABLES, hands=8)]
    tournament, lines = end_round(data, lines, 1)
    advanced = check_cut(tournament, 1, advance=8)

    lines += play_round(data, 2, {1: advanced[:4], 2: advanced[4:]}, hands=4)
    tournament, lines = end_round(data, lines, 2)
    check_cut(tournament, 2, advance=4)


def test_everybody_level_still_lets_exactly_the_advance_count_through() -> None:
    """All 16 on 0 with no winning hand: the draw alone decides (rule ST-5)."""
    lines: list[dict[str, Any]] = [*REGISTRATION]
    for table, seats in ROUND_ONE_TABLES.items():
        lines.append({"type": "seating", "round": 1, "segment": 1, "table": table, "seats": seats})
        lines += [hand_entry(1, table, k, {"kind": "draw"}) for k in range(1, 9)]
    lines.append({"type": "round_end", "round": 1, "draw_seed": "level"})

    tournament = replay_lines([json.dumps(e) for e in lines])

    assert len(check_cut(tournament, 1, advance=8)) == 8
