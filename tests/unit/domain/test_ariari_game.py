"""Whole Ari Ari games worked out by hand (rules AA-1 to AA-17, decisions AA-18 to AA-24 in
docs/ariari.md).

Seats are a, b, c, d = starting East, South, West, North. Each hand lists, worked out by
hand: the dealer and counters it was played with, the riichi bets on the table before it,
every player's point change (payments and bets), the bets after it, and the points after it.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.ariari import AriAriRules, Game, Standing, end_of_game, parse_result, play_game
from app.domain.errors import HandRefused

SEATS = ("a", "b", "c", "d")
EAST_SOUTH = AriAriRules()  # rule AA-1: 25,000 each, no tenpai payments (AA-9)


def ron(discarder: str, *wins: dict[str, Any], **facts: Any) -> dict[str, Any]:
    return {"kind": "ron", "discarder": discarder, "wins": list(wins), **facts}


def win(winner: str, yaku: int = 1, **value: Any) -> dict[str, Any]:
    return {"winner": winner, "yaku": yaku, **value}


def play(hands: list[dict[str, Any]], rules: AriAriRules = EAST_SOUTH) -> Game:
    return play_game(SEATS, [(n, parse_result(raw)) for n, raw in enumerate(hands, start=1)], rules)


def by_seat(pairs: tuple[tuple[Any, int], ...]) -> tuple[int, ...]:
    return tuple(points for _, points in pairs)


# The first worked game: East-South, 25,000 each (rule AA-1).
GAME_ONE = [
    # 1. a (East) riichi, tsumo 2 fan 30 fu: base 480, the dealer's tsumo is 2 x base from
    #    each, 960 rounded up to 1,000 (AA-2, AA-3). a takes back its own bet (AA-5).
    #    a keeps the deal on a win and a counter goes on (AA-6, AA-8).
    {"kind": "tsumo", "winner": "a", "fan": 2, "fu": 30, "yaku": 2, "riichi": ["a"]},
    # 2. c riichi; exhaustive draw with a and c tenpai: no tenpai payments (AA-9 default),
    #    the bet stays (AA-5), a counter is added (AA-6) and a, tenpai, keeps the deal (AA-8).
    {"kind": "exhaustive_draw", "tenpai": ["a", "c"], "riichi": ["c"]},
    # 3. Double ron on b's discard (AA-4): d 3 fan 40 fu (base 1,280; 4 x = 5,120 -> 5,200)
    #    and a, the dealer, 1 fan 30 fu (base 240; 6 x = 1,440 -> 1,500), each plus 2
    #    counters x 300. The bet goes to d, first after b in turn order. a won: a counter.
    ron("b", win("d", fan=3, fu=40), win("a", fan=1, fu=30)),
    # 4. Chombo by East (AA-10): a pays 4,000 to each. b's riichi of this hand goes back;
    #    counters and dealer stay.
    {"kind": "chombo", "offender": "a", "riichi": ["b"]},
    # 5. b riichi; d's hand is dead (AA-11); draw with b tenpai only: a is noten, the deal
    #    passes to b (AA-8), a counter is added (AA-6).
    {"kind": "exhaustive_draw", "tenpai": ["b"], "riichi": ["b"], "dead": ["d"]},
    # 6. Draw, nobody tenpai: the deal passes to c, the fifth counter goes on.
    {"kind": "exhaustive_draw", "tenpai": []},
    # 7. Chombo by d, not the dealer (AA-10): 4,000 to c (East), 2,000 to a and b.
    {"kind": "chombo", "offender": "d", "counters": 5, "dealer": "c"},
    # 8. Five counters: a tsumo needs 2 yaku (AA-7). a, 4 fan 30 fu: base 1,920; c (East)
    #    pays 3,840 -> 3,900, b and d 1,920 -> 2,000, each plus 5 x 100. a collects b's bet
    #    of hand 5. A player other than East won: counters cleared; the deal passes to d.
    {"kind": "tsumo", "winner": "a", "fan": 4, "fu": 30, "yaku": 2},
    # 9. a ron on c's discard, mangan: 8,000. The East round ends; a deals South 1.
    ron("c", win("a", limit="mangan")),
    # 10. d ron on a's discard, baiman: 16,000. The deal passes to b.
    ron("a", win("d", limit="baiman", yaku=4)),
    # 11. c ron on a's discard, 3 fan 30 fu: base 960, 3,840 -> 3,900. The deal passes to c.
    ron("a", win("c", fan=3, fu=30)),
    # 12. b ron on a's discard, 3 fan 30 fu: 3,900. The deal passes to d, the last dealer.
    ron("a", win("b", fan=3, fu=30)),
    # 13. a riichi; draw with a and d tenpai. d keeps the deal in the game's last hand and
    #     leads alone: agari-yame ends the game (AA-13).
    {"kind": "exhaustive_draw", "tenpai": ["a", "d"], "riichi": ["a"]},
]

# (dealer, counters, bets before, deltas a b c d, bets after, points after a b c d)
GAME_ONE_HANDS = [
    ("a", 0, 0, (3_000, -1_000, -1_000, -1_000), 0, (28_000, 24_000, 24_000, 24_000)),
    ("a", 1, 0, (0, 0, -1_000, 0), 1_000, (28_000, 24_000, 23_000, 24_000)),
    ("a", 2, 1_000, (2_100, -7_900, 0, 6_800), 0, (30_100, 16_100, 23_000, 30_800)),
    ("a", 3, 0, (-12_000, 4_000, 4_000, 4_000), 0, (18_100, 20_100, 27_000, 34_800)),
    ("a", 3, 0, (0, -1_000, 0, 0), 1_000, (18_100, 19_100, 27_000, 34_800)),
    ("b", 4, 1_000, (0, 0, 0, 0), 1_000, (18_100, 19_100, 27_000, 34_800)),
    ("c", 5, 1_000, (2_000, 2_000, 4_000, -8_000), 1_000, (20_100, 21_100, 31_000, 26_800)),
    ("c", 5, 1_000, (10_400, -2_500, -4_400, -2_500), 0, (30_500, 18_600, 26_600, 24_300)),
    ("d", 0, 0, (8_000, 0, -8_000, 0), 0, (38_500, 18_600, 18_600, 24_300)),
    ("a", 0, 0, (-16_000, 0, 0, 16_000), 0, (22_500, 18_600, 18_600, 40_300)),
    ("b", 0, 0, (-3_900, 0, 3_900, 0), 0, (18_600, 18_600, 22_500, 40_300)),
    ("c", 0, 0, (-3_900, 3_900, 0, 0), 0, (14_700, 22_500, 22_500, 40_300)),
    ("d", 0, 0, (-1_000, 0, 0, 0), 1_000, (13_700, 22_500, 22_500, 40_300)),
]


@pytest.fixture(scope="module")
def game_one() -> Game:
    return play(GAME_ONE)


@pytest.mark.parametrize("number", range(1, len(GAME_ONE) + 1))
def test_worked_game_hand_by_hand(game_one: Game, number: int) -> None:
    dealer, counters, bets_before, deltas, bets_after, points = GAME_ONE_HANDS[number - 1]
    hand = game_one.hands[number - 1]
    assert hand.number == number
    assert (hand.dealer, hand.counters, hand.bets_before) == (dealer, counters, bets_before)
    assert by_seat(hand.deltas) == deltas
    assert (hand.bets_after, by_seat(hand.points_after)) == (bets_after, points)
    assert hand.ended == ("AA-13" if number == len(GAME_ONE) else None)


def test_worked_game_values_for_the_tie_break(game_one: Game) -> None:
    """rule AA-22: a win's value is its payment without counters and bets."""
    assert [h.wins for h in game_one.hands if h.wins] == [
        (("a", 3_000),),
        (("d", 5_200), ("a", 1_500)),  # rule AA-4: both winners of the double ron
        (("a", 7_900),),
        (("a", 8_000),),
        (("d", 16_000),),
        (("c", 3_900),),
        (("b", 3_900),),
    ]


