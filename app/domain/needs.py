"""What a player needs (issue 18, part 1): the cut made readable for a round still played.

For a player below the cut line: the smallest win, by self-draw and on each opponent's
discard, that would lift them over the line as it stands (rule ST-3), paid as the WSOM
payoff pays it (rule HS-2) at their own table, within the format's value bounds (rule HS-3).
For a player above it: the biggest hand they can lose, to each opponent's self-draw or on
their own discard, and stay over the line.

"Over the line" is strict: the player's total after the hand is above every total but
A - 1 of the others (A advance), also after the hand. A total level with the line leaves
the tie-break (rules ST-4, ST-5) to decide, which no single hand's value can promise.

Pure: no I/O, no clock. One hand at a time: what the rest of the round brings is not
guessed. Ari Ari tables (AA rules) are not answered here yet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

from app.domain.hands import Discard, HandResult, PlayerId, SelfDraw, settle


@dataclass(frozen=True)
class Needs:
    """What one player needs from the next hand at their table.

    Below the line: `self_draw` is the smallest self-draw value that lifts them over it, and
    `discard` the smallest discard value from each opponent that does; None where no value
    up to the format's maximum does (out of reach with one hand).
    Above the line: `lose_self_draw` is, for each opponent, the biggest self-draw value the
    player can pay and stay over the line, and `lose_discard` the same for the player's own
    discard to each opponent; None where every value up to the maximum leaves them over it
    (safe against that hand), 0 where even the smallest win would drop them (rule HS-3)."""

    player: PlayerId
    above: bool
    self_draw: int | None = None
    discard: Mapping[PlayerId, int | None] | None = None
    lose_self_draw: Mapping[PlayerId, int | None] | None = None
    lose_discard: Mapping[PlayerId, int | None] | None = None


def over_the_line(totals: Mapping[PlayerId, Fraction], player: PlayerId, advance: int) -> bool:
    """Whether `player` is strictly above the cut (rule ST-3): fewer than `advance` others
    have a total at least theirs."""
    mine = totals[player]
    level_or_better = sum(1 for other, total in totals.items() if other != player and total >= mine)
    return level_or_better < advance


def after(
    totals: Mapping[PlayerId, Fraction],
    result: HandResult,
    seats: Sequence[PlayerId],
    *,
    min_value: int,
    max_value: int,
) -> dict[PlayerId, Fraction]:
    """The totals once the hand is paid at the table (rule HS-2)."""
    settled = settle(result, seats, min_value=min_value, max_value=max_value)
    moved = dict(totals)
    for seated, delta in settled.deltas:
        moved[seated] = moved[seated] + delta
    return moved


def _smallest(
    lifts: Callable[[int], bool],
    min_value: int,
    max_value: int,
) -> int | None:
    """The smallest value in the bounds for which `lifts(value)` holds, where it holds for
    every bigger value once it holds for one (a bigger win only moves the winner up and the
    others down); None if it holds for none."""
    if not lifts(max_value):
        return None
    low, high = min_value, max_value
    while low < high:
        middle = (low + high) // 2
        if lifts(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _biggest(
    holds: Callable[[int], bool],
    min_value: int,
    max_value: int,
) -> int | None:
    """The biggest value in the bounds for which `holds(value)`, where it fails for every
    bigger value once it fails for one; None if it holds for all, 0 if for none."""
    if holds(max_value):
        return None
    if not holds(min_value):
        return 0
    low, high = min_value, max_value
    while low < high:
        middle = (low + high + 1) // 2
        if holds(middle):
            low = middle
        else:
            high = middle - 1
    return low


def needs(
    totals: Mapping[PlayerId, Fraction],
    player: PlayerId,
    seats: Sequence[PlayerId],
    advance: int,
    *,
    min_value: int,
    max_value: int,
) -> Needs:
    """What `player`, seated at `seats`, needs from the next hand to be over the cut of a
    round where `advance` go through, with every ranked player's total as it stands."""
    opponents = [seated for seated in seats if seated != player]

    def through_after(hand: Callable[[int], HandResult]) -> Callable[[int], bool]:
        """Whether the player is over the line once `hand(value)` is paid."""
        return lambda value: over_the_line(
            after(totals, hand(value), seats, min_value=min_value, max_value=max_value),
            player,
            advance,
        )

    if not over_the_line(totals, player, advance):
        return Needs(
            player,
            above=False,
            self_draw=_smallest(through_after(partial(SelfDraw, player)), min_value, max_value),
            discard={
                other: _smallest(
                    through_after(partial(Discard, player, other)), min_value, max_value
                )
                for other in opponents
            },
        )
    return Needs(
        player,
        above=True,
        lose_self_draw={
            other: _biggest(through_after(partial(SelfDraw, other)), min_value, max_value)
            for other in opponents
        },
        lose_discard={
            other: _biggest(through_after(partial(Discard, other, player)), min_value, max_value)
            for other in opponents
        },
    )
