"""Seats within a table and who deals each hand (rules FM-7, SE-5 to SE-9).

A seating is (east, south, west, north), the seats in turn order from the starting East.
Every expected seating below is worked out by hand from the rule text: the swap of the
halves (SE-6), the moves of the WSOM 2008 final (SE-8, re-derived seat by seat in
`moved_by_se8`), and the six orders of the WSOM 2007 final (SE-9), which the rule does not
fix one by one, so they are checked by their defining property: distinct up to rotation.
The last tests replay small logs and ask `Tournament.dealer`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from itertools import permutations
from typing import Any

import pytest

from app.domain.draw import draw_round
from app.domain.formats import PRESETS, RoundFormat
from app.domain.replay import replay_lines
from app.domain.seats import Seats, cycle_seats, dealer, propose_seats, rotate_final, swap_seats
from app.domain.tournament import Tournament

A, B, C, D = "a", "b", "c", "d"
START: Seats = (A, B, C, D)  # drawn seats: E=a, S=b, W=c, N=d

WSOM2008 = PRESETS["wsom2008"]
WSOM2007 = PRESETS["wsom2007"]
HALF = WSOM2008.round(1)  # rule FM-2: halves of 8 hands, 2 cycles
QUARTER = WSOM2008.round(7)  # rule FM-4: quarters of 4 hands, 1 cycle
FINAL_2008 = WSOM2008.round(8)  # rule FM-5: 1 session of 16 hands
FINAL_2007 = WSOM2007.round(8)  # rule FM-5: 2 sessions of 16 hands


def dealers(cycles: tuple[Seats | None, ...], hands: int) -> list[str | None]:
    return [dealer(cycles, hand) for hand in range(1, hands + 1)]


def canonical(seats: Seats | None) -> tuple[str, ...]:
    """A seating order up to rotation (rule SE-9): rotated so that player `a` comes first."""
    assert seats is not None
    start = seats.index(A)
    return tuple(seats[start:] + seats[:start])


# -- rule SE-6: halves --------------------------------------------------------------------------

# E and N exchange, S and W exchange: E=d, S=c, W=b, N=a; d (starting North, dealer of hand 4)
# starts cycle 2.
SWAPPED: Seats = (D, C, B, A)


@pytest.mark.parametrize(
    ("seats", "expected"),
    [
        pytest.param(START, SWAPPED, id="SE-6 E<->N, S<->W"),
        pytest.param(("n1", "n2", "n3", "n4"), ("n4", "n3", "n2", "n1"), id="SE-6 other names"),
        pytest.param(SWAPPED, START, id="SE-6 swapping twice restores the seats"),
    ],
)
def test_swap_exchanges_east_with_north_and_south_with_west(seats: Seats, expected: Seats) -> None:
    assert swap_seats(seats) == expected


@pytest.mark.parametrize(
    ("round_format", "segment"),
    [
        pytest.param(HALF, 1, id="SE-6 round 1 half 1"),
        pytest.param(HALF, 4, id="SE-6 round 1 half 4"),
        pytest.param(WSOM2008.round(2), 2, id="SE-6 round 2 half 2"),
        pytest.param(WSOM2007.round(6), 1, id="SE-6 wsom2007 round 6 half 1"),
    ],
)
def test_a_half_is_the_drawn_cycle_then_the_swap(round_format: RoundFormat, segment: int) -> None:
    cycles = cycle_seats(round_format, segment, START, {})
    assert cycles == (START, SWAPPED)
    # rule FM-7: hand k of a cycle is dealt by the k-th seat from the cycle's starting East
    assert dealers(cycles, 8) == [A, B, C, D, D, C, B, A]
    assert dealer(cycles, 9) is None  # a half has 8 hands


@pytest.mark.parametrize("start", list(permutations(START)), ids=lambda s: "".join(s))
def test_every_player_deals_twice_in_a_half_whatever_the_drawn_seats(start: Seats) -> None:
    cycles = cycle_seats(HALF, 1, start, {})
    hands = dealers(cycles, 8)
    # rule FM-7: every player deals exactly once per cycle, so twice in a half
    assert sorted(hands[:4]) == sorted(hands[4:]) == sorted(START)
    assert Counter(hands) == {A: 2, B: 2, C: 2, D: 2}
    # rule SE-6: the starting North deals the last hand of cycle 1 and starts cycle 2
    assert hands[3] == hands[4] == start[3]


# -- rule SE-7: quarters ------------------------------------------------------------------------


@pytest.mark.parametrize("segment", [1, 2, 3, 4], ids=lambda q: f"SE-7 quarter {q}")
def test_a_quarter_is_one_cycle_of_its_own_drawn_seats(segment: int) -> None:
    cycles = cycle_seats(QUARTER, segment, START, {})
    assert cycles == (START,)
    assert dealers(cycles, 4) == [A, B, C, D]
    assert dealer(cycles, 5) is None


def test_a_redrawn_pattern_never_derives_a_second_cycle() -> None:
    # rule SE-7: seats are drawn anew each quarter; a (custom) 8-hand quarter has no derived
    # cycle 2: only a recorded seating says who sits where
    long_quarter = replace(QUARTER, hands_per_segment=8)
    assert cycle_seats(long_quarter, 1, START, {}) == (START, None)
    assert dealer(cycle_seats(long_quarter, 1, START, {}), 5) is None
    recorded = {2: (C, A, D, B)}
    assert cycle_seats(long_quarter, 1, START, recorded) == (START, (C, A, D, B))


# -- rule SE-8: the WSOM 2008 final ---------------------------------------------------------------


def moved_by_se8(start: Seats, cycles: int) -> list[Seats]:
    """Rule SE-8 read literally: the original East and West move one seat to their right (the
    seat that plays after them, +1 in turn order), the original South and North one seat to
    their left (-1)."""
    position = {player: index for index, player in enumerate(start)}
    step = {start[0]: +1, start[2]: +1, start[1]: -1, start[3]: -1}
    out: list[Seats] = []
    for _ in range(cycles):
        seats = {position[player]: player for player in start}
        assert sorted(seats) == [0, 1, 2, 3]  # nobody lands on an occupied seat
        out.append((seats[0], seats[1], seats[2], seats[3]))
        position = {player: (position[player] + step[player]) % 4 for player in start}
    return out


# The table of the brief: E=a, S=b, W=c, N=d drawn at the start.
FINAL_2008_CYCLES: list[Seats] = [(A, B, C, D), (B, A, D, C), (C, D, A, B), (D, C, B, A)]


def test_the_rule_text_gives_the_four_cycles_of_the_2008_final() -> None:
    # The hand derivation and the table agree, so either one failing names a misreading.
    assert moved_by_se8(START, 4) == FINAL_2008_CYCLES
    # after 4 cycles everybody is back in their drawn seat
    assert moved_by_se8(START, 5)[4] == START


def test_the_2008_final_moves_by_se8() -> None:
    cycles = cycle_seats(FINAL_2008, 1, START, {})
    assert list(cycles) == FINAL_2008_CYCLES
    assert [rotate_final(START, index) for index in range(4)] == FINAL_2008_CYCLES
    # rule SE-8: original East, South, West and North start cycles 1, 2, 3 and 4
    assert [seats[0] for seats in FINAL_2008_CYCLES] == [A, B, C, D]


def test_the_2008_final_dealers_of_all_16_hands() -> None:
    hands = dealers(cycle_seats(FINAL_2008, 1, START, {}), 16)
    assert hands == [A, B, C, D, B, A, D, C, C, D, A, B, D, C, B, A]
    assert Counter(hands) == {A: 4, B: 4, C: 4, D: 4}  # rule FM-7: once per cycle
    assert dealer(cycle_seats(FINAL_2008, 1, START, {}), 17) is None


@pytest.mark.parametrize("start", list(permutations(START)), ids=lambda s: "".join(s))
def test_the_2008_final_follows_the_rule_text_for_any_drawn_seats(start: Seats) -> None:
    assert list(cycle_seats(FINAL_2008, 1, start, {})) == moved_by_se8(start, 4)


# -- rule SE-9: the WSOM 2007 final ---------------------------------------------------------------

ALL_SIX_ORDERS = {(A, *rest) for rest in permutations((B, C, D))}


def the_2007_final(session_two_start: Seats) -> list[Seats | None]:
    """Cycles 1-8 of the 2007 final drawn E=a, S=b, W=c, N=d: session 1 is cycles 1-4,
    session 2 (whose first seating is recorded) cycles 5-8."""
    first = cycle_seats(FINAL_2007, 1, START, {})
    second = cycle_seats(FINAL_2007, 2, session_two_start, {}, round_start=START)
    assert len(first) == len(second) == 4
    return [*first, *second]


def missing_order() -> Seats:
    """The one order that cycles 1-4 and 6 leave for cycle 5, the first of session 2.
    Cycle 6 is derived from the round's start, so it does not depend on the guess here."""
    cycles = the_2007_final(START)
    seen = {canonical(cycles[i]) for i in (0, 1, 2, 3, 5)}
    assert len(seen) == 5, "cycles 1-4 and 6 repeat an order"
    (left,) = ALL_SIX_ORDERS - seen
    return (left[0], left[1], left[2], left[3])