def test_worked_game_ends_by_agari_yame_with_uma_split_for_second(game_one: Game) -> None:
    """rules AA-13, AA-15, AA-16, AA-17: d leads alone in the last hand and keeps the deal:
    the game ends. d collects a's leftover bet. b and c tie for second and share the uma of
    second and third, +5,000 - 5,000 = 0 each."""
    assert game_one.ended == "AA-13"
    assert (game_one.dealer, game_one.bets) == (None, 1_000)
    assert game_one.standings == (
        Standing("a", place=4, points=13_700, bets=0, uma=-10_000, result=-21_300),
        Standing("b", place=2, points=22_500, bets=0, uma=0, result=-2_500),
        Standing("c", place=2, points=22_500, bets=0, uma=0, result=-2_500),
        Standing("d", place=1, points=40_300, bets=1_000, uma=10_000, result=26_300),
    )
    assert game_one.results() == {"a": -21_300, "b": -2_500, "c": -2_500, "d": 26_300}


def test_worked_game_settlements_carry_the_end_on_the_last_hand(game_one: Game) -> None:
    """The tournament counts each hand's changes, and the leftover bets and uma on the
    hand that ended the game: their sum is each player's result (rules AA-17, SC-1)."""
    settlements = game_one.settlements()
    assert sorted(settlements) == list(range(1, 14))
    totals = {p: sum(dict(s.deltas)[p] for s in settlements.values()) for p in SEATS}
    assert totals == game_one.results()
    assert settlements[13].deltas == (("a", -11_000), ("b", 0), ("c", 0), ("d", 11_000))
    assert settlements[3].wins == (("d", 5_200), ("a", 1_500))


