"""Table moves between halves (rules SE-1, SE-2, FM-2, FM-3, FM-9): the shape of every
pattern for 4 to 300 tables, its repeats recounted here without the module's counter, and
the list of table counts where repeats cannot be avoided. The fewest repeats for 1 to 3 tables and
the round 7 routine are proven, and recounted, in test_rotation_exhaustive.py."""

from __future__ import annotations

from itertools import combinations

import pytest

from app.domain import rotation as rotation_module
from app.domain.errors import MalformedInput
from app.domain.rotation import Rotation, meeting_counts, quarter_routine, rotation_for

TABLE_COUNTS = range(4, 301)
HALVES = [
    pytest.param(2, id="FM-3 rounds 2-6: 2 halves"),
    pytest.param(3, id="3 halves"),
    pytest.param(4, id="FM-2 round 1: 4 halves"),
]
# rule SE-2: from 4 tables on, no two players ever need to meet twice
IMPOSSIBLE_FROM_4: list[int] = []
BRUTE_FORCE_UP_TO = 24  # every pair of players compared directly; beyond, per player


def journeys(rotation: Rotation) -> dict[tuple[int, int], tuple[int, ...]]:
    """Each drawn seat's table in every half, read only through `table_in_half`."""
    return {
        (table, slot): tuple(
            rotation.table_in_half(half, table, slot) for half in range(1, rotation.halves + 1)
        )
        for table in range(rotation.tables)
        for slot in range(4)
    }


def recount_by_pairs(rotation: Rotation) -> int:
    """Brute force: for every pair of players, the halves they share beyond the first."""
    paths = list(journeys(rotation).values())
    return sum(
        max(0, sum(a == b for a, b in zip(first, second, strict=True)) - 1)
        for first, second in combinations(paths, 2)
    )


def recount_by_players(rotation: Rotation) -> int:
    """Each player meets 3 others a half; whatever is not a new face is a repeat, counted
    once from each side of the pair."""
    paths = journeys(rotation)
    at: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for seat, path in paths.items():
        for half, table in enumerate(path):
            at.setdefault((half, table), set()).add(seat)
    twice = 0
    for seat, path in paths.items():
        faces = set().union(*(at[(half, table)] for half, table in enumerate(path))) - {seat}
        twice += 3 * rotation.halves - len(faces)
    assert twice % 2 == 0
    return twice // 2


@pytest.mark.parametrize("halves", HALVES)
@pytest.mark.parametrize("tables", TABLE_COUNTS)
def test_every_half_seats_everyone_once_at_tables_of_four(tables: int, halves: int) -> None:
    rotation = rotation_for(tables, halves)
    assert (rotation.tables, rotation.halves) == (tables, halves)
    everyone = sorted((table, slot) for table in range(tables) for slot in range(4))
    for half in range(1, halves + 1):
        seatings = rotation.seatings(half)
        assert len(seatings) == tables
        assert all(len(seats) == 4 for seats in seatings)  # rule FM-9
        assert sorted(seat for seats in seatings for seat in seats) == everyone
        for table, seats in enumerate(seatings):
            assert all(rotation.table_in_half(half, *seat) == table for seat in seats)
    # rule SE-1: half 1 is the draw
    assert rotation.seatings(1) == tuple(
        tuple((table, slot) for slot in range(4)) for table in range(tables)
    )


@pytest.mark.parametrize("halves", HALVES)
@pytest.mark.parametrize("tables", TABLE_COUNTS)
def test_repeats_match_a_recount(tables: int, halves: int) -> None:
    rotation = rotation_for(tables, halves)
    assert rotation.repeats == recount_by_players(rotation)
    if tables <= BRUTE_FORCE_UP_TO:
        assert rotation.repeats == recount_by_pairs(rotation)
    assert rotation.repeats == 0 or tables in IMPOSSIBLE_FROM_4  # rule SE-2


@pytest.mark.parametrize("halves", HALVES)
def test_table_counts_that_must_repeat(halves: int) -> None:
    # rule SE-2: the exact list, so a regression at any table count names itself
    assert [t for t in TABLE_COUNTS if rotation_for(t, halves).repeats] == IMPOSSIBLE_FROM_4


def test_meeting_counts_agree_with_the_brute_force() -> None:
    rotation = rotation_for(3, 4)
    paths = journeys(rotation)
    expected = {}
    for first, second in combinations(sorted(paths), 2):
        met = sum(a == b for a, b in zip(paths[first], paths[second], strict=True))
        if met:
            expected[(first, second)] = met
    assert meeting_counts(rotation) == expected


def test_pattern_is_deterministic() -> None:
    # rule SE-2: the pattern depends only on the draw, never on when it is computed
    before = [rotation_for(t, 4) for t in (1, 4, 8, 9, 97, 300)]
    rotation_module._rotation.cache_clear()
    rotation_module._translation.cache_clear()
    assert [rotation_for(t, 4) for t in (1, 4, 8, 9, 97, 300)] == before
    assert quarter_routine() == quarter_routine()


@pytest.mark.parametrize(
    ("tables", "halves"),
    [
        pytest.param(0, 2, id="no table"),
        pytest.param(-3, 2, id="negative tables"),
        pytest.param(10, 0, id="no half"),
        pytest.param(10, 5, id="more halves than round 1 has"),
    ],
)
def test_rotation_for_refuses_impossible_rounds(tables: int, halves: int) -> None:
    with pytest.raises(MalformedInput) as refused:
        rotation_for(tables, halves)
    assert refused.value.rule == "SE-2"


@pytest.mark.parametrize(
    ("moves", "rule"),
    [
        pytest.param((((0, 0, 0, 0), (1, 1, 1, 1)),), "SE-2", id="fewer halves than declared"),
        pytest.param(
            (((0, 0, 0, 0), (1, 1, 1, 1)), ((0, 0, 0, 1), (1, 1, 1, 1))),
            "SE-2",
            id="FM-9 a table of 3 and a table of 5",
        ),
        pytest.param(
            (((0, 0, 1, 1), (0, 0, 1, 1)), ((0, 0, 1, 1), (0, 0, 1, 1))),
            "SE-1",
            id="half 1 is not the draw",
        ),
        pytest.param(
            (((0, 0, 0, 0), (1, 1, 1, 1)), ((0, 0, 1), (1, 1, 1, 1))),
            "SE-2",
            id="a table with 3 slots",
        ),
    ],
)
def test_rotation_refuses_broken_moves(
    moves: tuple[tuple[tuple[int, ...], ...], ...], rule: str
) -> None:
    with pytest.raises(MalformedInput) as refused:
        Rotation(2, 2, moves)
    assert refused.value.rule == rule


@pytest.mark.parametrize(
    ("half", "table", "slot"),
    [
        pytest.param(0, 0, 0, id="half 0"),
        pytest.param(3, 0, 0, id="half past the round"),
        pytest.param(1, 5, 0, id="no such starting table"),
        pytest.param(1, 0, 4, id="no such slot"),
    ],
)
def test_table_in_half_refuses_seats_outside_the_round(half: int, table: int, slot: int) -> None:
    with pytest.raises(MalformedInput):
        rotation_for(5, 2).table_in_half(half, table, slot)
