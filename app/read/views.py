"""The read model: every view of a tournament, built once, for every reader.

The live channels (app/realtime), the feeds (app/services/feeds.py), the overlay, hall and
spectator pages and the public API all read a tournament through these views, so a table, a
player, the standings with the cut and the clocks look the same wherever they are shown,
and "when does a clock next change by time alone" is answered in one place (rule CL-6).

A view is a function of the tournament's state and the server's time, nothing else: no
store, no session, no clock of its own. It imports the domain alone (the import-linter
contracts in pyproject.toml), so both the live feed and the services can use it without
either knowing the other.

Channels (CONTRACT §3): `standings` (the current round, with the cut line and every
player's distance to it), `clocks` (every table's clock as server times and deadlines,
never ticks: rule CL-6), `table:N` (one table of the current round), `player:ID` and
`stats` (the story of the session, issue 18: app/read/stats.py), `needs` (what the players
either side of the cut need from the next hand, issue 18: app/read/needs.py), `calls` (the
judges' calls not yet resolved, without the head judge's notes, issue 18: app/read/calls.py).
A state is the JSON a snapshot sends, typed (the TypedDicts below, over the report's shapes
in app/domain/replay.py): a dict at run time, so the live feed compares and sends it as it
is, and every reader of a field is checked against what is sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal, NotRequired, TypedDict, cast

from app.domain import clocks, seating
from app.domain.formats import HANDS_PER_CYCLE
from app.domain.hands import PlayerId
from app.domain.log import PenaltyGiven, format_time
from app.domain.needs import FieldTotals
from app.domain.replay import (
    ClockData,
    GameData,
    StandingRowData,
    StandingsHeader,
    clock_report,
    game_report,
    standing_row,
    standings_header,
    standings_report,
)
from app.domain.round_state import SeatName
from app.domain.rulesets import result_to_log
from app.domain.seats import Seats
from app.domain.standings import Standing, Standings
from app.domain.tournament import SEAT_NAMES, RoundState, TableClock, TableSegment, Tournament
from app.read.calls import CallsState, calls_state
from app.read.checkin import CheckinState, checkin_state
from app.read.needs import NeedsView, needs_view
from app.read.stats import StatsState, stats_state

# Fields of a clock report that follow from the time alone: a display computes them from
# the server time and the deadline, so they are not sent, and they never make a change.
TICKING = ("server_time", "seconds_left", "seconds_over", "break_seconds_left")


class ClockRow(TypedDict):
    """A table's clock as the `clocks` and `table:N` channels carry it: ClockData without
    the TICKING fields."""

    round: int
    segment: int
    table: int
    group: str | None
    phase: clocks.Phase
    starts_at: str | None
    deadline: str | None
    break_ends: str | None
    hands_completed: int
    planned_hands: int
    play_all: bool


class StandingsState(StandingsHeader):
    """The `standings` channel: the current round with its cut line, each player's row by
    id, in the order of the list."""

    rows: dict[str, StandingRowData]


class ClocksState(TypedDict):
    """The `clocks` channel: every table's clock of the current round, by table number."""

    round: int
    tables: dict[str, ClockRow]


class HandAtTable(TypedDict):
    hand: int
    dealer: PlayerId | None
    deltas: dict[str, int]  # rule SC-1: zero-sum
    value: int | None
    winner: PlayerId | None
    # Ari Ari tables: what the tablet needs to review a correction (rules AA-5, AA-6, AA-8)
    counters: NotRequired[int]
    bets_before: NotRequired[int]
    passes: NotRequired[int]
    result: NotRequired[dict[str, Any]]  # the hand's result as its log line has it


class DealAtTable(TypedDict):
    hand: int
    time: str  # rule CL-3: when the tiles were dealt


class TableGame(GameData):
    points: dict[str, int]
    passes: int  # how often the deal has passed (rule AA-8, for the wind)


class UnseatedTable(TypedDict):
    """A `table:N` the current round has seated in no segment (yet)."""

    round: int
    table: int
    segment: None


