"""What a player needs (issue 18, part 1): the smallest win that lifts a player over the cut
as it stands (rule ST-3), paid as WSOM pays it (rule HS-2) within the value bounds (rule HS-3),
and for a player above it the biggest hand they can lose and stay over it."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.domain.needs import needs, over_the_line

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
