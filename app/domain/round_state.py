"""What the log says about one round so far: the state the round's rules work over.

`RoundState` holds a round's field, carry-in, play scores, seated tables and their hands;
`TableSegment` one table in one segment. The modules beside this one change it, one
concern each: `seating` (rules SE-1 to SE-9), `clock_events` (CL-1 to CL-6, PN-2),
`hand_entry` (hands, corrections, voids and penalties: SC-1, HS-*, PN-1) and `round_end`
(FM-6, ST-5, SC-3). The checks they share live here: which table (SE-1), which segment
(FM-2 to FM-5) and which player (ST-3) a line may name.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Literal

from app.domain.ariari import Game
from app.domain.draw import RoundDraw
from app.domain.errors import IllegalMove, MalformedInput, say
from app.domain.formats import RoundFormat
from app.domain.hands import PlayerId, Settlement
from app.domain.log import HandRecorded, PenaltyGiven, PlayerRegistered, RoundEnded
from app.domain.rulesets import HandResult, TablePlay
from app.domain.standings import RoundScores, Standings

TableKey = tuple[int, int]  # (segment, table)
SeatName = Literal["east", "south", "west", "north"]
SEAT_NAMES: tuple[SeatName, ...] = ("east", "south", "west", "north")  # from the starting East


@dataclass
class TableSegment:
    """One table in one segment: who sits where and the hands entered so far."""

    group: str
    seats: tuple[PlayerId, PlayerId, PlayerId, PlayerId]
    cycle_seats: dict[int, tuple[PlayerId, PlayerId, PlayerId, PlayerId]] = dataclasses.field(
        default_factory=dict
    )
    hands: dict[int, HandRecorded] = dataclasses.field(default_factory=dict)  # live hands by number
    settlements: dict[int, Settlement] = dataclasses.field(default_factory=dict)
    # every hand number ever entered, voided or not
    entered: set[int] = dataclasses.field(default_factory=set)
    # the clock's facts (rules CL-2, CL-3, PN-2)
    deals: dict[int, datetime] = dataclasses.field(default_factory=dict)
    early_start: datetime | None = None
    extension: timedelta = timedelta(0)
    play_all: bool = False
    completed_at: dict[int, datetime] = dataclasses.field(default_factory=dict)

    game: Game | None = None  # an Ari Ari table's game as its hands played it

    @property
    def last_hand(self) -> int:
        return max(self.hands, default=0)

    def next_hand(self, planned: int) -> int | None:
        """The number of the table's next hand; None when its segment has no more: all
        `planned` hands are in, or its Ari Ari game has ended (rules AA-12 to AA-14)."""
        number = self.last_hand + 1
        if number > planned or (self.game is not None and self.game.ended is not None):
            return None
        return number

    def results(self) -> dict[int, HandResult]:
        return {number: hand.result for number, hand in self.hands.items()}

    def replay(self, play: TablePlay, state: RoundState) -> None:
        """Count the table's hands as `play` settles them now, instead of as before."""
        for number in self.settlements.keys() | play.settlements.keys():
            was, now = self.settlements.get(number), play.settlements.get(number)
            if was is now or was == now:
                continue
            if was is not None:
                state.count(was, -1)
            if now is not None:
                state.count(now, +1)
        self.settlements = dict(play.settlements)
        self.game = play.game


