"""The tournament as the fold of its log (STYLE.md, convention 2).

`Tournament.apply` checks one event against the rules and the state so far, and either
changes nothing and raises a named error, or records it. Everything shown (totals,
carry-over, standings, the cut, the final ranking) is derived from what was recorded.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Literal

from app.domain import bounds, clocks
from app.domain.ariari import AriAriResult, Game, game_dealer, with_table_state
from app.domain.bounds import short
from app.domain.draw import PLAYERS_PER_TABLE, RoundDraw, draw_round, unfilled_tables
from app.domain.errors import HandRefused, IllegalMove, MalformedInput, RuleViolation
from app.domain.formats import Format, RoundFormat
from app.domain.hands import PlayerId, Settlement
from app.domain.log import (
    CarryOverRateSet,
    DealRecorded,
    DrawRecorded,
    EarlyStart,
    Event,
    ExtensionGiven,
    HandRecorded,
    HandVoided,
    PenaltyGiven,
    PlayAllOrdered,
    PlayerRegistered,
    PrizesSet,
    RoundEnded,
    ScheduleSet,
    SeatingRecorded,
    SegmentClosed,
    TournamentDeclared,
)
from app.domain.prizes import FinalPlace, final_ranking
from app.domain.rulesets import RULESETS, HandResult, TablePlay
from app.domain.seats import Seats, cycle_seats, dealer
from app.domain.standings import RoundScores, Standings, rank_round

TableKey = tuple[int, int]  # (segment, table)
SeatName = Literal["east", "south", "west", "north"]
SEAT_NAMES: tuple[SeatName, ...] = ("east", "south", "west", "north")  # from the starting East
ScheduleKey = tuple[int, str, int]  # (round, group or "" after round 1, segment)


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


@dataclass(frozen=True)
class UnfinishedTable:
    """A table of a round that has not played its segment out: fewer hands than the
    segment's count (WSOM), or a game that has not ended (Ari Ari, rule AA-12)."""

    group: str  # "" when the round is not played in groups
    segment: int
    table: int
    hands: int
    planned: int | None  # None for an Ari Ari game, which ends by its rules

    def describe(self) -> str:
        where = f"table {self.table}, segment {self.segment}" + (
            f" of group {self.group}" if self.group else ""
        )
        if self.planned is None:
            return f"{where}: its game has not ended ({self.hands} hands)"
        return f"{where}: {self.hands} of {self.planned} hands"


class RoundUnfinished(IllegalMove):
    """A round end asked for while tables have not played their segments out: it needs the
    organizer's confirmation and a reason (the `round_end` line's `reason`)."""

    def __init__(self, round_number: int, rule: str, tables: Sequence[UnfinishedTable]) -> None:
        listed = "; ".join(table.describe() for table in tables[:_LISTED_IN_A_MESSAGE])
        more = len(tables) - _LISTED_IN_A_MESSAGE
        if not tables:
            what = f"round {round_number} has no seated table: nobody has played it"
        else:
            what = (
                f"round {round_number} has {len(tables)} unplayed or unfinished "
                f"table(s): {listed}" + (f" and {more} more" if more > 0 else "")
            )
        super().__init__(
            rule,
            "confirm_unfinished",
            f"{what}; ending it ranks those players on what they have played. "
            "Confirm with a reason to end the round anyway",
        )
        self.round = round_number
        self.tables = tuple(tables)


_LISTED_IN_A_MESSAGE = 8


@dataclass(frozen=True)
class TableClock:
    round: int
    segment: int
    table: int
    group: str
    clock: clocks.ClockState


