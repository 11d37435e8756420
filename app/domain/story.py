"""The story of the session (issue 18, part 2): what a commentator or the hall tells between
hands, derived from the round as the log leaves it.

- the biggest hands of the round and of the segment being played, by value (rule HS-4; for
  an Ari Ari round the win's value of AA-22), with winner, discarder or self-draw, table and
  hand number;
- the biggest movers since the segment began: each player who played in it, their rank
  (rule ST-2) before the segment's hands and now, and the points those hands gave them;
- the players who crossed the cut line (rule ST-3, in the order ST-4 and ST-5 give at the
  line) with the last hand: above it now and not without that hand, or the other way;
- each table's leader in the segment: the most points at the table in its hands so far;
- how the hands ended, for the round and the segment: self-draws, discard wins, draws and
  the others (a direct-points ruling, HS-7; a chombo, AA-10).

"The segment" is the half, quarter, final session or Ari Ari game the round's last hand was
played in, of that hand's group in round 1 (each group numbers its own, rule FM-2). "The last
hand" is the last hand line of the round that still counts: a correction counts as that hand
(the standings before it are those without the hand), a voided hand does not count at all.

Ari Ari rounds are answered too: a tsumo is a self-draw, a ron a discard win (a double ron is
one hand among the counts, and each winner's hand among the biggest, AA-4), an exhaustive draw
a draw, a chombo one of the others; the points are the game's (AA-27), bets and uma included
on the hand that ended the game.

Pure: no I/O, no clock. Lists are in a fixed order, whatever order the tables and hands came
in, and hold at most `top` entries each (None: all).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, TypeVar

from app.domain import ariari, hands
from app.domain.hands import PlayerId, Settlement
from app.domain.log import HandRecorded, RoundEnded
from app.domain.round_state import RoundState, TableSegment, segment_group
from app.domain.standings import RoundScores, Standings, rank_round
from app.domain.tournament import Tournament

WinKind = Literal["self_draw", "discard", "points"]
Ending = Literal["self_draw", "discard", "draw", "other"]

TOP = 5  # what the live channel and the feed keep of each list


@dataclass(frozen=True)
class BigHand:
    """One winning hand (for a double ron, one winner's hand)."""

    player: PlayerId
    value: int  # rule HS-4 (AA-22 in an Ari Ari round)
    kind: WinKind
    discarder: PlayerId | None  # None for a self-draw or a direct-points ruling
    segment: int
    table: int
    hand: int


@dataclass(frozen=True)
class Mover:
    """A player who played in the segment, and where its hands took them (rule ST-2)."""

    player: PlayerId
    table: int
    rank_before: int
    rank: int
    change: int  # the points of the segment's hands (rule SC-1, hands only)
    total: Fraction  # now; before the segment it was total - change


@dataclass(frozen=True)
class Crossing:
    """A player on the other side of the cut line than before the last hand (rule ST-3)."""

    player: PlayerId
    up: bool  # True: above the line now, below it before
    position_before: int
    position: int
    total: Fraction


@dataclass(frozen=True)
class TableLeader:
    """The player with the most points at a table in the segment's hands so far."""

    table: int
    segment: int
    player: PlayerId
    points: int
    hands: int  # hands played at the table in the segment
    shared: bool  # another player at the table has as many points (the first in seat order shown)


@dataclass(frozen=True)
class Counts:
    """How the hands ended (rule HS-1; AA-3, AA-9, AA-10 for Ari Ari)."""

    hands: int = 0
    self_draws: int = 0
    discards: int = 0
    draws: int = 0
    others: int = 0  # a direct-points ruling (HS-7), a chombo (AA-10)


@dataclass(frozen=True)
class Story:
    round: int
    segment: int | None  # None before the round's first hand
    group: str | None  # round 1: the group whose segment it is
    last_hand: tuple[int, int, int] | None  # (segment, table, hand)
    round_hands: tuple[BigHand, ...]
    segment_hands: tuple[BigHand, ...]
    climbers: tuple[Mover, ...]
    fallers: tuple[Mover, ...]
    crossed: tuple[Crossing, ...]  # up first, then down, each by position now
    leaders: tuple[TableLeader, ...]  # the biggest lead first
    round_counts: Counts
    segment_counts: Counts


def ending(result: object) -> Ending:
    """How a hand ended, whatever its ruleset (rules HS-1, AA-3, AA-9, AA-10)."""
    if isinstance(result, hands.SelfDraw | ariari.Tsumo):
        return "self_draw"
    if isinstance(result, hands.Discard | ariari.Ron):
        return "discard"
    if isinstance(result, hands.Draw | ariari.ExhaustiveDraw):
        return "draw"
    return "other"


def count(endings: Iterable[Ending]) -> Counts:
    tally = {"self_draw": 0, "discard": 0, "draw": 0, "other": 0}
    for how in endings:
        tally[how] += 1
    return Counts(
        hands=sum(tally.values()),
        self_draws=tally["self_draw"],
        discards=tally["discard"],
        draws=tally["draw"],
        others=tally["other"],
    )


def _win_kind(recorded: HandRecorded) -> tuple[WinKind, PlayerId | None]:
    how = ending(recorded.result)
    if how == "discard":
        return "discard", getattr(recorded.result, "discarder", None)
    return ("self_draw" if how == "self_draw" else "points"), None


def hands_of(
    tables: Iterable[tuple[int, int, TableSegment]], top: int | None
) -> tuple[tuple[BigHand, ...], Counts]:
    """The biggest winning hands of `tables` (each winner of a double ron apart) and how
    their hands ended, in one pass: a 1,000-player round has 8,000 hands."""
    # the biggest value first; on equal values the earlier hand (it was there first)
    # (no two candidates agree on the first five: the hand's winners are different players)
    candidates: list[tuple[int, int, int, int, str, PlayerId, HandRecorded]] = []
    endings: list[Ending] = []
    for segment, number, table in tables:
        settlements = table.settlements
        for hand, recorded in table.hands.items():
            endings.append(ending(recorded.result))
            for winner, value in settlements[hand].wins:
                candidates.append((-value, segment, number, hand, str(winner), winner, recorded))
    chosen = sorted(candidates) if top is None else heapq.nsmallest(top, candidates)
    biggest = []
    for value, segment, number, hand, _, winner, recorded in chosen:
        kind, discarder = _win_kind(recorded)
        biggest.append(BigHand(winner, -value, kind, discarder, segment, number, hand))
    return tuple(biggest), count(endings)


T = TypeVar("T")


def _cut(top: int | None, items: list[T]) -> list[T]:
    return items if top is None else items[:top]


def segment_tables(
    state: RoundState, segment: int, group: str | None
) -> list[tuple[int, int, TableSegment]]:
    """The tables of a segment (of one group's segment in round 1), by table number."""
    return [
        (played, number, table)
        for (played, number), table in sorted(state.tables.items())
        if played == segment and (group is None or segment_group(state, table) == group)
    ]


def segment_changes(tables: Iterable[tuple[int, int, TableSegment]]) -> dict[PlayerId, int]:
    """Each seated player's points from the segment's hands (zero-sum in WSOM, rule HS-2)."""
    changes: dict[PlayerId, int] = {}
    for _, _, table in tables:
        for player in table.seats:
            changes.setdefault(player, 0)
        for settlement in table.settlements.values():
            for player, delta in settlement.deltas:
                changes[player] = changes.get(player, 0) + delta
    return changes


def _rank_in(sorted_desc: Sequence[int], total: int) -> int:
    """rule ST-2: 1 + how many totals are higher (equal totals share the rank)."""
    # sorted_desc holds negated totals ascending: the count of those below -total
    return bisect.bisect_left(sorted_desc, -total) + 1


def movers(
    standings: Standings, changes: Mapping[PlayerId, int], seated_at: Mapping[PlayerId, int]
) -> tuple[list[Mover], list[Mover]]:
    """Climbers and fallers in rank (rule ST-2) over the segment's hands, biggest first.
    Substitutes are not ranked (rule FM-9) and never move."""
    rows = standings.rows
    if not rows:
        return [], []
    denominator = rows[0].denominator
    before = {
        row.player: row.total_scaled - changes.get(row.player, 0) * denominator for row in rows
    }
    ranked_before = sorted(-total for total in before.values())
    climbers, fallers = [], []
    for row in rows:
        if row.player not in changes:
            continue  # did not play in the segment
        rank_before = _rank_in(ranked_before, before[row.player])
        mover = Mover(
            row.player,
            seated_at[row.player],
            rank_before,
            row.rank,
            changes[row.player],
            row.total,
        )
        if row.rank < rank_before:
            climbers.append(mover)
        elif row.rank > rank_before:
            fallers.append(mover)
    climbers.sort(key=lambda m: (m.rank - m.rank_before, -m.change, str(m.player)))
    fallers.sort(key=lambda m: (m.rank_before - m.rank, m.change, str(m.player)))
    return climbers, fallers


def without_hand(scores: RoundScores, settlement: Settlement) -> RoundScores:
    """The round's scores as they were without one hand (its points and its wins)."""
    play = dict(scores.play)
    for player, delta in settlement.deltas:
        play[player] = play.get(player, 0) - delta
    winning = dict(scores.winning_values)
    for winner, value in settlement.wins:
        values = list(winning.get(winner, ()))
        values.remove(value)
        winning[winner] = values
    return RoundScores(
        round=scores.round,
        advance=scores.advance,
        field=scores.field,
        denominator=scores.denominator,
        carry_in_scaled=scores.carry_in_scaled,
        play=play,
        winning_values=winning,
        ended=scores.ended,
        draw_seed=scores.draw_seed,
    )


def crossings(before: Standings, now: Standings) -> list[Crossing]:
    """Who is on another side of the cut line than before (rule ST-3): up first, then down."""
    if now.cut is None:
        return []
    was = {row.player: row for row in before.rows}
    crossed = []
    for row in now.rows:
        earlier = was.get(row.player)
        if earlier is None or earlier.above_cut is None or row.above_cut is None:
            continue
        if earlier.above_cut != row.above_cut:
            crossed.append(
                Crossing(row.player, row.above_cut, earlier.position, row.position, row.total)
            )
    crossed.sort(key=lambda c: (not c.up, c.position))
    return crossed


def leaders(tables: Iterable[tuple[int, int, TableSegment]]) -> list[TableLeader]:
    """Each table's leader in the segment (a table with no hand yet has none), biggest first."""
    found = []
    for segment, number, table in tables:
        if not table.settlements:
            continue
        points = dict.fromkeys(table.seats, 0)
        for settlement in table.settlements.values():
            for player, delta in settlement.deltas:
                points[player] = points.get(player, 0) + delta
        best = max(points.values())
        first = next(player for player in table.seats if points[player] == best)
        shared = sum(1 for value in points.values() if value == best) > 1
        found.append(TableLeader(number, segment, first, best, len(table.settlements), shared))
    found.sort(key=lambda leader: (-leader.points, leader.table))
    return found


def last_hand(tournament: Tournament, state: RoundState) -> HandRecorded | None:
    """The round's last hand line that still counts (a correction is its hand now; a voided
    hand, or a retry's copy of an earlier line, is passed over for the one before)."""
    for event in reversed(tournament.events):
        if isinstance(event, RoundEnded) and event.round < state.number:
            break  # the round began after this line: it has no hand yet
        if not isinstance(event, HandRecorded) or event.round != state.number:
            continue
        table = state.tables.get((event.segment, event.table))
        if table is not None and table.hands.get(event.hand) == event:
            return event
    return None


def round_story(
    state: RoundState, standings: Standings, last: HandRecorded | None, top: int | None = TOP
) -> Story:
    """The story of a round as it stands (`standings` are the round's, as rank_round gives
    them), with `last` its last hand that counts (last_hand)."""
    every = sorted((segment, number, table) for (segment, number), table in state.tables.items())
    round_hands, round_counts = hands_of(every, top)
    if last is None:
        return Story(
            state.number, None, None, None, round_hands, (), (), (), (), (), round_counts, Counts()
        )
    played_at = state.tables[(last.segment, last.table)]
    group = segment_group(state, played_at) or None
    tables = segment_tables(state, last.segment, group)
    segment_hands, segment_counts = hands_of(tables, top)
    seated_at = {player: number for _, number, table in tables for player in table.seats}
    climbers, fallers = movers(standings, segment_changes(tables), seated_at)
    crossed: list[Crossing] = []
    if standings.cut is not None and not standings.ended:
        settlement = played_at.settlements[last.hand]
        crossed = crossings(rank_round(without_hand(state.scores(), settlement)), standings)
    return Story(
        round=state.number,
        segment=last.segment,
        group=group,
        last_hand=(last.segment, last.table, last.hand),
        round_hands=round_hands,
        segment_hands=segment_hands,
        climbers=tuple(_cut(top, climbers)),
        fallers=tuple(_cut(top, fallers)),
        crossed=tuple(
            _cut(top, [c for c in crossed if c.up]) + _cut(top, [c for c in crossed if not c.up])
        ),
        leaders=tuple(_cut(top, leaders(tables))),
        round_counts=round_counts,
        segment_counts=segment_counts,
    )


def story(tournament: Tournament, top: int | None = TOP) -> Story:
    """The story of the round being played (the last one, once the final has ended)."""
    state = tournament.current_round
    return round_story(state, tournament.standings(state.number), last_hand(tournament, state), top)