def test_a_hand_after_agari_yame_is_refused() -> None:
    with pytest.raises(HandRefused) as refused:
        play([*GAME_ONE, {"kind": "exhaustive_draw"}])
    assert refused.value.hand == 14
    assert refused.value.violation.rule == "AA-13"
    assert "ended after hand 13" in refused.value.violation.message


def test_one_yaku_at_five_counters_is_refused() -> None:
    """rule AA-7: hand 8 is played with 5 counters."""
    hands = [*GAME_ONE[:7], {**GAME_ONE[7], "yaku": 1}]
    with pytest.raises(HandRefused) as refused:
        play(hands)
    assert (refused.value.hand, refused.value.violation.rule) == (8, "AA-7")
    assert refused.value.violation.field == "result.yaku"


def test_the_last_dealer_behind_the_leader_plays_on() -> None:
    """rule AA-13 applies only to a dealer alone in first place: in hand 13 with c, not d,
    leading, the game goes on (d keeps the deal after the tenpai draw)."""
    hands = [*GAME_ONE[:9], ron("a", win("c", limit="baiman")), *GAME_ONE[10:]]
    game = play(hands)
    assert game.ended is None
    assert (game.dealer, game.counters, game.bets) == ("d", 1, 1_000)


# The second worked game: East only, 20,000 each (AA-1), tenpai payments of 3,000 (AA-9).
EAST_ONLY = AriAriRules(length="east_only", start_points=20_000, tenpai_payment=3_000)
GAME_TWO = [
    # 1. b riichi, draw with b alone tenpai: a, c and d pay 1,000 each to b (AA-9); the
    #    bet stays; a is noten, the deal passes to b.
    {"kind": "exhaustive_draw", "tenpai": ["b"], "riichi": ["b"]},
    # 2. d riichi, then a chombo by c: 4,000 to b (East), 2,000 to a and d; d's bet of
    #    this hand goes back, b's of hand 1 stays (AA-10).
    {"kind": "chombo", "offender": "c", "riichi": ["d"]},
    # 3. b, the dealer, ron on c's discard 2 fan 30 fu: 6 x 480 = 2,880 -> 2,900, plus 300
    #    for the counter; b collects the bet on the table.
    ron("c", win("b", fan=2, fu=30)),
    # 4. a riichi; draw with a, b and d tenpai: c pays 3,000, each tenpai player gets 1,000.
    {"kind": "exhaustive_draw", "tenpai": ["a", "b", "d"], "riichi": ["a"]},
    # 5. Chombo by c: 8,000 from 4,800 leaves -3,200: bankruptcy (AA-14).
    {"kind": "chombo", "offender": "c"},
]
GAME_TWO_HANDS = [
    ("a", 0, 0, (-1_000, 2_000, -1_000, -1_000), 1_000, (19_000, 22_000, 19_000, 19_000)),
    ("b", 1, 1_000, (2_000, 4_000, -8_000, 2_000), 1_000, (21_000, 26_000, 11_000, 21_000)),
    ("b", 1, 1_000, (0, 4_200, -3_200, 0), 0, (21_000, 30_200, 7_800, 21_000)),
    ("b", 2, 0, (0, 1_000, -3_000, 1_000), 1_000, (21_000, 31_200, 4_800, 22_000)),
    ("b", 3, 1_000, (2_000, 4_000, -8_000, 2_000), 1_000, (23_000, 35_200, -3_200, 24_000)),
]


