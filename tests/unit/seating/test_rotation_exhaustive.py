"""Proofs by exhaustive search: the fewest repeats for 1 to 3 tables (rule SE-2), and the
round 7 routine (rule SE-3). Nothing here uses the module's counters.

A half is a split of the 4T players into tables of 4, kept as a bitmask of the pairs it seats
together. Over H halves, the repeats are (all meetings) - (distinct pairs met), that is
6TH - |union of the masks|, and adding a half adds (mask & union so far) repeats.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, permutations, product

import pytest

from app.domain.rotation import Rotation, meeting_counts, quarter_routine, rotation_for

Blocks = tuple[tuple[int, ...], ...]


def splits(players: tuple[int, ...]) -> Iterator[Blocks]:
    """Every way to seat `players` at tables of 4 (tables unordered)."""
    if not players:
        yield ()
        return
    head, rest = players[0], players[1:]
    for others in combinations(rest, 3):
        left = tuple(p for p in rest if p not in others)
        for tail in splits(left):
            yield ((head, *others), *tail)


def pair_mask(blocks: Blocks, players: int) -> int:
    mask = 0
    for block in blocks:
        for a, b in combinations(block, 2):
            mask |= 1 << (a * players + b)
    return mask


def shape(draw: Blocks, half: Blocks) -> tuple[int, ...]:
    """How `half` cuts across the tables of `draw`, up to renaming tables on either side.
    Two halves have the same shape exactly when a permutation of players that keeps the
    draw's tables maps one onto the other (move each cell's players onto the other's)."""
    cells = [[len(set(a) & set(b)) for b in half] for a in draw]
    size = range(len(draw))
    return min(
        tuple(cells[r][c] for r in rows for c in columns)
        for rows in permutations(size)
        for columns in permutations(size)
    )


def fewest_repeats(tables: int, halves: int) -> int:
    """The least repeats of any `halves` splits of 4 * `tables` players, half 1 the draw.

    Without loss: (a) the players are numbered so that half 1 is the draw; (b) halves are
    ordered so that halves 1 and 2 share the most pairs, `top`, of any two halves, so every
    later half shares at most `top` with each earlier one; (c) half 2 is one of each shape
    (see `shape`); (d) halves 3.. are in nondecreasing order of enumeration. A new half adds
    at least `floor` repeats, the fewest pairs any split shares with the draw.
    """
    players = 4 * tables
    draw: Blocks = tuple(tuple(range(4 * t, 4 * t + 4)) for t in range(tables))
    every = [(blocks, pair_mask(blocks, players)) for blocks in splits(tuple(range(players)))]
    first = pair_mask(draw, players)
    if halves == 1:
        return 0
    seconds = sorted(
        {shape(draw, blocks): mask for blocks, mask in every}.values(),
        key=lambda mask: (first & mask).bit_count(),
    )
    floor = (first & seconds[0]).bit_count()
    best = 6 * tables * halves  # more than any count: each pair met at least once
    for second in seconds:
        top = (first & second).bit_count()
        later = [
            mask
            for _, mask in every
            if (mask & first).bit_count() <= top and (mask & second).bit_count() <= top
        ]
        search = Search(halves, top, floor, later, best)
        search.extend([first, second], first | second, top, 0)
        best = search.best
    return best


class Search:
    """Depth-first over halves 3.., cut off as soon as it cannot beat `best`."""

    def __init__(self, halves: int, top: int, floor: int, later: list[int], best: int) -> None:
        self.halves, self.top, self.floor, self.later, self.best = halves, top, floor, later, best

    def extend(self, chosen: list[int], union: int, repeats: int, start: int) -> None:
        if len(chosen) == self.halves:
            self.best = min(self.best, repeats)
            return
        if repeats + (self.halves - len(chosen)) * self.floor >= self.best:
            return
        for k in range(start, len(self.later)):
            mask = self.later[k]
            if all((mask & earlier).bit_count() <= self.top for earlier in chosen[2:]):
                self.extend([*chosen, mask], union | mask, repeats + (mask & union).bit_count(), k)