def test_cycles_1_to_6_of_the_2007_final_cover_all_six_orders() -> None:
    cycles = the_2007_final(missing_order())
    assert cycles[0] == START  # cycle 1 is the drawn seating
    orders = [canonical(seats) for seats in cycles[:6]]
    assert set(orders) == ALL_SIX_ORDERS  # rule SE-9: 6 distinct orders up to rotation
    for seats in cycles[:6]:
        assert seats is not None and sorted(seats) == sorted(START)


def test_the_server_draws_session_two_on_the_order_left_for_cycle_5() -> None:
    # rule SE-9 through the server's own draw: whatever seats it draws for session 1, its
    # seating of session 2 completes the six orders
    drawn = draw_round(FINAL_2007, {"": [A, B, C, D]}, "final-2007")
    (one,) = (s.seats for s in drawn.seatings if s.segment == 1)
    (two,) = (s.seats for s in drawn.seatings if s.segment == 2)
    cycles = [
        *cycle_seats(FINAL_2007, 1, one, {}),
        *cycle_seats(FINAL_2007, 2, two, {}, round_start=one),
    ]
    assert len({canonical(seats) for seats in cycles[:6]}) == 6


def test_cycle_7_is_not_derived_and_cycle_8_waits_for_it() -> None:
    cycles = the_2007_final(missing_order())
    # rule SE-9: cycle 7 is drawn anew, so no seating exists until the judge records one
    assert cycles[6] is None
    assert cycles[7] is None
    second = cycle_seats(FINAL_2007, 2, missing_order(), {}, round_start=START)
    assert dealers(second, 16)[8:] == [None] * 8


