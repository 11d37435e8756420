"""Standings of a round, the cut line, the tie-break and the draw (rules ST-1 to ST-7),
through `rank_round` directly. Totals, distances and draw winners are worked out by hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest

from app.domain.standings import RoundScores, Standings, rank_round, seeded_draw

ScoresBuilder = Callable[..., RoundScores]  # the `round_scores` fixture of conftest.py


def by_player(standings: Standings, attribute: str) -> dict[object, object]:
    return {row.player: getattr(row, attribute) for row in standings.rows}


def documented_draw(seed: str, candidates: Sequence[str], places: int) -> tuple[str, ...]:
    """rule ST-5 as documented: candidates sorted by the SHA-256 hex digest of "seed:player"."""
    ordered = sorted(candidates, key=lambda p: hashlib.sha256(f"{seed}:{p}".encode()).hexdigest())
    return tuple(ordered[:places])


# -- ST-1, ST-2: ranking ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("play", "carry_in", "advance", "ranks"),
    [
        pytest.param(
            # A* play in group A, B* in group B: one ranking over both groups (rule ST-1)
            {"A1": 40, "B1": 25, "A2": 25, "B2": 10, "A3": -20},
            None,
            4,
            {"A1": 1, "B1": 2, "A2": 2, "B2": 4, "A3": 5},
            id="ST-1 ST-2 1,2,2,4 across both groups",
        ),
        pytest.param(
            {"a": 5, "b": 5, "c": 5, "d": 0},
            None,
            None,
            {"a": 1, "b": 1, "c": 1, "d": 4},
            id="ST-2 three share rank 1, the next is 4",
        ),
        pytest.param(
            {"a": 0, "b": 0, "c": 0, "d": 0},
            None,
            None,
            {"a": 1, "b": 1, "c": 1, "d": 1},
            id="ST-2 everybody level",
        ),
        pytest.param(
            {"d": -3, "c": 7, "b": 0, "a": 12},
            None,
            None,
            {"a": 1, "c": 2, "b": 3, "d": 4},
            id="ST-1 highest total first whatever the input order",
        ),
        pytest.param(
            # totals: a 41/4 + 0 = 41/4, b 13/4 + 7 = 41/4, c 5/2 + 8 = 42/4, d 0 + 10 = 40/4
            {"a": 0, "b": 7, "c": 8, "d": 10},
            {"a": Fraction(41, 4), "b": Fraction(13, 4), "c": Fraction(5, 2)},
            None,
            {"c": 1, "a": 2, "b": 2, "d": 4},
            id="ST-2 SC-4 exact fractional totals 41/4 and 41/4 share a rank",
        ),
    ],
)
def test_competition_ranking(
    play: dict[str, int],
    carry_in: dict[str, Fraction] | None,
    advance: int | None,
    ranks: dict[str, int],
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(round_scores(play, advance, carry_in=carry_in))

    assert by_player(standings, "rank") == ranks
    assert [row.rank for row in standings.rows] == sorted(ranks.values())
    assert [row.position for row in standings.rows] == list(range(1, len(ranks) + 1))


# -- ST-3: the cut line and the distances ------------------------------------------------

# carry-ins from a previous round at rate 1/4, some of them fractional (rule SC-3)
CUT_CARRY = {
    "p1": Fraction(25, 2),
    "p2": Fraction(41, 4),
    "p3": Fraction(3, 4),
    "p4": Fraction(11, 2),
    "p5": Fraction(13, 4),
}
CUT_PLAY = {"p1": 10, "p2": 5, "p3": 12, "p4": 3, "p5": -10}
# totals: p1 45/2, p2 61/4, p3 51/4 | p4 17/2, p5 -27/4


@pytest.mark.parametrize(
    ("player", "position", "total", "above", "distance"),
    [
        pytest.param("p1", 1, Fraction(45, 2), True, Fraction(14), id="ST-3 above: 45/2 - 17/2"),
        pytest.param("p2", 2, Fraction(61, 4), True, Fraction(27, 4), id="ST-3 above: 61/4 - 17/2"),
        pytest.param(
            "p3", 3, Fraction(51, 4), True, Fraction(17, 4), id="ST-3 the A-th: margin 17/4"
        ),
        pytest.param(
            "p4", 4, Fraction(17, 2), False, Fraction(17, 4), id="ST-3 the (A+1)-th needs 17/4"
        ),
        pytest.param(
            "p5", 5, Fraction(-27, 4), False, Fraction(39, 2), id="ST-3 below: 51/4 + 27/4"
        ),
    ],
)
def test_cut_line_distances_with_fractional_carry_ins(
    player: str,
    position: int,
    total: Fraction,
    above: bool,
    distance: Fraction,
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(round_scores(CUT_PLAY, 3, carry_in=CUT_CARRY))

    row = standings.row_of(player)
    assert row is not None
    assert (row.position, row.total, row.above_cut, row.distance) == (
        position,
        total,
        above,
        distance,
    )
    assert row.carry_in == CUT_CARRY[player]
    assert row.play == CUT_PLAY[player]
    assert standings.cut is not None
    assert (standings.cut.advance, standings.cut.line_total, standings.cut.next_total) == (
        3,
        Fraction(51, 4),
        Fraction(17, 2),
    )
    assert standings.cut.tie is None


@pytest.mark.parametrize(
    ("play", "advance", "ended", "statuses", "above"),
    [
        pytest.param(
            {"a": 30, "b": 20, "c": 10, "d": 0},
            2,
            False,
            ["playing"] * 4,
            [True, True, False, False],
            id="ST-7 provisional: everybody playing, cut shown",
        ),
        pytest.param(
            {"a": 30, "b": 20, "c": 10, "d": 0},
            2,
            True,
            ["advanced", "advanced", "eliminated", "eliminated"],
            [True, True, False, False],
            id="ST-3 ended: A advance, the rest are eliminated",
        ),
        pytest.param(
            {"a": 30, "b": 20, "c": 10, "d": 0},
            None,
            True,
            ["finished"] * 4,
            [None] * 4,
            id="PR-1 the final ended: finished, no cut",
        ),
        pytest.param(
            {"a": 30, "b": 20, "c": 10, "d": 0},
            None,
            False,
            ["playing"] * 4,
            [None] * 4,
            id="ST-7 the final in play: playing, no cut",
        ),
        pytest.param(
            {"a": 30, "b": 20, "c": 10},
            4,
            False,
            ["playing"] * 3,
            [True] * 3,
            id="ST-3 provisional field not above the advance count: all above",
        ),
    ],
)
def test_statuses(
    play: dict[str, int],
    advance: int | None,
    ended: bool,
    statuses: list[str],
    above: list[bool | None],
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(round_scores(play, advance, ended=ended))

    assert [row.status for row in standings.rows] == statuses
    assert [row.above_cut for row in standings.rows] == above
    assert standings.ended is ended
    if advance is None:
        assert standings.cut is None
        assert [row.distance for row in standings.rows] == [None] * len(play)


@pytest.mark.parametrize(
    ("play", "advance"),
    [
        pytest.param({"a": 30, "b": 20, "c": 10}, 4, id="ST-3 3 players, 4 advance"),
        pytest.param({"a": 30, "b": 20, "c": 10, "d": 5}, 4, id="ST-3 4 players, 4 advance"),
    ],
)
def test_no_line_while_the_field_does_not_exceed_the_advance_count(
    play: dict[str, int],
    advance: int,
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(round_scores(play, advance))

    assert standings.cut is not None
    assert (standings.cut.line_total, standings.cut.next_total, standings.cut.tie) == (
        None,
        None,
        None,
    )
    assert [row.distance for row in standings.rows] == [None] * len(play)


# -- ST-4, ST-6: the tie-break at the cut ------------------------------------------------

TIE_PLAY = {"a": 50, "b": 30, "c": 30, "d": 10}  # b and c straddle the cut of 2


@pytest.mark.parametrize(
    ("hands", "winner", "loser"),
    [
        pytest.param(
            {"b": [20, 5], "c": [10, 10, 10]}, "b", "c", id="ST-4 the biggest hand decides"
        ),
        pytest.param(
            {"b": [20, 8], "c": [20, 10]}, "c", "b", id="ST-4 equal biggest: second biggest"
        ),
        pytest.param(
            {"b": [8, 20], "c": [10, 20]}, "c", "b", id="ST-4 order of winning does not matter"
        ),
        pytest.param(
            {"b": [20, 10, 10, 6], "c": [20, 10, 10, 5, 5]},
            "b",
            "c",
            id="ST-4 fourth biggest decides",
        ),
        pytest.param(
            {"b": [20, 10], "c": [20, 10, 5]},
            "c",
            "b",
            id="ST-4 otherwise equal: the longer list wins",
        ),
        pytest.param({"b": [], "c": [5]}, "c", "b", id="ST-4 one small hand beats no hand"),
        pytest.param({"c": [5]}, "c", "b", id="ST-4 a player with no entry has no hands"),
        pytest.param(
            {"a": [320], "b": [6], "c": [5], "d": [100]},
            "b",
            "c",
            id="ST-4 only the tied players' hands count",
        ),
    ],
)
@pytest.mark.parametrize(
    "ended", [pytest.param(True, id="ended"), pytest.param(False, id="provisional")]
)
def test_tie_straddling_the_cut_is_broken_by_hands(
    hands: dict[str, list[int]],
    winner: str,
    loser: str,
    ended: bool,
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(round_scores(TIE_PLAY, 2, hands=hands, ended=ended))

    assert [row.player for row in standings.rows] == ["a", winner, loser, "d"]
    assert standings.cut is not None and standings.cut.tie is not None
    tie = standings.cut.tie
    assert (tie.total, tie.players, tie.places, tie.by_hands) == (
        Fraction(30),
        (winner, loser),
        1,
        (winner,),
    )
    assert (tie.draw_among, tie.draw_places, tie.draw_pending) == ((), 0, False)
    assert tie.hands == {p: tuple(sorted(hands.get(p, ()), reverse=True)) for p in ("b", "c")}
    # rule ST-6: the tie-break decides advancement only; the ranks stay shared
    assert by_player(standings, "rank") == {"a": 1, "b": 2, "c": 2, "d": 4}
    # rule ST-3: both sit on the line, so both are 0 away from it
    assert by_player(standings, "distance") == {"a": 20, "b": 0, "c": 0, "d": 20}
    assert by_player(standings, "above_cut") == {"a": True, winner: True, loser: False, "d": False}
    if ended:
        assert by_player(standings, "status") == {
            "a": "advanced",
            winner: "advanced",
            loser: "eliminated",
            "d": "eliminated",
        }
    else:
        # rule ST-7: the provisional cut shows how the tie-break decides it now
        assert {row.status for row in standings.rows} == {"playing"}


@pytest.mark.parametrize(
    ("hands", "order", "by_hands"),
    [
        pytest.param(
            {"b": [8], "c": [12], "d": [10]},
            ["a", "c", "d", "b", "e"],
            ("c", "d"),
            id="ST-4 three tied for two places",
        ),
        pytest.param(
            {"b": [12, 5], "c": [12], "d": [12, 6]},
            ["a", "d", "b", "c", "e"],
            ("d", "b"),
            id="ST-4 three tied, second hand and list length decide",
        ),
    ],
)
def test_tie_of_three_for_two_places(
    hands: dict[str, list[int]],
    order: list[str],
    by_hands: tuple[str, ...],
    round_scores: ScoresBuilder,
) -> None:
    play = {"a": 50, "b": 30, "c": 30, "d": 30, "e": 10}
    standings = rank_round(round_scores(play, 3, hands=hands, ended=True))

    assert [row.player for row in standings.rows] == order
    assert standings.cut is not None and standings.cut.tie is not None
    assert (standings.cut.tie.places, standings.cut.tie.by_hands) == (2, by_hands)
    assert by_player(standings, "rank") == {"a": 1, "b": 2, "c": 2, "d": 2, "e": 5}  # rule ST-6
    assert [row.status for row in standings.rows] == ["advanced"] * 3 + ["eliminated"] * 2


@pytest.mark.parametrize(
    ("play", "hands", "ranks", "statuses"),
    [
        pytest.param(
            {"a": 50, "b": 50, "c": 30, "d": 10},
            {"a": [5], "b": [100]},
            {"a": 1, "b": 1, "c": 3, "d": 4},
            {"a": "advanced", "b": "advanced", "c": "eliminated", "d": "eliminated"},
            id="ST-4 tie above the cut: no tie-break, rank shared",
        ),
        pytest.param(
            {"a": 50, "b": 30, "c": 10, "d": 10},
            {"c": [100], "d": [5]},
            {"a": 1, "b": 2, "c": 3, "d": 3},
            {"a": "advanced", "b": "advanced", "c": "eliminated", "d": "eliminated"},
            id="ST-4 tie below the cut: no tie-break, rank shared",
        ),
    ],
)
def test_tie_not_straddling_the_cut_has_no_tie_break(
    play: dict[str, int],
    hands: dict[str, list[int]],
    ranks: dict[str, int],
    statuses: dict[str, str],
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(round_scores(play, 2, hands=hands, ended=True))

    assert standings.cut is not None
    assert standings.cut.tie is None
    assert by_player(standings, "rank") == ranks
    assert by_player(standings, "status") == statuses


# -- ST-5, ST-7: the draw --------------------------------------------------------------

DRAW_PLAY = {"a": 50, "b": 30, "c": 30, "d": 30, "e": 10}  # b, c, d tied for 2 places of 3
DRAW_HANDS = {"b": [20], "c": [10], "d": [10]}  # b advances on hands; c and d stay level


@pytest.mark.parametrize(
    ("seed", "draw_winner", "draw_loser"),
    [
        # expected winners worked out from SHA-256("seed:player") hex digests, lowest first
        pytest.param("round-1", "c", "d", id="ST-5 seed round-1 draws c"),
        pytest.param("2008", "d", "c", id="ST-5 seed 2008 draws d"),
    ],
)
def test_draw_decides_players_still_level_after_the_hands(
    seed: str,
    draw_winner: str,
    draw_loser: str,
    round_scores: ScoresBuilder,
) -> None:
    first = rank_round(round_scores(DRAW_PLAY, 3, hands=DRAW_HANDS, ended=True, draw_seed=seed))
    # the same round with its field in another order: the draw is rerun by anyone (rule ST-5)
    reordered = dict(reversed(list(DRAW_PLAY.items())))
    second = rank_round(round_scores(reordered, 3, hands=DRAW_HANDS, ended=True, draw_seed=seed))

    for standings in (first, second):
        assert standings.cut is not None and standings.cut.tie is not None
        tie = standings.cut.tie
        assert (tie.by_hands, tie.draw_among, tie.draw_places) == (("b",), ("c", "d"), 1)
        assert tie.draw_seed == seed
        assert tie.draw_winners == (draw_winner,)
        assert tie.draw_winners == seeded_draw(seed, ["c", "d"], 1)
        assert tie.draw_winners == documented_draw(seed, ["c", "d"], 1)
        assert tie.draw_pending is False
        assert [row.player for row in standings.rows] == ["a", "b", draw_winner, draw_loser, "e"]
        assert by_player(standings, "status") == {
            "a": "advanced",
            "b": "advanced",
            draw_winner: "advanced",
            draw_loser: "eliminated",
            "e": "eliminated",
        }
        assert by_player(standings, "rank") == {"a": 1, "b": 2, "c": 2, "d": 2, "e": 5}  # rule ST-6
    assert first == second


@pytest.mark.parametrize(
    ("seed", "winners"),
    [
        pytest.param("round-1", ("p3", "p1"), id="ST-5 five level for two places, seed round-1"),
        pytest.param("seed-b", ("p4", "p2"), id="ST-5 five level for two places, seed seed-b"),
    ],
)
def test_draw_among_many(seed: str, winners: tuple[str, ...], round_scores: ScoresBuilder) -> None:
    play = {"top": 90, "p1": 0, "p2": 0, "p3": 0, "p4": 0, "p5": 0}
    candidates = ["p1", "p2", "p3", "p4", "p5"]
    standings = rank_round(round_scores(play, 3, ended=True, draw_seed=seed))

    assert standings.cut is not None and standings.cut.tie is not None
    assert standings.cut.tie.draw_among == tuple(candidates)
    assert standings.cut.tie.draw_winners == winners
    assert winners == seeded_draw(seed, candidates, 2) == documented_draw(seed, candidates, 2)
    advanced = {row.player for row in standings.rows if row.status == "advanced"}
    assert advanced == {"top", *winners}


@pytest.mark.parametrize(
    ("seed", "candidates", "places", "winners"),
    [
        pytest.param("round-1", ["c", "d"], 1, ("c",), id="ST-5 round-1 c,d"),
        pytest.param("2008", ["c", "d"], 1, ("d",), id="ST-5 2008 c,d"),
        pytest.param("2008", ["d", "c"], 1, ("d",), id="ST-5 candidate order does not matter"),
        pytest.param(
            "2008", ["p1", "p2", "p3", "p4", "p5"], 3, ("p2", "p4", "p3"), id="ST-5 3 of 5"
        ),
        pytest.param(
            "s3",
            ["p1", "p2", "p3", "p4", "p5"],
            5,
            ("p4", "p5", "p1", "p2", "p3"),
            id="ST-5 full draw order",
        ),
    ],
)
def test_seeded_draw_follows_the_documented_algorithm(
    seed: str, candidates: list[str], places: int, winners: tuple[str, ...]
) -> None:
    assert seeded_draw(seed, candidates, places) == winners
    assert documented_draw(seed, candidates, places) == winners


@pytest.mark.parametrize(
    ("play", "hands", "advance", "draw_among", "draw_places"),
    [
        pytest.param(
            DRAW_PLAY, DRAW_HANDS, 3, ("c", "d"), 1, id="ST-7 level after hands, draw pending"
        ),
        pytest.param(
            {"a": 10, "b": 10, "c": 10, "d": 10},
            {},
            2,
            ("a", "b", "c", "d"),
            2,
            id="ST-7 everybody level with no hands",
        ),
    ],
)
def test_draw_pending_while_provisional_without_seed(
    play: dict[str, int],
    hands: dict[str, list[int]],
    advance: int,
    draw_among: tuple[str, ...],
    draw_places: int,
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(round_scores(play, advance, hands=hands))

    assert standings.cut is not None and standings.cut.tie is not None
    tie = standings.cut.tie
    assert tie.draw_pending is True
    assert tie.draw_winners is None
    assert tie.draw_seed is None
    assert (tie.draw_among, tie.draw_places) == (draw_among, draw_places)
    assert {row.status for row in standings.rows} == {"playing"}
    # rule ST-3: the line is still drawn after exactly A positions
    assert [row.above_cut for row in standings.rows].count(True) == advance


@pytest.mark.parametrize(
    ("play", "hands", "advance"),
    [
        pytest.param(
            {"a": 5, "b": 5, "c": 5, "d": 5, "e": 5, "f": 5}, {}, 4, id="ST-5 six level for 4"
        ),
        pytest.param(
            {"a": 5, "b": 5, "c": 5, "d": 5, "e": 5, "f": 5}, {}, 1, id="ST-5 six level for 1"
        ),
        pytest.param(
            {"a": 9, "b": 5, "c": 5, "d": 5, "e": 5, "f": 1},
            {"b": [7], "c": [7, 5], "d": [7]},
            3,
            id="ST-4 ST-5 hands then a draw",
        ),
        pytest.param(
            {"a": 9, "b": 9, "c": 9, "d": 9, "e": 1, "f": 1},
            {},
            4,
            id="ST-3 tie exactly filling the places",
        ),
        pytest.param(
            {"a": 9, "b": 5, "c": 5, "d": 5, "e": 5, "f": 1},
            {"b": [9], "c": [8], "d": [7], "e": [6]},
            2,
            id="ST-4 hands alone",
        ),
    ],
)
def test_exactly_the_advance_count_advances_whatever_the_ties(
    play: dict[str, int],
    hands: dict[str, list[int]],
    advance: int,
    round_scores: ScoresBuilder,
) -> None:
    standings = rank_round(
        round_scores(play, advance, hands=hands, ended=True, draw_seed="any seed")
    )

    statuses = [row.status for row in standings.rows]
    assert statuses.count("advanced") == advance
    assert statuses.count("eliminated") == len(play) - advance
    # the advanced are the first A positions
    assert statuses == ["advanced"] * advance + ["eliminated"] * (len(play) - advance)
