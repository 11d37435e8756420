"""Properties of what a player needs (issue 18, part 1), on generated rounds: winning the
stated hand does lift the player over the current line (rule ST-3) and no smaller hand does;
losing the stated hand keeps a player above it and a bigger one does not (rule HS-2, values
within rule HS-3's bounds)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.hands import Discard, HandResult, SelfDraw
from app.domain.needs import after, needs, over_the_line

BOUNDS = {"min_value": 5, "max_value": 320}  # rule HS-3

# A round of 5 to 16 players with totals in quarter points (carry-over, rule SC-3), the first
# four at the player's table, and 1 to all-but-one advancing.
rounds = st.integers(5, 16).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-4000, 4000), min_size=n, max_size=n),
        st.integers(1, n - 1),
        st.integers(0, 3),
    )
)


def _setup(
    drawn: tuple[list[int], int, int],
) -> tuple[dict[str, Fraction], tuple[str, ...], int, str]:
    quarters, advance, seat = drawn
    totals = {f"p{i}": Fraction(q, 4) for i, q in enumerate(quarters)}
    table = ("p0", "p1", "p2", "p3")
    return totals, table, advance, table[seat]


def _over(
    totals: dict[str, Fraction], hand: HandResult, table: tuple[str, ...], player: str, advance: int
) -> bool:
    return over_the_line(after(totals, hand, table, **BOUNDS), player, advance)


@settings(max_examples=150, deadline=None)
@given(rounds)
def test_the_stated_win_lifts_the_player_and_no_smaller_one_does(
    drawn: tuple[list[int], int, int],
) -> None:
    totals, table, advance, player = _setup(drawn)
    answer = needs(totals, player, table, advance, **BOUNDS)
    if answer.above:
        return
    wins = {"self-draw": lambda v: SelfDraw(player, v)}
    for other in table:
        if other != player:
            wins[other] = lambda v, other=other: Discard(player, other, v)
    stated = {"self-draw": answer.self_draw, **(answer.discard or {})}
    for how, win in wins.items():
        value = stated[how]
        if value is None:  # out of reach: not even the biggest hand
            assert not _over(totals, win(BOUNDS["max_value"]), table, player, advance)
            continue
        assert _over(totals, win(value), table, player, advance), how
        if value > BOUNDS["min_value"]:
            assert not _over(totals, win(value - 1), table, player, advance), how


@settings(max_examples=150, deadline=None)
@given(rounds)
def test_the_stated_loss_keeps_the_player_above_and_a_bigger_one_does_not(
    drawn: tuple[list[int], int, int],
) -> None:
    totals, table, advance, player = _setup(drawn)
    answer = needs(totals, player, table, advance, **BOUNDS)
    if not answer.above:
        return
    for other in table:
        if other == player:
            continue
        for hand, stated in (
            (lambda v, other=other: SelfDraw(other, v), answer.lose_self_draw),
            (lambda v, other=other: Discard(other, player, v), answer.lose_discard),
        ):
            assert stated is not None
            value = stated[other]
            if value is None:  # safe against this hand, whatever its value
                assert _over(totals, hand(BOUNDS["max_value"]), table, player, advance)
            elif value == 0:  # even the smallest win drops the player
                assert not _over(totals, hand(BOUNDS["min_value"]), table, player, advance)
            else:
                assert _over(totals, hand(value), table, player, advance)
                assert not _over(totals, hand(value + 1), table, player, advance)