def test_cycle_8_swaps_the_recorded_cycle_7() -> None:
    drawn_anew: Seats = (C, A, D, B)  # cycle 7, recorded as cycle 3 of session 2
    second = cycle_seats(FINAL_2007, 2, missing_order(), {3: drawn_anew}, round_start=START)
    assert second[2] == drawn_anew
    # rule SE-9: E<->N, S<->W: E=b, S=d, W=a, N=c; b, who dealt hand 4 of cycle 7, starts
    assert second[3] == (B, D, A, C)
    assert dealers(second, 16)[8:] == [C, A, D, B, B, D, A, C]


def test_a_recorded_dice_east_overrides_the_derived_cycle() -> None:
    derived = cycle_seats(FINAL_2007, 1, START, {})
    cycle_two = derived[1]
    assert cycle_two is not None
    # rule SE-9: dice pick the starting East of the order; the judge records the result
    dice = (cycle_two[2], cycle_two[3], cycle_two[0], cycle_two[1])
    recorded = cycle_seats(FINAL_2007, 1, START, {2: dice})
    assert recorded[1] == dice
    assert canonical(dice) == canonical(cycle_two)  # the same order, another starting East
    assert dealers(recorded, 8)[4:] == list(dice)
    # the pattern itself does not move: cycles 3 and 4 are as derived
    assert recorded[2:] == derived[2:]


def test_session_two_continues_the_cycle_count() -> None:
    # rule SE-9 counts cycles over the whole final: session 2 plays cycles 5-8, so its
    # second cycle is the sixth order, not a repeat of session 1's second
    cycles = the_2007_final(missing_order())
    assert canonical(cycles[5]) not in {canonical(seats) for seats in cycles[:5]}


# -- rule SE-5: the server's proposal -----------------------------------------------------------


def test_the_proposed_seat_draw_is_reproducible_and_a_permutation() -> None:
    players = ["P01", "P02", "P03", "P04"]
    proposal = propose_seats(players, "seed-1")
    assert sorted(proposal) == players
    assert propose_seats(players, "seed-1") == proposal
    assert propose_seats(list(reversed(players)), "seed-1") == proposal
    proposals = {propose_seats(players, f"seed-{n}") for n in range(20)}
    assert len(proposals) > 1  # the seed decides


def test_the_proposal_needs_four_players() -> None:
    with pytest.raises(ValueError):
        propose_seats(["P01", "P02", "P03"], "seed")


# -- through a replayed log ---------------------------------------------------------------------

Line = dict[str, Any]
GROUP_A = ["P1", "P2", "P3", "P4"]
GROUP_B = ["P5", "P6", "P7", "P8"]
# At each table seat 1 self-draws 10 then seat 2 self-draws 5 (rule HS-2): seat 1 ends on 25,
# seat 2 on 5, seats 3 and 4 on -15, so the 4 who advance to the final are clear.
FINALISTS = ["P1", "P5", "P2", "P6"]


