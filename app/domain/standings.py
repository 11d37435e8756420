"""Standings of a round, the cut line, the tie-break and the draw (rules ST-1 to ST-7).

One ranking function (`rank_round`) with one named, ordered sort key (`standing_key`)
(STYLE.md, convention 3). Totals are ranked as integers scaled by the round's common
denominator, so no rational arithmetic happens per player per update; the exact
fractions are recovered on demand (rule SC-4: nothing is ever rounded).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, NamedTuple, TypeVar

from app.domain.hands import PlayerId

Status = Literal["advanced", "eliminated", "playing", "finished"]
Score = TypeVar("Score", int, Fraction)  # a total scaled to a common denominator, or exact


def standing_key(total_scaled: int, cut_order: int, player: PlayerId) -> tuple[int, int, str]:
    """The one sort key of the standings, most significant first."""
    return (
        -total_scaled,  # rule ST-1: by total, highest first
        cut_order,  # rules ST-4, ST-5: non-zero only inside a tie that straddles the cut
        str(player),  # no rank meaning: a fixed order, so output never depends on input order
    )


def hands_key(values: Sequence[int]) -> tuple[int, ...]:
    """rule ST-4: compare the biggest winning hand, then the second biggest, and so on.

    As a descending tuple, Python's ordering is exactly the rule: a longer list beats a
    shorter one it starts with (a player who still has a hand wins).
    """
    return tuple(sorted(values, reverse=True))


def draw_order(seed: str, player: PlayerId) -> str:
    """rule ST-5: a draw anyone can rerun: candidates sorted by SHA-256 of "seed:player"."""
    return hashlib.sha256(f"{seed}:{player}".encode()).hexdigest()


def seeded_draw(seed: str, candidates: Sequence[PlayerId], places: int) -> tuple[PlayerId, ...]:
    """The `places` winners of a draw among `candidates`, in draw order."""
    ordered = sorted(candidates, key=lambda p: (draw_order(seed, p), str(p)))
    return tuple(ordered[:places])


@dataclass(frozen=True)
class TieAtCut:
    """Players whose equal total straddles the cut, and how the tie-break decides them."""

    total: Fraction
    players: tuple[PlayerId, ...]  # everybody on that total, in resolved order
    places: int  # how many of them advance
    by_hands: tuple[PlayerId, ...]  # rule ST-4: advance on their biggest hands
    draw_among: tuple[PlayerId, ...]  # rule ST-5: still level after the hands
    draw_places: int
    draw_seed: str | None
    draw_winners: tuple[PlayerId, ...] | None  # None while the draw has not been run
    hands: Mapping[PlayerId, tuple[int, ...]]  # each tied player's winning values, biggest first

    @property
    def draw_pending(self) -> bool:
        return bool(self.draw_among) and self.draw_winners is None


@dataclass(frozen=True)
class CutLine:
    """rule ST-3: the line lies between position A and A+1."""

    advance: int
    line_total: Fraction | None  # total of the A-th player
    next_total: Fraction | None  # total of the (A+1)-th player
    tie: TieAtCut | None


class Standing(NamedTuple):
    """One row. A NamedTuple, not a dataclass: a round of 1,000 players is rebuilt after
    every hand, and these are the cheapest immutable rows Python has."""

    player: PlayerId
    position: int  # 1-based place in the list, after any tie-break at the cut
    rank: int  # rule ST-2: competition rank, shared by equal totals
    carry_in_scaled: int
    play: int
    total_scaled: int
    denominator: int
    distance_scaled: int | None  # rule ST-3, scaled like the total
    above_cut: bool | None  # None: no cut in this round
    status: Status

    @property
    def carry_in(self) -> Fraction:
        return Fraction(self.carry_in_scaled, self.denominator)

    @property
    def total(self) -> Fraction:
        return Fraction(self.total_scaled, self.denominator)

    @property
    def distance(self) -> Fraction | None:
        """rule ST-3: below the cut, the points needed to reach the A-th player's total;
        above it, the margin over the (A+1)-th."""
        if self.distance_scaled is None:
            return None
        return Fraction(self.distance_scaled, self.denominator)


@dataclass(frozen=True)
class RoundScores:
    """The inputs of a round's standings, read from the tournament state without copying."""

    round: int
    advance: int | None  # None for the final
    field: Sequence[PlayerId]  # ranked players: never substitutes (rule FM-9)
    denominator: int  # common denominator of every carry-in
    carry_in_scaled: Mapping[PlayerId, int]
    play: Mapping[PlayerId, int]  # hands plus penalties (rule SC-1)
    winning_values: Mapping[PlayerId, Sequence[int]]  # rule ST-4: this round's wins only
    ended: bool
    draw_seed: str | None = None


@dataclass(frozen=True)
class Standings:
    round: int
    rows: tuple[Standing, ...]
    cut: CutLine | None
    ended: bool

    def row_of(self, player: PlayerId) -> Standing | None:
        for row in self.rows:
            if row.player == player:
                return row
        return None