def test_bankruptcy_game_hand_by_hand() -> None:
    game = play(GAME_TWO, EAST_ONLY)
    rows = [
        (h.dealer, h.counters, h.bets_before, by_seat(h.deltas), h.bets_after,
         by_seat(h.points_after))
        for h in game.hands
    ]  # fmt: skip
    assert rows == GAME_TWO_HANDS
    assert [h.ended for h in game.hands] == [None, None, None, None, "AA-14"]


def test_bankruptcy_game_ends_with_bets_and_uma() -> None:
    """rules AA-14 to AA-17: b leads and takes the bet left on the table."""
    game = play(GAME_TWO, EAST_ONLY)
    assert game.standings == (
        Standing("a", place=3, points=23_000, bets=0, uma=-5_000, result=-2_000),
        Standing("b", place=1, points=35_200, bets=1_000, uma=10_000, result=26_200),
        Standing("c", place=4, points=-3_200, bets=0, uma=-10_000, result=-33_200),
        Standing("d", place=2, points=24_000, bets=0, uma=5_000, result=9_000),
    )
    with pytest.raises(HandRefused) as refused:
        play([*GAME_TWO, {"kind": "exhaustive_draw"}], EAST_ONLY)
    assert (refused.value.hand, refused.value.violation.rule) == (6, "AA-14")


def test_east_only_game_ends_after_the_east_round() -> None:
    """rule AA-12: four passes of the deal end an East-only game."""
    noten = {"kind": "exhaustive_draw", "tenpai": []}
    game = play([noten] * 4, EAST_ONLY)
    assert [h.dealer for h in game.hands] == ["a", "b", "c", "d"]
    assert [h.counters for h in game.hands] == [0, 1, 2, 3]
    assert (game.ended, game.hands[-1].ended) == ("AA-12", "AA-12")


def test_east_south_game_ends_after_the_south_round() -> None:
    """rule AA-12: eight passes of the deal end an East-South game; South 1 is dealt by
    the starting East again."""
    noten = {"kind": "exhaustive_draw", "tenpai": []}
    game = play([noten] * 8)
    assert [h.dealer for h in game.hands] == ["a", "b", "c", "d"] * 2
    assert game.ended == "AA-12"
    assert play([noten] * 7).dealer == "d"


@pytest.mark.parametrize(
    ("points", "bets", "places", "uma", "collected"),
    [
        pytest.param(
            (29_000, 29_000, 20_000, 20_000),
            2_000,
            (1, 1, 3, 3),
            (7_500, 7_500, -7_500, -7_500),
            (1_000, 1_000, 0, 0),
            id="AA-15 AA-16 two tied first split bets and uma",
        ),
        pytest.param(
            (18_000, 27_000, 27_000, 27_000),
            1_000,
            (4, 1, 1, 1),
            (-10_000, 3_334, 3_333, 3_333),
            (0, 334, 333, 333),
            id="AA-15 AA-21 three tied first: bets' and uma's odd point to the one nearest East",
        ),
        pytest.param(
            (17_000, 27_000, 27_000, 27_000),
            2_000,
            (4, 1, 1, 1),
            (-10_000, 3_334, 3_333, 3_333),
            (0, 668, 666, 666),
            id="AA-15 three tied first: the bets' whole remainder to the one nearest East",
        ),
        pytest.param(
            (27_000, 17_000, 27_000, 27_000),
            2_000,
            (1, 4, 1, 1),
            (3_334, -10_000, 3_333, 3_333),
            (668, 0, 666, 666),
            id="AA-15 AA-21 nearest East is the first tied in turn order from the starting East",
        ),
        pytest.param(
            (25_000, 25_000, 25_000, 25_000),
            0,
            (1, 1, 1, 1),
            (0, 0, 0, 0),
            (0, 0, 0, 0),
            id="AA-16 all tied",
        ),
        pytest.param(
            (40_000, 20_000, 20_000, 20_000),
            0,
            (1, 2, 2, 2),
            (10_000, -3_333, -3_333, -3_334),
            (0, 0, 0, 0),
            id="AA-21 three tied second share -10,000: whole points, those nearest East first",
        ),
    ],
)
def test_end_of_game_ties(
    points: tuple[int, int, int, int],
    bets: int,
    places: tuple[int, ...],
    uma: tuple[int, ...],
    collected: tuple[int, ...],
) -> None:
    standings = end_of_game(SEATS, dict(zip(SEATS, points, strict=True)), bets, AriAriRules())
    assert tuple(s.place for s in standings) == places
    assert tuple(s.uma for s in standings) == uma
    assert tuple(s.bets for s in standings) == collected
    assert sum(s.result for s in standings) == 0
