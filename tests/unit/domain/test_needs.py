"""What a player needs (issue 18, part 1): the smallest win that lifts a player over the cut
as it stands (rule ST-3), paid as WSOM pays it (rule HS-2) within the value bounds (rule HS-3),
and for a player above it the biggest hand they can lose and stay over it."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.domain import ariari
from app.domain.needs import ariari_needs, needs, over_the_line

BOUNDS = {"min_value": 5, "max_value": 320}  # rule HS-3, both presets


def totals(**players: float) -> dict[str, Fraction]:
    return {name: Fraction(value) for name, value in players.items()}


ROUND = totals(a=50, b=40, c=0, p=-10, d=30, e=20, f=10, g=5)


@pytest.mark.parametrize(
    ("case", "player", "expected_self_draw", "expected_discard"),
    [
        # rule ST-3: top 4 of 8 go through; the line is e's 20. A self-draw of v takes v from
        # a, b and c (rule HS-2): at 10 p reaches 20, level with e (the tie-break's, ST-4, not
        # a promise); at 11 p has 23 and four others have less.
        ("below the line, within reach", "p", 11, {"a": 11, "b": 11, "c": 11}),
        # c on 0: a self-draw of 7 makes 21, above e's 20 while a, b and d stay above c
        # (three others, rule ST-3); 6 makes 18, level-or-below four. Up to 25 a discard
        # pays as a self-draw does (rule HS-2), so 7 from anyone.
        ("the last at the table", "c", 7, {"a": 7, "b": 7, "p": 7}),
    ],
)
def test_the_smallest_win_over_the_line(
    case: str, player: str, expected_self_draw: int, expected_discard: dict[str, int]
) -> None:
    answer = needs(ROUND, player, ("a", "b", "c", "p"), 4, **BOUNDS)
    assert not answer.above
    assert answer.self_draw == expected_self_draw, case
    assert answer.discard == expected_discard, case


def test_out_of_reach_with_one_hand() -> None:
    # rule HS-3: the biggest hand pays 960 (3 x 320); 2,000 behind is out of reach
    far = totals(a=1000, b=1000, c=1000, p=-2000, d=1000)
    answer = needs(far, "p", ("a", "b", "c", "p"), 2, **BOUNDS)
    assert answer.self_draw is None and set(answer.discard.values()) == {None}  # type: ignore[union-attr]


def test_the_biggest_loss_a_player_above_the_line_can_take() -> None:
    # p leads on 100, the rest of the table on 0, the other tables on -100; 4 of 8 advance.
    # rule HS-2: a's self-draw of v costs p v: p falls at 200 (level with the -100s and a).
    # p's own discard over 25 costs 3v - 50: p falls at 84 (-102).
    leading = totals(p=100, a=0, b=0, c=0, d=-100, e=-100, f=-100, g=-100)
    answer = needs(leading, "p", ("p", "a", "b", "c"), 4, **BOUNDS)
    assert answer.above
    assert answer.lose_self_draw == {"a": 199, "b": 199, "c": 199}
    assert answer.lose_discard == {"a": 83, "b": 83, "c": 83}


def test_safe_against_any_one_hand() -> None:
    safe = totals(p=5000, a=0, b=0, c=0, d=0)
    answer = needs(safe, "p", ("p", "a", "b", "c"), 2, **BOUNDS)
    assert answer.lose_self_draw == {"a": None, "b": None, "c": None}
    assert answer.lose_discard == {"a": None, "b": None, "c": None}


def test_level_with_the_line_is_not_over_it() -> None:
    # rule ST-4: equal totals straddling the cut go to the tie-break: not over the line
    level = totals(a=10, b=10, c=0)
    assert not over_the_line(level, "a", 1) and not over_the_line(level, "b", 1)
    assert over_the_line(level, "a", 2) and not over_the_line(level, "c", 2)


# -- Ari Ari (rules AA-2 to AA-6): the next hand played on from the game as it stands ------------

SEATS = ("p0", "p1", "p2", "p3")  # p0 deals first (rule AA-8)
BEHIND = totals(p0=0, p1=0, p2=0, p3=-5000, q=2000, r=-1000)


def test_ariari_the_smallest_hand_over_the_line() -> None:
    # 4 of 6 advance; p3 must pass r's -1,000 while p1 and p2 stay at 0 or above.
    # rule AA-3: a ron of 4,500 (2 fan 70 fu: base 1,120, x4 rounded up) from anyone makes
    # -500; the next smaller ron, 3,900, makes -1,100, under r. A non-dealer's tsumo is paid
    # 2 x base by the dealer and base by the others: 4,700 (base 1,160 rounded up per payment).
    game = ariari.play_game(SEATS, [], ariari.AriAriRules())
    answer = ariari_needs(BEHIND, "p3", game, 4)
    assert not answer.above
    assert answer.self_draw == 4700
    assert answer.discard == {"p0": 4500, "p1": 4500, "p2": 4500}


def test_ariari_counters_and_riichi_bets_on_the_table_count() -> None:
    # A draw with p0 (the dealer) tenpai adds a counter (rule AA-6) and keeps the two riichi
    # bets on the table (rule AA-5): the winner of the next hand takes 2,000 in bets and 300 a
    # counter on a ron, so a ron of 2,000 (1 fan 60 fu) makes -700, over r's -1,000; 1,600 does not.
    draw = ariari.ExhaustiveDraw(("p0",), ariari.HandFacts(riichi=("p0", "p1")))
    game = ariari.play_game(SEATS, [(1, draw)], ariari.AriAriRules())
    assert (game.bets, game.counters) == (2000, 1)
    answer = ariari_needs(BEHIND, "p3", game, 4)
    assert answer.discard == {"p0": 2000, "p1": 2000, "p2": 2000}


def test_ariari_a_dealers_double_payment_is_not_a_straight_line() -> None:
    # p1 on 0 is over the line (5 of 6 advance, four others level or better). On p2's tsumo
    # p1 pays base and p0, the dealer, pays double (rule AA-3): a tsumo of 4,000 (base 1,000)
    # takes p1 to -1,000, level with r: not over. A yakuman would take p0 below p1 and leave p1
    # over again, but a player "can lose" only what every smaller hand leaves them through:
    # 3,600 (base 900), the last before 4,000.
    game = ariari.play_game(SEATS, [], ariari.AriAriRules())
    level = totals(p0=1000, p1=0, p2=0, p3=0, q=0, r=-1000)
    answer = ariari_needs(level, "p1", game, 5)
    assert answer.above
    assert answer.lose_self_draw == {"p0": 2400, "p2": 3600, "p3": 3600}
    # rule AA-3: a ron costs the discarder alone. The smallest hand a judge may enter is
    # 1 fan 20 fu (rule AA-19): 700 to a non-dealer, and p1 stays over; the next, 1,000, leaves
    # p1 level with r. To p0, the dealer, it is already 1,000: 0, not even the smallest.
    assert answer.lose_discard == {"p0": 0, "p2": 700, "p3": 700}
