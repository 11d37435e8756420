"""What a player needs (issue 18, part 1): the cut made readable for a round still played.

For a player below the cut line: the smallest win, by self-draw and on each opponent's
discard, that would lift them over the line as it stands (rule ST-3), paid as the WSOM
payoff pays it (rule HS-2) at their own table, within the format's value bounds (rule HS-3).
For a player above it: the biggest hand they can lose, to each opponent's self-draw or on
their own discard, and stay over the line.

"Over the line" is strict: the player's total after the hand is above every total but
A - 1 of the others (A advance), also after the hand. A total level with the line leaves
the tie-break (rules ST-4, ST-5) to decide, which no single hand's value can promise.

At an Ari Ari table (rules AA-2 to AA-6, AA-14 to AA-17) the sizes of a win are the bases
fan and fu give, up to a yakuman; the next hand is played on from the game as it stands, so
the counters, the riichi bets on the table, who deals and, where the hand ends the game, the
leftover bets and the uma all count. The value stated is the hand's own worth as rule AA-22
counts it: what a ron's discarder pays, or the three payments of a tsumo, before counters.

Pure: no I/O, no clock. One hand at a time: what the rest of the round brings is not
guessed.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.domain import ariari
from app.domain.hands import DISCARD_SHARE_LIMIT, PlayerId, wsom_deltas


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


class FieldTotals:
    """Every ranked player's total, sorted once: what one hand at a table does to a player's
    side of the line is then a search, not a count over the whole field (a needs feed, a
    player's page and the hall ask it of every player near the cut after every hand).

    The totals are exact fractions (a carried quarter, rule SC-4), compared some forty times
    a player: as whole numbers of their common unit they compare exactly and several times
    faster (a hall following 1,000 players asks it of all of them after every hand)."""

    def __init__(self, totals: Mapping[PlayerId, Fraction]) -> None:
        self.totals = totals
        self.unit = math.lcm(*(Fraction(total).denominator for total in totals.values()))
        self.scaled = {player: int(total * self.unit) for player, total in totals.items()}
        self.ordered = sorted(self.scaled.values())

    def over_after_paying(
        self, deltas: Mapping[PlayerId, Fraction | int], player: PlayerId, advance: int
    ) -> bool:
        """over_the_line() once the players in `deltas` (one table) are paid those points."""
        moved: dict[PlayerId, int] = {}
        unit = self.unit
        for seated, delta in deltas.items():
            if type(delta) is int:  # a WSOM hand's points: no fraction to build
                moved[seated] = self.scaled[seated] + delta * unit
                continue
            units = Fraction(delta) * unit
            if units.denominator != 1:  # a change finer than any total: exact the slow way
                return self._over_after_exactly(deltas, player, advance)
            moved[seated] = self.scaled[seated] + units.numerator
        mine = moved[player]
        # everyone whose total before the hand is at least mine, then the table as it is now
        level_or_better = len(self.ordered) - bisect.bisect_left(self.ordered, mine)
        for seated, total in moved.items():
            level_or_better -= self.scaled[seated] >= mine
            level_or_better += seated != player and total >= mine
        return level_or_better < advance

    def over_after_points(
        self, before: Sequence[int], points: Sequence[int], me: int, advance: int
    ) -> bool:
        """over_after_paying() for a hand of whole points: `before` the table's totals in
        this field's unit (`scaled`), `points` each seat's change, `me` the player's seat.
        The same count without a mapping made each time: a hall following 1,000 players
        asks it some forty times a player after every hand (issue 32)."""
        unit = self.unit
        mine = before[me] + points[me] * unit
        level_or_better = len(self.ordered) - bisect.bisect_left(self.ordered, mine)
        for seat, total in enumerate(before):
            level_or_better -= total >= mine
            level_or_better += seat != me and total + points[seat] * unit >= mine
        return level_or_better < advance

    def _over_after_exactly(
        self, deltas: Mapping[PlayerId, Fraction | int], player: PlayerId, advance: int
    ) -> bool:
        moved = {seated: self.totals[seated] + delta for seated, delta in deltas.items()}
        others = {other: total for other, total in self.totals.items() if other not in moved}
        return over_the_line({**others, **moved}, player, advance)


# What the next hand pays, by the size of the win (index 0 the smallest): the point changes
# at the table and the hand's value as stated. `winner`, then the discarder (None: self-draw).
Payoff = Callable[[PlayerId, PlayerId | None, int], tuple[Mapping[PlayerId, Fraction | int], int]]


@dataclass(frozen=True)
class Payoffs:
    sizes: int  # how many sizes of win there are
    pay: Payoff
    # Whether each payer's loss keeps the order among the losers, as WSOM's equal payments
    # do (rule HS-2): then a size that drops a player drops them at every bigger size too and
    # a binary search finds the line. An Ari Ari dealer pays double on a tsumo (rule AA-3), so
    # a bigger tsumo can take the dealer below a player a smaller one left behind: every size
    # is tried, smallest first.
    monotone: bool
    # A WSOM hand's changes as whole points in seat order, by the seats of the winner and the
    # discarder (None: self-draw): what `pay` says, without a mapping (FieldTotals.
    # over_after_points). None where a change may be a fraction.
    points: Callable[[int, int | None, int], tuple[int, ...]] | None = None


def wsom_payoffs(seats: Sequence[PlayerId], *, min_value: int, max_value: int) -> Payoffs:
    """rule HS-2 at a table seating `seats`, for every value the bounds allow (rule HS-3)."""

    def pay(
        winner: PlayerId, discarder: PlayerId | None, size: int
    ) -> tuple[Mapping[PlayerId, Fraction | int], int]:
        # the players are the table's and the value within the bounds by construction
        value = min_value + size
        return dict(wsom_deltas(seats, winner, discarder, value)), value

    def points(winner: int, discarder: int | None, size: int) -> tuple[int, ...]:
        return _wsom_points(len(seats), winner, discarder, min_value + size)

    return Payoffs(max_value - min_value + 1, pay, monotone=True, points=points)


@functools.lru_cache(maxsize=65_536)  # 4 seats x 5 discarders x the values of a format
def _wsom_points(seats: int, winner: int, discarder: int | None, value: int) -> tuple[int, ...]:
    """rule HS-2, as wsom_deltas pays it, seat by seat: the same few thousand hands for every
    table, kept once made."""
    if discarder is None or value <= DISCARD_SHARE_LIMIT:
        return tuple(3 * value if seat == winner else -value for seat in range(seats))
    excess = -(3 * value - 2 * DISCARD_SHARE_LIMIT)
    return tuple(
        3 * value if seat == winner else excess if seat == discarder else -DISCARD_SHARE_LIMIT
        for seat in range(seats)
    )


def _ariari_wins(counters: int) -> list[tuple[int, int | None, int | None, str | None]]:
    """(base, fan, fu, limit) for each base a win can have, smallest first, one hand each
    (rule AA-2): with five or more counters only hands of two fan or more, which two yaku
    need (rule AA-7)."""
    least_fan = 2 if counters >= ariari.TWO_YAKU_COUNTERS else 1
    hands: dict[int, tuple[int, int | None, int | None, str | None]] = {}
    for fan in range(least_fan, 5):
        for fu in sorted(ariari.VALID_FU):
            base = ariari.base_points(ariari.Win("", 1, fan, fu))
            hands.setdefault(base, (base, fan, fu, None))
    for limit, base in ariari.LIMITS.items():
        hands.setdefault(base, (base, None, None, limit))
    return sorted(hands.values())


def ariari_payoffs(game: ariari.Game) -> Payoffs:
    """The next hand of an Ari Ari `game` (rules AA-3 to AA-6), played on from where it
    stands, with each player's change in their result for the game (rule AA-17): a hand
    that ends the game brings the leftover bets and the uma (AA-14 to AA-16)."""
    before = game.results()
    number = game.hands[-1].number + 1 if game.hands else 1
    wins = _ariari_wins(game.counters)

    def pay(
        winner: PlayerId, discarder: PlayerId | None, size: int
    ) -> tuple[Mapping[PlayerId, Fraction | int], int]:
        _, fan, fu, limit = wins[size]
        yaku = 1 if fan == 1 else 2
        win = ariari.Win(winner, yaku, fan, fu, limit)
        result: ariari.AriAriResult = (
            ariari.Tsumo(win) if discarder is None else ariari.Ron(discarder, (win,))
        )
        played = ariari.continue_game(game, [(number, result)])
        after_hand = played.results()
        moved = {p: after_hand[p] - before[p] for p in game.seats}
        return moved, played.hands[-1].wins[0][1]

    return Payoffs(len(wins), pay, monotone=False)


def _smallest(lifts: Callable[[int], bool], sizes: int, monotone: bool) -> int | None:
    """The smallest size for which `lifts(size)` holds; None if it holds for none. With
    `monotone`, it holds for every bigger size once it holds for one (a bigger win only moves
    the winner up and the others down in step)."""
    if not monotone:
        return next((size for size in range(sizes) if lifts(size)), None)
    if not lifts(sizes - 1):
        return None
    low, high = 0, sizes - 1
    while low < high:
        middle = (low + high) // 2
        if lifts(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _biggest(holds: Callable[[int], bool], sizes: int, monotone: bool) -> int | None:
    """The biggest size up to which `holds` for every size: the loss a player can take and
    stay through whatever its size below it. None if it holds for all, -1 if not even for the
    smallest. With `monotone`, once it fails it fails for every bigger size."""
    if not monotone:
        failing = next((size for size in range(sizes) if not holds(size)), None)
        return None if failing is None else failing - 1
    if holds(sizes - 1):
        return None
    if not holds(0):
        return -1
    low, high = 0, sizes - 1
    while low < high:
        middle = (low + high + 1) // 2
        if holds(middle):
            low = middle
        else:
            high = middle - 1
    return low


def needs(
    totals: Mapping[PlayerId, Fraction] | FieldTotals,
    player: PlayerId,
    seats: Sequence[PlayerId],
    advance: int,
    *,
    min_value: int,
    max_value: int,
) -> Needs:
    """What `player`, seated at `seats` at a WSOM table, needs from the next hand to be over
    the cut of a round where `advance` go through, with every ranked player's total as it
    stands (rules ST-3, HS-2, HS-3)."""
    payoffs = wsom_payoffs(seats, min_value=min_value, max_value=max_value)
    return needs_at_table(totals, player, seats, advance, payoffs)


def ariari_needs(
    totals: Mapping[PlayerId, Fraction] | FieldTotals,
    player: PlayerId,
    game: ariari.Game,
    advance: int,
) -> Needs:
    """needs() for a player in an Ari Ari `game` that has not ended (rules AA-2 to AA-17)."""
    return needs_at_table(totals, player, game.seats, advance, ariari_payoffs(game))


def needs_at_table(
    totals: Mapping[PlayerId, Fraction] | FieldTotals,
    player: PlayerId,
    seats: Sequence[PlayerId],
    advance: int,
    payoffs: Payoffs,
) -> Needs:
    """What `player` needs from the next hand at their table, paid by `payoffs`."""
    field = totals if isinstance(totals, FieldTotals) else FieldTotals(totals)
    opponents = [seated for seated in seats if seated != player]

    def through_after(winner: PlayerId, discarder: PlayerId | None) -> Callable[[int], bool]:
        """Whether the player is over the line once that hand of a size is paid."""
        points = payoffs.points
        if points is not None:
            seat_of = {seated: seat for seat, seated in enumerate(seats)}
            before = [field.scaled[seated] for seated in seats]
            me, won = seat_of[player], seat_of[winner]
            lost = None if discarder is None else seat_of[discarder]

            def through_points(size: int) -> bool:
                return field.over_after_points(before, points(won, lost, size), me, advance)

            return through_points

        def through(size: int) -> bool:
            deltas = payoffs.pay(winner, discarder, size)[0]
            return field.over_after_paying(deltas, player, advance)

        return through

    def value(winner: PlayerId, discarder: PlayerId | None, size: int | None) -> int | None:
        if size is None:
            return None
        if size < 0:
            return 0  # rule HS-3: even the smallest win is too much
        return payoffs.pay(winner, discarder, size)[1]

    sizes = (payoffs.sizes, payoffs.monotone)
    if not field.over_after_paying({player: 0}, player, advance):
        return Needs(
            player,
            above=False,
            self_draw=value(player, None, _smallest(through_after(player, None), *sizes)),
            discard={
                other: value(player, other, _smallest(through_after(player, other), *sizes))
                for other in opponents
            },
        )
    return Needs(
        player,
        above=True,
        lose_self_draw={
            other: value(other, None, _biggest(through_after(other, None), *sizes))
            for other in opponents
        },
        lose_discard={
            other: value(other, player, _biggest(through_after(other, player), *sizes))
            for other in opponents
        },
    )