class TableState(TypedDict):
    """The `table:N` channel: one table of the current round, in the segment it is playing
    now (or about to)."""

    round: int
    table: int
    segment: int
    group: str | None
    seats: dict[SeatName, PlayerId]  # as drawn for the segment (CONTRACT: the log's seating)
    # where each sits in the cycle of the next hand, or of the last once the segment is
    # over: after the exchanges of rules SE-6, SE-8 and SE-9 (rule SE-10)
    seats_now: dict[SeatName, PlayerId]
    hands: list[HandAtTable]
    deals: list[DealAtTable]
    next_hand: int | None
    next_dealer: PlayerId | None
    clock: ClockRow | None
    game: NotRequired[TableGame]  # Ari Ari tables


class SeatInSegment(TypedDict):
    segment: int
    table: int
    seat: SeatName  # as drawn for the segment
    seat_now: SeatName  # in the cycle in play at that table (rule SE-10)


NEEDS_BAND = 4  # the `needs` channel: this many players on each side of the line


class NeedsRow(NeedsView):
    """A player near the cut in the `needs` channel: their place and what they need."""

    player: PlayerId
    position: int
    rank: int
    total: str  # exact, as the standings send it
    above_cut: bool | None


class NeedsState(TypedDict):
    """The `needs` channel (issue 18): the players either side of the cut, by player id."""

    round: int
    advance: int | None
    ariari: bool  # values in points (rule AA-22)
    rows: dict[str, NeedsRow]


class UnregisteredPlayer(TypedDict):
    """A `player:ID` of no registered player."""

    player: str
    registered: Literal[False]


class PlayerState(TypedDict):
    """The `player:ID` channel: a player's standing in the round and where they sit."""

    player: PlayerId
    registered: Literal[True]
    name: str
    country: str | None
    round: int
    standing: StandingRowData | None  # None for a substitute (rule FM-9)
    seats: list[SeatInSegment]
    winning_hands: list[int]
    # issue 18: what the next hand at their table would have to be, in the current round
    # while it has a cut (app/read/needs.py); None otherwise
    needs: NeedsView | None
    # issue 33: where they finished, once it is known (eliminated in a round that has ended,
    # or the final ended: rule PR-1); None while they play on
    place: FinalPlaceView | None


class FinalPlaceView(TypedDict):
    rank: int  # their place in the whole event (rules PR-1, PR-3: shared when level)
    round: int  # the round they were eliminated in, or the final


ChannelState = (
    StandingsState
    | ClocksState
    | TableState
    | UnseatedTable
    | PlayerState
    | UnregisteredPlayer
    | StatsState
    | NeedsState
    | CheckinState
    | CallsState
)