def seating(round_: int, segment: int, seats: list[str], cycle: int | None = None) -> Line:
    line: Line = {
        "type": "seating",
        "round": round_,
        "segment": segment,
        "table": 1,
        "seats": seats,
    }
    if cycle is not None:
        line["cycle"] = cycle
    return line


def self_draw(table: int, number: int, winner: str, value: int) -> Line:
    where = {"round": 1, "segment": 1, "table": table, "hand": number}
    return {
        "type": "hand",
        **where,
        "result": {"kind": "self_draw", "winner": winner, "value": value},
    }


def to_the_final(preset: str) -> list[Line]:
    """Round 1 (2 groups of 4, 4 advance), ended: the next round is the preset's final."""
    lines: list[Line] = [
        {"type": "tournament", "name": "Seats", "format": {"preset": preset, "advance": [4]}}
    ]
    for group, players in (("A", GROUP_A), ("B", GROUP_B)):
        lines += [{"type": "player", "id": p, "name": f"N {p}", "group": group} for p in players]
    for table, players in ((1, GROUP_A), (2, GROUP_B)):
        lines.append({**seating(1, 1, players), "table": table})
        lines += [self_draw(table, 1, players[0], 10), self_draw(table, 2, players[1], 5)]
    lines.append({"type": "round_end", "round": 1})
    return lines


def replay(lines: list[Line]) -> Tournament:
    return replay_lines(json.dumps(line) for line in lines)


def test_tournament_dealers_of_a_half() -> None:
    tournament = replay(to_the_final("wsom2008"))
    hands = [tournament.dealer(1, 1, 1, hand) for hand in range(1, 9)]
    assert hands == ["P1", "P2", "P3", "P4", "P4", "P3", "P2", "P1"]  # rules FM-7, SE-6
    assert tournament.cycles(1, 1, 2) == (("P5", "P6", "P7", "P8"), ("P8", "P7", "P6", "P5"))


def test_tournament_dealers_of_the_2008_final() -> None:
    tournament = replay([*to_the_final("wsom2008"), seating(2, 1, FINALISTS)])
    a, b, c, d = FINALISTS
    hands = [tournament.dealer(2, 1, 1, hand) for hand in range(1, 17)]
    assert hands == [a, b, c, d, b, a, d, c, c, d, a, b, d, c, b, a]  # rule SE-8
    assert tournament.dealer(2, 1, 1, 17) is None


def test_tournament_2007_final_with_recorded_cycles() -> None:
    a, b, c, d = FINALISTS
    lines = [*to_the_final("wsom2007"), seating(2, 1, FINALISTS)]
    derived = replay(lines).cycles(2, 1, 1)
    cycle_two = derived[1]
    assert cycle_two is not None
    dice = [cycle_two[1], cycle_two[2], cycle_two[3], cycle_two[0]]  # dice: South starts
    session_two = [c, a, b, d]  # whatever the judge records for cycle 5
    drawn_anew = [d, b, a, c]  # cycle 7, drawn anew: cycle 3 of session 2
    tournament = replay(
        [
            *lines,
            seating(2, 1, dice, cycle=2),
            seating(2, 2, session_two),
            seating(2, 2, drawn_anew, cycle=3),
        ]
    )
    first = [tournament.dealer(2, 1, 1, hand) for hand in range(1, 17)]
    assert first[:4] == [a, b, c, d]
    assert first[4:8] == dice  # rule SE-9: the recorded starting East overrides
    assert tournament.cycles(2, 1, 1)[2:] == derived[2:]
    second = [tournament.dealer(2, 2, 1, hand) for hand in range(1, 17)]
    assert second[:4] == session_two
    # cycle 6 is derived from the seats drawn at the start of the final, not from session 2
    sixth = cycle_seats(FINAL_2007, 2, (c, a, b, d), {}, round_start=(a, b, c, d))[1]
    assert sixth is not None
    assert second[4:8] == list(sixth)
    assert second[8:12] == drawn_anew
    assert second[12:] == [c, a, b, d]  # rule SE-9: cycle 8 swaps E<->N, S<->W of cycle 7


def test_tournament_2007_final_without_cycle_7_has_no_dealer_for_it() -> None:
    a, b, c, d = FINALISTS
    tournament = replay(
        [*to_the_final("wsom2007"), seating(2, 1, FINALISTS), seating(2, 2, [c, a, b, d])]
    )
    assert [tournament.dealer(2, 2, 1, hand) for hand in (9, 12, 13, 16)] == [None] * 4