class Tournament:
    """A tournament as its log describes it; `apply` is the only way to change it."""

    def __init__(self, declared: TournamentDeclared) -> None:
        self.name = declared.name
        self.format: Format = declared.format
        self.players: dict[PlayerId, PlayerRegistered] = {}
        self._player_names: dict[str, PlayerId] = {}  # str(id) -> id, so 7 and "7" can't both exist
        self.prizes: tuple[Fraction, ...] = ()
        # Round 1 exists from the start: registrations make its field (rule FM-2).
        self.rounds: dict[int, RoundState] = {1: RoundState(self.format.round(1), [], {})}
        self.events: list[Event] = [declared]
        self.hand_keys: dict[str, HandRecorded] = {}  # idempotency key -> the hand it entered
        self.schedule: dict[ScheduleKey, datetime] = {}  # rule FM-8: the organizer's schedule
        # Every apply() counts, accepted or not: a round's standings are ranked once per
        # state, though a judge's answer, the live feed and the pages all ask for them.
        self._applies = 0
        self._ranked: dict[int, tuple[int, Standings]] = {}  # round -> (_applies, standings)

    # -- reading ---------------------------------------------------------------------

    def player_named(self, text: str) -> PlayerId | None:
        """The registered player whose id reads `text` (ids are ints or strings in the log;
        a channel or a URL names them as text)."""
        return self._player_names.get(text)

    @property
    def current_round(self) -> RoundState:
        """The round being played, or the last one if the final has ended."""
        return self.rounds[max(self.rounds)]

    @property
    def complete(self) -> bool:
        final = self.rounds.get(self.format.final_round)
        return final is not None and final.ended is not None

    def standings(self, round_number: int) -> Standings:
        state = self.rounds.get(round_number)
        if state is None:
            raise IllegalMove("FM-1", "round", f"round {round_number} has not begun")
        if state.standings_at_end is not None:
            return state.standings_at_end
        ranked = self._ranked.get(round_number)
        if ranked is None or ranked[0] != self._applies:
            ranked = (self._applies, rank_round(state.scores()))
            self._ranked[round_number] = ranked
        return ranked[1]

    def final_ranking(self) -> list[FinalPlace]:
        ended = [s.standings_at_end for s in self.rounds.values() if s.standings_at_end is not None]
        advances = {n: s.format.advance for n, s in self.rounds.items()}
        return final_ranking(ended, advances, self.prizes)

    # -- applying --------------------------------------------------------------------

    def apply(self, event: Event, at: datetime | None = None) -> None:
        """Check `event` against the rules and record it.

        On a violation it raises a named error and changes nothing. `at` is when the line
        was entered, where known (the server's time, or a log line's `at`): only the clock
        uses it, to start the final's break when hand 8 is in (rule CL-1).
        """
        self._applies += 1
        try:
            self._record(event, at)
        finally:
            # and once more after: standings ranked while it ran are not those of its result
            self._applies += 1
        self.events.append(event)

    def _record(self, event: Event, at: datetime | None) -> None:
        match event:
            case TournamentDeclared():
                raise IllegalMove("CONTRACT §1", "type", "the tournament line comes once, first")
            case PlayerRegistered():
                self._register(event)
            case PrizesSet():
                self.prizes = event.amounts  # rule PR-2: a later line replaces the table
            case CarryOverRateSet():
                self._set_rate(event)
            case DrawRecorded():
                self._record_draw(event)
            case SeatingRecorded():
                self._seat(event)
            case HandRecorded():
                self._record_hand(event, at)
            case PenaltyGiven():
                self._penalize(event)
            case HandVoided():
                self._void(event)
            case RoundEnded():
                self._end_round(event)
            case ScheduleSet():
                self._set_schedule(event)
            case SegmentClosed():
                self._close_segment(event)
            case DealRecorded() | EarlyStart() | ExtensionGiven() | PlayAllOrdered():
                self._clock_event(event)

    def _register(self, event: PlayerRegistered) -> None:
        key = str(event.player)
        if key in self._player_names:
            raise IllegalMove("CONTRACT §1", "id", f"player {event.player!r} is already registered")
        first = self.format.round(1)
        if event.group not in first.group_names:
            raise MalformedInput(
                "FM-2", "group", f"this format's round 1 has groups {', '.join(first.group_names)}"
            )
        refusal = self.registration_refusal(event.substitute)
        if refusal is not None:
            raise refusal
        self.players[event.player] = event
        self._player_names[key] = event.player
        if not event.substitute:
            self._round_one().field.append(event.player)

    def _round_one(self) -> RoundState:
        return self.rounds[1]

    def registration_refusal(self, substitute: bool) -> IllegalMove | None:
        """Why a player cannot be registered now, or None.

        rule FM-2: registrations make the field of round 1, which the draw seats (SE-1) and
        whose cut ranks every one of them (ST-1). Once round 1 has begun (its first deal,
        hand or early start) the draw is fixed, so a player registered then would have no
        seat and still be ranked, on 0 points, above everyone who has lost points (seen:
        ranked 2nd). Rounds 2 on are only those who advanced (ST-3), so a late player has
        no next round to join either: a late registration is refused, except a substitute
        (FM-9), who fills a seat and is never ranked."""
        if substitute:
            return None
        round_one = self._round_one()
        if round_one.ended is not None:
            return IllegalMove(
                "FM-2", "id", "round 1 has ended; only substitutes can still be registered"
            )
        begun = self._first_play(round_one)
        if begun is not None:
            return IllegalMove(
                "FM-2",
                "id",
                f"round 1 has begun ({begun}); its seats are drawn and fixed, so a player "
                "registered now would have no seat: register them as a substitute, or before "
                "round 1 begins",
            )
        if len(round_one.field) >= bounds.MAX_PLAYERS:
            return IllegalMove(
                "FM-9", "id", f"round 1 has {bounds.MAX_PLAYERS:,} players, as many as a hall seats"
            )
        return None

    @staticmethod
    def _check_segment(fmt: RoundFormat, segment: int) -> None:
        if segment > fmt.segments:
            raise MalformedInput(
                fmt.shape_rule,
                "segment",
                f"round {fmt.number} has {fmt.segments} {fmt.segment_plural}"
                + (" per group" if fmt.groups > 1 else ""),
            )

    def _set_rate(self, event: CarryOverRateSet) -> None:
        if event.round != 1:
            # rule SC-3: only the rate from round 1 into round 2 may be changed
            raise IllegalMove(
                "SC-3", "round", "only the round 1 to 2 carry-over rate can be changed"
            )
        state = self._round_one()
        if state.started:
            # rule SC-3: the rate locks when round 1 starts
            raise IllegalMove("SC-3", "rate", "round 1 has started; its carry-over rate is locked")
        self.format = self.format.with_round_one_rate(event.rate)
        state.format = self.format.round(1)

    def _open_round(self, number: int, field_name: str = "round") -> RoundState:
        """The round `number` if it is being played; raises if it has not begun or has ended."""
        if not self.format.has_round(number):
            raise MalformedInput(
                "FM-1", field_name, f"this format has rounds 1 to {self.format.final_round}"
            )
        state = self._round_one() if number == 1 else self.rounds.get(number)
        if state is None:
            raise IllegalMove(
                "FM-1",
                field_name,
                f"round {number} has not begun: round {number - 1} has not ended",
            )
        if state.ended is not None:
            raise IllegalMove("FM-1", field_name, f"round {number} has ended")
        return state

    def _check_in_round(self, state: RoundState, player: PlayerId, where: str) -> PlayerRegistered:
        registered = self.players.get(player)
        if registered is None:
            raise MalformedInput("CONTRACT §1", where, f"unknown player {player!r}")
        if not registered.substitute and player not in state.carry_in and state.number > 1:
            # rule ST-3: only the players above the previous round's cut play this round
            raise IllegalMove(
                "ST-3", where, f"player {player!r} did not reach round {state.number}"
            )
        return registered

    def round_groups(self, state: RoundState) -> dict[str, list[PlayerId]]:
        """Who sits down in a round, by group: round 1 every registration, substitutes
        included (rule FM-9); later rounds the players who advanced (rule ST-3)."""
        if state.number > 1:
            return {"": list(state.field)}
        groups: dict[str, list[PlayerId]] = {name: [] for name in state.format.group_names}
        for player in self.players.values():
            groups[player.group].append(player.player)
        return groups

    def _record_draw(self, event: DrawRecorded) -> None:
        state = self._open_round(event.round)
        if state.draw is not None:
            fixed = self._draw_fixed(state)
            if fixed is not None:
                raise fixed
            self._supersede_draw(state)
        state.draw = draw_round(state.format, self.round_groups(state), event.seed)

    @classmethod
    def _draw_fixed(cls, state: RoundState) -> IllegalMove | None:
        """rule SE-1: once play has begun a round's draw stands (its seed reproduces it)."""
        started = cls._first_play(state)
        if state.draw is None or started is None:
            return None
        return IllegalMove(
            "SE-1",
            "round",
            f"round {state.number} has started ({started}); its draw "
            f"(seed {state.draw.seed!r}) is fixed",
        )

    @staticmethod
    def _first_play(state: RoundState) -> str | None:
        """What shows that a round's play has begun, in words; None before its first deal,
        hand or early start at any table (a hand voided since still counts)."""
        for (segment, number), table in sorted(state.tables.items()):
            where = f"table {number}, segment {segment}"
            if table.entered:
                return f"a hand at {where}"
            if table.deals:
                return f"a deal at {where}"
            if table.early_start is not None:
                return f"an early start at {where}"
        return None

    @staticmethod
    def _supersede_draw(state: RoundState) -> None:
        """A redraw before play: the earlier draw and every seating of the round give way to
        the new draw's seatings, which follow it in the log. The log keeps the old lines."""
        assert state.draw is not None
        state.superseded_draws.append(state.draw)
        for key, table in state.tables.items():
            if table.extension or table.play_all:
                state.carried_rulings[key] = (table.extension, table.play_all)
        state.tables.clear()
        state.seat_of.clear()
        state.table_group.clear()

    def draw_refusal(self, round_number: int) -> RuleViolation | None:
        """Why round `round_number` cannot be drawn (or redrawn) now, or None if it can:
        what the server checks before it records a draw, and what the console shows beside
        a button it disables. A replay accepts any draw line the rules allow (an old log
        may hold a draw of nobody); the server no longer writes one."""
        state = self.rounds.get(round_number)
        if state is None:
            return IllegalMove("FM-1", "round", f"round {round_number} has not begun")
        if state.ended is not None:
            return IllegalMove("SE-1", "round", f"round {round_number} has ended")
        fixed = self._draw_fixed(state)
        if fixed is not None:
            return fixed
        groups = self.round_groups(state)
        seated = sum(len(players) for players in groups.values())
        if seated < PLAYERS_PER_TABLE:
            return IllegalMove(
                "FM-9",
                "players",
                f"round {round_number} has {seated} registered player(s); a draw needs at "
                f"least one full table of {PLAYERS_PER_TABLE}: register the players first",
            )
        advance = state.format.advance
        if advance is not None and len(state.field) <= advance:
            return IllegalMove(
                "FM-6",
                "players",
                f"round {round_number} advances {advance}, so its field needs more than "
                f"{advance} players (substitutes do not count); {len(state.field)} are "
                "registered: register more players or choose a format that advances fewer",
            )
        return unfilled_tables(state.format, groups)

    def unfinished_tables(self, round_number: int) -> list[UnfinishedTable]:
        """Every table of the round, in every segment whether closed or still open, that has
        played fewer hands than its segment's count (WSOM), or whose game has not ended
        (Ari Ari, rule AA-12): what a round end lists and asks the organizer to confirm."""
        state = self.rounds[round_number]
        planned = state.format.hands_per_segment
        out = []
        for (segment, number), table in sorted(state.tables.items()):
            if table.game is not None:
                if table.game.ended is None:
                    out.append(UnfinishedTable(table.group, segment, number, table.last_hand, None))
            elif len(table.hands) < planned:
                out.append(UnfinishedTable(table.group, segment, number, len(table.hands), planned))
        return out

    def draw_deviations(self, round_number: int) -> list[tuple[int, PlayerId, int | None, int]]:
        """Seatings that differ from the recorded draw: (segment, player, drawn table or None,
        seated table). Replay accepts them (CONTRACT §1: a substitute may have come in);
        this is what an organizer checks."""
        state = self.rounds.get(round_number)
        if state is None or state.draw is None:
            return []
        drawn = state.draw.table_of()
        return sorted(
            (
                (segment, player, drawn.get((segment, player)), table)
                for (segment, player), table in state.seat_of.items()
                if drawn.get((segment, player)) != table
            ),
            key=lambda d: (d[0], str(d[1])),
        )

    def _set_schedule(self, event: ScheduleSet) -> None:
        if not self.format.has_round(event.round):
            raise MalformedInput(
                "FM-1", "round", f"this format has rounds 1 to {self.format.final_round}"
            )
        round_format = self.format.round(event.round)
        self._check_segment(round_format, event.segment)
        self._check_group(round_format, event.group)
        state = self.rounds.get(event.round)
        if state is not None and state.ended is not None:
            raise IllegalMove("FM-1", "round", f"round {event.round} has ended")
        group = event.group or ""
        if state is not None and any(
            (t.deals or t.hands or t.early_start) and t.group == group
            for (segment, _), t in state.tables.items()
            if segment == event.segment
        ):
            # rule CL-2: deals were judged in time against the schedule as it stood
            raise IllegalMove(
                "CL-2", "start", f"segment {event.segment} has started; its schedule is fixed"
            )
        self.schedule[(event.round, group, event.segment)] = event.start

    def clock_facts(
        self, round_number: int, segment: int, table_number: int
    ) -> clocks.SegmentClockFacts:
        """Everything the clock rules need to know about one table's segment (rule CL-6:
        the state itself comes from `clocks.clock_state` with the server's time)."""
        state = self.rounds[round_number]
        table = self._table(state, segment, table_number)
        round_format = state.format
        start = self._scheduled_start(round_number, segment, table)
        limit = clocks.time_limit(round_format)
        break_start = None
        break_length = timedelta(0)
        following = self._scheduled_start(round_number, segment + 1, table)
        if start is not None and limit is not None and following is not None:
            # rule CL-1: the break runs from the segment's scheduled end to the next start
            break_start = clocks.shifted(start, limit)
            break_length = max(timedelta(0), following - break_start)
        mid_break_after = clocks.mid_break_after_hand(round_format)
        return clocks.SegmentClockFacts(
            scheduled_start=start,
            limit=limit,
            # rule AA-12: an Ari Ari game that has ended has played all its hands
            planned_hands=table.last_hand
            if table.game is not None and table.game.ended is not None
            else round_format.hands_per_segment,
            extension=table.extension,
            early_start=table.early_start,
            deals=tuple(sorted(table.deals.items())),
            hands_completed=table.last_hand,
            play_all=table.play_all,
            break_start=break_start,
            break_length=break_length,
            mid_break_after_hand=mid_break_after,
            # rule CL-1: the final's break starts when the judge enters hand 8
            mid_break_start=table.completed_at.get(mid_break_after) if mid_break_after else None,
            mid_break_length=timedelta(minutes=round_format.break_minutes),
        )

    def _scheduled_start(
        self, round_number: int, segment: int, table: TableSegment
    ) -> datetime | None:
        """rule CL-2: the segment's start as scheduled, for the table's group in round 1."""
        group = table.group if round_number == 1 else ""
        return self.schedule.get((round_number, group, segment))

    @staticmethod
    def _check_group(round_format: RoundFormat, group: str | None) -> None:
        """rule FM-2: a round played in groups names the group a segment belongs to; other
        rounds name none."""
        if round_format.groups > 1 and group is None:
            raise MalformedInput(
                "FM-2", "group", f"round {round_format.number} is played in groups; name the group"
            )
        if round_format.groups == 1 and group is not None:
            raise MalformedInput("FM-2", "group", f"round {round_format.number} has no groups")

    def _close_segment(self, event: SegmentClosed) -> None:
        state = self._open_round(event.round)
        self._check_segment(state.format, event.segment)
        self._check_group(state.format, event.group)
        key = (event.group or "", event.segment)
        if key in state.closed:
            raise IllegalMove("CL-3", "segment", f"segment {event.segment} is closed already")
        state.closed.add(key)

    def _check_open_segment(self, state: RoundState, segment: int, table: TableSegment) -> None:
        """A closed segment takes no new hand or deal (rule CL-3: it has ended for its
        tables); corrections of its hands are still accepted."""
        if (table.group if state.number == 1 else "", segment) in state.closed:
            raise IllegalMove(
                "CL-3", "segment", f"segment {segment} of round {state.number} is finished"
            )

    def _clock_event(
        self, event: DealRecorded | EarlyStart | ExtensionGiven | PlayAllOrdered
    ) -> None:
        state = self._open_round(event.round)
        self._check_segment(state.format, event.segment)
        table = self._table(state, event.segment, event.table)
        facts = self.clock_facts(event.round, event.segment, event.table)
        match event:
            case DealRecorded():
                self._check_open_segment(state, event.segment, table)
                with _log_field_names():
                    clocks.check_deal(facts, event.hand, event.time)  # rule CL-3
                table.deals[event.hand] = event.time
            case EarlyStart():
                if state.format.segment_kind == "quarter" and event.segment % 2 == 0:
                    # rule CL-5: both tables start quarters 2 and 4 at the same moment
                    raise IllegalMove(
                        "CL-5", "segment", "both tables start this quarter together; no early start"
                    )
                if table.deals or table.hands or table.early_start is not None:
                    raise IllegalMove("CL-2", "time", f"table {event.table} has already started")
                with _log_field_names():
                    clocks.check_early_start(
                        facts.scheduled_start,
                        event.time,
                        clocks.early_start_cap(self.format),
                        all_four_agree=event.agreed,
                    )
                table.early_start = event.time
            case ExtensionGiven():
                table.extension += timedelta(minutes=event.minutes)  # rule CL-2
            case PlayAllOrdered():
                table.play_all = True  # rule PN-2

    def cycles(
        self, round_number: int, segment: int, table_number: int
    ) -> tuple[Seats | None, ...]:
        """The seats of every cycle of one table's segment (rules SE-6 to SE-9), from the
        recorded seatings; None where the rules need a seating nobody recorded yet."""
        state = self.rounds[round_number]
        table = self._table(state, segment, table_number)
        first = state.tables.get((1, table_number))
        return cycle_seats(
            state.format,
            segment,
            table.seats,
            table.cycle_seats,
            round_start=first.seats if first is not None else None,
        )

    def dealer(
        self, round_number: int, segment: int, table_number: int, hand: int
    ) -> PlayerId | None:
        """Who deals `hand` of a table's segment (rule FM-7; rule AA-8 in an Ari Ari
        game, where None means the game has ended)."""
        if self.format.game is not None:
            table = self._table(self.rounds[round_number], segment, table_number)
            return game_dealer(table.game, table.seats, hand)
        return dealer(self.cycles(round_number, segment, table_number), hand)

    def next_deal(
        self, round_number: int, segment: int, table_number: int
    ) -> tuple[int | None, PlayerId | None]:
        """A table's next hand and who deals it; (None, None) when its segment has no more
        (what a judge's answer, the tables view and the table channel show)."""
        state = self.rounds[round_number]
        next_hand = self._table(state, segment, table_number).next_hand(
            state.format.hands_per_segment
        )
        if next_hand is None:
            return None, None
        return next_hand, self.dealer(round_number, segment, table_number, next_hand)

    def table_clocks(self, now: datetime) -> list[TableClock]:
        """Every table's clock in the round being played, at the server's time `now`
        (rule CL-6): for each table, the latest segment that has started by then (or its
        first one, not started yet)."""
        state = self.current_round
        segments: dict[int, list[int]] = {}
        for segment, table in sorted(state.tables):
            segments.setdefault(table, []).append(segment)
        out = []
        for table_number, seated in sorted(segments.items()):
            current = seated[0]
            for segment in seated:
                facts = self.clock_facts(state.number, segment, table_number)
                starts = facts.early_start or facts.scheduled_start
                begun = starts <= now if starts is not None else facts.hands_completed > 0
                if begun:
                    current = segment
            facts = self.clock_facts(state.number, current, table_number)
            out.append(
                TableClock(
                    round=state.number,
                    segment=current,
                    table=table_number,
                    group=state.tables[(current, table_number)].group,
                    clock=clocks.clock_state(facts, now),
                )
            )
        return out

    def current_segment(self, round_number: int, table_number: int) -> int | None:
        """The segment a table is playing, or is about to play, in a round: the latest of
        its seated segments that has begun (a hand, a deal or an early start), or the next
        one once that is finished (closed, or all its hands in, or its game ended); before
        any play its first. None when the table has no seat in the round."""
        state = self.rounds.get(round_number)
        if state is None:
            return None
        seated = sorted(segment for segment, table in state.tables if table == table_number)
        if not seated:
            return None
        begun = [
            segment
            for segment in seated
            if (table := state.tables[(segment, table_number)]).entered
            or table.deals
            or table.early_start is not None
        ]
        if not begun:
            return seated[0]
        current = begun[-1]
        table = state.tables[(current, table_number)]
        group = table.group if round_number == 1 else ""
        finished = (group, current) in state.closed or (
            table.next_hand(state.format.hands_per_segment) is None
        )
        later = [segment for segment in seated if segment > current]
        return later[0] if finished and later else current

    def _seat(self, event: SeatingRecorded) -> None:
        state = self._open_round(event.round)
        fmt = state.format
        self._check_segment(fmt, event.segment)
        if len(set(event.seats)) != 4:
            raise MalformedInput("FM-9", "seats", "a table seats 4 different players")
        groups = {
            self._check_in_round(state, player, f"seats[{index}]").group
            for index, player in enumerate(event.seats)
        }
        if state.number == 1 and len(groups) > 1:
            # rule FM-2: round 1's groups play apart, each numbering its own segments
            raise MalformedInput("FM-2", "seats", "in round 1 a table seats players of one group")
        # A round not played in groups (every round after 1, and round 1 of a format such as
        # Ari Ari's) keys its tables, schedules and closed segments by no group at all.
        group = groups.pop() if state.format.groups > 1 else ""
        key = (event.segment, event.table)
        if event.cycle is not None and event.cycle > 1:
            self._seat_cycle(state, event, key)
            return
        owner = state.table_group.get(event.table)
        if owner is not None and owner != group:
            raise MalformedInput(
                "CONTRACT §1",
                "table",
                f"table {event.table} belongs to group {owner} in this round",
            )
        existing = state.tables.get(key)
        if existing is not None and existing.hands:
            raise IllegalMove(
                "SE-5",
                "seats",
                f"table {event.table} has hands in this segment; its seats are fixed",
            )
        for index, player in enumerate(event.seats):
            table = state.seat_of.get((event.segment, player))
            if table is not None and table != event.table:
                raise IllegalMove(
                    "FM-9",
                    f"seats[{index}]",
                    f"player {player!r} is already seated at table {table} "
                    f"in segment {event.segment}",
                )
        if existing is not None:
            for player in existing.seats:
                del state.seat_of[(event.segment, player)]
        for player in event.seats:
            state.seat_of[(event.segment, player)] = event.table
        state.table_group[event.table] = group
        seated = TableSegment(group, event.seats)
        if existing is None and key in state.carried_rulings:
            seated.extension, seated.play_all = state.carried_rulings.pop(key)
        # an Ari Ari table's game starts at its seating (rule AA-1)
        seated.replay(self._play(seated, {}, 1), state)
        state.tables[key] = seated

    def _seat_cycle(self, state: RoundState, event: SeatingRecorded, key: TableKey) -> None:
        """rules SE-8, SE-9: seats at a cycle's start, the same four players."""
        table = state.tables.get(key)
        if table is None:
            raise IllegalMove(
                "SE-8", "cycle", f"table {event.table} has no seating for segment {event.segment}"
            )
        cycles = state.format.hands_per_segment // 4
        if event.cycle is not None and event.cycle > cycles:
            raise MalformedInput(
                "FM-7", "cycle", f"a {state.format.segment_kind} has {cycles} cycles"
            )
        if set(event.seats) != set(table.seats):
            raise MalformedInput("SE-8", "seats", "a new cycle reseats the same four players")
        assert event.cycle is not None
        table.cycle_seats[event.cycle] = event.seats

    def _table(self, state: RoundState, segment: int, table_number: int) -> TableSegment:
        table = state.tables.get((segment, table_number))
        if table is None:
            raise IllegalMove(
                "SE-1",
                "table",
                f"table {table_number} has no seating in segment {segment} of round {state.number}",
            )
        return table

    def _record_hand(self, event: HandRecorded, at: datetime | None = None) -> None:
        if event.key is not None and event.key in self.hand_keys:
            if self.hand_keys[event.key] == event:
                return  # a retry of a hand already entered: it counts once (CONTRACT §3)
            raise MalformedInput(
                "CONTRACT §3",
                "id",
                f"idempotency key {event.key!r} was already used for another hand",
            )
        state = self._open_round(event.round)
        fmt = state.format
        self._check_segment(fmt, event.segment)
        if event.hand > fmt.hands_per_segment:
            raise IllegalMove(
                fmt.shape_rule,
                "hand",
                f"a {fmt.segment_kind} of round {event.round} has {fmt.hands_per_segment} "
                "hands; the segment is finished",
            )
        table = self._table(state, event.segment, event.table)
        is_correction = event.hand in table.entered
        if not is_correction and event.hand != table.last_hand + 1:
            raise IllegalMove(
                "CONTRACT §1",
                "hand",
                f"hand {event.hand} is out of order: table {event.table} "
                f"expects hand {table.last_hand + 1}",
            )
        if not is_correction:
            self._check_open_segment(state, event.segment, table)
            self._check_dealt_in_time(event, table)
        table.replay(
            self._play(table, {**table.results(), event.hand: event.result}, event.hand), state
        )
        table.hands[event.hand] = event
        if at is not None and event.hand not in table.entered:
            table.completed_at[event.hand] = at
        table.entered.add(event.hand)
        state.started = True
        if event.key is not None:
            self.hand_keys[event.key] = event

    def with_table_state(self, event: HandRecorded) -> HandRecorded:
        """An Ari Ari hand with the dealer and counters it is played with filled in where
        the judge left them out, so the log records them and a replay checks them (rules
        AA-6, AA-8). Any other hand, or one the table cannot place yet, is returned as is:
        `apply` refuses what is wrong with it."""
        state = self.rounds.get(event.round)
        table = None if state is None else state.tables.get((event.segment, event.table))
        if table is None or table.game is None or not isinstance(event.result, AriAriResult):
            return event
        game = table.game
        played = {hand.number: hand for hand in game.hands}
        if event.hand in played:
            dealer, counters = played[event.hand].dealer, played[event.hand].counters
        elif event.hand == table.last_hand + 1 and game.dealer is not None:
            dealer, counters = game.dealer, game.counters
        else:
            return event
        return replace(event, result=with_table_state(event.result, dealer, counters))

    def _check_dealt_in_time(self, event: HandRecorded, table: TableSegment) -> None:
        """rule CL-3: where the clock can end the segment, a new hand counts only if its
        deal was recorded in time (check_deal refused late deals). A log line carries no
        entry time of its own, so the recorded deal is what proves it (rule CL-3a: no
        schedule, no limit or a play-all order needs none)."""
        # clocks.deadline without building all of clock_facts: this runs for every hand
        if (
            table.play_all
            or self._scheduled_start(event.round, event.segment, table) is None
            or clocks.time_limit(self.rounds[event.round].format) is None
        ):
            return
        if event.hand not in table.deals:
            raise IllegalMove(
                "CL-3",
                "hand",
                f"hand {event.hand} at table {event.table} has no recorded deal; in a timed "
                "segment the judge records each deal so the server knows it was in time",
            )

    def _play(
        self, table: TableSegment, results: Mapping[int, HandResult], changed: int
    ) -> TablePlay:
        """The table's hands played in order by the format's ruleset, with hand `changed`
        entered, corrected or voided. A refusal of a later hand refuses the change: in an
        Ari Ari game every hand depends on the ones before it."""
        ruleset = RULESETS[self.format.ruleset]
        try:
            return ruleset.play(
                table.seats, sorted(results.items()), self.format, table.settlements, changed
            )
        except HandRefused as refused:
            violation = refused.violation
            if refused.hand == changed:
                raise violation from refused
            raise IllegalMove(
                violation.rule,
                "hand",
                f"this change to hand {changed} would make hand {refused.hand} illegal "
                f"({violation.field}: {violation.message}); correct or void the later hands first",
            ) from refused

    def _void(self, event: HandVoided) -> None:
        state = self._open_round(event.round)
        table = self._table(state, event.segment, event.table)
        if event.hand not in table.hands:
            raise IllegalMove(
                "CONTRACT §1", "hand", f"table {event.table} has no hand {event.hand} to void"
            )
        results = table.results()
        del results[event.hand]
        table.replay(self._play(table, results, event.hand), state)
        del table.hands[event.hand]

    def _penalize(self, event: PenaltyGiven) -> None:
        state = self._open_round(event.round)
        self._check_in_round(state, event.player, "player")
        bound = self.format.max_penalty
        if not -bound <= event.points < 0:
            # rules PN-1, HS-6: a deduction, on the format's scale of points
            raise MalformedInput(
                "PN-1",
                "points",
                f"a penalty is a deduction of 1 to {bound:,} points in this format "
                f"(give it as -1 to -{bound}), not {short(event.points)}",
            )
        state.play[event.player] = (
            state.play.get(event.player, 0) + event.points
        )  # rules PN-1, SC-1
        state.penalties.append(event)

    def _end_round(self, event: RoundEnded) -> None:
        state = self._open_round(event.round)
        advance = state.format.advance
        if advance is not None and len(state.field) <= advance:
            # rule FM-6: an advance count must be smaller than the field
            raise IllegalMove(
                "FM-6",
                "round",
                f"round {event.round} advances {advance} but its field is only {len(state.field)}",
            )
        standings = rank_round(replace(state.scores(), ended=True, draw_seed=event.draw_seed))
        tie = standings.cut.tie if standings.cut else None
        if tie is not None and tie.draw_pending:
            names = ", ".join(map(str, tie.draw_among))
            raise MalformedInput(
                "ST-5",
                "draw_seed",
                f"players {names} are level after the tie-break at the cut; "
                f"a draw_seed is needed for {tie.draw_places} place(s)",
            )
        state.ended = event
        state.standings_at_end = standings
        if advance is not None:
            self._open_next_round(state, standings)

    def _open_next_round(self, state: RoundState, standings: Standings) -> None:
        rate = state.format.carry_over_rate
        carry_in = {
            row.player: row.total * rate for row in standings.rows if row.status == "advanced"
        }  # rule SC-3
        number = state.number + 1
        self.rounds[number] = RoundState(self.format.round(number), list(carry_in), carry_in)


# The clock rules name their arguments; a log line names the same facts by its own fields.
_CLOCK_TO_LOG_FIELD = {"at": "time", "early_start": "time", "all_four_agree": "agreed"}


@contextmanager
def _log_field_names() -> Iterator[None]:
    try:
        yield
    except RuleViolation as violation:
        field = _CLOCK_TO_LOG_FIELD.get(violation.field)
        if field is None:
            raise
        raise type(violation)(violation.rule, field, violation.message) from violation


def replay_events(events: Iterable[Event]) -> Tournament:
    """Fold events into a tournament; the first must declare it. Raises on the first bad one."""
    iterator = iter(events)
    first = next(iterator, None)
    if not isinstance(first, TournamentDeclared):
        raise MalformedInput("CONTRACT §1", "type", "the first line must be the tournament line")
    tournament = Tournament(first)
    for event in iterator:
        tournament.apply(event)
    return tournament