def in_tournament(tournament: Tournament, channel: str) -> bool:
    """Whether the tournament has what a (valid) channel names: a registered player, a table
    number no higher than its players could fill or its seatings use. The live feed follows
    only these (issue 14), so its work is bounded by the tournament, never by what clients
    make up: a flush computes every followed channel."""
    kind, _, argument = channel.partition(":")
    if kind == "player":
        return tournament.player_named(argument) is not None
    if kind == "table":
        seated = [table for _, table in tournament.current_round.tables]
        most = max([-(-len(tournament.players) // 4), 1, *seated])
        return int(argument) <= most
    return True


Base = tuple[int, int, int, int]  # what a hand can change in a row (LiveStandings.bases)


@dataclasses.dataclass(eq=False)
class LiveStandings:
    """The standings channel's state as the live feed holds it.

    A snapshot is the whole state (`full()`, the same as States.standings()). After a hand,
    most rows change only in what follows from their place (DERIVED), and a change sends none
    of that (standings_moves): so the rows are made only when a snapshot or a change needs
    them, and two states are compared by their order and by each player's `base`, the values
    a hand changes. Made once per version and shared by every client: what it says never
    changes, only the rows it has made so far (`made`) grow.
    """

    header: StandingsHeader
    standings: Standings
    order: list[str]  # the players by position
    bases: dict[str, Base]  # player -> (carry_in_scaled, play, total_scaled, denominator)
    index: dict[str, int]  # player -> index of their row in standings.rows
    # Rows of the state before, by their Standing: a row whose Standing is the same is reused
    earlier: Mapping[Standing, StandingRowData] = dataclasses.field(default_factory=dict)
    made: dict[Standing, StandingRowData] = dataclasses.field(default_factory=dict)
    _full: StandingsState | None = None

    @staticmethod
    def of(
        standings: Standings,
        advance: int | None,
        earlier: Mapping[Standing, StandingRowData] | None = None,
    ) -> LiveStandings:
        order = [str(row.player) for row in standings.rows]
        return LiveStandings(
            standings_header(standings, advance),
            standings,
            order,
            {
                player: (row.carry_in_scaled, row.play, row.total_scaled, row.denominator)
                for player, row in zip(order, standings.rows, strict=True)
            },
            {player: index for index, player in enumerate(order)},
            earlier if earlier is not None else {},
        )

    def row(self, player: str) -> StandingRowData | None:
        index = self.index.get(player)
        return None if index is None else self._row_at(index)

    def _row_at(self, index: int) -> StandingRowData:
        standing = self.standings.rows[index]
        made = self.made.get(standing)
        if made is None:
            made = self.earlier.get(standing)
            if made is None:
                made = standing_row(standing)
            self.made[standing] = made
        return made

    def full(self) -> StandingsState:
        """The state a snapshot sends (what States.standings() gives)."""
        if self._full is None:
            rows = {player: self._row_at(index) for index, player in enumerate(self.order)}
            self._full = {**self.header, "rows": rows}
            self.earlier = {}  # every row is in `made` now
        return self._full


LiveState = ChannelState | LiveStandings  # what the feed holds for a channel


@dataclasses.dataclass(frozen=True)
class TableView:
    """One table in one segment of a round, as every display of a table starts from it:
    the public API's tables, the table channel (and so the tables feed, the overlay and the
    judge's tablet)."""

    round: int
    segment: int
    table: int
    group: str | None
    seated: TableSegment  # the seats and the hands entered
    seats_now: Seats  # East, South, West, North in the cycle in play (rule SE-10)
    next_hand: int | None
    next_dealer: PlayerId | None
    closed: bool


def table_view(tournament: Tournament, state: RoundState, segment: int, table: int) -> TableView:
    seated = state.tables[(segment, table)]
    next_hand, next_dealer = tournament.next_deal(state.number, segment, table)
    return TableView(
        round=state.number,
        segment=segment,
        table=table,
        group=seated.group or None,
        seated=seated,
        seats_now=seats_now(state, segment, table),
        next_hand=next_hand,
        next_dealer=next_dealer,
        closed=(seated.group, segment) in state.closed,
    )


def seats_now(state: RoundState, segment: int, table: int) -> Seats:
    """rule SE-10: where the players of a table's segment sit now, East, South, West, North:
    in the cycle of its next hand, or of its last once the segment is over. The seats move
    after each cycle (rules SE-6, SE-8, SE-9); an Ari Ari game keeps the seats drawn (its
    dealer moves instead, rule AA-8). A cycle whose seating the rules leave to a new draw
    not yet entered (rule SE-9, cycle 7) shows the seats of the cycle before it."""
    seated = state.tables[(segment, table)]
    if seated.game is not None:
        return seated.seats
    planned = state.format.hands_per_segment
    hand = seated.next_hand(planned) or max(seated.last_hand, 1)
    cycles = seating.cycles(state, segment, table)
    for seats in reversed(cycles[: (hand - 1) // HANDS_PER_CYCLE + 1]):
        if seats is not None:
            return seats
    return seated.seats


class States:
    """Channel states of one tournament version at one moment. The standings and clocks are
    built once however many table and player channels need them."""

    def __init__(
        self,
        tournament: Tournament,
        now: datetime,
        earlier: Mapping[Standing, StandingRowData] | None = None,
    ) -> None:
        self.tournament = tournament
        self.now = now
        self.earlier = earlier  # standings rows made before, by Standing (LiveStandings)
        self._standings: LiveStandings | None = None
        self._table_clocks: list[TableClock] | None = None
        self._clocks: dict[str, ClockRow] | None = None
        self._field: FieldTotals | None = None
        self._needs: dict[PlayerId, NeedsView | None] = {}
        self._places: dict[PlayerId, FinalPlaceView] | None = None

    def of(self, channel: str) -> ChannelState:
        kind, _, argument = channel.partition(":")
        if kind == "standings":
            return self.standings()
        if kind == "clocks":
            return {"round": self.tournament.current_round.number, "tables": self.clock_rows()}
        if kind == "table":
            return self.table(int(argument))
        if kind == "stats":
            return stats_state(self.tournament)  # issue 18: the story of the session
        if kind == "calls":
            return calls_state(self.tournament)  # issue 18: the judges' calls (CA-4)
        if kind == "checkin":
            return checkin_state(self.tournament)  # issue 18: who has checked in (CI-3)
        if kind == "needs":
            return self.needs_state()  # issue 18: what the players either side of the cut need
        return self.player(argument)

    def live(self, channel: str) -> LiveState:
        """The state the live feed holds for a channel: of(channel), but the standings as
        LiveStandings, whose rows are made only when needed."""
        return self.live_standings() if channel == "standings" else self.of(channel)

    def live_standings(self) -> LiveStandings:
        if self._standings is None:
            current = self.tournament.current_round
            self._standings = LiveStandings.of(
                self.tournament.standings(current.number), current.format.advance, self.earlier
            )
        return self._standings

    def standings(self) -> StandingsState:
        return self.live_standings().full()

    def field_totals(self) -> FieldTotals:
        """Every ranked player's total in the current round, sorted once for every player
        whose needs are asked after this version (app/read/needs.py)."""
        if self._field is None:
            rows = self.live_standings().standings.rows
            self._field = FieldTotals({row.player: row.total for row in rows})
        return self._field

    def needs_state(self) -> NeedsState:
        """The `needs` channel: the players either side of the cut (NEEDS_BAND places each
        way, by position), each with their standing and what they need (app/read/needs.py)."""
        tournament = self.tournament
        current = tournament.current_round
        advance = current.format.advance
        rows: dict[str, NeedsRow] = {}
        live = self.live_standings()
        if advance is not None:
            first, last = max(advance - NEEDS_BAND, 0), advance + NEEDS_BAND
            for player_id in live.order[first:last]:
                standing = live.row(player_id)
                player = tournament.player_named(player_id)
                if standing is None or player is None:
                    continue
                view = self.needs(player)
                if view is not None:
                    rows[player_id] = {
                        **view,
                        "player": player,
                        "position": standing["position"],
                        "rank": standing["rank"],
                        "total": standing["total"],
                        "above_cut": standing["above_cut"],
                    }
        return {
            "round": current.number,
            "advance": advance,
            "ariari": tournament.format.ruleset == "ariari",
            "rows": rows,
        }

    def needs(self, player: PlayerId) -> NeedsView | None:
        """What the player needs from the next hand at the table where they sit now in the
        current round: worked out once a version, for the `needs` channel and the player's
        own channel alike."""
        if player not in self._needs:
            seats = seats_in_round(self.tournament.current_round, player)
            seat = current_seat(seats, self.clock_rows())
            at = None if seat is None else (seat["segment"], seat["table"])
            self._needs[player] = needs_view(self.tournament, player, self.field_totals(), at)
        return self._needs[player]

    def table_clocks(self) -> list[TableClock]:
        """Every table's clock of the current round at `now` (for 256 tables, the most of
        what a clocks view costs: computed once)."""
        if self._table_clocks is None:
            self._table_clocks = list(self.tournament.table_clocks(self.now))
        return self._table_clocks

    def next_boundary(self, *, after: bool = False) -> datetime | None:
        """next_clock_boundary at `now` (`after`: strictly after it)."""
        return next_clock_boundary(self.tournament, self.now, self.table_clocks(), after=after)

    def clock_rows(self) -> dict[str, ClockRow]:
        if self._clocks is None:
            self._clocks = {
                str(table_clock.table): clock_row(clock_report(table_clock))
                for table_clock in self.table_clocks()
            }
        return self._clocks

    def table(self, table: int) -> TableState | UnseatedTable:
        """One table of the current round, in the segment it is playing now (or about to)."""
        tournament = self.tournament
        current = tournament.current_round
        clock = self.clock_rows().get(str(table))
        segments = [  # a lookup per segment: the tablets follow every table, after every hand
            segment
            for segment in range(1, current.format.segments + 1)
            if (segment, table) in current.tables
        ]
        if not segments:
            return {"round": current.number, "table": table, "segment": None}
        segment = clock["segment"] if clock is not None else segments[0]
        view = table_view(tournament, current, segment, table)
        seated = view.seated
        state: TableState = {
            "round": view.round,
            "table": view.table,
            "segment": view.segment,
            "group": view.group,
            "seats": dict(zip(SEAT_NAMES, seated.seats, strict=True)),
            "seats_now": dict(zip(SEAT_NAMES, view.seats_now, strict=True)),
            "hands": [
                {
                    "hand": number,
                    "dealer": tournament.dealer(current.number, segment, table, number),
                    "deltas": {str(p): d for p, d in seated.settlements[number].deltas},
                    "value": seated.settlements[number].value,
                    "winner": seated.settlements[number].winner,
                }
                for number in sorted(seated.hands)
            ],
            # every deal recorded in the segment, so a second device at the table knows the
            # next hand is dealt (rule CL-3)
            "deals": [
                {"hand": number, "time": format_time(at)}
                for number, at in sorted(seated.deals.items())
            ],
            "next_hand": view.next_hand,
            "next_dealer": view.next_dealer,
            "clock": clock,
        }
        if seated.game is not None:
            _add_game(state, seated, segment, table)
        return state

    def player(
        self, player_id: str, round_number: int | None = None
    ) -> PlayerState | UnregisteredPlayer:
        """One player in the current round (or in `round_number`, once it is over): their
        standing and where they sit."""
        tournament = self.tournament
        player = tournament.player_named(player_id)
        if player is None:
            return {"player": player_id, "registered": False}
        current = tournament.current_round
        state = current if round_number is None else tournament.rounds[round_number]
        if state is current:
            standing = self.live_standings().row(player_id)
        else:
            report = standings_report(tournament.standings(state.number), state.format.advance)
            standing = row_of(report["standings"], player)
        view = player_round(state, player, standing)
        registered = tournament.players[player]
        needed = self.needs(player) if state is current else None
        return {
            "player": player,
            "registered": True,
            "name": registered.name,
            "country": registered.country,
            "round": view.round,
            "standing": view.standing,
            "seats": view.seats,
            "winning_hands": view.winning_hands,
            "needs": needed,
            "place": self.places().get(player),
        }

    def places(self) -> dict[PlayerId, FinalPlaceView]:
        """Every player whose place in the event is known (rule PR-1), once a version."""
        if self._places is None:
            self._places = {
                place.player: {"rank": place.rank, "round": place.round}
                for place in self.tournament.final_ranking()
            }
        return self._places


@dataclasses.dataclass(frozen=True)
class PlayerRound:
    """One player's round as every reader shows it: the live `player:ID` channel, the
    player's page and feed (States.player) and the public API's rounds (app/web/public.py).
    `standing` is the player's standings row, None for a substitute (rule FM-9)."""

    round: int
    standing: StandingRowData | None
    seats: list[SeatInSegment]
    winning_hands: list[int]  # best first: what breaks a tie at the line (rule ST-4)
    penalties: list[PenaltyGiven]  # rule PN-1


def player_round(
    state: RoundState, player: PlayerId, standing: StandingRowData | None
) -> PlayerRound:
    return PlayerRound(
        round=state.number,
        standing=standing,
        seats=seats_in_round(state, player),
        winning_hands=sorted(state.winning_values.get(player, ()), reverse=True),
        penalties=penalties_of(state, player),
    )


def seats_in_round(state: RoundState, player: PlayerId) -> list[SeatInSegment]:
    """Where the player sits in each segment of the round: as drawn, and now (rule SE-10)."""
    return [
        {
            "segment": segment,
            "table": table,
            "seat": seat,
            "seat_now": _seat_now(state, segment, table, player, seat),
        }
        for segment, table, seat in state.seats_of(player)
    ]


def _seat_now(
    state: RoundState, segment: int, table: int, player: PlayerId, drawn: SeatName
) -> SeatName:
    now = seats_now(state, segment, table)
    # a cycle's seating recorded before a substitute took the seat (rule FM-9) does not
    # name them: they sit where they were drawn
    return SEAT_NAMES[now.index(player)] if player in now else drawn


def current_seat(
    seats: Iterable[SeatInSegment], clock_rows: Mapping[str, ClockRow]
) -> SeatInSegment | None:
    """Where a player sits now: the seat in the segment their table's clock is in, the latest
    such segment first: once the player's half-2 table has begun, their half-1 table's clock
    still says half 1 (finished) until that table begins half 2 too."""
    for seat in sorted(seats, key=lambda seat: seat["segment"], reverse=True):
        clock = clock_rows.get(str(seat["table"]))
        if clock is not None and clock["segment"] == seat["segment"]:
            return seat.copy()
    return None


def penalties_of(state: RoundState, player: PlayerId) -> list[PenaltyGiven]:
    """The penalties the player was given in the round, in the order given (rule PN-1)."""
    return [given for given in state.penalties if given.player == player]


def row_of(rows: Iterable[StandingRowData], player: PlayerId) -> StandingRowData | None:
    """A player's row of a standings report's rows, None when they have none."""
    return next((row for row in rows if row["player"] == player), None)


def clock_row(report: ClockData) -> ClockRow:
    """A clock report without the fields that follow from the time alone (TICKING)."""
    # the report's keys in their order, less four: the same JSON the channel always sent
    return cast(ClockRow, {key: value for key, value in report.items() if key not in TICKING})


def _add_game(state: TableState, seated: TableSegment, segment: int, table: int) -> None:
    """An Ari Ari table's game for the judge's tablet and the table overlay: the points, the
    dealer, counters and riichi bets of the next hand (rules AA-5, AA-6, AA-8), and of each
    hand played, so that the tablet can review a correction as the server will play it."""
    game = seated.game
    assert game is not None
    passes = 0  # how often the deal has passed before each hand (rule AA-8, for the wind)
    by_number = {}
    for index, played in enumerate(game.hands):
        if index and played.dealer != game.hands[index - 1].dealer:
            passes += 1
        by_number[played.number] = (played, passes)
    if game.hands and game.dealer is not None and game.dealer != game.hands[-1].dealer:
        passes += 1
    for row in state["hands"]:
        played, before = by_number[row["hand"]]
        row |= {
            "counters": played.counters,
            "bets_before": played.bets_before,
            "passes": before,
            "result": result_to_log(seated.hands[row["hand"]].result),
        }
    state["game"] = {
        **game_report(segment, table, game),
        "points": {str(p): points for p, points in game.points},
        "passes": passes,
    }


# -- when a clock next changes by time alone (rule CL-6) ---------------------------------


def next_clock_boundary(
    tournament: Tournament,
    now: datetime,
    table_clocks: Sequence[TableClock],
    *,
    after: bool = False,
) -> datetime | None:
    """The first moment at or after `now` (`after`: strictly after it) when a clock may
    change phase by time alone: a segment's start (its early start or its schedule), its
    deadline, its scheduled end (the break starts, rule CL-1), the end of a break (rules
    CL-1, CL-4). `table_clocks` are the
    tables' clocks at `now`. A cached feed answer is stale from that moment on; the live
    feed, which has just computed its clocks at `now`, wakes at the first moment after it."""
    current = tournament.current_round
    limit = clocks.time_limit(current.format)
    moments: list[datetime] = []
    for start in _schedule_of(tournament, current.number):
        moments.append(start)
        if limit is not None:
            moments.append(clocks.shifted(start, limit))
    for table_clock in table_clocks:
        state = table_clock.clock
        moments.extend(m for m in (state.starts_at, state.deadline, state.break_ends) if m)
    return min(
        (moment for moment in moments if moment > now or (moment == now and not after)),
        default=None,
    )


def next_tick(table_clocks: Sequence[TableClock], now: datetime) -> datetime | None:
    """The first moment after `now` when one of `table_clocks` (at `now`) changes its whole
    seconds (rule CL-6: a countdown rounds up, the count past a deadline rounds down)."""
    second = timedelta(seconds=1)
    moments = []
    for table_clock in table_clocks:
        clock = table_clock.clock
        if clock.seconds_left is not None and clock.deadline is not None:
            moments.append(clocks.shifted(clock.deadline, -(clock.seconds_left - 1) * second))
        if clock.seconds_over is not None and clock.deadline is not None:
            moments.append(clocks.shifted(clock.deadline, (clock.seconds_over + 1) * second))
        if clock.break_seconds_left is not None and clock.break_ends is not None:
            moments.append(
                clocks.shifted(clock.break_ends, -(clock.break_seconds_left - 1) * second)
            )
    return min((moment for moment in moments if moment > now), default=None)


def _schedule_of(tournament: Tournament, round_number: int) -> Iterable[datetime]:
    schedule = tournament.schedule.items()
    return (start for (number, _, _), start in schedule if number == round_number)
