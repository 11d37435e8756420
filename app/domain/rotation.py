"""Table moves between the segments of a round (rules SE-1 to SE-3, FM-2 to FM-4).

The seeded draw (rule SE-1) puts every player at a starting table (0..T-1) and a slot (0..3)
within it. From then on a player's table in each later half is a fixed function of that
starting seat, given here as a `Rotation`; the draw is its half 1.

Rounds 1 to 6 (rule SE-2): `rotation_for(tables, halves)`. For 4 tables or more no two
players ever meet in two halves. The construction translates each slot by its own offset in
an abelian group G of order T, table = t + m_h[slot]: two players of slots i != j meet in
halves h and h' exactly when m_h[j] - m_h[i] = m_h'[j] - m_h'[i], so it is enough to pick
offsets whose differences, for each of the 6 slot pairs, are distinct across the halves.
A small backtracking search over the cyclic group Z_T finds them for every T >= 5: the
integer offsets (0,0,0,0), (0,1,2,3), (0,2,1,5), (0,3,5,1) already work modulo every T
that divides none of 1, 2, 3, 4, 5, 8, and the search covers T = 5 and 8. Z_4 has no
complete mapping, which 3 or more halves would need, so T = 4 uses Z_2 x Z_2 (the additive
group of GF(4)): 4 of the 5 parallel classes of the affine plane of order 4.

With 1 to 3 tables repeats cannot be avoided; `_TINY` holds patterns with the fewest
repeats (T = 2: 4, 8, 20 and T = 3: 3, 6, 13 for 2, 3, 4 halves), the minimum shown by
exhaustive search in tests/unit/seating/test_rotation_exhaustive.py. docs/rotation.md says
why.

Round 7 (rule SE-3): `quarter_routine()`, 8 players at 2 tables over 4 quarters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from app.domain.errors import MalformedInput, say

SLOTS = 4  # rule FM-9: every table seats exactly 4
MAX_HALVES = 4  # rule FM-2: round 1 has 4 halves per group, the most of any round

Seat = tuple[int, int]  # (starting table, slot) given by the draw (rule SE-1)
Moves = tuple[tuple[tuple[int, ...], ...], ...]  # [half][starting table][slot] -> table


@dataclass(frozen=True)
class Rotation:
    """Where each starting seat sits in each half (or quarter, for round 7).

    `moves[h][t][s]` is the table, in half h + 1, of the player drawn at table t, slot s.
    `repeats` counts the extra meetings: over every pair of players, the halves they share
    a table in beyond the first (rule SE-2 asks for 0 wherever the table count allows).
    """

    tables: int
    halves: int  # the segments of the round: halves, or quarters for round 7 (rule FM-4)
    moves: Moves
    repeats: int = field(init=False)

    def __post_init__(self) -> None:
        if self.tables < 1:
            raise MalformedInput(
                "SE-2", "tables", say("{tables} tables: at least 1 needed", tables=self.tables)
            )
        if not 1 <= self.halves <= MAX_HALVES:
            raise MalformedInput(
                "SE-2", "halves", say("{halves} halves: rounds have 1 to 4", halves=self.halves)
            )
        if len(self.moves) != self.halves:
            raise MalformedInput(
                "SE-2",
                "moves",
                say(
                    "{moves} halves of moves for {halves} halves",
                    moves=len(self.moves),
                    halves=self.halves,
                ),
            )
        for half, by_table in enumerate(self.moves, start=1):
            if len(by_table) != self.tables or any(len(row) != SLOTS for row in by_table):
                raise MalformedInput(
                    "SE-2",
                    "moves",
                    say(
                        "half {half} must give {tables} tables of 4 slots",
                        half=half,
                        tables=self.tables,
                    ),
                )
            seated = Counter(table for row in by_table for table in row)
            if any(seated[table] != SLOTS for table in range(self.tables)):
                # rule FM-9: a table with 3 or 5 players cannot play
                raise MalformedInput(
                    "SE-2",
                    "moves",
                    say("half {half} does not seat exactly 4 at every table", half=half),
                )
        if any(table != start for start, row in enumerate(self.moves[0]) for table in row):
            # rule SE-1: half 1 is the draw itself, so nobody moves into it
            raise MalformedInput("SE-1", "moves", say("half 1 must keep every player at the draw"))
        object.__setattr__(self, "repeats", _count_repeats(self))

    def table_in_half(self, half: int, table: int, slot: int) -> int:
        """The table, in `half` (1-based), of the player drawn at `table`, `slot` (0-based)."""
        if not 1 <= half <= self.halves:
            raise MalformedInput(
                "SE-2",
                "half",
                say("half {half} is not in 1..{halves}", half=half, halves=self.halves),
            )
        if not 0 <= table < self.tables or not 0 <= slot < SLOTS:
            raise MalformedInput(
                "SE-1",
                "seat",
                say("table {table}, slot {slot} is not a seat of the draw", table=table, slot=slot),
            )
        return self.moves[half - 1][table][slot]

    def seatings(self, half: int) -> tuple[tuple[Seat, ...], ...]:
        """For each table of `half` (1-based), the 4 starting seats of the players there."""
        if not 1 <= half <= self.halves:
            raise MalformedInput(
                "SE-2",
                "half",
                say("half {half} is not in 1..{halves}", half=half, halves=self.halves),
            )
        at: list[list[Seat]] = [[] for _ in range(self.tables)]
        for start, row in enumerate(self.moves[half - 1]):
            for slot, table in enumerate(row):
                at[table].append((start, slot))
        return tuple(tuple(seats) for seats in at)


def meeting_counts(rotation: Rotation) -> dict[tuple[Seat, Seat], int]:
    """How many halves each pair of players shares a table in, keyed by their two starting
    seats in sorted order. Pairs that never meet are left out."""
    counts: Counter[tuple[Seat, Seat]] = Counter()
    for half in range(1, rotation.halves + 1):
        for seats in rotation.seatings(half):
            for i, first in enumerate(seats):
                for second in seats[i + 1 :]:
                    counts[(first, second) if first < second else (second, first)] += 1
    return dict(counts)


def _count_repeats(rotation: Rotation) -> int:
    # Summing max(0, met - 1) over pairs is the same as all meetings minus distinct pairs,
    # which needs only a set of pair numbers: this keeps 300 tables cheap.
    players = rotation.tables * SLOTS
    met: set[int] = set()
    meetings = 0
    for by_table in rotation.moves:
        at: list[list[int]] = [[] for _ in range(rotation.tables)]
        for start, row in enumerate(by_table):
            for slot, table in enumerate(row):
                at[table].append(start * SLOTS + slot)
        for group in at:
            for i, first in enumerate(group):
                for second in group[i + 1 :]:
                    met.add(first * players + second)
                    meetings += 1
    return meetings - len(met)


# -- rule SE-2: rounds 1 to 6 ---------------------------------------------------------------

Add = Callable[[int, int], int]

# Players are numbered 4 * starting table + slot; each half lists its tables. Chosen offline
# by exhaustive search: the fewest repeats (proven again in the tests), then the fewest
# meetings of the most-met pair, then the smallest sum of squared meeting counts (the most
# even spread). Their 2- and 3-half prefixes are optimal too, so one list serves all halves.
_TINY: dict[int, tuple[tuple[tuple[int, ...], ...], ...]] = {
    1: (((0, 1, 2, 3),),) * MAX_HALVES,
    2: (
        ((0, 1, 2, 3), (4, 5, 6, 7)),
        ((0, 1, 4, 5), (2, 3, 6, 7)),
        ((0, 1, 6, 7), (2, 3, 4, 5)),
        ((0, 2, 4, 6), (1, 3, 5, 7)),
    ),
    3: (
        ((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11)),
        ((0, 1, 4, 8), (2, 5, 6, 9), (3, 7, 10, 11)),
        ((0, 1, 7, 9), (2, 4, 10, 11), (3, 5, 6, 8)),
        ((0, 1, 5, 10), (2, 6, 7, 8), (3, 4, 9, 11)),
    ),
}


def rotation_for(tables: int, halves: int) -> Rotation:
    """The fixed pattern of rule SE-2 for a round with `tables` tables and `halves` halves
    (4 in round 1, rule FM-2; 2 in rounds 2 to 6, rule FM-3). Deterministic."""
    if tables < 1:
        raise MalformedInput(
            "SE-2", "tables", say("{tables} tables: a round needs at least 1", tables=tables)
        )
    if not 1 <= halves <= MAX_HALVES:
        raise MalformedInput(
            "SE-2", "halves", say("{halves} halves: rounds have 1 to 4", halves=halves)
        )
    return _rotation(tables, halves)


@lru_cache(maxsize=1024)
def _rotation(tables: int, halves: int) -> Rotation:
    if tables in _TINY:
        moves = tuple(_moves_of_blocks(tables, blocks) for blocks in _TINY[tables][:halves])
        return Rotation(tables, halves, moves)
    add, offsets = _translation(tables)
    # A prefix of a pattern without repeats has none either, so one search serves all halves.
    return Rotation(
        tables,
        halves,
        tuple(
            tuple(
                tuple(add(start, offsets[h][slot]) for slot in range(SLOTS))
                for start in range(tables)
            )
            for h in range(halves)
        ),
    )


def _moves_of_blocks(tables: int, blocks: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    table_of = {player: table for table, block in enumerate(blocks) for player in block}
    return tuple(
        tuple(table_of[start * SLOTS + slot] for slot in range(SLOTS)) for start in range(tables)
    )


@lru_cache(maxsize=1024)
def _translation(tables: int) -> tuple[Add, tuple[tuple[int, ...], ...]]:
    def cyclic(a: int, b: int) -> int:
        return (a + b) % tables

    def elementary(a: int, b: int) -> int:
        return a ^ b  # Z_2 x ... x Z_2, for a power of two

    groups: list[tuple[Add, Add]] = [(cyclic, lambda a, b: (a - b) % tables)]
    if tables & (tables - 1) == 0:
        groups.append((elementary, elementary))
    for add, sub in groups:
        offsets = _offsets(tables, add, sub)
        if offsets is not None:
            return add, offsets
    # Unreachable for T >= 4: Z_T succeeds for T >= 5 (see the module docstring) and
    # Z_2 x Z_2 for T = 4; tables 1 to 3 never get here.
    raise AssertionError(f"no translation pattern for {tables} tables")


def _offsets(tables: int, add: Add, sub: Add) -> tuple[tuple[int, ...], ...] | None:
    """Offsets m[h][slot] for 4 halves with every slot pair's differences distinct across
    halves, or None. Half 1 and slot 0 stay at 0: shifting a whole half or a whole slot
    renames tables and changes no meeting."""
    offsets = [[0] * SLOTS for _ in range(MAX_HALVES)]
    cells = [(h, slot) for h in range(1, MAX_HALVES) for slot in range(1, SLOTS)]

    def fits(h: int, slot: int, value: int) -> bool:
        for other in range(slot):
            difference = sub(value, offsets[h][other])
            # rule SE-2: slots `other` and `slot` at one table in half h and in an earlier half
            if any(sub(offsets[e][slot], offsets[e][other]) == difference for e in range(h)):
                return False
        return True

    def place(cell: int) -> bool:
        if cell == len(cells):
            return True
        h, slot = cells[cell]
        for value in range(tables):
            if fits(h, slot, value):
                offsets[h][slot] = value
                if place(cell + 1):
                    return True
        return False

    return tuple(tuple(row) for row in offsets) if place(0) else None


# -- rule SE-3: round 7 -----------------------------------------------------------------------


def quarter_routine() -> Rotation:
    """Round 7: 8 players, 2 tables, 4 quarters (rule FM-4); `halves` counts the quarters.

    Number the players 4 * starting table + slot and read the number as 3 bits. Quarter q
    seats a player by one linear form of those bits: the table bit, the low slot bit, the
    high slot bit, and the sum of all three. Any 3 of these forms are independent, so no two
    players agree on 3 of them: nobody meets another more than twice (rule SE-3). Each pair of
    forms agrees on one nonzero difference, so 24 pairs meet exactly twice and the 4 pairs
    differing in every bit, (0, 0)-(1, 3), (0, 1)-(1, 2), (0, 2)-(1, 1), (0, 3)-(1, 0), never
    meet. The exhaustive search over all 35^3 routines in the tests shows that every routine
    with no pair meeting more than twice leaves 4 pairs who never meet, so none spreads the
    meetings more evenly under rule SE-3's order of priorities.
    """
    forms: tuple[Callable[[int, int], int], ...] = (
        lambda t, s: t,
        lambda t, s: s & 1,
        lambda t, s: s >> 1,
        lambda t, s: t ^ (s & 1) ^ (s >> 1),
    )
    return Rotation(
        2,
        4,
        tuple(tuple(tuple(form(t, s) for s in range(SLOTS)) for t in range(2)) for form in forms),
    )