def rank_round(scores: RoundScores) -> Standings:
    """The standings of one round, provisional while it is played (rule ST-7)."""
    denominator = scores.denominator
    carry = scores.carry_in_scaled
    play = scores.play
    totals = {p: carry.get(p, 0) + play.get(p, 0) * denominator for p in scores.field}
    order = sorted(scores.field, key=lambda p: standing_key(totals[p], 0, p))

    advance = scores.advance
    cut: CutLine | None = None
    if advance is not None:
        cut, order = _cut_line(scores, totals, order, advance)

    rows = []
    rank = 0
    previous: int | None = None
    line_scaled = totals[order[advance - 1]] if advance and len(order) >= advance else None
    next_scaled = totals[order[advance]] if advance is not None and len(order) > advance else None
    for position, player in enumerate(order, start=1):
        total = totals[player]
        if total != previous:  # rule ST-2: equal totals share a rank, the next rank skips
            rank = position
            previous = total
        above: bool | None = None
        distance: int | None = None
        if advance is not None:
            above = position <= advance
            distance = distance_to_cut(total, above, line_scaled, next_scaled)
        rows.append(
            Standing(
                player,
                position,
                rank,
                carry.get(player, 0),
                play.get(player, 0),
                total,
                denominator,
                distance,
                above,
                status_in_round(scores.ended, above),
            )
        )
    return Standings(scores.round, tuple(rows), cut, scores.ended)


def distance_to_cut(
    total: Score, above: bool, line: Score | None, after: Score | None
) -> Score | None:
    """rule ST-3: above the line, the margin over the (A+1)-th total (`after`); below it, the
    points needed to reach the A-th (`line`). Scaled integers here; the live feed's clients
    work it out in exact fractions from the cut's totals (channels.placed_row)."""
    if above:
        return None if after is None else total - after
    return None if line is None else line - total


def status_in_round(ended: bool, above: bool | None) -> Status:
    if not ended:
        return "playing"
    if above is None:
        return "finished"  # a round without a cut: the final
    return "advanced" if above else "eliminated"


def _cut_line(
    scores: RoundScores, totals: Mapping[PlayerId, int], order: list[PlayerId], advance: int
) -> tuple[CutLine, list[PlayerId]]:
    denominator = scores.denominator
    if len(order) <= advance:
        # Everybody is above the line; only possible while a round is provisional or in
        # a format checked at the round's end (rule FM-6).
        return CutLine(advance, None, None, None), order
    line_total = totals[order[advance - 1]]
    next_total = totals[order[advance]]
    tie: TieAtCut | None = None
    if line_total == next_total:
        # rule ST-4: the tie-break applies only when equal totals straddle the cut
        first = next(i for i, p in enumerate(order) if totals[p] == line_total)
        last = max(i for i in range(first, len(order)) if totals[order[i]] == line_total)
        tied = order[first : last + 1]
        tie = break_tie_at_cut(
            Fraction(line_total, denominator),
            tied,
            advance - first,
            scores.winning_values,
            scores.draw_seed,
        )
        cut_order = {p: i for i, p in enumerate(tie.players)}
        order = (
            order[:first]
            + sorted(tied, key=lambda p: standing_key(totals[p], cut_order[p], p))
            + order[last + 1 :]
        )
    return (
        CutLine(advance, Fraction(line_total, denominator), Fraction(next_total, denominator), tie),
        order,
    )


def break_tie_at_cut(
    total: Fraction,
    tied: Sequence[PlayerId],
    places: int,
    winning_values: Mapping[PlayerId, Sequence[int]],
    draw_seed: str | None,
) -> TieAtCut:
    """Decide which `places` of the `tied` players advance (rules ST-4, ST-5)."""
    hands = {p: hands_key(winning_values.get(p, ())) for p in tied}
    # rule ST-4: biggest hands first; ties in hands stay in id order until the draw
    by_hands_order = sorted(tied, key=lambda p: str(p))
    by_hands_order.sort(key=lambda p: hands[p], reverse=True)
    boundary = hands[by_hands_order[places - 1]]
    ahead = [p for p in by_hands_order if hands[p] > boundary]
    level = [p for p in by_hands_order if hands[p] == boundary]
    behind = [p for p in by_hands_order if hands[p] < boundary]
    draw_places = places - len(ahead)
    if draw_places == len(level):
        # the hands decide everything; nobody needs a draw
        return TieAtCut(
            total,
            tuple(ahead + level + behind),
            places,
            tuple(ahead + level),
            (),
            0,
            draw_seed,
            None,
            hands,
        )
    winners: tuple[PlayerId, ...] | None = None
    if draw_seed is not None:
        # rule ST-5: a seeded draw anyone can rerun decides who advances
        winners = seeded_draw(draw_seed, level, draw_places)
        losers = [p for p in level if p not in winners]
        level = [*winners, *losers]
    return TieAtCut(
        total,
        tuple(ahead + level + behind),
        places,
        tuple(ahead),
        tuple(p for p in by_hands_order if hands[p] == boundary),
        draw_places,
        draw_seed,
        winners,
        hands,
    )