@dataclass
class RoundState:
    """What the log says about one round so far."""

    format: RoundFormat
    field: list[PlayerId]  # ranked players of the round (never substitutes, rule FM-9)
    carry_in: dict[PlayerId, Fraction]
    denominator: int = 1
    carry_in_scaled: dict[PlayerId, int] = dataclasses.field(default_factory=dict)
    play: dict[PlayerId, int] = dataclasses.field(default_factory=dict)
    winning_values: dict[PlayerId, list[int]] = dataclasses.field(default_factory=dict)
    tables: dict[TableKey, TableSegment] = dataclasses.field(default_factory=dict)
    # (segment, player) -> table
    seat_of: dict[tuple[int, PlayerId], int] = dataclasses.field(default_factory=dict)
    draw: RoundDraw | None = None  # rule SE-1
    # earlier draws of the round, replaced by a redraw before its first deal or hand
    superseded_draws: list[RoundDraw] = dataclasses.field(default_factory=list)
    # a table's clock rulings given before a redraw (the TV table's extension, PN-2):
    # the redraw reseats the table, the table keeps them
    carried_rulings: dict[TableKey, tuple[timedelta, bool]] = dataclasses.field(
        default_factory=dict
    )
    closed: set[tuple[str, int]] = dataclasses.field(default_factory=set)  # (group, segment)
    drawn_table: dict[tuple[int, PlayerId], int] = dataclasses.field(default_factory=dict)
    table_group: dict[int, str] = dataclasses.field(default_factory=dict)
    penalties: list[PenaltyGiven] = dataclasses.field(default_factory=list)
    started: bool = False
    ended: RoundEnded | None = None
    standings_at_end: Standings | None = None

    def __post_init__(self) -> None:
        # rule SC-4: rank exact totals as integers over one common denominator
        self.denominator = math.lcm(1, *(c.denominator for c in self.carry_in.values()))
        self.carry_in_scaled = {
            p: c.numerator * (self.denominator // c.denominator) for p, c in self.carry_in.items()
        }

    @property
    def number(self) -> int:
        return self.format.number

    def count(self, settlement: Settlement, sign: int) -> None:
        """Add a hand's settlement to the round (sign +1), or take it back out (-1)."""
        for player, delta in settlement.deltas:
            self.play[player] = self.play.get(player, 0) + sign * delta  # rule SC-1
        for winner, value in settlement.wins:  # rules HS-4, AA-22
            values = self.winning_values.setdefault(winner, [])
            if sign > 0:
                values.append(value)
            else:
                values.remove(value)

    def seats_of(self, player: PlayerId) -> list[tuple[int, int, SeatName]]:
        """(segment, table, seat) of every segment the player sits in this round, in order.

        A lookup per segment, not a scan of every seat: the live feed asks it for each phone
        that follows a player, after every hand."""
        seats = []
        for segment in range(1, self.format.segments + 1):  # the log's segments: 1 to these
            table = self.seat_of.get((segment, player))
            if table is not None:
                index = self.tables[(segment, table)].seats.index(player)
                seats.append((segment, table, SEAT_NAMES[index]))
        return seats

    def scores(self) -> RoundScores:
        return RoundScores(
            round=self.number,
            advance=self.format.advance,
            field=self.field,
            denominator=self.denominator,
            carry_in_scaled=self.carry_in_scaled,
            play=self.play,
            winning_values=self.winning_values,
            ended=self.ended is not None,
            draw_seed=self.ended.draw_seed if self.ended else None,
        )


def segment_group(state: RoundState, table: TableSegment) -> str:
    """The group a table's segment is scheduled and closed for: its own in round 1 (rule
    FM-2, each group numbers its own segments), none in a later round."""
    return table.group if state.number == 1 else ""


def seated_table(state: RoundState, segment: int, table_number: int) -> TableSegment:
    """The table a line names, which a seating must have placed first (rule SE-1)."""
    table = state.tables.get((segment, table_number))
    if table is None:
        raise IllegalMove(
            "SE-1",
            "table",
            say(
                "table {table_number} has no seating in segment {segment} of round {number}",
                table_number=table_number,
                segment=segment,
                number=state.number,
            ),
        )
    return table


def check_segment(fmt: RoundFormat, segment: int) -> None:
    """A line's segment is one its round has (rules FM-2 to FM-5)."""
    if segment > fmt.segments:
        raise MalformedInput(
            fmt.shape_rule,
            "segment",
            say(
                "round {number} has {segments} {segment_plural} per group",
                number=fmt.number,
                segments=fmt.segments,
                segment_plural=fmt.segments_word,
            )
            if fmt.groups > 1
            else say(
                "round {number} has {segments} {segment_plural}",
                number=fmt.number,
                segments=fmt.segments,
                segment_plural=fmt.segments_word,
            ),
        )


def check_in_round(
    players: Mapping[PlayerId, PlayerRegistered], state: RoundState, player: PlayerId, where: str
) -> PlayerRegistered:
    """A player a line names is registered and plays the round (rules ST-3, FM-9)."""
    registered = players.get(player)
    if registered is None:
        raise MalformedInput(
            "CONTRACT §1", where, say("unknown player {player}", player=repr(player))
        )
    if not registered.substitute and player not in state.carry_in and state.number > 1:
        # rule ST-3: only the players above the previous round's cut play this round
        raise IllegalMove(
            "ST-3",
            where,
            say(
                "player {player} did not reach round {number}",
                player=repr(player),
                number=state.number,
            ),
        )
    return registered


def first_play(state: RoundState) -> str | None:
    """What shows that a round's play has begun, in words; None before its first deal,
    hand or early start at any table (a hand voided since still counts)."""
    for (segment, number), table in sorted(state.tables.items()):
        if table.entered:
            return say("a hand at table {table}, segment {segment}", table=number, segment=segment)
        if table.deals:
            return say("a deal at table {table}, segment {segment}", table=number, segment=segment)
        if table.early_start is not None:
            return say(
                "an early start at table {table}, segment {segment}", table=number, segment=segment
            )
    return None
