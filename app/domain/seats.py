"""Seats within a table and who deals each hand (rules FM-7, SE-5 to SE-9).

A seating is `(east, south, west, north)`: the seats in turn order, starting from the
player who deals the cycle's first hand (the starting East). A segment's `seating` line
gives the seats of its first cycle; a `seating` line with `"cycle": k` (k counted within
the segment) records the seats of a later cycle where the rules let them change. Any
cycle not recorded is derived from the round's seat pattern.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from app.domain.formats import HANDS_PER_CYCLE, RoundFormat
from app.domain.hands import PlayerId

Seats = tuple[PlayerId, PlayerId, PlayerId, PlayerId]  # east, south, west, north

# rule SE-9: the 6 distinct seating orders of 4 players (orders that differ only by
# rotation are the same), as indices into the seats drawn at the start of the final.
# Consecutive orders differ by one exchange of two neighbours, so players move little.
ALL_ORDERS: tuple[tuple[int, int, int, int], ...] = (
    (0, 1, 2, 3),
    (0, 1, 3, 2),
    (0, 3, 1, 2),
    (0, 3, 2, 1),
    (0, 2, 3, 1),
    (0, 2, 1, 3),
)
REDRAWN_CYCLE = 7  # rule SE-9: cycle 7 of the WSOM 2007 final has its seats drawn anew


def swap_seats(seats: Seats) -> Seats:
    """rule SE-6: East and North exchange seats, and so do South and West; the player now
    in the East seat (the starting North, who dealt the last hand) starts the next cycle."""
    east, south, west, north = seats
    return (north, west, south, east)


def rotate_final(start: Seats, cycle_index: int) -> Seats:
    """rule SE-8: after each cycle the original East and West move one seat to their right
    (the seat that plays after them), the original South and North one seat to their left.
    `cycle_index` counts from 0 at the final's first cycle."""
    east, south, west, north = start
    shift = cycle_index % 4
    seats: list[PlayerId] = [east, south, west, north]
    seats[shift % 4] = east
    seats[(2 + shift) % 4] = west
    seats[(1 - shift) % 4] = south
    seats[(3 - shift) % 4] = north
    return (seats[0], seats[1], seats[2], seats[3])


def ordered(start: Seats, order: tuple[int, int, int, int]) -> Seats:
    return (start[order[0]], start[order[1]], start[order[2]], start[order[3]])


def cycle_seats(
    round_format: RoundFormat,
    segment: int,
    segment_start: Seats,
    recorded: Mapping[int, Seats],
    round_start: Seats | None = None,
) -> tuple[Seats | None, ...]:
    """The seats of every cycle of one table's segment, in order.

    `round_start` is the seating drawn at the start of the round's first segment (the
    final's rules count cycles across its sessions); it defaults to `segment_start`.
    An entry is None where the rules need a seating that was not recorded (rule SE-9:
    the seats drawn anew for cycle 7).
    """
    origin = round_start if round_start is not None else segment_start
    per_segment = round_format.cycles_per_segment
    pattern = round_format.seat_pattern
    out: list[Seats | None] = []
    for cycle in range(1, per_segment + 1):
        index = (segment - 1) * per_segment + cycle - 1  # counted across the round, from 0
        previous = out[-1] if out else None
        seats: Seats | None
        if cycle in recorded:
            seats = recorded[cycle]
        elif cycle == 1:
            seats = segment_start
        elif pattern == "swap":
            seats = None if previous is None else swap_seats(previous)  # rule SE-6
        elif pattern == "rotate":
            seats = rotate_final(origin, index)  # rule SE-8
        elif pattern == "all_orders":
            seats = _all_orders(origin, index, previous)
        else:
            seats = None  # rule SE-7: seats are drawn anew; only a recorded seating says
        out.append(seats)
    return tuple(out)


def _all_orders(origin: Seats, index: int, previous: Seats | None) -> Seats | None:
    """rule SE-9: cycles 1-6 cover the 6 orders (the starting East, chosen by dice, comes
    from a recorded seating; unrecorded, the order's first player starts); cycle 7 is
    drawn anew; cycle 8 swaps East with North and South with West."""
    cycle = index + 1
    if cycle < REDRAWN_CYCLE:
        return ordered(origin, ALL_ORDERS[index % len(ALL_ORDERS)])
    if cycle == REDRAWN_CYCLE + 1 and previous is not None:
        return swap_seats(previous)
    return None


def dealer(cycles: Sequence[Seats | None], hand: int) -> PlayerId | None:
    """rule FM-7: hand k of a cycle is dealt by the k-th seat in turn order from the
    cycle's starting East; there are no dealer repeats."""
    cycle, position = divmod(hand - 1, HANDS_PER_CYCLE)
    if hand < 1 or cycle >= len(cycles):
        return None
    seats = cycles[cycle]
    return None if seats is None else seats[position]


def propose_seats(players: Sequence[PlayerId], seed: str) -> Seats:
    """rule SE-5: the server's proposal for the seat draw at a table: the players ordered
    by SHA-256 of "seed:player", so anyone can rerun it."""
    if len(players) != 4:
        raise ValueError("a table seats 4 players")
    order = sorted(
        players, key=lambda p: (hashlib.sha256(f"{seed}:{p}".encode()).hexdigest(), str(p))
    )
    return (order[0], order[1], order[2], order[3])
