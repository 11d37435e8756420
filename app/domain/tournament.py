"""The tournament as the fold of its log (STYLE.md, convention 2).

`Tournament.apply` checks one event against the rules and the state so far, and either
changes nothing and raises a named error, or records it. Everything shown (totals,
carry-over, standings, the cut, the final ranking) is derived from what was recorded.

`apply` is the one dispatcher. Each concern of a round is a module over its `RoundState`
(`round_state`), citing the rules it implements: `seating` (the draw, seats and dealers),
`clock_events` (schedule, deals, early starts, extensions, play-all, closed segments and
the clocks they make), `hand_entry` (hands with their corrections and voids, and
penalties) and `round_end` (standings at the end, the cut and the carry-over). What
belongs to the whole tournament stays here: registrations (FM-2, FM-9), the prize table
(PR-2), the round 1 carry-over rate (SC-3), the schedule (FM-8), idempotency keys
(CONTRACT §3), and which round a line may name (FM-1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime
from fractions import Fraction

from app.domain import bounds, calls, checkin, clock_events, hand_entry, round_end, seating
from app.domain.calls import Call, CallMade, CallResolved, CallTaken
from app.domain.checkin import CheckIn
from app.domain.clock_events import ScheduleKey, TableClock
from app.domain.clocks import SegmentClockFacts
from app.domain.errors import IllegalMove, MalformedInput, RuleViolation, say
from app.domain.formats import Format
from app.domain.hands import PlayerId
from app.domain.languages import DEFAULT_LANGUAGE
from app.domain.log import (
    CarryOverRateSet,
    CheckedIn,
    DealRecorded,
    DrawRecorded,
    EarlyStart,
    EmaIdSet,
    Event,
    ExtensionGiven,
    HandRecorded,
    HandVoided,
    LanguageSet,
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
from app.domain.round_end import RoundUnfinished, UnfinishedTable
from app.domain.round_state import (
    SEAT_NAMES,
    RoundState,
    SeatName,
    TableKey,
    TableSegment,
    first_play,
)
from app.domain.seats import Seats
from app.domain.standings import Standings, rank_round

# The names the rest of the app imports from here, wherever they are defined now.
__all__ = [
    "SEAT_NAMES",
    "RoundState",
    "RoundUnfinished",
    "ScheduleKey",
    "SeatName",
    "TableClock",
    "TableKey",
    "TableSegment",
    "Tournament",
    "UnfinishedTable",
    "replay_events",
]


class Tournament:
    """A tournament as its log describes it; `apply` is the only way to change it."""

    def __init__(self, declared: TournamentDeclared) -> None:
        self.name = declared.name
        self.language = declared.language or DEFAULT_LANGUAGE  # issue 17
        self.format: Format = declared.format
        self.players: dict[PlayerId, PlayerRegistered] = {}
        self._player_names: dict[str, PlayerId] = {}  # str(id) -> id, so 7 and "7" can't both exist
        self.prizes: tuple[Fraction, ...] = ()
        # Round 1 exists from the start: registrations make its field (rule FM-2).
        self.rounds: dict[int, RoundState] = {1: RoundState(self.format.round(1), [], {})}
        self.events: list[Event] = [declared]
        self.hand_keys: dict[str, HandRecorded] = {}  # idempotency key -> the hand it entered
        self.schedule: dict[ScheduleKey, datetime] = {}  # rule FM-8: the organizer's schedule
        # The judges' calls by id, in the order they were made (issue 18, part 3; CA-1 to CA-5)
        self.calls: dict[str, Call] = {}
        # round -> player -> their check-in (issue 18, part 4; rules CI-2, CI-5)
        self.check_ins: dict[int, dict[PlayerId, CheckIn]] = {}
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
            raise IllegalMove(
                "FM-1",
                "round",
                say("round {round_number} has not begun", round_number=round_number),
            )
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
        answered = self._ruling(event)  # rule CA-5, checked before anything changes
        self._record_event(event, at)
        if answered is not None:
            self.calls[answered.id] = answered

    def _ruling(self, event: Event) -> Call | None:
        """The call a ruling names, with the ruling added (rule CA-5), or None."""
        match event:
            case HandRecorded(call=str(call)) | HandVoided(call=str(call)):
                kind = "hand" if isinstance(event, HandRecorded) else "void"
                return calls.ruling_on(self.calls, call, event.round, event.table, kind)
            case PenaltyGiven(call=str(call)):
                return calls.ruling_on(self.calls, call, event.round, event.table, "penalty")
        return None

    def _record_event(self, event: Event, at: datetime | None) -> None:
        match event:
            case TournamentDeclared():
                raise IllegalMove(
                    "CONTRACT §1", "type", say("the tournament line comes once, first")
                )
            case PlayerRegistered():
                self._register(event)
            case LanguageSet():
                self.language = event.language
            case EmaIdSet():
                self._set_ema_id(event)
            case PrizesSet():
                self.prizes = event.amounts  # rule PR-2: a later line replaces the table
            case CarryOverRateSet():
                self._set_rate(event)
            case DrawRecorded():
                state = self._open_round(event.round)
                seating.record_draw(state, self.round_groups(state), event.seed)
            case SeatingRecorded():
                seating.seat(self.format, self.players, self._open_round(event.round), event)
            case HandRecorded():
                self._record_hand(event, at)
            case CheckedIn():
                self._check_in(event, at)
            case PenaltyGiven():
                hand_entry.penalize(self.format, self.players, self._open_round(event.round), event)
            case HandVoided():
                hand_entry.void(self.format, self._open_round(event.round), event)
            case RoundEnded():
                following = round_end.end_round(self.format, self._open_round(event.round), event)
                if following is not None:
                    self.rounds[following.number] = following
            case ScheduleSet():
                self._set_schedule(event)
            case SegmentClosed():
                clock_events.close_segment(self._open_round(event.round), event)
            case CallMade():
                self._open_round(event.round)
                self.calls[event.call] = calls.make_call(self.calls, event, at)
            case CallTaken():
                self.calls[event.call] = calls.take_call(self.calls, event, at)
            case CallResolved():
                self.calls[event.call] = calls.resolve_call(self.calls, event, at)
            case DealRecorded() | EarlyStart() | ExtensionGiven() | PlayAllOrdered():
                clock_events.record(
                    self.format, self.schedule, self._open_round(event.round), event
                )

    def _record_hand(self, event: HandRecorded, at: datetime | None) -> None:
        if hand_entry.is_retry(self.hand_keys, event):
            return  # a retry of a hand already entered: it counts once (CONTRACT §3)
        hand_entry.record_hand(self.format, self.schedule, self._open_round(event.round), event, at)
        if event.key is not None:
            self.hand_keys[event.key] = event

    def _register(self, event: PlayerRegistered) -> None:
        key = str(event.player)
        if key in self._player_names:
            raise IllegalMove(
                "CONTRACT §1",
                "id",
                say("player {player} is already registered", player=repr(event.player)),
            )
        first = self.format.round(1)
        if event.group not in first.group_names:
            raise MalformedInput(
                "FM-2",
                "group",
                say(
                    "this format's round 1 has groups {group_names}",
                    group_names=", ".join(first.group_names),
                ),
            )
        refusal = self.registration_refusal(event.substitute)
        if refusal is not None:
            raise refusal
        if event.ema_id is not None:
            self._check_ema_id_free(event.ema_id, event.player, "ema_id")
        self.players[event.player] = event
        self._player_names[key] = event.player
        if not event.substitute:
            self._round_one().field.append(event.player)

    def _check_in(self, event: CheckedIn, at: datetime | None) -> None:
        """rules CI-2, CI-3, CI-5: a check-in for an open round; a second one is kept in the
        log but changes nothing."""
        state = self._open_round(event.round)
        held = self.check_ins.setdefault(event.round, {})
        how: checkin.How = "slip" if event.how == "slip" else "desk"
        kept = checkin.record_check_in(
            self.players, state, self.schedule, held, event.player, how, event.at or at
        )
        if kept is not None:
            held[event.player] = kept

    def _round_one(self) -> RoundState:
        return self.rounds[1]

    def _set_ema_id(self, event: EmaIdSet) -> None:
        """Set or correct a registered player's EMA number (issue 18, part 6): at any
        time, as a name's spelling is no rule of play."""
        registered = self.players.get(event.player)
        if registered is None:
            raise IllegalMove(
                "CONTRACT §1",
                "player",
                say(
                    "player {player_id} is not registered in this tournament",
                    player_id=repr(event.player),
                ),
            )
        self._check_ema_id_free(event.ema_id, event.player, "ema_id")
        self.players[event.player] = dataclasses.replace(registered, ema_id=event.ema_id)

    def _check_ema_id_free(self, ema_id: str, player: PlayerId, field: str) -> None:
        """One EMA number names one player: a second registration of it is a typing error
        that would give the EMA one player's result twice."""
        for other in self.players.values():
            if other.ema_id == ema_id and other.player != player:
                raise IllegalMove(
                    "CONTRACT §1",
                    field,
                    say(
                        "EMA number {ema_id} is already player {other}'s",
                        ema_id=ema_id,
                        other=repr(other.player),
                    ),
                )

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
                "FM-2", "id", say("round 1 has ended; only substitutes can still be registered")
            )
        begun = first_play(round_one)
        if begun is not None:
            return IllegalMove(
                "FM-2",
                "id",
                say(
                    "round 1 has begun ({begun}); its seats are drawn and fixed, so a player "
                    "registered now would have no seat: register them as a substitute, or "
                    "before round 1 begins",
                    begun=begun,
                ),
            )
        if len(round_one.field) >= bounds.MAX_PLAYERS:
            return IllegalMove(
                "FM-9",
                "id",
                say(
                    "round 1 has {max_players:,} players, as many as a hall seats",
                    max_players=bounds.MAX_PLAYERS,
                ),
            )
        return None

    def _set_rate(self, event: CarryOverRateSet) -> None:
        if event.round != 1:
            # rule SC-3: only the rate from round 1 into round 2 may be changed
            raise IllegalMove(
                "SC-3", "round", say("only the round 1 to 2 carry-over rate can be changed")
            )
        state = self._round_one()
        if state.started:
            # rule SC-3: the rate locks when round 1 starts
            raise IllegalMove(
                "SC-3", "rate", say("round 1 has started; its carry-over rate is locked")
            )
        self.format = self.format.with_round_one_rate(event.rate)
        state.format = self.format.round(1)

    def _open_round(self, number: int, field_name: str = "round") -> RoundState:
        """The round `number` if it is being played; raises if it has not begun or has ended."""
        if not self.format.has_round(number):
            raise MalformedInput(
                "FM-1",
                field_name,
                say(
                    "this format has rounds 1 to {final_round}", final_round=self.format.final_round
                ),
            )
        state = self._round_one() if number == 1 else self.rounds.get(number)
        if state is None:
            raise IllegalMove(
                "FM-1",
                field_name,
                say(
                    "round {number} has not begun: round {previous} has not ended",
                    number=number,
                    previous=number - 1,
                ),
            )
        if state.ended is not None:
            raise IllegalMove("FM-1", field_name, say("round {number} has ended", number=number))
        return state

    def round_groups(self, state: RoundState) -> dict[str, list[PlayerId]]:
        """Who sits down in a round, by group: round 1 every registration, substitutes
        included (rule FM-9); later rounds the players who advanced (rule ST-3)."""
        if state.number > 1:
            return {"": list(state.field)}
        groups: dict[str, list[PlayerId]] = {name: [] for name in state.format.group_names}
        for player in self.players.values():
            groups[player.group].append(player.player)
        return groups

    def _set_schedule(self, event: ScheduleSet) -> None:
        if not self.format.has_round(event.round):
            raise MalformedInput(
                "FM-1",
                "round",
                say(
                    "this format has rounds 1 to {final_round}", final_round=self.format.final_round
                ),
            )
        key = clock_events.check_schedule(
            self.format.round(event.round), self.rounds.get(event.round), event
        )
        self.schedule[key] = event.start  # rule FM-8

    # -- reading a round, by concern -------------------------------------------------

    def draw_refusal(self, round_number: int) -> RuleViolation | None:
        """Why round `round_number` cannot be drawn (or redrawn) now, or None if it can:
        what the server checks before it records a draw, and what the console shows beside
        a button it disables. A replay accepts any draw line the rules allow (an old log
        may hold a draw of nobody); the server no longer writes one."""
        state = self.rounds.get(round_number)
        if state is None:
            return IllegalMove(
                "FM-1",
                "round",
                say("round {round_number} has not begun", round_number=round_number),
            )
        return seating.draw_refusal(state, self.round_groups(state))

    def draw_deviations(self, round_number: int) -> list[tuple[int, PlayerId, int | None, int]]:
        """Seatings that differ from the recorded draw: (segment, player, drawn table or None,
        seated table). Replay accepts them (CONTRACT §1: a substitute may have come in);
        this is what an organizer checks."""
        state = self.rounds.get(round_number)
        if state is None:
            return []
        return seating.draw_deviations(state)

    def cycles(
        self, round_number: int, segment: int, table_number: int
    ) -> tuple[Seats | None, ...]:
        """The seats of every cycle of one table's segment (rules SE-6 to SE-9)."""
        return seating.cycles(self.rounds[round_number], segment, table_number)

    def dealer(
        self, round_number: int, segment: int, table_number: int, hand: int
    ) -> PlayerId | None:
        """Who deals `hand` of a table's segment (rule FM-7; rule AA-8 in an Ari Ari
        game, where None means the game has ended)."""
        return seating.hand_dealer(
            self.format, self.rounds[round_number], segment, table_number, hand
        )

    def next_deal(
        self, round_number: int, segment: int, table_number: int
    ) -> tuple[int | None, PlayerId | None]:
        """A table's next hand and who deals it; (None, None) when its segment has no more
        (what a judge's answer, the tables view and the table channel show)."""
        return seating.next_deal(self.format, self.rounds[round_number], segment, table_number)

    def clock_facts(self, round_number: int, segment: int, table_number: int) -> SegmentClockFacts:
        """Everything the clock rules need to know about one table's segment (rule CL-6)."""
        return clock_events.clock_facts(
            self.schedule, self.rounds[round_number], segment, table_number
        )

    def table_clocks(self, now: datetime) -> list[TableClock]:
        """Every table's clock in the round being played, at the server's time `now`
        (rule CL-6): for each table, the latest segment that has started by then (or its
        first one, not started yet)."""
        return clock_events.table_clocks(self.schedule, self.current_round, now)

    def current_segment(self, round_number: int, table_number: int) -> int | None:
        """The segment a table is playing, or is about to play, in a round (None when the
        round has not begun or the table has no seat in it)."""
        state = self.rounds.get(round_number)
        if state is None:
            return None
        return clock_events.current_segment(state, table_number)

    def with_table_state(self, event: HandRecorded) -> HandRecorded:
        """An Ari Ari hand with the dealer and counters it is played with filled in where
        the judge left them out, so the log records them and a replay checks them (rules
        AA-6, AA-8). Any other hand, or one the table cannot place yet, is returned as is:
        `apply` refuses what is wrong with it."""
        return hand_entry.fill_table_state(self.rounds.get(event.round), event)

    def unfinished_tables(self, round_number: int) -> list[UnfinishedTable]:
        """Every table of the round that has not played its segment out (rule AA-12 for
        an Ari Ari game): what a round end lists and asks the organizer to confirm."""
        return round_end.unfinished_tables(self.rounds[round_number])


def replay_events(events: Iterable[Event]) -> Tournament:
    """Fold events into a tournament; the first must declare it. Raises on the first bad one."""
    iterator = iter(events)
    first = next(iterator, None)
    if not isinstance(first, TournamentDeclared):
        raise MalformedInput(
            "CONTRACT §1", "type", say("the first line must be the tournament line")
        )
    tournament = Tournament(first)
    for event in iterator:
        tournament.apply(event)
    return tournament