def recount(rotation: Rotation) -> int:
    """The pattern's repeats from its seats alone, as 6TH - |union of the halves' pairs|."""
    players = 4 * rotation.tables
    union = 0
    for half in range(1, rotation.halves + 1):
        at: dict[int, list[int]] = {}
        for table in range(rotation.tables):
            for slot in range(4):
                at.setdefault(rotation.table_in_half(half, table, slot), []).append(
                    4 * table + slot
                )
        assert sorted(len(block) for block in at.values()) == [4] * rotation.tables
        union |= pair_mask(tuple(tuple(block) for block in at.values()), players)
    return 6 * rotation.tables * rotation.halves - union.bit_count()


@pytest.mark.parametrize(
    ("tables", "halves", "least"),
    [
        pytest.param(1, 1, 0, id="1 table, the draw only"),
        pytest.param(1, 2, 6, id="1 table: the same 4 players meet again"),
        pytest.param(1, 4, 18, id="1 table, 4 halves"),
        pytest.param(2, 2, 4, id="2 tables, 2 halves"),
        pytest.param(2, 3, 8, id="2 tables, 3 halves"),
        pytest.param(2, 4, 20, id="2 tables, 4 halves"),
        pytest.param(3, 2, 3, id="3 tables, 2 halves"),
        pytest.param(3, 3, 6, id="3 tables, 3 halves"),
        pytest.param(3, 4, 13, id="3 tables, 4 halves"),
    ],
)
def test_tiny_rounds_have_the_fewest_repeats(tables: int, halves: int, least: int) -> None:
    # rule SE-2: where repeats cannot be avoided, as few as possible, and said
    assert fewest_repeats(tables, halves) == least
    rotation = rotation_for(tables, halves)
    assert rotation.repeats == least == recount(rotation)


# -- rule SE-3: round 7 -------------------------------------------------------------------

NEVER_MEET = {((0, 0), (1, 3)), ((0, 1), (1, 2)), ((0, 2), (1, 1)), ((0, 3), (1, 0))}


def quarter_masks() -> list[int]:
    return [pair_mask(blocks, 8) for blocks in splits(tuple(range(8)))]


def routine_figures(quarters: tuple[int, int, int, int]) -> tuple[int, int, int]:
    """Pairs meeting in all 4 quarters, pairs meeting more than twice, pairs never meeting."""
    a, b, c, d = quarters
    every_pair = sum(1 << (x * 8 + y) for x, y in combinations(range(8), 2))
    four = a & b & c & d
    three_or_more = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
    never = every_pair & ~(a | b | c | d)
    return four.bit_count(), three_or_more.bit_count(), never.bit_count()


def test_round_7_routine_meets_as_evenly_as_the_exhaustive_minimum() -> None:
    draw = pair_mask(((0, 1, 2, 3), (4, 5, 6, 7)), 8)
    masks = quarter_masks()
    assert len(masks) == 35
    figures = [routine_figures((draw, *rest)) for rest in product(masks, repeat=3)]
    # rule SE-3: nobody meets in all 4 quarters, then the fewest pairs meeting more than twice
    allowed = [f for f in figures if f[0] == 0]
    least_over_two = min(over_two for _, over_two, _ in allowed)
    assert least_over_two == 0
    # and then every routine that reaches it leaves exactly 4 pairs who never meet
    assert {never for _, over_two, never in allowed if over_two == least_over_two} == {4}

    routine = quarter_routine()
    counts = meeting_counts(routine)
    seats = [(table, slot) for table in range(2) for slot in range(4)]
    all_pairs = list(combinations(seats, 2))
    assert len(all_pairs) == 28
    expected = {pair: 0 if pair in NEVER_MEET else 2 for pair in all_pairs}
    assert {pair: counts.get(pair, 0) for pair in all_pairs} == expected
    assert sum(met > 2 for met in counts.values()) == least_over_two
    assert max(counts.values()) < 4


def test_round_7_routine_seats_four_at_each_table_every_quarter() -> None:
    routine: Rotation = quarter_routine()
    assert (routine.tables, routine.halves) == (2, 4)  # rule FM-4
    for quarter in range(1, 5):
        seatings = routine.seatings(quarter)
        assert [len(seats) for seats in seatings] == [4, 4]
        assert sorted(s for seats in seatings for s in seats) == sorted(
            (t, s) for t in range(2) for s in range(4)
        )
